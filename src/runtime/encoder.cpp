#include "runtime/encoder.h"
#include "runtime/hardware.h"

#include <cstring>

#include "cmdstream/cmdstream.h"
#include "isa/isa.h"

namespace agx::runtime {

namespace cs = agx::cmdstream;

namespace {

using hw::kMaxUniforms;
constexpr uint32_t kUniformsPerWord = 32;         // Size (halfs): 6 bits of groups of 1 half = 64 halves
constexpr uint32_t kLowUniforms = 128;            // Uniform: halves 0..255; Uniform High: 256..511
constexpr uint32_t kMaxThreads = kMaxThreadsPerThreadgroup;
using hw::kMaxRegisterHalves;
using hw::kTextureState_B;
using hw::kSamplerState_B;
constexpr uint32_t kExtendedSamplerState_B = 24;  // Sampler + Border (extended states)
constexpr uint32_t kMaxTextureStates = 256;       // Launch Word 0: 5 bits in groups of 8
constexpr uint32_t kMaxSamplerStates = 16;        // Launch Word 0: "16 compact"
constexpr uint32_t kStatesPerWord = 127;          // USC Texture / Sampler Count: 7 bits

Status check(const LaunchDesc& l) {
  if (l.code.empty()) return Error::invalid_argument("launch: no code");
  if (l.push_memory)
    return Error::invalid_argument("launch: a push constant block in memory is placed by encode_launch (it makes the buffer)");
  if (l.uniforms.size() > kMaxUniforms)
    return Error::limit("launch: {} uniform registers (at most {})", l.uniforms.size(), kMaxUniforms);
  uint64_t threads = uint64_t(l.local[0]) * l.local[1] * l.local[2];
  if (threads == 0 || threads > kMaxThreads)
    return Error::limit("launch: {}x{}x{} threads per threadgroup (1..{})", l.local[0], l.local[1], l.local[2],
                        kMaxThreads);
  for (int i = 0; i < 3; ++i) {
    if (uint64_t(l.groups[i]) * l.local[i] > UINT32_MAX)
      return Error::limit("launch: global size of axis {} does not fit 32 bits", i);
  }
  if (l.threadgroup_memory_B > kMaxThreadgroupMemory_B)
    return Error::limit("launch: {} bytes of threadgroup memory (at most {})", l.threadgroup_memory_B,
                        kMaxThreadgroupMemory_B);
  if (l.register_halves == 0 || l.register_halves > kMaxRegisterHalves)
    return Error::limit("launch: {} register halves (1..{})", l.register_halves, kMaxRegisterHalves);
  if (!l.preamble.empty() && (l.preamble_register_halves == 0 || l.preamble_register_halves > kMaxRegisterHalves))
    return Error::limit("launch: the preamble uses {} register halves (1..{})", l.preamble_register_halves,
                        kMaxRegisterHalves);
  if (l.scratch_B > kMaxScratch_B)
    return Error::limit("launch: {} bytes of scratch per thread (at most {}, the largest spill size bucket)", l.scratch_B,
                        kMaxScratch_B);
  return check_state_descriptors(l.texture_states, l.sampler_states, l.extended_samplers, "launch");
}

uint32_t texture_states(const LaunchDesc& l) { return texture_state_count(l.texture_states); }
uint32_t sampler_states(const LaunchDesc& l) { return sampler_state_count(l.sampler_states, l.extended_samplers); }

// USC Texture / USC Sampler words loading `n` state registers from `va`.
template <class Word>
Status push_states(std::vector<uint8_t>& out, uint32_t n, uint64_t va, uint32_t size_B) {
  for (uint32_t first = 0; first < n; first += kStatesPerWord) {
    Word w;
    w.start = first;
    w.count = std::min(kStatesPerWord, n - first);
    w.buffer = va + uint64_t(first) * size_B;
    AGX_CHECK(push(out, w));
  }
  return {};
}

}  // namespace

Status check_state_descriptors(std::span<const uint8_t> textures, std::span<const uint8_t> samplers, bool extended,
                               std::string_view what) {
  if (textures.size() % kTextureState_B || textures.size() / kTextureState_B > kMaxTextureStates)
    return Error::limit("{}: {} bytes of texture state descriptors (24-byte descriptors, at most {})", what,
                        textures.size(), kMaxTextureStates);
  const uint32_t sampler_B = extended ? kExtendedSamplerState_B : kSamplerState_B;
  if (samplers.size() % sampler_B || samplers.size() / sampler_B > kMaxSamplerStates)
    return Error::limit("{}: {} bytes of sampler state descriptors ({}-byte descriptors, at most {})", what,
                        samplers.size(), sampler_B, kMaxSamplerStates);
  return {};
}

uint32_t texture_state_count(std::span<const uint8_t> textures) { return uint32_t(textures.size() / kTextureState_B); }
uint32_t sampler_state_count(std::span<const uint8_t> samplers, bool extended) {
  return uint32_t(samplers.size() / (extended ? kExtendedSamplerState_B : kSamplerState_B));
}

// bminor/mesa-mesa src/asahi/lib/agx_helpers.h agx_translate_sampler_state_count.
cs::SamplerStates sampler_state_count(uint32_t n, bool extended) {
  if (n == 0) return cs::SamplerStates::k0;
  if (extended) return n <= 8 ? cs::SamplerStates::k8Extended : cs::SamplerStates::k16Extended;
  if (n <= 4) return cs::SamplerStates::k4Compact;
  if (n <= 8) return cs::SamplerStates::k8Compact;
  if (n <= 12) return cs::SamplerStates::k12Compact;
  return cs::SamplerStates::k16Compact;
}

LaunchDesc shader_launch(const compiler::Shader& shader, std::array<uint32_t, 3> groups) {
  LaunchDesc l;
  l.code = shader.code;
  l.register_halves = shader.stats.gprs;
  l.preamble = shader.preamble;
  l.preamble_register_halves = shader.stats.preamble_gprs;
  l.scratch_B = shader.stats.scratch_B;
  l.threadgroup_memory_B = shader.abi.threadgroup_memory_B;
  l.groups = groups;
  l.local = shader.abi.workgroup_size;
  l.push_memory = push_memory(shader.abi);
  return l;
}

uint32_t spill_size_bucket(uint32_t scratch_B) {
  if (scratch_B == 0) return 0;
  const uint32_t units = ((scratch_B + 3) / 4 + 7) / 8;  // 8-word units
  uint32_t log2_ceil = 0;
  while ((1u << log2_ceil) < units) ++log2_ceil;
  return std::min<uint32_t>(15, 1 + log2_ceil);
}

Result<std::vector<uint8_t>> pack_usc_words(const UscWordList& w) {
  std::vector<uint8_t> out;
  // Uniform words of at most 32 registers each, u0..u127 then u128..u255.
  for (uint32_t first = 0, count = 0; first < w.uniform_count; first += count) {
    count = std::min<uint32_t>(kUniformsPerWord, w.uniform_count - first);
    if (first < kLowUniforms && first + count > kLowUniforms) count = kLowUniforms - first;
    uint64_t buffer = w.uniforms_va + uint64_t(first) * 4;
    if (first < kLowUniforms) {
      cs::UscUniform u;
      u.start_halfs = first * 2;
      u.size_halfs = count * 2;
      u.buffer = buffer;
      AGX_CHECK(push(out, u));
    } else {
      cs::UscUniformHigh u;
      u.start_halfs = (first - kLowUniforms) * 2;
      u.size_halfs = count * 2;
      u.buffer = buffer;
      AGX_CHECK(push(out, u));
    }
  }
  AGX_CHECK(push_states<cs::UscTexture>(out, w.texture_count, w.textures_va, kTextureState_B));
  AGX_CHECK(push_states<cs::UscSampler>(out, w.sampler_count, w.samplers_va,
                                        w.extended_samplers ? kExtendedSamplerState_B : kSamplerState_B));
  // Without threadgroup memory Mesa still sizes the word at 65536 bytes
  // (bminor/mesa-mesa src/asahi/lib/agx_usc.h agx_usc_shared_none, and
  // agx_usc_shared's "size > 0 ? size : 65536").
  cs::UscShared shared;
  shared.uses_shared_memory = w.threadgroup_memory_B > 0;
  shared.layout = cs::SharedLayout::kVertexCompute;
  shared.bytes_per_threadgroup = w.threadgroup_memory_B > 0 ? w.threadgroup_memory_B : kMaxThreadgroupMemory_B;
  AGX_CHECK(push(out, w.tile_shared ? *w.tile_shared : shared));
  // Shader and Registers as Mesa's linker packs a linked shader's words
  // (bminor/mesa-mesa src/asahi/lib/agx_linker.c): Unk 2 = 3 for a
  // non-fragment shader ("fragment ? 2 : 3", also in
  // src/gallium/drivers/asahi/agx_state.c agx_build_pipeline), Registers
  // with Unk 1 = fragment (false), the scratch bucket and Unk 4 = 1.
  cs::UscShader shader;
  shader.code = w.code_usc;
  shader.unk_2 = 3;
  AGX_CHECK(push(out, shader));
  cs::UscRegisters regs;
  regs.register_count = w.register_halves;
  regs.spill_size = w.spill_bucket;
  regs.unk_4 = 1;
  AGX_CHECK(push(out, regs));
  // The list ends with the preamble's code (bminor/mesa-mesa
  // src/asahi/lib/agx_usc.h: agx_usc_pack Preshader) or No Preshader.
  if (w.preshader_usc) {
    cs::UscPreshader pre;
    pre.code = *w.preshader_usc;
    AGX_CHECK(push(out, pre));
  } else {
    AGX_CHECK(push(out, cs::UscNoPreshader{}));
  }
  return out;
}

Result<std::vector<uint8_t>> pack_usc_words(const LaunchDesc& l, uint64_t code_usc, uint64_t uniforms_va,
                                            uint64_t textures_va, uint64_t samplers_va, uint64_t preamble_usc) {
  AGX_CHECK(check(l));
  UscWordList w;
  w.code_usc = uint32_t(code_usc);
  w.register_halves = l.register_halves;
  w.spill_bucket = spill_size_bucket(l.scratch_B);
  w.uniform_count = uint32_t(l.uniforms.size());
  w.uniforms_va = uniforms_va;
  w.texture_count = texture_states(l);
  w.textures_va = textures_va;
  w.sampler_count = sampler_states(l);
  w.samplers_va = samplers_va;
  w.extended_samplers = l.extended_samplers;
  w.threadgroup_memory_B = l.threadgroup_memory_B;
  if (!l.preamble.empty()) w.preshader_usc = uint32_t(preamble_usc);
  return pack_usc_words(w);
}

// The CDM launch Mesa emits (bminor/mesa-mesa src/asahi/libagx/libagx_dgc.h
// agx_cdm_launch): Word 0 with the mode, Word 1, Indirect or Global size,
// and Local size unless the mode is Indirect local.
Status push_cdm_launch(std::vector<uint8_t>& out, const CdmLaunch& l) {
  cs::CdmLaunchWord0 w0;
  w0.uniform_register_count = l.uniform_count * 2;  // in 16-bit halves
  w0.texture_state_register_count = l.texture_count;
  w0.sampler_state_register_count = sampler_state_count(l.sampler_count, l.extended_samplers);
  w0.preshader_register_count = l.preshader_register_halves;
  w0.mode = l.mode;
  AGX_CHECK(push(out, w0));
  cs::CdmLaunchWord1 w1;
  w1.pipeline = l.pipeline_usc;
  AGX_CHECK(push(out, w1));
  if (l.mode == cs::CdmMode::kDirect) {
    cs::CdmGlobalSize global;
    global.x = l.global_threads[0];
    global.y = l.global_threads[1];
    global.z = l.global_threads[2];
    AGX_CHECK(push(out, global));
  } else {
    cs::CdmIndirect ind;
    ind.address_hi = l.indirect >> 32;
    ind.address_lo = l.indirect & 0xFFFF'FFFFu;
    AGX_CHECK(push(out, ind));
  }
  if (l.mode != cs::CdmMode::kIndirectLocal) {
    cs::CdmLocalSize local;
    local.x = l.local[0];
    local.y = l.local[1];
    local.z = l.local[2];
    AGX_CHECK(push(out, local));
  }
  return {};
}

// Every cache bit Mesa sets after each launch of a G13G stream
// (bminor/mesa-mesa src/asahi/libagx/libagx_dgc.h agx_cdm_barrier: Unk 0..19
// with USC cache inval, "after every launch to be safe").
Status push_cdm_barrier(std::vector<uint8_t>& out) {
  cs::CdmBarrier b;
  b.unk_0 = b.unk_1 = b.unk_2 = b.usc_cache_inval = b.unk_4 = b.unk_5 = b.unk_6 = b.unk_7 = true;
  b.unk_8 = b.unk_9 = b.unk_10 = b.unk_11 = b.unk_12 = b.unk_13 = b.unk_14 = b.unk_15 = true;
  b.unk_16 = b.unk_17 = b.unk_18 = b.unk_19 = true;
  return push(out, b);
}

Status push_cdm_terminate(std::vector<uint8_t>& out) { return push(out, cs::CdmStreamTerminate{}); }
Status push_vdm_terminate(std::vector<uint8_t>& out) { return push(out, cs::VdmStreamTerminate{}); }

Result<std::vector<uint8_t>> pack_cdm_launch(const LaunchDesc& l, uint64_t pipeline_usc) {
  AGX_CHECK(check(l));
  CdmLaunch c;
  c.pipeline_usc = uint32_t(pipeline_usc);
  c.uniform_count = uint32_t(l.uniforms.size());
  c.texture_count = texture_states(l);
  c.sampler_count = sampler_states(l);
  c.extended_samplers = l.extended_samplers;
  c.preshader_register_halves = l.preamble.empty() ? 0 : l.preamble_register_halves;
  // Direct mode: the global size counts threads.
  for (int i = 0; i < 3; ++i) c.global_threads[i] = uint32_t(uint64_t(l.groups[i]) * l.local[i]);
  c.local = l.local;
  std::vector<uint8_t> out;
  AGX_CHECK(push_cdm_launch(out, c));
  AGX_CHECK(push_cdm_terminate(out));
  return out;
}

Result<EncodedLaunch> encode_launch(Device& device, const LaunchDesc& l) {
  if (l.push_memory) {  // the block in a buffer, the uniform file alone
    std::unique_ptr<Buffer> block;
    AGX_TRY(std::vector<uint32_t> file,
            place_push_memory(device, l.uniforms, *l.push_memory, &block, "launch: push constant block"));
    LaunchDesc placed = l;
    placed.uniforms = file;
    placed.push_memory.reset();
    AGX_TRY(EncodedLaunch e, encode_launch(device, placed));
    e.push_block = std::move(block);
    return e;
  }
  AGX_CHECK(check(l));
  EncodedLaunch e;
  // The Pipeline field holds a USC offset in 64-byte units; buffers are
  // page-aligned, and the code stays aligned too.
  AGX_TRY(e.code, device.create_buffer(l.code.size(), "shader code", /*usc=*/true));
  std::memcpy(e.code->host().data(), l.code.data(), l.code.size());
  uint64_t usc_base = device.va_layout().usc_base;
  uint64_t uniforms_va = 0;
  if (!l.uniforms.empty()) {
    AGX_TRY(e.uniforms, device.create_buffer(l.uniforms.size() * 4, "uniforms"));
    std::memcpy(e.uniforms->host().data(), l.uniforms.data(), l.uniforms.size() * 4);
    uniforms_va = e.uniforms->gpu_va();
  }
  auto upload = [&](std::span<const uint8_t> bytes, const char* label, std::unique_ptr<Buffer>& buf) -> Result<uint64_t> {
    if (bytes.empty()) return uint64_t{0};
    AGX_TRY(buf, device.create_buffer(bytes.size(), label));
    std::memcpy(buf->host().data(), bytes.data(), bytes.size());
    return buf->gpu_va();
  };
  AGX_TRY(uint64_t textures_va, upload(l.texture_states, "texture state descriptors", e.textures));
  AGX_TRY(uint64_t samplers_va, upload(l.sampler_states, "sampler state descriptors", e.samplers));
  uint64_t preamble_usc = 0;
  if (!l.preamble.empty()) {
    AGX_TRY(e.preamble, device.create_buffer(l.preamble.size(), "preamble code", /*usc=*/true));
    std::memcpy(e.preamble->host().data(), l.preamble.data(), l.preamble.size());
    preamble_usc = e.preamble->gpu_va() - usc_base;
  }
  AGX_TRY(auto words,
          pack_usc_words(l, e.code->gpu_va() - usc_base, uniforms_va, textures_va, samplers_va, preamble_usc));
  AGX_TRY(e.usc_words, device.create_buffer(words.size(), "USC word list", /*usc=*/true));
  std::memcpy(e.usc_words->host().data(), words.data(), words.size());
  AGX_TRY(auto stream, pack_cdm_launch(l, e.usc_words->gpu_va() - usc_base));
  AGX_TRY(e.stream, device.create_buffer(stream.size(), "CDM stream"));
  std::memcpy(e.stream->host().data(), stream.data(), stream.size());
  if (l.scratch_B) {
    AGX_TRY(auto h, create_helper_program(device, "helper program"));
    e.helper_code = std::move(h.code);
    e.helper_data = std::move(h.data);
    e.command.helper = h.program;
  }
  e.command.cdm_ctrl_stream_base = e.stream->gpu_va();
  e.command.cdm_ctrl_stream_end = e.stream->gpu_va() + stream.size();
  return e;
}

Result<HelperProgram> create_helper_program(Device& device, const std::string& label) {
  // The helper program the hardware runs when a SIMD group needing scratch
  // starts or ends (Mesa's libagx helper.cl): its instructions are not in
  // applegpu's table, so the code here is a lone `stop`, and the software
  // GPU does the helper's stack bookkeeping on the header itself
  // (docs/gpu.md, "Scratch and the helper program"). Mesa tags the address
  // with bit 0 (agx_helper_program: ptr | 1).
  HelperProgram h;
  AGX_TRY(auto stop, isa::assemble_program("stop"));
  AGX_TRY(h.code, device.create_buffer(stop.size(), label, /*usc=*/true));
  std::memcpy(h.code->host().data(), stop.data(), stop.size());
  AGX_TRY(h.data, device.create_buffer(kHelperHeader_B, label + " header (scratch)"));
  std::memset(h.data->host().data(), 0, kHelperHeader_B);
  const uint32_t subgroups = kHelperSubgroups;
  std::memcpy(h.data->host().data(), &subgroups, 4);  // little-endian u32
  h.program.binary = static_cast<uint32_t>(h.code->gpu_va() - device.va_layout().usc_base) | 1;
  h.program.data = h.data->gpu_va();
  return h;
}

}  // namespace agx::runtime
