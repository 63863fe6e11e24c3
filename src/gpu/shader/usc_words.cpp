// A USC word list (cmdbuf.xml "USC state"): words in any order,
// ended by Preshader or No Preshader. Uniform words copy memory into the
// uniform file (in 16-bit halves; Uniform High addresses halves 256..511),
// Texture and Sampler words load state registers, Shared sizes threadgroup
// memory, Shader and Registers give the code and its GPR allocation.
#include <cstring>

#include <fmt/format.h>

#include "gpu/shader/shader.h"

namespace agx::gpu {

namespace cs = cmdstream;

namespace {

constexpr size_t kMaxWordList_B = 4096;
constexpr uint32_t kUniformHalves = 2 * usc::kUniforms;

}  // namespace

Result<UscState> read_usc_words(GpuMemory& m, const UscWordList& list, GpuFault* where) {
  UscState s;
  s.bindings.memory = &m;
  s.bindings.sampler_heap = list.sampler_heap;
  s.bindings.sampler_count = list.sampler_count;
  s.bindings.state.extended_samplers = list.counts.extended_samplers;
  s.bindings.state.texture_registers = list.counts.texture_states;
  s.bindings.state.sampler_registers = list.counts.sampler_states;
  GpuVa at = list.at;
  uint8_t b[16];
  auto bad = [&](Error e) {
    return fail(where, at, list.unit, Error(e.kind(), fmt::format("USC word at 0x{:x}: {}", at, e.message())));
  };
  const std::span<const uint8_t> word(b, sizeof b);
  while (true) {
    if (at - list.at >= kMaxWordList_B)
      return fail(where, list.at, list.unit,
                  Error::decode("the USC word list at 0x{:x} has no Preshader or No Preshader word in {} bytes",
                                list.at, kMaxWordList_B));
    AGX_CHECK(read_gpu(m, at, b, 1, list.unit, where));
    auto length = usc_word_length(b[0], list.fragment);
    if (!length) return bad(std::move(length).error());
    const size_t n = *length;
    AGX_CHECK(read_gpu(m, at, b, n, list.unit, where));
    switch (static_cast<cs::UscControl>(b[0])) {
      case cs::UscControl::kTexture:
      case cs::UscControl::kSampler: {
        // The texture unit's one parse of the word; descriptors are read now.
        GpuFault f;
        Status st = load_state_word(m, word.first(n), s.bindings.state, &f);
        if (!st) {
          if (st.error().kind() != ErrorKind::fault) return bad(std::move(st).error());
          return fail(where, f.va, list.unit, Error::fault("USC word at 0x{:x}: {}", at, st.error().message()));
        }
        break;
      }
      case cs::UscControl::kUniform:
      case cs::UscControl::kUniformHigh: {
        uint32_t first = 0, count = 0;
        GpuVa buffer = 0;
        if (b[0] == uint8_t(cs::UscControl::kUniform)) {
          auto w = read_word<cs::UscUniform>(word);
          if (!w) return bad(std::move(w).error());
          first = uint32_t(w->start_halfs), count = uint32_t(w->size_halfs), buffer = w->buffer;
        } else {
          auto w = read_word<cs::UscUniformHigh>(word);
          if (!w) return bad(std::move(w).error());
          first = 256 + uint32_t(w->start_halfs), count = uint32_t(w->size_halfs), buffer = w->buffer;
        }
        if (first + count > kUniformHalves)
          return bad(Error::decode("uniform halves {}..{} are outside the {} of the uniform file", first,
                                   first + count - 1, kUniformHalves));
        uint8_t* file = reinterpret_cast<uint8_t*>(s.uniforms.data());  // little-endian halves
        AGX_CHECK(read_gpu(m, buffer, file + 2 * first, 2 * size_t{count}, list.unit, where));
        break;
      }
      case cs::UscControl::kShared: {
        auto w = read_word<cs::UscShared>(word);
        if (!w) return bad(std::move(w).error());
        s.uses_shared = w->uses_shared_memory;
        s.shared_B = uint32_t(w->bytes_per_threadgroup);
        s.shared_layout = w->layout;
        s.shared_samples = uint32_t(w->sample_count);
        s.shared_sample_stride_B = 8 * uint32_t(w->sample_stride_in_8_bytes);
        break;
      }
      case cs::UscControl::kShader: {
        auto w = read_word<cs::UscShader>(word);
        if (!w) return bad(std::move(w).error());
        s.has_shader = true;
        s.code = list.usc_exec_base + w->code;
        s.loads_varyings = w->loads_varyings;
        break;
      }
      case cs::UscControl::kRegisters: {
        auto w = read_word<cs::UscRegisters>(word);
        if (!w) return bad(std::move(w).error());
        s.has_registers = true;
        s.register_halves = uint32_t(w->register_count);
        // Mesa's scratch bucket: up to 8 << (b - 1) 32-bit words per thread.
        s.spill_bucket = uint32_t(w->spill_size);
        s.stack_per_thread_B = s.spill_bucket ? 32u << (s.spill_bucket - 1) : 0;
        break;
      }
      case cs::UscControl::kPreshader: {
        auto w = read_word<cs::UscPreshader>(word);
        if (!w) return bad(std::move(w).error());
        s.has_preshader = true;
        s.preshader = list.usc_exec_base + w->code;
        return s;
      }
      case cs::UscControl::kNoPreshader: {
        auto w = read_word<cs::UscNoPreshader>(word);
        if (!w) return bad(std::move(w).error());
        return s;
      }
      case cs::UscControl::kFragmentProperties: {  // only where usc_word_length allowed it
        auto w = read_word<cs::UscFragmentProperties>(word);
        if (!w) return bad(std::move(w).error());
        s.has_fragment_properties = true;
        s.fragment_properties = *w;
        break;
      }
    }
    at += n;
  }
}

}  // namespace agx::gpu
