// A Launch's USC word list (cmdbuf.xml "USC state"): words in any order,
// ended by Preshader or No Preshader. Uniform words copy memory into the
// uniform file (in 16-bit halves; Uniform High addresses halves 256..511),
// Texture and Sampler words load state registers, Shared sizes threadgroup
// memory, Shader and Registers give the code and its GPR allocation.
#include <cstring>

#include <fmt/format.h>

#include "gpu/cdm/cdm_internal.h"

namespace agx::gpu::detail {

namespace {

constexpr size_t kMaxWordList_B = 4096;
constexpr uint32_t kUniformHalves = 2 * usc::kUniforms;

size_t word_length(UscWordKind k) {
  const Lengths& l = lengths();
  switch (k) {
    case UscWordKind::uniform: return l.uniform;
    case UscWordKind::uniform_high: return l.uniform_high;
    case UscWordKind::texture: return l.texture;
    case UscWordKind::sampler: return l.sampler;
    case UscWordKind::shared: return l.shared;
    case UscWordKind::shader: return l.shader;
    case UscWordKind::registers: return l.registers;
    case UscWordKind::preshader: return l.preshader;
    case UscWordKind::no_preshader: return l.no_preshader;
    case UscWordKind::fragment_properties: return 0;
  }
  return 0;
}

}  // namespace

Result<UscState> read_usc_words(GpuMemory& m, const kmd::FirmwareCommand& cmd, const LaunchBlock& block,
                                GpuFault* where) {
  UscState s;
  s.bindings.memory = &m;
  s.bindings.sampler_heap = cmd.compute->sampler_heap;
  s.bindings.sampler_count = cmd.compute->sampler_count;
  s.bindings.state.extended_samplers = block.counts.extended_samplers;
  s.bindings.state.texture_registers = block.counts.texture_states;
  s.bindings.state.sampler_registers = block.counts.sampler_states;
  GpuVa at = block.usc_words;
  uint8_t b[kMaxWord_B];
  auto bad = [&](Error e) {
    return fail(where, at, GpuUnit::cdm, Error(e.kind(), fmt::format("USC word at 0x{:x}: {}", at, e.message())));
  };
  while (true) {
    if (at - block.usc_words >= kMaxWordList_B)
      return fail(where, block.usc_words, GpuUnit::cdm,
                  Error::decode("the USC word list at 0x{:x} has no Preshader or No Preshader word in {} bytes",
                                block.usc_words, kMaxWordList_B));
    AGX_CHECK(read_gpu(m, at, b, 1, GpuUnit::cdm, where));
    auto kind = usc_word_kind(b[0]);
    if (!kind) return bad(std::move(kind).error());
    if (*kind == UscWordKind::fragment_properties)
      return bad(Error::unsupported("Fragment Properties belongs to fragment shaders, not a compute launch"));
    size_t n = word_length(*kind);
    AGX_CHECK(read_gpu(m, at, b, n, GpuUnit::cdm, where));
    if (*kind == UscWordKind::texture || *kind == UscWordKind::sampler) {
      // The texture unit's one parse of the word; descriptors are read now.
      GpuFault f;
      Status st = load_state_word(m, std::span<const uint8_t>(b, n), s.bindings.state, &f);
      if (!st) {
        if (st.error().kind() != ErrorKind::fault) return bad(std::move(st).error());
        return fail(where, f.va, GpuUnit::cdm,
                    Error::fault("USC word at 0x{:x}: {}", at, st.error().message()));
      }
      at += n;
      continue;
    }
    auto word = unpack_usc_word(*kind, b);
    if (!word) return bad(std::move(word).error());
    const UscWord& w = *word;
    switch (w.kind) {
      case UscWordKind::uniform:
      case UscWordKind::uniform_high: {
        uint32_t first = w.start + (w.kind == UscWordKind::uniform_high ? 256 : 0);
        if (first + w.count > kUniformHalves)
          return bad(Error::decode("uniform halves {}..{} are outside the {} of the uniform file", first,
                                   first + w.count - 1, kUniformHalves));
        uint8_t* file = reinterpret_cast<uint8_t*>(s.uniforms.data());  // little-endian halves
        AGX_CHECK(read_gpu(m, w.buffer, file + 2 * first, 2 * size_t{w.count}, GpuUnit::cdm, where));
        break;
      }
      case UscWordKind::texture:
      case UscWordKind::sampler:
        break;  // loaded above
      case UscWordKind::shared:
        s.uses_shared = w.uses_shared;
        s.shared_B = w.shared_B;
        break;
      case UscWordKind::shader:
        s.has_shader = true;
        s.code = cmd.usc_exec_base + w.code;
        break;
      case UscWordKind::registers:
        s.has_registers = true;
        s.register_halves = w.register_halves;
        // Mesa's scratch bucket: up to 8 << (b - 1) 32-bit words per thread.
        s.stack_per_thread_B = w.spill_size ? 32u << (w.spill_size - 1) : 0;
        s.spill_bucket = w.spill_size;
        break;
      case UscWordKind::preshader:
        s.has_preshader = true;
        s.preshader = cmd.usc_exec_base + w.code;
        return s;
      case UscWordKind::no_preshader:
        return s;
      case UscWordKind::fragment_properties:
        break;
    }
    at += n;
  }
}

}  // namespace agx::gpu::detail
