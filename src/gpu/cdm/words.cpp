// CDM stream words and USC words through the cmdstream tables (the one
// source of their bits: bminor/mesa-mesa src/asahi/genxml/cmdbuf.xml). A
// word with bits no field covers, or an exact field (Block Type, Tag)
// holding anything else, is a bad word: the hardware would not know it.
#include <fmt/format.h>

#include "cmdstream/typed.h"
#include "gpu/cdm/cdm_internal.h"

namespace agx::gpu::detail {

namespace cs = cmdstream;

namespace {

// The struct's bytes that no field covers must be zero, exact fields must
// hold their value; then the typed unpack.
template <class T>
Result<T> read(const uint8_t* b) {
  const cs::StructDesc& d = cs::desc_of<T>();
  std::span<const uint8_t> bytes(b, T::kSize_B);
  static const std::vector<uint8_t> covered = cs::covered_bits(d);
  for (size_t i = 0; i < bytes.size(); ++i)
    if (uint8_t extra = bytes[i] & ~covered[i])
      return Error::decode("{}: bits 0x{:02x} of byte {} are set but no field covers them", d.name, extra, i);
  cs::Words w{};
  cs::load_words(d, bytes, w);
  for (const cs::FieldDesc& f : d.fields) {
    if (!f.exact) continue;
    uint64_t v = cs::decode_field(f, cs::get_raw(w.data(), f.start, f.size));
    if (v != f.exact_value) return Error::decode("{}: {} is 0x{:x}, not 0x{:x}", d.name, f.name, v, f.exact_value);
  }
  return cs::unpack<T>(bytes);
}

}  // namespace

const Lengths& lengths() {
  static const Lengths l{
      cs::CdmLaunchWord0::kSize_B,  cs::CdmLaunchWord1::kSize_B,     cs::CdmIndirect::kSize_B,
      cs::CdmGlobalSize::kSize_B,   cs::CdmLocalSize::kSize_B,       cs::CdmBarrier::kSize_B,
      cs::CdmStreamLink::kSize_B,   cs::CdmStreamTerminate::kSize_B, cs::CdmStreamReturn::kSize_B,
      cs::UscUniform::kSize_B,      cs::UscUniformHigh::kSize_B,     cs::UscTexture::kSize_B,
      cs::UscSampler::kSize_B,      cs::UscShared::kSize_B,          cs::UscShader::kSize_B,
      cs::UscRegisters::kSize_B,    cs::UscPreshader::kSize_B,       cs::UscNoPreshader::kSize_B,
  };
  return l;
}

// Every CDM struct has the Block Type field at the same bits; a Barrier
// (one word) reads it from the block's first word.
Result<CdmBlock> block_type(const uint8_t* word) {
  auto u = cs::unpack<cs::CdmBarrier>(std::span<const uint8_t>(word, cs::CdmBarrier::kSize_B));
  if (!u) return std::move(u).error();
  switch (u->block_type) {
    case cs::CdmBlockType::kLaunch: return CdmBlock::launch;
    case cs::CdmBlockType::kStreamLink: return CdmBlock::stream_link;
    case cs::CdmBlockType::kStreamTerminate: return CdmBlock::stream_terminate;
    case cs::CdmBlockType::kBarrier: return CdmBlock::barrier;
    case cs::CdmBlockType::kStreamReturn: return CdmBlock::stream_return;
  }
  uint32_t raw = uint32_t(word[0]) | uint32_t(word[1]) << 8 | uint32_t(word[2]) << 16 | uint32_t(word[3]) << 24;
  return Error::decode("word 0x{:08x} has CDM Block Type {}, which names no block", raw,
                       static_cast<uint32_t>(u->block_type));
}

Status unpack_launch_word0(const uint8_t* b, LaunchCounts& counts, GridMode& mode) {
  AGX_TRY(auto w, read<cs::CdmLaunchWord0>(b));
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
    case cs::CdmMode::kDirect: mode = GridMode::direct; break;
    case cs::CdmMode::kIndirectGlobal: mode = GridMode::indirect_global; break;
    case cs::CdmMode::kIndirectLocal: mode = GridMode::indirect_local; break;
    default: return Error::decode("CDM Launch Word 0: Mode {} names no mode", static_cast<uint32_t>(w.mode));
  }
  return {};
}

Result<uint32_t> unpack_launch_word1(const uint8_t* b) {
  AGX_TRY(auto w, read<cs::CdmLaunchWord1>(b));
  return static_cast<uint32_t>(w.pipeline);
}

Result<GpuVa> unpack_indirect(const uint8_t* b) {
  AGX_TRY(auto w, read<cs::CdmIndirect>(b));
  return (w.address_hi << 32) | w.address_lo;
}

Result<std::array<uint32_t, 3>> unpack_global_size(const uint8_t* b) {
  AGX_TRY(auto w, read<cs::CdmGlobalSize>(b));
  return std::array<uint32_t, 3>{uint32_t(w.x), uint32_t(w.y), uint32_t(w.z)};
}

Result<std::array<uint32_t, 3>> unpack_local_size(const uint8_t* b) {
  AGX_TRY(auto w, read<cs::CdmLocalSize>(b));
  return std::array<uint32_t, 3>{uint32_t(w.x), uint32_t(w.y), uint32_t(w.z)};
}

Result<bool> unpack_barrier(const uint8_t* b) {
  AGX_TRY(auto w, read<cs::CdmBarrier>(b));
  return w.returns;
}

Result<StreamLink> unpack_stream_link(const uint8_t* b) {
  AGX_TRY(auto w, read<cs::CdmStreamLink>(b));
  return StreamLink{(w.target_hi << 32) | w.target_lo, w.with_return};
}

Status unpack_stream_terminate(const uint8_t* b) {
  auto w = read<cs::CdmStreamTerminate>(b);
  if (!w) return std::move(w).error();
  return {};
}

Status unpack_stream_return(const uint8_t* b) {
  auto w = read<cs::CdmStreamReturn>(b);
  if (!w) return std::move(w).error();
  return {};
}

Result<UscWordKind> usc_word_kind(uint8_t tag) {
  switch (static_cast<cs::UscControl>(tag)) {
    case cs::UscControl::kUniform: return UscWordKind::uniform;
    case cs::UscControl::kUniformHigh: return UscWordKind::uniform_high;
    case cs::UscControl::kTexture: return UscWordKind::texture;
    case cs::UscControl::kSampler: return UscWordKind::sampler;
    case cs::UscControl::kShared: return UscWordKind::shared;
    case cs::UscControl::kShader: return UscWordKind::shader;
    case cs::UscControl::kRegisters: return UscWordKind::registers;
    case cs::UscControl::kPreshader: return UscWordKind::preshader;
    case cs::UscControl::kNoPreshader: return UscWordKind::no_preshader;
    case cs::UscControl::kFragmentProperties: return UscWordKind::fragment_properties;
  }
  return Error::decode("tag 0x{:02x} names no USC Control word", tag);
}

Result<UscWord> unpack_usc_word(UscWordKind kind, const uint8_t* b) {
  UscWord out;
  out.kind = kind;
  switch (kind) {
    case UscWordKind::uniform: {
      AGX_TRY(auto w, read<cs::UscUniform>(b));
      out.start = uint32_t(w.start_halfs);
      out.count = uint32_t(w.size_halfs);
      out.buffer = w.buffer;
      break;
    }
    case UscWordKind::uniform_high: {
      AGX_TRY(auto w, read<cs::UscUniformHigh>(b));
      out.start = uint32_t(w.start_halfs);
      out.count = uint32_t(w.size_halfs);
      out.buffer = w.buffer;
      break;
    }
    case UscWordKind::texture:
    case UscWordKind::sampler:
      return Error::invalid_argument("USC Texture / Sampler words are parsed by the texture unit (load_state_word)");
    case UscWordKind::shared: {
      AGX_TRY(auto w, read<cs::UscShared>(b));
      out.uses_shared = w.uses_shared_memory;
      out.shared_B = uint32_t(w.bytes_per_threadgroup);
      break;
    }
    case UscWordKind::shader: {
      AGX_TRY(auto w, read<cs::UscShader>(b));
      out.code = uint32_t(w.code);
      break;
    }
    case UscWordKind::registers: {
      AGX_TRY(auto w, read<cs::UscRegisters>(b));
      out.register_halves = uint32_t(w.register_count);
      out.spill_size = uint32_t(w.spill_size);
      break;
    }
    case UscWordKind::preshader: {
      AGX_TRY(auto w, read<cs::UscPreshader>(b));
      out.code = uint32_t(w.code);
      break;
    }
    case UscWordKind::no_preshader: {
      auto w = read<cs::UscNoPreshader>(b);
      if (!w) return std::move(w).error();
      break;
    }
    case UscWordKind::fragment_properties:
      return Error::unsupported("USC Fragment Properties in a compute launch");
  }
  return out;
}

}  // namespace agx::gpu::detail
