// Running a compiled kernel with the texture unit attached (the image
// tests): the texel-fetch sampler, a one-threadgroup dispatch writing to
// resource 0, and the run through gpu::TextureHook with the states the
// test mapped.
#pragma once

#include <cstring>
#include <vector>

#include "cmdstream/cmdstream.h"
#include "compiler/tests/run_helpers.h"
#include "gpu/texture/texture.h"
#include "layout/layout.h"

namespace agx::compiler::test {

// The fields the Texture and PBE descriptors share, filled alike for a
// GPU-tiled layout (the cmdstream tables name them the same).
template <class D>
D image_fields(const layout::Layout& l, cmdstream::TextureDimension dim) {
  D d;
  d.dimension = dim;
  d.layout = cmdstream::Layout::kGpu;
  d.channels = l.format().channels;
  d.type = l.format().type;
  d.swizzle_r = cmdstream::Channel::kR;
  d.swizzle_g = cmdstream::Channel::kG;
  d.swizzle_b = cmdstream::Channel::kB;
  d.swizzle_a = cmdstream::Channel::kA;
  d.width = l.request.width_px;
  d.height = l.request.height_px;
  d.mode = cmdstream::ImageMode::kNormal;
  d.page_aligned_layers = l.page_aligned_layers;
  return d;
}

// Writes the nearest, clamp-to-border sampler texel fetches use
// (Abi::txf_sampler_state) into a sampler-state array, when the shader
// has one.
inline void put_txf_sampler(const Abi& abi, std::vector<uint8_t>& samplers) {
  if (abi.txf_sampler_state == UINT32_MAX) return;
  cmdstream::Sampler txf;
  txf.wrap_s = txf.wrap_t = txf.wrap_r = cmdstream::Wrap::kClampToBorder;
  auto words = *cmdstream::pack(txf);
  std::memcpy(samplers.data() + 8 * abi.txf_sampler_state, words.data(), 8);
}

// One threadgroup of the shader's size whose resource 0 is `out`.
inline usc::Dispatch dispatch_to(const Abi& abi, GpuVa out) {
  usc::Dispatch d;
  d.threads_per_threadgroup = abi.workgroup_size;
  d.threadgroup_memory_B = 16;
  d.uniforms[abi.resources[0].uniform] = uint32_t(out);
  d.uniforms[abi.resources[0].uniform + 1] = uint32_t(out >> 32);
  return d;
}

// The preamble as the CDM runs the USC Preshader (docs/gpu.md): once, as
// one SIMD group with only lane 0 active, on the dispatch's uniform file;
// the uniform file it leaves at `stop` is what the dispatch starts with.
// (The image tests map their images and states at fixed addresses in a
// RegionMemory of their own, so they dispatch on the usc emulator with the
// texture hook rather than through the runtime and the CDM.)
inline Status run_preamble(const Shader& shader, std::array<uint32_t, usc::kUniforms>& uniforms, GpuMemory& mem) {
  if (shader.preamble.empty()) return {};
  AGX_TRY(auto program, usc::compile(shader.preamble, 0));
  auto core = std::make_unique<usc::Core>();
  usc::place(*core, usc::Placement{});
  core->exec = core->present = 1;
  core->u = uniforms;
  std::vector<uint8_t> shared(16);
  usc::Memories m{&mem, &shared, nullptr, 0};
  AGX_TRY(auto stop, usc::run(program, *core, m, usc::RunOptions{}));
  if (stop != usc::StopReason::finished) return Error::invalid_argument("the preamble stopped at a barrier");
  uniforms = core->u;
  return {};
}

// Runs the preamble and the shader with the texture and sampler states
// at `states` / `samplers` (`state_count` / `sampler_count` of them), then
// reads `vec4s` vec4s back from `out`; empty when something failed (the
// failure is reported).
inline std::vector<float> run_with_textures(const Shader& shader, usc::Dispatch& d, usc::RegionMemory& mem, GpuVa states,
                                            uint32_t state_count, GpuVa samplers, uint32_t sampler_count, GpuVa out,
                                            size_t vec4s) {
  gpu::TextureState ts;
  EXPECT_TRUE(gpu::load_states(mem, {gpu::StateKind::texture, 0, state_count, states}, ts).ok());
  EXPECT_TRUE(gpu::load_states(mem, {gpu::StateKind::sampler, 0, sampler_count, samplers}, ts).ok());
  gpu::TextureHook hook(mem, ts);
  EXPECT_TRUE(run_preamble(shader, d.uniforms, mem).ok());
  auto program = usc::compile(shader.code, 0);
  EXPECT_TRUE(program.ok()) << program.error().message();
  if (!program.ok()) return {};
  auto st = usc::dispatch(*program, d, mem, usc::RunOptions{}, &hook);
  EXPECT_TRUE(st.ok()) << st.error().message();
  if (!st.ok()) return {};
  std::vector<float> v(vec4s * 4);
  GpuFault fault;
  EXPECT_TRUE(mem.read(out, v.data(), v.size() * 4, GpuUnit::usc, &fault));
  return v;
}

}  // namespace agx::compiler::test
