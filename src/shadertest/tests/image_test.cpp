// Images: tiling round trips, and descriptors read back by the gpu unit's
// decoders and used by its texture unit and PBE on the image's memory.
#include <gtest/gtest.h>

#include <cstring>

#include "gpu/pbe/pbe.h"
#include "gpu/texture/texture.h"
#include "runtime/image.h"
#include "shadertest/session.h"

namespace agx::shadertest {
namespace AGX_UNITY_ID {

// The image's buffer as GPU memory (the same bytes the device's VM maps).
class BufferMemory : public GpuMemory {
 public:
  explicit BufferMemory(runtime::Buffer& b) : b_(b) {}
  bool read(GpuVa va, void* dst, size_t size, GpuUnit unit, GpuFault* fault) override {
    if (!inside(va, size)) return miss(va, Access::read, unit, fault);
    std::memcpy(dst, b_.host().data() + (va - b_.gpu_va()), size);
    return true;
  }
  bool write(GpuVa va, const void* src, size_t size, GpuUnit unit, GpuFault* fault) override {
    if (!inside(va, size)) return miss(va, Access::write, unit, fault);
    std::memcpy(b_.host().data() + (va - b_.gpu_va()), src, size);
    return true;
  }

 private:
  bool inside(GpuVa va, size_t size) const { return va >= b_.gpu_va() && va - b_.gpu_va() + size <= b_.size_B(); }
  bool miss(GpuVa va, Access a, GpuUnit u, GpuFault* f) {
    *f = {va, a, u, "unmapped"};
    return false;
  }
  runtime::Buffer& b_;
};

layout::Request rgba8(uint32_t w, uint32_t h, layout::Tiling t) {
  layout::Request r;
  r.format = format::Format::R8G8B8A8_UNORM;
  r.width_px = w;
  r.height_px = h;
  r.tiling = t;
  r.writeable_image = true;
  return r;
}

class ImageTest : public ::testing::TestWithParam<layout::Tiling> {
 protected:
  std::unique_ptr<runtime::Device> device = std::move(runtime::Device::open_in_process()).value();
};

TEST_P(ImageTest, UploadDownloadRoundTrip) {
  auto img = runtime::Image::create(*device, rgba8(37, 19, GetParam()), "img");
  ASSERT_TRUE(img.ok()) << img.error().message();
  std::vector<uint8_t> in(37 * 19 * 4), out(in.size());
  for (size_t i = 0; i < in.size(); ++i) in[i] = uint8_t(i * 7 + 3);
  ASSERT_TRUE((*img)->upload(in, 37 * 4).ok());
  ASSERT_TRUE((*img)->download(out, 37 * 4).ok());
  EXPECT_EQ(in, out);
}

TEST_P(ImageTest, DescriptorsDriveTheTextureUnitAndPbe) {
  auto img = runtime::Image::create(*device, rgba8(64, 16, GetParam()), "img");
  ASSERT_TRUE(img.ok());
  auto rgbw = rgbw_rgba8(64, 16);
  ASSERT_TRUE((*img)->upload(rgbw, 64 * 4).ok());

  auto tw = (*img)->texture_descriptor();
  ASSERT_TRUE(tw.ok()) << tw.error().message();
  auto tex = gpu::decode_texture(*tw);
  ASSERT_TRUE(tex.ok()) << tex.error().message();
  EXPECT_EQ(tex->width_px, 64u);
  EXPECT_EQ(tex->height_px, 16u);
  EXPECT_EQ(tex->address, (*img)->gpu_va());
  EXPECT_EQ(tex->layout, GetParam() == layout::Tiling::twiddled ? gpu::ImageLayout::twiddled
                         : GetParam() == layout::Tiling::linear ? gpu::ImageLayout::linear
                                                                 : gpu::ImageLayout::gpu);

  BufferMemory mem((*img)->buffer());
  gpu::TextureUnit unit(mem, {});
  gpu::SamplerView sampler;
  auto texel = unit.load(*tex, sampler, gpu::FetchCoord{40, 12});  // white quadrant
  ASSERT_TRUE(texel.ok()) << texel.error().message();
  float white;
  std::memcpy(&white, &texel->c[1], 4);
  EXPECT_EQ(white, 1.0f);
  texel = unit.load(*tex, sampler, gpu::FetchCoord{3, 2});  // red
  ASSERT_TRUE(texel.ok());
  float g;
  std::memcpy(&g, &texel->c[1], 4);
  EXPECT_EQ(g, 0.0f);

  auto pw = (*img)->pbe_descriptor();
  ASSERT_TRUE(pw.ok()) << pw.error().message();
  auto pbe = gpu::decode_pbe(*pw);
  ASSERT_TRUE(pbe.ok()) << pbe.error().message();
  EXPECT_EQ(pbe->buffer, (*img)->gpu_va());
  EXPECT_EQ(pbe->levels, 1u);
  EXPECT_EQ(pbe->layers, 1u);
  // imageStore(tex, ivec2(5, 9), vec4(0, 1, 0, 1)) as the PBE does it.
  gpu::PbeWrite w;
  float c[4] = {0.0f, 1.0f, 0.0f, 1.0f};
  std::memcpy(w.value.data(), c, 16);
  w.x = 5;
  w.y = 9;
  ASSERT_TRUE(gpu::pbe_write(unit, *pbe, w).ok());
  std::vector<uint8_t> out(64 * 16 * 4);
  ASSERT_TRUE((*img)->download(out, 64 * 4).ok());
  const uint8_t* px = &out[(9 * 64 + 5) * 4];
  EXPECT_EQ(px[0], 0);
  EXPECT_EQ(px[1], 255);
  EXPECT_EQ(px[2], 0);
  EXPECT_EQ(px[3], 255);
  // and nothing else changed
  out[(9 * 64 + 5) * 4 + 2] = 255;  // the blue quadrant's pixel as it was
  out[(9 * 64 + 5) * 4 + 1] = 0;
  EXPECT_EQ(out, rgbw);
}

INSTANTIATE_TEST_SUITE_P(Tilings, ImageTest,
                         ::testing::Values(layout::Tiling::gpu, layout::Tiling::twiddled, layout::Tiling::linear));

// Every dimension's descriptors, read back by the gpu unit's decoders: the
// dimension (storage cubes as 2D arrays of faces), the layer or slice count
// and the sample count.
TEST(Image, DescriptorsOfEveryDimension) {
  auto d = runtime::Device::open_in_process();
  ASSERT_TRUE(d.ok());
  struct Case {
    runtime::ImageDim dim;
    uint32_t w, h, depth, samples;
    gpu::Dim sampled, storage;
    uint32_t sampled_depth;
  };
  const Case cases[] = {
      {runtime::ImageDim::d1, 16, 1, 1, 1, gpu::Dim::d1, gpu::Dim::d1, 1},
      {runtime::ImageDim::d1_array, 16, 1, 5, 1, gpu::Dim::d1_array, gpu::Dim::d1_array, 5},
      {runtime::ImageDim::d2_array, 8, 4, 3, 1, gpu::Dim::d2_array, gpu::Dim::d2_array, 3},
      {runtime::ImageDim::d3, 8, 4, 6, 1, gpu::Dim::d3, gpu::Dim::d3, 6},
      {runtime::ImageDim::cube, 8, 8, 6, 1, gpu::Dim::cube, gpu::Dim::d2_array, 1},
      {runtime::ImageDim::cube_array, 8, 8, 12, 1, gpu::Dim::cube_array, gpu::Dim::d2_array, 2},
      {runtime::ImageDim::d2_ms, 8, 8, 1, 4, gpu::Dim::d2_ms, gpu::Dim::d2_ms, 1},
      {runtime::ImageDim::d2_ms_array, 8, 8, 2, 2, gpu::Dim::d2_ms_array, gpu::Dim::d2_ms_array, 2},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(compiler::image_dim_name(c.dim));
    layout::Request r = rgba8(c.w, c.h, layout::Tiling::gpu);
    r.depth_px = c.depth;
    r.sample_count_sa = c.samples;
    auto img = runtime::Image::create(**d, c.dim, r, "img");
    ASSERT_TRUE(img.ok()) << img.error().message();
    auto tw = (*img)->texture_descriptor(false);
    ASSERT_TRUE(tw.ok()) << tw.error().message();
    auto tex = gpu::decode_texture(*tw);
    ASSERT_TRUE(tex.ok()) << tex.error().message();
    EXPECT_EQ(tex->dim, c.sampled);
    EXPECT_EQ(tex->depth, c.sampled_depth);
    EXPECT_EQ(tex->samples, c.samples);
    auto sw = (*img)->texture_descriptor(true);
    ASSERT_TRUE(sw.ok());
    EXPECT_EQ(gpu::decode_texture(*sw)->dim, c.storage);
    auto pw = (*img)->pbe_descriptor();
    ASSERT_TRUE(pw.ok()) << pw.error().message();
    auto pbe = gpu::decode_pbe(*pw);
    ASSERT_TRUE(pbe.ok()) << pbe.error().message();
    EXPECT_EQ(pbe->dim, c.storage);
    EXPECT_EQ(pbe->layers, c.depth);
    EXPECT_EQ(pbe->samples, c.samples);
  }
  // A texel buffer: linear rows of 1024 texels, texel i at byte 4 i.
  auto buf = runtime::Image::create_texel_buffer(**d, format::Format::R32_FLOAT, 2500, "texels");
  ASSERT_TRUE(buf.ok()) << buf.error().message();
  EXPECT_EQ((*buf)->size_query(), (std::array<uint32_t, 4>{2500, 0, 0, 1}));
  auto tex = gpu::decode_texture(*(*buf)->texture_descriptor());
  ASSERT_TRUE(tex.ok()) << tex.error().message();
  EXPECT_EQ(tex->layout, gpu::ImageLayout::linear);
  EXPECT_EQ(tex->width_px, 1024u);
  EXPECT_EQ(tex->height_px, 3u);
  EXPECT_EQ(tex->linear_stride_B, 4096u);
  auto pbe = gpu::decode_pbe(*(*buf)->pbe_descriptor());
  ASSERT_TRUE(pbe.ok()) << pbe.error().message();
  EXPECT_EQ(pbe->linear_stride_B, 4096u);
}

TEST(Image, ShapesThatDoNotFitTheirDimension) {
  auto d = runtime::Device::open_in_process();
  ASSERT_TRUE(d.ok());
  auto r = rgba8(8, 4, layout::Tiling::gpu);
  EXPECT_EQ(runtime::Image::create(**d, runtime::ImageDim::d1, r, "one-d").error().kind(), ErrorKind::invalid_argument);
  r.depth_px = 6;
  auto cube = runtime::Image::create(**d, runtime::ImageDim::cube, r, "cube");
  ASSERT_FALSE(cube.ok());
  EXPECT_NE(cube.error().message().find("square"), std::string::npos) << cube.error().message();
  r = rgba8(8, 8, layout::Tiling::gpu);
  r.depth_px = 7;
  EXPECT_FALSE(runtime::Image::create(**d, runtime::ImageDim::cube_array, r, "cubes").ok());
  r.depth_px = 1;
  EXPECT_FALSE(runtime::Image::create(**d, runtime::ImageDim::d2_ms, r, "ms").ok());  // one sample
  EXPECT_FALSE(runtime::Image::create_texel_buffer(**d, format::Format::R32_FLOAT, 0, "empty").ok());
}

TEST(Image, UnsupportedDescriptorsAreErrors) {
  auto d = runtime::Device::open_in_process();
  ASSERT_TRUE(d.ok());
  auto r = rgba8(8, 8, layout::Tiling::linear);
  r.depth_px = 2;
  auto lin = runtime::Image::create(**d, runtime::ImageDim::d2_array, r, "linear");
  ASSERT_TRUE(lin.ok()) << lin.error().message();
  EXPECT_EQ((*lin)->texture_descriptor().error().kind(), ErrorKind::unsupported);
  auto bad = runtime::Image::create(**d, rgba8(0, 8, layout::Tiling::gpu), "empty");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message().find("empty"), std::string::npos);
}

}  // namespace
}  // namespace agx::shadertest
