// Packet words checked against the cmdstream tables (the one source of
// their bits: bminor/mesa-mesa src/asahi/genxml/cmdbuf.xml), the counts a
// shader block declares and the lengths of USC words.
#include <fmt/format.h>

#include "gpu/shader/shader.h"

namespace agx::gpu {

namespace cs = cmdstream;

Status check_covered(const cs::StructDesc& d, std::span<const uint8_t> covered, std::span<const uint8_t> bytes) {
  for (size_t i = 0; i < bytes.size(); ++i)
    if (uint8_t extra = bytes[i] & ~covered[i])
      return Error::decode("{}: bits 0x{:02x} of byte {} are set but no field covers them", d.name, extra, i);
  return {};
}

Status check_exact(const cs::StructDesc& d, std::span<const uint8_t> bytes) {
  cs::Words w{};
  cs::load_words(d, bytes, w);
  for (const cs::FieldDesc& f : d.fields) {
    if (!f.exact) continue;
    uint64_t v = cs::decode_field(f, cs::get_raw(w.data(), f.start, f.size));
    if (v != f.exact_value) return Error::decode("{}: {} is 0x{:x}, not 0x{:x}", d.name, f.name, v, f.exact_value);
  }
  return {};
}

Result<UscCounts> usc_counts(uint64_t uniform_halves, uint64_t texture_states, cs::SamplerStates samplers,
                             uint64_t preshader_halves, std::string_view word) {
  UscCounts counts;
  counts.uniform_halves = static_cast<uint32_t>(uniform_halves);
  counts.texture_states = static_cast<uint32_t>(texture_states);
  counts.preshader_halves = static_cast<uint32_t>(preshader_halves);
  switch (samplers) {
    case cs::SamplerStates::k0: counts.sampler_states = 0; break;
    case cs::SamplerStates::k4Compact: counts.sampler_states = 4; break;
    case cs::SamplerStates::k8Compact: counts.sampler_states = 8; break;
    case cs::SamplerStates::k12Compact: counts.sampler_states = 12; break;
    case cs::SamplerStates::k16Compact: counts.sampler_states = 16; break;
    case cs::SamplerStates::k8Extended:
      counts.sampler_states = 8;
      counts.extended_samplers = true;
      break;
    case cs::SamplerStates::k16Extended:
      counts.sampler_states = 16;
      counts.extended_samplers = true;
      break;
    default:
      return Error::decode("{}: Sampler state register count {} names no count", word,
                           static_cast<uint32_t>(samplers));
  }
  return counts;
}

Result<size_t> usc_word_length(uint8_t tag, bool fragment) {
  switch (static_cast<cs::UscControl>(tag)) {
    case cs::UscControl::kUniform: return size_t{cs::UscUniform::kSize_B};
    case cs::UscControl::kUniformHigh: return size_t{cs::UscUniformHigh::kSize_B};
    case cs::UscControl::kTexture: return size_t{cs::UscTexture::kSize_B};
    case cs::UscControl::kSampler: return size_t{cs::UscSampler::kSize_B};
    case cs::UscControl::kShared: return size_t{cs::UscShared::kSize_B};
    case cs::UscControl::kShader: return size_t{cs::UscShader::kSize_B};
    case cs::UscControl::kRegisters: return size_t{cs::UscRegisters::kSize_B};
    case cs::UscControl::kPreshader: return size_t{cs::UscPreshader::kSize_B};
    case cs::UscControl::kNoPreshader: return size_t{cs::UscNoPreshader::kSize_B};
    case cs::UscControl::kFragmentProperties:
      if (fragment) return size_t{cs::UscFragmentProperties::kSize_B};
      return Error::unsupported("Fragment Properties belongs to fragment shaders, not a compute launch");
  }
  return Error::decode("tag 0x{:02x} names no USC Control word", tag);
}

}  // namespace agx::gpu
