// Render passes on the in-process device, run by the gpu unit's executor
// (the test binary links agx_gpu_default): clears, loads, two render
// targets, layers, a 4x MSAA resolve, read back with Image::download; and
// the attachments' errors.
#include <gtest/gtest.h>

#include <bit>
#include <cstring>

#include "runtime/render_pass.h"

namespace agx::runtime {
namespace AGX_UNITY_ID {

uint32_t f2u(float f) { return std::bit_cast<uint32_t>(f); }

class RenderPassTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto d = Device::open_in_process();
    ASSERT_TRUE(d.ok()) << d.error().message();
    dev = std::move(*d);
  }
  void TearDown() override {
    images.clear();
    dev.reset();
  }
  Image* image(format::Format f, uint32_t w, uint32_t h, uint32_t samples = 1, uint32_t layers = 1) {
    layout::Request r;
    r.format = f;
    r.width_px = w;
    r.height_px = h;
    r.depth_px = layers;
    r.sample_count_sa = samples;
    r.renderable = true;
    const ImageDim dim = samples > 1 ? (layers > 1 ? ImageDim::d2_ms_array : ImageDim::d2_ms)
                                     : (layers > 1 ? ImageDim::d2_array : ImageDim::d2);
    auto i = Image::create(*dev, dim, r, "attachment");
    EXPECT_TRUE(i.ok()) << (i.ok() ? "" : i.error().message());
    if (!i.ok()) return nullptr;
    images.push_back(std::move(*i));
    return images.back().get();
  }
  // Every texel of (layer) as `texel_B`-byte records.
  std::vector<uint8_t> pixels(const Image& img, uint32_t texel_B, uint32_t layer = 0) {
    std::vector<uint8_t> out(size_t(img.width_px()) * img.height_px() * texel_B);
    Status st = img.download(out, img.width_px() * texel_B, 0, layer);
    EXPECT_TRUE(st.ok()) << (st.ok() ? "" : st.error().message());
    return out;
  }
  static void expect_all(const std::vector<uint8_t>& px, std::vector<uint8_t> texel) {
    for (size_t i = 0; i < px.size(); i += texel.size())
      ASSERT_TRUE(std::equal(texel.begin(), texel.end(), px.begin() + i)) << "texel " << i / texel.size();
  }
  Status run(RenderPassDesc d) {
    auto p = RenderPass::begin(*dev, std::move(d));
    if (!p.ok()) return p.error();
    return (*p)->end();
  }

  std::unique_ptr<Device> dev;
  std::vector<std::unique_ptr<Image>> images;
};

TEST_F(RenderPassTest, ClearStoresTheClearColour) {
  Image* rt = image(format::Format::R8G8B8A8_UNORM, 70, 45);
  ASSERT_NE(rt, nullptr);
  RenderPassDesc d;
  d.colors.push_back({rt, LoadOp::clear, StoreOp::store, {f2u(0.25f), f2u(0.5f), f2u(0.75f), f2u(1.0f)}});
  ASSERT_TRUE(run(d).ok());
  expect_all(pixels(*rt, 4), {64, 128, 191, 255});
  // The next pass clears to another colour.
  d.colors[0].clear = {f2u(1.0f), 0, 0, f2u(1.0f)};
  ASSERT_TRUE(run(d).ok());
  expect_all(pixels(*rt, 4), {255, 0, 0, 255});
}

TEST_F(RenderPassTest, LoadKeepsTheImageAndDontCareStoresNothing) {
  Image* rt = image(format::Format::R8G8B8A8_UNORM, 40, 33);
  ASSERT_NE(rt, nullptr);
  std::vector<uint8_t> texels(40 * 33 * 4);
  for (size_t i = 0; i < texels.size(); ++i) texels[i] = uint8_t(i * 7 + 3);
  ASSERT_TRUE(rt->upload(texels, 40 * 4).ok());
  RenderPassDesc d;
  d.colors.push_back({rt, LoadOp::load, StoreOp::store, {}});
  auto p = RenderPass::begin(*dev, d);
  ASSERT_TRUE(p.ok()) << p.error().message();
  ASSERT_TRUE((*p)->end().ok());
  EXPECT_NE((*p)->command().bg.usc, 0u);
  EXPECT_EQ(pixels(*rt, 4), texels);
  d.colors[0] = {rt, LoadOp::clear, StoreOp::dont_care, {f2u(1.0f), f2u(1.0f), f2u(1.0f), f2u(1.0f)}};
  auto q = RenderPass::begin(*dev, d);
  ASSERT_TRUE(q.ok());
  ASSERT_TRUE((*q)->end().ok());
  EXPECT_EQ((*q)->command().eot.usc, 0u);
  EXPECT_EQ(pixels(*rt, 4), texels);
}

TEST_F(RenderPassTest, TwoRenderTargetsAndTheCommandsFields) {
  Image* a = image(format::Format::R8G8B8A8_UNORM, 64, 64);
  Image* b = image(format::Format::R32_FLOAT, 64, 64);
  ASSERT_TRUE(a && b);
  RenderPassDesc d;
  d.label = "two targets";
  d.colors.push_back({a, LoadOp::clear, StoreOp::store, {0, f2u(1.0f), 0, f2u(1.0f)}});
  d.colors.push_back({b, LoadOp::clear, StoreOp::store, {f2u(-3.5f), 0, 0, 0}});
  auto p = RenderPass::begin(*dev, d);
  ASSERT_TRUE(p.ok()) << p.error().message();
  EXPECT_EQ((*p)->tilebuffer().sample_size_B, 8u);
  ASSERT_TRUE((*p)->end().ok());
  const drm_asahi_cmd_render& c = (*p)->command();
  EXPECT_EQ(c.width_px, 64);
  EXPECT_EQ(c.height_px, 64);
  EXPECT_EQ(c.samples, 1);
  EXPECT_EQ(c.sample_size_B, 8);
  EXPECT_EQ(c.utile_width_px, 32);
  EXPECT_EQ(c.ppp_multisamplectl, 0x88u);
  EXPECT_EQ(c.bg.usc & 7, 4u);
  expect_all(pixels(*a, 4), {0, 255, 0, 255});
  const float v = -3.5f;
  std::vector<uint8_t> bytes(4);
  std::memcpy(bytes.data(), &v, 4);
  expect_all(pixels(*b, 4), bytes);
}

TEST_F(RenderPassTest, LayersAreClearedEach) {
  Image* rt = image(format::Format::R8G8B8A8_UNORM, 32, 20, 1, 3);
  ASSERT_NE(rt, nullptr);
  RenderPassDesc d;
  d.colors.push_back({rt, LoadOp::clear, StoreOp::store, {0, 0, f2u(1.0f), f2u(1.0f)}});
  ASSERT_TRUE(run(d).ok());
  for (uint32_t layer = 0; layer < 3; ++layer) expect_all(pixels(*rt, 4, layer), {0, 0, 255, 255});
}

TEST_F(RenderPassTest, MultisampledClearResolvedIntoASingleSampledImage) {
  Image* ms = image(format::Format::R8G8B8A8_UNORM, 48, 32, 4);
  Image* single = image(format::Format::R8G8B8A8_UNORM, 48, 32);
  ASSERT_TRUE(ms && single);
  RenderPassDesc d;
  d.colors.push_back({ms, LoadOp::clear, StoreOp::dont_care, {f2u(0.5f), 0, f2u(1.0f), f2u(1.0f)}, single});
  auto p = RenderPass::begin(*dev, d);
  ASSERT_TRUE(p.ok()) << p.error().message();
  ASSERT_TRUE((*p)->end().ok());
  EXPECT_EQ((*p)->command().samples, 4);
  EXPECT_EQ((*p)->command().ppp_multisamplectl, 0xeaa26e26u);
  expect_all(pixels(*single, 4), {128, 0, 255, 255});
  expect_all(pixels(*ms, 16), {0, 0, 0, 0});  // the multisampled image is not stored
}

TEST_F(RenderPassTest, DepthAndStencilClearedStoredAndReadBack) {
  Image* rt = image(format::Format::R8G8B8A8_UNORM, 40, 36);
  Image* z = image(format::Format::Z32_FLOAT, 40, 36);
  Image* s = image(format::Format::S8_UINT, 40, 36);
  ASSERT_TRUE(rt && z && s);
  RenderPassDesc d;
  d.colors.push_back({rt, LoadOp::clear, StoreOp::store, {}});
  d.depth = {z, LoadOp::clear, StoreOp::store, 0.75f};
  d.stencil = {s, LoadOp::clear, StoreOp::store, 0x5a};
  auto p = RenderPass::begin(*dev, d);
  ASSERT_TRUE(p.ok()) << p.error().message();
  ASSERT_TRUE((*p)->end().ok());
  EXPECT_EQ((*p)->command().depth.base, z->gpu_va());
  EXPECT_EQ((*p)->command().stencil.base, s->gpu_va());
  const float v = 0.75f;
  std::vector<uint8_t> bytes(4);
  std::memcpy(bytes.data(), &v, 4);
  expect_all(pixels(*z, 4), bytes);
  expect_all(pixels(*s, 1), {0x5a});
  // Loaded and stored again: kept; the stencil not stored: kept too.
  d.depth.load = LoadOp::load;
  d.stencil = {s, LoadOp::clear, StoreOp::dont_care, 0x11};
  ASSERT_TRUE(run(d).ok());
  expect_all(pixels(*z, 4), bytes);
  expect_all(pixels(*s, 1), {0x5a});
}

TEST_F(RenderPassTest, DepthOnlyPassWith16BitDepth) {
  Image* z = image(format::Format::Z16_UNORM, 33, 17);
  ASSERT_NE(z, nullptr);
  RenderPassDesc d;
  d.depth = {z, LoadOp::clear, StoreOp::store, 0.5f};
  auto p = RenderPass::begin(*dev, d);
  ASSERT_TRUE(p.ok()) << p.error().message();
  ASSERT_TRUE((*p)->end().ok());
  EXPECT_EQ((*p)->command().bg.usc, 0u);
  EXPECT_EQ((*p)->command().eot.usc, 0u);
  EXPECT_TRUE((*p)->command().flags & DRM_ASAHI_RENDER_DBIAS_IS_INT);
  expect_all(pixels(*z, 2), {0x00, 0x80});  // round(0.5 x 65535) = 32768
}

TEST_F(RenderPassTest, BadAttachmentsAreErrorsNamingThem) {
  Image* a = image(format::Format::R8G8B8A8_UNORM, 32, 32);
  Image* b = image(format::Format::R8G8B8A8_UNORM, 16, 32);
  Image* ms = image(format::Format::R8G8B8A8_UNORM, 32, 32, 4);
  ASSERT_TRUE(a && b && ms);
  RenderPassDesc none;
  EXPECT_FALSE(RenderPass::begin(*dev, none).ok());
  RenderPassDesc sizes;
  sizes.label = "mismatched";
  sizes.colors.push_back({a, LoadOp::clear, StoreOp::store, {}});
  sizes.colors.push_back({b, LoadOp::clear, StoreOp::store, {}});
  auto r = RenderPass::begin(*dev, sizes);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message().find("colour attachment 1"), std::string::npos) << r.error().message();
  EXPECT_NE(r.error().message().find("mismatched"), std::string::npos) << r.error().message();
  RenderPassDesc resolve_single;
  resolve_single.colors.push_back({a, LoadOp::clear, StoreOp::store, {}, b});
  EXPECT_FALSE(RenderPass::begin(*dev, resolve_single).ok());
  RenderPassDesc resolve_ms;
  resolve_ms.colors.push_back({ms, LoadOp::clear, StoreOp::store, {}, ms});
  EXPECT_FALSE(RenderPass::begin(*dev, resolve_ms).ok());
  RenderPassDesc empty;
  empty.colors.resize(2);
  EXPECT_FALSE(RenderPass::begin(*dev, empty).ok());
  RenderPassDesc depth;
  depth.depth.image = a;
  auto z = RenderPass::begin(*dev, depth);
  ASSERT_FALSE(z.ok());
  EXPECT_NE(z.error().message().find("depth attachment"), std::string::npos) << z.error().message();
}

}  // namespace
}  // namespace agx::runtime
