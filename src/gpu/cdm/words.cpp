// CDM stream words and USC words through the cmdstream tables (the one
// source of their bits: bminor/mesa-mesa src/asahi/genxml/cmdbuf.xml).
#include <fmt/format.h>

#include "gpu/cdm/cdm_internal.h"

namespace agx::gpu::detail {

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

// Every CDM struct has the Block Type field at the same bits; a Barrier
// (one word) reads it from the block's first word.
Result<cs::CdmBlockType> block_type(std::span<const uint8_t> word) {
  AGX_TRY(cs::CdmBarrier u, cs::unpack<cs::CdmBarrier>(word));
  switch (u.block_type) {
    case cs::CdmBlockType::kLaunch:
    case cs::CdmBlockType::kStreamLink:
    case cs::CdmBlockType::kStreamTerminate:
    case cs::CdmBlockType::kBarrier:
    case cs::CdmBlockType::kStreamReturn: return u.block_type;
  }
  const uint32_t raw = uint32_t(word[0]) | uint32_t(word[1]) << 8 | uint32_t(word[2]) << 16 | uint32_t(word[3]) << 24;
  return Error::decode("word 0x{:08x} has CDM Block Type {}, which names no block", raw,
                       static_cast<uint32_t>(u.block_type));
}

Result<LaunchCounts> launch_counts(const cs::CdmLaunchWord0& w) {
  LaunchCounts counts;
  counts.uniform_halves = static_cast<uint32_t>(w.uniform_register_count);
  counts.texture_states = static_cast<uint32_t>(w.texture_state_register_count);
  counts.preshader_halves = static_cast<uint32_t>(w.preshader_register_count);
  switch (w.sampler_state_register_count) {
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
      return Error::decode("CDM Launch Word 0: Sampler state register count {} names no count",
                           static_cast<uint32_t>(w.sampler_state_register_count));
  }
  switch (w.mode) {
    case cs::CdmMode::kDirect:
    case cs::CdmMode::kIndirectGlobal:
    case cs::CdmMode::kIndirectLocal: break;
    default: return Error::decode("CDM Launch Word 0: Mode {} names no mode", static_cast<uint32_t>(w.mode));
  }
  return counts;
}

Result<size_t> usc_word_length(uint8_t tag) {
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
      return Error::unsupported("Fragment Properties belongs to fragment shaders, not a compute launch");
  }
  return Error::decode("tag 0x{:02x} names no USC Control word", tag);
}

}  // namespace agx::gpu::detail
