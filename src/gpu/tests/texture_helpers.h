// Test helpers: images in a RegionMemory with texture and PBE views of them
// made from the `layout` unit's numbers (not from the texture unit's own).
#pragma once

#include <gtest/gtest.h>

#include <array>
#include <bit>
#include <cmath>
#include <string>
#include <vector>

#include "format/format.h"
#include "gpu/pbe/pbe.h"
#include "gpu/texture/texture.h"
#include "layout/layout.h"
#include "usc/usc.h"

namespace agx::gpu::test {

inline uint32_t f2u(float f) { return std::bit_cast<uint32_t>(f); }
inline float u2f(uint32_t u) { return std::bit_cast<float>(u); }

struct TestImage {
  layout::Layout layout;
  TextureView tex;
  PbeView pbe;
  GpuVa va = 0;
};

inline ImageLayout to_image_layout(layout::Tiling t) {
  switch (t) {
    case layout::Tiling::linear: return ImageLayout::linear;
    case layout::Tiling::gpu: return ImageLayout::gpu;
    case layout::Tiling::twiddled: return ImageLayout::twiddled;
  }
  return ImageLayout::linear;
}

// Lays out an image with the layout unit, maps it (zeroed) at `va` and
// fills both views as a driver would (Mesa hk_image_view.c pack_texture /
// pack_pbe: level-0 size, the first layer's address, level range).
inline TestImage make_test_image(usc::RegionMemory& mem, GpuVa va, format::Format f,
                                 layout::Tiling tiling, Dim dim, uint32_t w, uint32_t h,
                                 uint32_t depth, uint32_t levels, uint32_t samples = 1) {
  TestImage t;
  layout::Request r;
  r.format = f;
  r.width_px = w;
  r.height_px = h;
  const uint32_t storage_layers = (dim == Dim::cube || dim == Dim::cube_array) ? depth * 6 : depth;
  r.depth_px = storage_layers;
  r.levels = levels;
  r.sample_count_sa = samples;
  r.tiling = tiling;
  r.mipmapped_z = dim == Dim::d3;
  auto l = layout::make_layout(r);
  EXPECT_TRUE(l.ok()) << (l.ok() ? "" : l.error().message());
  t.layout = *l;
  t.va = va;
  const uint64_t size = std::max<uint64_t>(t.layout.size_B, 16);
  EXPECT_TRUE(mem.map(va, std::vector<uint8_t>(size, 0)).ok());
  const format::FormatInfo& fi = format::info(f);
  TextureView& tv = t.tex;
  tv.dim = dim;
  tv.layout = to_image_layout(tiling);
  tv.channels = fi.channels;
  tv.type = fi.type;
  tv.width_px = w;
  tv.height_px = h;
  tv.depth = depth;
  tv.first_level = 0;
  tv.last_level = t.layout.levels - 1;
  tv.samples = samples;
  tv.address = va;
  tv.mipmapped = t.layout.levels > 1;
  tv.srgb = fi.srgb;
  tv.srgb_2_channel = fi.srgb;
  tv.page_aligned_layers = t.layout.page_aligned_layers;
  tv.linear_stride_B = t.layout.linear_stride_B;
  tv.linear_layer_stride_B = t.layout.layer_stride_B;
  PbeView& pv = t.pbe;
  pv.dim = dim == Dim::cube || dim == Dim::cube_array ? Dim::d2_array : dim;
  pv.layout = tv.layout;
  pv.channels = fi.channels;
  pv.type = fi.type;
  pv.width_px = w;
  pv.height_px = h;
  pv.samples = samples;
  pv.buffer = va;
  pv.levels = t.layout.levels;
  pv.layers = storage_layers;
  pv.mipmapped = tv.mipmapped;
  pv.page_aligned_layers = tv.page_aligned_layers;
  pv.srgb = fi.srgb;
  pv.linear_stride_B = t.layout.linear_stride_B;
  pv.linear_layer_stride_B = t.layout.layer_stride_B;
  return t;
}

inline const uint8_t* region(usc::RegionMemory& mem, GpuVa va) {
  return mem.regions().at(va).data();
}

// texture_load of texel (x, y) at level 0 with a default sampler, as four
// floats (the result registers' bits); a failed load is a test failure and
// reads as zeros.
inline std::array<float, 4> load_floats(TextureUnit& unit, const TextureView& tex, int x, int y) {
  FetchCoord c;
  c.x = x;
  c.y = y;
  auto t = unit.load(tex, SamplerView{}, c);
  EXPECT_TRUE(t.ok()) << (t.ok() ? "" : t.error().message());
  std::array<float, 4> out{};
  if (t.ok())
    for (int k = 0; k < 4; ++k) out[k] = u2f(t->c[k]);
  return out;
}

}  // namespace agx::gpu::test
