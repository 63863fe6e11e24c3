// Compiled image code run on the usc emulator with the gpu unit's texture
// unit and PBE attached: descriptors in the texture / sampler state
// registers the ABI names (docs/compiler.md "Images and samplers"),
// packed with the cmdstream tables.
#include <gtest/gtest.h>

#include <bit>
#include <cstring>

#include "cmdstream/cmdstream.h"
#include "gpu/texture.h"
#include "layout/layout.h"
#include "run_helpers.h"

namespace agx::compiler::test {
namespace {

namespace cs = agx::cmdstream;

constexpr GpuVa kImage = 0x20'0000'0000ull, kStates = 0x30'0000'0000ull, kSamplers = 0x31'0000'0000ull;

std::vector<uint8_t> texture_words(const layout::Layout& l, GpuVa va) {
  cs::Texture t;
  t.dimension = cs::TextureDimension::k2D;
  t.layout = cs::Layout::kGpu;
  t.channels = l.format().channels;
  t.type = l.format().type;
  t.swizzle_r = cs::Channel::kR;
  t.swizzle_g = cs::Channel::kG;
  t.swizzle_b = cs::Channel::kB;
  t.swizzle_a = cs::Channel::kA;
  t.width = l.request.width_px;
  t.height = l.request.height_px;
  t.address = va;
  t.mode = cs::ImageMode::kNormal;
  t.depth = 1;
  return *cs::pack(t);
}

std::vector<uint8_t> pbe_words(const layout::Layout& l, GpuVa va) {
  cs::Pbe p;
  p.dimension = cs::TextureDimension::k2D;
  p.layout = cs::Layout::kGpu;
  p.channels = l.format().channels;
  p.type = l.format().type;
  p.swizzle_r = cs::Channel::kR;
  p.swizzle_g = cs::Channel::kG;
  p.swizzle_b = cs::Channel::kB;
  p.swizzle_a = cs::Channel::kA;
  p.width = l.request.width_px;
  p.height = l.request.height_px;
  p.mode = cs::ImageMode::kNormal;
  p.buffer = va;
  p.levels = 1;
  p.layers = 1;
  return *cs::pack(p);
}

// Every invocation of an 8x4 grid stores (x, y, x * y, -1) to its texel
// of an RGBA32F image, then (after the barrier) loads the texel mirrored
// through the centre into a buffer.
TEST(ImageExec, StoreThenLoadThroughTheTextureUnit) {
  auto shader = compile(R"(#version 450
layout(local_size_x = 8, local_size_y = 4) in;
layout(set = 0, binding = 0, rgba32f) uniform image2D img;
layout(set = 0, binding = 1) buffer B { vec4 v[]; };
void main() {
  ivec2 p = ivec2(gl_GlobalInvocationID.xy);
  imageStore(img, p, vec4(p.x, p.y, p.x * p.y, -1.0));
  memoryBarrierImage();
  barrier();
  v[p.y * 8 + p.x] = imageLoad(img, ivec2(7, 3) - p);
}
)");
  ASSERT_TRUE(shader.ok()) << shader.error().message();
  const Abi& abi = shader->abi;
  ASSERT_EQ(abi.images.size(), 1u);
  EXPECT_EQ(abi.images[0].texture_state, 0u);
  EXPECT_EQ(abi.images[0].pbe_state, 1u);
  ASSERT_NE(abi.txf_sampler_state, UINT32_MAX);

  layout::Request r;
  r.format = format::Format::R32G32B32A32_FLOAT;
  r.width_px = 8;
  r.height_px = 4;
  r.tiling = layout::Tiling::gpu;
  r.writeable_image = true;
  auto l = layout::make_layout(r);
  ASSERT_TRUE(l.ok());
  usc::RegionMemory mem;
  ASSERT_TRUE(mem.map(kImage, std::vector<uint8_t>(l->size_B, 0)).ok());
  std::vector<uint8_t> states = texture_words(*l, kImage);
  auto pbe = pbe_words(*l, kImage);
  states.insert(states.end(), pbe.begin(), pbe.end());
  ASSERT_TRUE(mem.map(kStates, states).ok());
  cs::Sampler txf;
  txf.wrap_s = txf.wrap_t = txf.wrap_r = cs::Wrap::kClampToBorder;
  std::vector<uint8_t> samplers(8 * abi.sampler_state_count, 0);
  auto sw = *cs::pack(txf);
  std::memcpy(samplers.data() + 8 * abi.txf_sampler_state, sw.data(), 8);
  ASSERT_TRUE(mem.map(kSamplers, samplers).ok());

  const uint64_t out = kBufferBase;
  ASSERT_TRUE(mem.map(out, std::vector<uint8_t>(32 * 16, 0)).ok());
  usc::Dispatch d;
  d.threads_per_threadgroup = abi.workgroup_size;
  d.threadgroup_memory_B = 16;
  ASSERT_EQ(abi.resources.size(), 1u);
  d.uniforms[abi.resources[0].uniform] = uint32_t(out);
  d.uniforms[abi.resources[0].uniform + 1] = uint32_t(out >> 32);
  gpu::TextureState ts;
  ts.textures.push_back({0, abi.texture_state_count, kStates});
  ts.samplers.push_back({0, abi.sampler_state_count, kSamplers});
  gpu::TextureHook hook(mem, ts);
  auto program = usc::compile(shader->code, 0);
  ASSERT_TRUE(program.ok()) << program.error().message();
  auto st = usc::dispatch(*program, d, mem, usc::RunOptions{}, &hook);
  ASSERT_TRUE(st.ok()) << st.error().message();
  std::vector<float> v(32 * 4);
  GpuFault fault;
  ASSERT_TRUE(mem.read(out, v.data(), v.size() * 4, GpuUnit::usc, &fault));
  for (int y = 0; y < 4; ++y)
    for (int x = 0; x < 8; ++x) {
      const int mx = 7 - x, my = 3 - y;
      const float* got = &v[size_t(y * 8 + x) * 4];
      EXPECT_EQ(got[0], float(mx)) << x << "," << y;
      EXPECT_EQ(got[1], float(my)) << x << "," << y;
      EXPECT_EQ(got[2], float(mx * my)) << x << "," << y;
      EXPECT_EQ(got[3], -1.0f) << x << "," << y;
    }
}

}  // namespace
}  // namespace agx::compiler::test
