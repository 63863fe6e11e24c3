// Fuzzes the texture unit and the PBE with random descriptor views, sampler
// states, image bytes and coordinates: every texture_load, texture_sample
// and image write either gives a texel or a clean error (bad formats,
// layouts, levels, faults), never a crash or an out-of-bounds access.
#include <bit>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "gpu/pbe/pbe.h"
#include "gpu/texture/texture.h"
#include "usc/usc.h"

namespace {

struct Bytes {
  const uint8_t* p;
  size_t n;
  uint32_t take(unsigned bytes) {
    uint32_t v = 0;
    for (unsigned i = 0; i < bytes && n; ++i, ++p, --n) v |= uint32_t{*p} << (8 * i);
    return v;
  }
  float take_float() { return std::bit_cast<float>(take(4)); }
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace agx;
  using namespace agx::gpu;
  Bytes in{data, size};
  const auto channels = format::all_channels();
  TextureView t;
  t.channels = channels[in.take(1) % channels.size()].code;
  t.type = format::TextureType(in.take(1) % 6);
  t.dim = Dim(in.take(1) % kDimCount);
  t.layout = ImageLayout(in.take(1) % 4);
  t.width_px = 1 + in.take(1) % 40;
  t.height_px = 1 + in.take(1) % 40;
  t.depth = 1 + in.take(1) % 3;
  const uint32_t flags = in.take(1);
  t.mipmapped = flags & 1;
  t.srgb = flags & 2;
  t.srgb_2_channel = flags & 4;
  t.page_aligned_layers = flags & 8;
  t.compressed = flags & 16;
  t.null = (flags & 0xE0) == 0xE0;
  t.first_level = in.take(1) % 6;
  t.last_level = in.take(1) % 6;
  t.samples = 1u << (in.take(1) % 3);
  for (auto& s : t.swizzle) s = Swizzle(in.take(1) % 6);
  t.linear_stride_B = in.take(2);
  t.linear_layer_stride_B = in.take(3);
  t.address = 0x10000;
  // Compressed: metadata words from the fuzz bytes, half way into the image
  // (or unmapped, past it).
  if (t.compressed) t.acceleration_buffer = (flags & 0x40) ? 0x18000 : 0x90000;

  SamplerView s;
  s.magnify = Filter(in.take(1) % 3);
  s.minify = Filter(in.take(1) % 3);
  s.mip = MipFilter(in.take(1) % 3);
  for (auto& w : s.wrap) w = Wrap(in.take(1) % 6);
  s.pixel_coordinates = in.take(1) & 1;
  s.compare_func = CompareFunc(in.take(1) % 8);
  s.compare_enable = in.take(1) & 1;
  s.border = BorderColour(in.take(1) % 4);
  s.seamful_cube_maps = in.take(1) & 1;
  s.max_anisotropy = 1u << (in.take(1) % 5);
  s.min_lod = float(in.take(1) % 16) / 4;
  s.max_lod = float(in.take(1) % 64) / 4;
  for (auto& w : s.border_words) w = in.take(4);

  // The image: the remaining bytes, repeated to 64 KiB.
  std::vector<uint8_t> image(64 * 1024);
  for (size_t i = 0; i < image.size(); ++i) image[i] = in.n ? in.p[i % in.n] : uint8_t(i);
  usc::RegionMemory mem;
  if (!mem.map(0x10000, std::move(image)).ok()) return 0;
  TextureUnit unit(mem, {});
  for (int k = 0; k < 4; ++k) {
    FetchCoord at;
    at.x = int32_t(in.take(2)) - 8;
    at.y = int32_t(in.take(2)) - 8;
    at.z = int32_t(in.take(1)) - 2;
    at.layer = in.take(1);
    at.face = in.take(1) % 8;
    at.sample = in.take(1) % 5;
    at.lod = int32_t(in.take(1)) - 4;
    (void)unit.load(t, s, at);
    SampleRequest rq;
    rq.coord = {in.take_float(), in.take_float(), in.take_float()};
    rq.layer = in.take(1);
    rq.explicit_lod = in.take(1) & 1;
    rq.lod = in.take_float();
    rq.bias = in.take_float();
    rq.ddx = {in.take_float(), in.take_float(), 0};
    rq.ddy = {in.take_float(), in.take_float(), 0};
    rq.has_min_lod = in.take(1) & 1;
    rq.min_lod = in.take_float();
    rq.compare = in.take(1) & 1;
    rq.reference = in.take_float();
    rq.gather = int(in.take(1) % 5) - 1;
    for (auto& o : rq.offset) o = int32_t(in.take(1) % 16) - 8;
    (void)unit.sample(t, s, rq);
  }
  PbeView p;
  p.dim = t.dim;
  p.layout = t.layout;
  p.channels = t.channels;
  p.type = t.type;
  p.width_px = t.width_px;
  p.height_px = t.height_px;
  p.samples = t.samples;
  p.buffer = t.address;
  p.level = t.first_level;
  p.levels = 1 + t.last_level;
  p.layers = t.depth;
  p.mipmapped = t.mipmapped;
  p.page_aligned_layers = t.page_aligned_layers;
  p.srgb = t.srgb;
  p.compressed = t.compressed;
  p.acceleration_buffer = t.acceleration_buffer;
  p.linear_stride_B = t.linear_stride_B;
  p.linear_layer_stride_B = t.linear_layer_stride_B;
  for (auto& sw : p.swizzle) sw = uint8_t(in.take(1) % 4);
  p.flip_vertical = in.take(1) & 1;
  p.rotate_90 = in.take(1) & 1;
  PbeWrite w;
  for (auto& v : w.value) v = in.take(4);
  w.x = int32_t(in.take(1)) - 4;
  w.y = int32_t(in.take(1)) - 4;
  w.layer = in.take(1) % 4;
  w.lod = in.take(1) % 3;
  (void)pbe_write(unit, p, w, Rounding(in.take(1) % 4));
  // image_write_block: a small tile of fuzz bytes, any format code and
  // offset, at any origin (out-of-range tiles and pixels must be refused or
  // dropped, never read or written past).
  std::vector<uint8_t> tile_bytes(in.take(1) % 200);
  for (auto& b : tile_bytes) b = uint8_t(in.take(1));
  TileMemory tile{tile_bytes, in.take(1) % 6, in.take(1) % 6, 1 + in.take(1) % 4, in.take(1) % 20};
  BlockWrite bw;
  bw.format = in.take(1) % 17;
  bw.offset_B = in.take(1) % 40;
  bw.origin_x = int32_t(in.take(1)) - 8;
  bw.origin_y = int32_t(in.take(1)) - 8;
  bw.layer = in.take(1) % 4;
  bw.lod = in.take(1) % 3;
  (void)pbe_write_block(unit, p, tile, bw, Rounding(in.take(1) % 4));
  return 0;
}
