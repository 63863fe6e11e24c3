// Compiled image code run on the usc emulator with the gpu unit's texture
// unit and PBE attached: descriptors in the texture / sampler state
// registers the ABI names (docs/compiler.md "Images and samplers"),
// packed with the cmdstream tables.
#include <gtest/gtest.h>

#include <bit>
#include <cstring>

#include "cmdstream/cmdstream.h"
#include "gpu/texture/texture.h"
#include "layout/layout.h"
#include "compiler/tests/texture_dispatch.h"
#include "run_helpers.h"

namespace agx::compiler::test {
namespace AGX_UNITY_ID {

namespace cs = agx::cmdstream;


std::vector<uint8_t> texture_words(const layout::Layout& l, GpuVa va, cs::TextureDimension dim) {
  auto t = image_fields<cs::Texture>(l, dim);
  t.address = va;
  t.depth = l.request.depth_px;
  return *cs::pack(t);
}

std::vector<uint8_t> pbe_words(const layout::Layout& l, GpuVa va, cs::TextureDimension dim) {
  auto p = image_fields<cs::Pbe>(l, dim);
  p.buffer = va;
  p.levels = 1;
  p.layers = l.request.depth_px;
  return *cs::pack(p);
}

// Runs `shader` (one threadgroup) with an RGBA32F GPU-tiled image of
// w x h x depth bound as storage image 0 and an output buffer of `texels`
// vec4s as resource 0; returns the buffer.
std::vector<float> run(const Shader& shader, uint32_t w, uint32_t h, uint32_t depth, cs::TextureDimension dim,
                       uint32_t texels) {
  const Abi& abi = shader.abi;
  EXPECT_EQ(abi.images.size(), 1u);
  EXPECT_NE(abi.txf_sampler_state, UINT32_MAX);
  EXPECT_EQ(abi.resources.size(), 1u);
  if (abi.images.size() != 1 || abi.txf_sampler_state == UINT32_MAX || abi.resources.size() != 1) return {};
  layout::Request r;
  r.format = format::Format::R32G32B32A32_FLOAT;
  r.width_px = w;
  r.height_px = h;
  r.depth_px = depth;
  r.tiling = layout::Tiling::gpu;
  r.writeable_image = true;
  auto l = layout::make_layout(r);
  EXPECT_TRUE(l.ok());
  if (!l.ok()) return {};
  TextureRun job(shader);
  const GpuVa image = job.add_image(std::vector<uint8_t>(l->size_B, 0));
  std::vector<uint8_t> states(24 * abi.texture_state_count, 0);
  auto tex = texture_words(*l, image, dim), pbe = pbe_words(*l, image, dim);
  std::memcpy(states.data() + 24 * abi.images[0].texture_state, tex.data(), 24);
  std::memcpy(states.data() + 24 * abi.images[0].pbe_state, pbe.data(), 24);
  std::vector<uint8_t> samplers(8 * abi.sampler_state_count, 0);
  put_txf_sampler(abi, samplers);
  return job.run(states, samplers, texels);
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
  ASSERT_EQ(shader->abi.images.size(), 1u);
  EXPECT_EQ(shader->abi.images[0].texture_state, 0u);
  EXPECT_EQ(shader->abi.images[0].pbe_state, 1u);

  auto v = run(*shader, 8, 4, 1, cs::TextureDimension::k2D, 32);
  ASSERT_EQ(v.size(), 32u * 4);
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

// A 2D array: the layer rides in the 16-bit half after x and y. Each
// invocation of a 4x2x3 grid stores to its texel of its layer, then reads
// the texel of the next layer (wrapping).
TEST(ImageExec, ArrayLayersInTheCoordinates) {
  auto shader = compile(R"(#version 450
layout(local_size_x = 4, local_size_y = 2, local_size_z = 3) in;
layout(set = 0, binding = 0, rgba32f) uniform image2DArray img;
layout(set = 0, binding = 1) buffer B { vec4 v[]; };
void main() {
  ivec3 p = ivec3(gl_GlobalInvocationID);
  imageStore(img, p, vec4(p, 7.0));
  memoryBarrierImage();
  barrier();
  v[(p.z * 2 + p.y) * 4 + p.x] = imageLoad(img, ivec3(p.xy, (p.z + 1) % 3));
}
)");
  ASSERT_TRUE(shader.ok()) << shader.error().message();
  EXPECT_EQ(shader->abi.images[0].dim, ImageDim::d2_array);
  auto v = run(*shader, 4, 2, 3, cs::TextureDimension::k2DArray, 24);
  ASSERT_EQ(v.size(), 24u * 4);
  for (int z = 0; z < 3; ++z)
    for (int y = 0; y < 2; ++y)
      for (int x = 0; x < 4; ++x) {
        const float* got = &v[size_t((z * 2 + y) * 4 + x) * 4];
        EXPECT_EQ(got[0], float(x));
        EXPECT_EQ(got[1], float(y));
        EXPECT_EQ(got[2], float((z + 1) % 3)) << x << "," << y << "," << z;
        EXPECT_EQ(got[3], 7.0f);
      }
}

// A 3D image: three 32-bit coordinates.
TEST(ImageExec, VolumeSlices) {
  auto shader = compile(R"(#version 450
layout(local_size_x = 2, local_size_y = 2, local_size_z = 4) in;
layout(set = 0, binding = 0, rgba32f) uniform image3D img;
layout(set = 0, binding = 1) buffer B { vec4 v[]; };
void main() {
  ivec3 p = ivec3(gl_GlobalInvocationID);
  imageStore(img, p, vec4(p.z, p.y, p.x, 1.0));
  memoryBarrierImage();
  barrier();
  v[(p.z * 2 + p.y) * 2 + p.x] = imageLoad(img, ivec3(1, 1, 3) - p);
}
)");
  ASSERT_TRUE(shader.ok()) << shader.error().message();
  auto v = run(*shader, 2, 2, 4, cs::TextureDimension::k3D, 16);
  ASSERT_EQ(v.size(), 16u * 4);
  for (int z = 0; z < 4; ++z)
    for (int y = 0; y < 2; ++y)
      for (int x = 0; x < 2; ++x) {
        const float* got = &v[size_t((z * 2 + y) * 2 + x) * 4];
        EXPECT_EQ(got[0], float(3 - z)) << x << "," << y << "," << z;
        EXPECT_EQ(got[1], float(1 - y));
        EXPECT_EQ(got[2], float(1 - x));
      }
}

// Cube images are accessed as 2D arrays of faces (the descriptors are
// packed so), buffer images as 2D images 1024 texels wide.
TEST(ImageExec, CubeFacesAndBufferTexels) {
  auto cube = compile(R"(#version 450
layout(local_size_x = 2, local_size_y = 2, local_size_z = 6) in;
layout(set = 0, binding = 0, rgba32f) uniform imageCube img;
layout(set = 0, binding = 1) buffer B { vec4 v[]; };
void main() {
  ivec3 p = ivec3(gl_GlobalInvocationID);
  imageStore(img, p, vec4(p.z, p.x, p.y, 2.0));
  memoryBarrierImage();
  barrier();
  v[(p.z * 2 + p.y) * 2 + p.x] = imageLoad(img, ivec3(p.xy, 5 - p.z));
}
)");
  ASSERT_TRUE(cube.ok()) << cube.error().message();
  auto v = run(*cube, 2, 2, 6, cs::TextureDimension::k2DArray, 24);
  ASSERT_EQ(v.size(), 24u * 4);
  for (int z = 0; z < 6; ++z)
    for (int y = 0; y < 2; ++y)
      for (int x = 0; x < 2; ++x) {
        const float* got = &v[size_t((z * 2 + y) * 2 + x) * 4];
        EXPECT_EQ(got[0], float(5 - z)) << x << "," << y << "," << z;
        EXPECT_EQ(got[1], float(x));
        EXPECT_EQ(got[2], float(y));
      }
  auto buf = compile(R"(#version 450
layout(local_size_x = 32) in;
layout(set = 0, binding = 0, rgba32f) uniform imageBuffer img;
layout(set = 0, binding = 1) buffer B { vec4 v[]; };
void main() {
  int i = int(gl_GlobalInvocationID.x) * 64;  // 0 .. 1984: two rows of 1024
  imageStore(img, i, vec4(i, 0.0, 0.0, 1.0));
  memoryBarrierImage();
  barrier();
  v[gl_GlobalInvocationID.x] = imageLoad(img, 1984 - i);
}
)");
  ASSERT_TRUE(buf.ok()) << buf.error().message();
  v = run(*buf, 1024, 2, 1, cs::TextureDimension::k2D, 32);
  ASSERT_EQ(v.size(), 32u * 4);
  for (int t = 0; t < 32; ++t) EXPECT_EQ(v[size_t(t) * 4], float(1984 - 64 * t)) << t;
}

}  // namespace
}  // namespace agx::compiler::test
