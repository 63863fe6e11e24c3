// Descriptor words (packed with the cmdstream tables the way Mesa's drivers
// fill them) decode to the views the texture unit and the PBE use.
#include <gtest/gtest.h>

#include <cstring>

#include "cmdstream/cmdstream.h"
#include "gpu/pbe/pbe.h"
#include "gpu/texture/texture.h"

namespace agx::gpu {
namespace AGX_UNITY_ID {

namespace cs = agx::cmdstream;

std::vector<uint32_t> words(const std::vector<uint8_t>& bytes) {
  std::vector<uint32_t> w(bytes.size() / 4);
  std::memcpy(w.data(), bytes.data(), w.size() * 4);
  return w;
}

template <class T>
std::vector<uint32_t> packed(const T& v) {
  auto b = cs::pack(v);
  EXPECT_TRUE(b.ok()) << (b.ok() ? "" : b.error().message());
  return b.ok() ? words(*b) : std::vector<uint32_t>(T::kSize_B / 4);
}

TEST(TextureDescriptor, TiledTexture) {
  cs::Texture t;
  t.dimension = cs::TextureDimension::kCubeArray;
  t.layout = cs::Layout::kGpu;
  t.channels = format::Channels::R16G16B16A16;
  t.type = format::TextureType::Float;
  t.swizzle_r = cs::Channel::kB;
  t.swizzle_g = cs::Channel::kG;
  t.swizzle_b = cs::Channel::kR;
  t.swizzle_a = cs::Channel::k1;
  t.width = 100;
  t.height = 50;
  t.first_level = 2;
  t.last_level = 5;
  t.address = 0x12345670;
  t.unk_mipmapped = true;
  t.srgb = false;
  t.depth = 3;
  t.page_aligned_layers = true;
  auto v = decode_texture(packed(t));
  ASSERT_TRUE(v.ok()) << v.error().message();
  EXPECT_EQ(v->dim, Dim::cube_array);
  EXPECT_EQ(v->layout, ImageLayout::gpu);
  EXPECT_EQ(v->channels, format::Channels::R16G16B16A16);
  EXPECT_EQ(v->type, format::TextureType::Float);
  EXPECT_EQ(v->swizzle, (std::array<Swizzle, 4>{Swizzle::b, Swizzle::g, Swizzle::r, Swizzle::one}));
  EXPECT_EQ(v->width_px, 100u);
  EXPECT_EQ(v->height_px, 50u);
  EXPECT_EQ(v->first_level, 2u);
  EXPECT_EQ(v->last_level, 5u);
  EXPECT_EQ(v->address, 0x12345670u);
  EXPECT_TRUE(v->mipmapped);
  EXPECT_EQ(v->depth, 3u);
  EXPECT_TRUE(v->page_aligned_layers);
  EXPECT_EQ(v->samples, 1u);
}

// Mesa: linear stride stored minus 16; linear arrays put the layer count in
// "Depth (linear)" and the layer stride minus 128, with "Extended".
TEST(TextureDescriptor, LinearArrayAndMultisample) {
  cs::Texture t;
  t.dimension = cs::TextureDimension::k2DArray;
  t.layout = cs::Layout::kLinear;
  t.channels = format::Channels::R8G8B8A8;
  t.width = 30;
  t.height = 10;
  t.stride = 128 - 16;
  t.extended = true;
  t.depth_linear = 4;
  t.layer_stride_linear = 1280 - 0x80;
  auto v = decode_texture(packed(t));
  ASSERT_TRUE(v.ok()) << v.error().message();
  EXPECT_EQ(v->layout, ImageLayout::linear);
  EXPECT_EQ(v->linear_stride_B, 128u);
  EXPECT_EQ(v->depth, 4u);
  EXPECT_EQ(v->linear_layer_stride_B, 1280u);
  cs::Texture ms;
  ms.dimension = cs::TextureDimension::k2DMultisampled;
  ms.layout = cs::Layout::kTwiddled;
  ms.samples = cs::SampleCount::k4;
  v = decode_texture(packed(ms));
  ASSERT_TRUE(v.ok());
  EXPECT_EQ(v->samples, 4u);
}

TEST(TextureDescriptor, SamplerAndBorder) {
  cs::Sampler s;
  s.minimum_lod = 1.5f;
  s.maximum_lod = 7.0f;
  s.maximum_anisotropy = 8;
  s.magnify = cs::Filter::kLinear;
  s.minify = cs::Filter::kNearest;
  s.mip_filter = cs::MipFilter::kLinear;
  s.wrap_s = cs::Wrap::kRepeat;
  s.wrap_t = cs::Wrap::kMirroredClampToEdge;
  s.wrap_r = cs::Wrap::kClampGl;
  s.pixel_coordinates = true;
  s.compare_func = cs::CompareFunc::kGreater;
  s.compare_enable = true;
  s.border_colour = cs::BorderColour::kCustom;
  s.seamful_cube_maps = true;
  cs::Border b;
  b.channel_0 = 1;
  b.channel_1 = 2;
  b.channel_2 = 3;
  b.channel_3 = 0xFFFFFFFF;
  auto w = packed(s);
  auto bw = packed(b);
  w.insert(w.end(), bw.begin(), bw.end());
  auto v = decode_sampler(w, true);
  ASSERT_TRUE(v.ok()) << v.error().message();
  EXPECT_EQ(v->min_lod, 1.5f);
  EXPECT_EQ(v->max_lod, 7.0f);
  EXPECT_EQ(v->max_anisotropy, 8u);
  EXPECT_EQ(v->magnify, Filter::linear);
  EXPECT_EQ(v->minify, Filter::nearest);
  EXPECT_EQ(v->mip, MipFilter::linear);
  EXPECT_EQ(v->wrap, (std::array<Wrap, 3>{Wrap::repeat, Wrap::mirrored_clamp_to_edge,
                                          Wrap::clamp_gl}));
  EXPECT_TRUE(v->pixel_coordinates);
  EXPECT_EQ(v->compare_func, CompareFunc::greater);
  EXPECT_TRUE(v->compare_enable);
  EXPECT_EQ(v->border, BorderColour::custom);
  EXPECT_TRUE(v->seamful_cube_maps);
  EXPECT_EQ(v->border_words, (std::array<uint32_t, 4>{1, 2, 3, 0xFFFFFFFF}));
  // A custom border needs the extended heap.
  auto bad = decode_sampler(packed(s), false);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message().find("custom border"), std::string::npos);
}

TEST(TextureDescriptor, Pbe) {
  cs::Pbe p;
  p.dimension = cs::TextureDimension::k2DArray;
  p.layout = cs::Layout::kTwiddled;
  p.channels = format::Channels::R8G8B8A8;
  p.type = format::TextureType::Unorm;
  p.swizzle_r = cs::Channel::kB;  // B8G8R8A8: byte 0 takes component 2
  p.swizzle_g = cs::Channel::kG;
  p.swizzle_b = cs::Channel::kR;
  p.swizzle_a = cs::Channel::kA;
  p.width = 64;
  p.height = 32;
  p.buffer = 0x40000;
  p.level = 3;
  p.levels = 7;
  p.layers = 5;
  p.page_aligned_layers = true;
  p.srgb = true;
  auto v = decode_pbe(packed(p));
  ASSERT_TRUE(v.ok()) << v.error().message();
  EXPECT_EQ(v->dim, Dim::d2_array);
  EXPECT_EQ(v->swizzle, (std::array<uint8_t, 4>{2, 1, 0, 3}));
  EXPECT_EQ(v->width_px, 64u);
  EXPECT_EQ(v->height_px, 32u);
  EXPECT_EQ(v->buffer, 0x40000u);
  EXPECT_EQ(v->level, 3u);
  EXPECT_EQ(v->levels, 7u);
  EXPECT_EQ(v->layers, 5u);
  EXPECT_TRUE(v->page_aligned_layers);
  EXPECT_TRUE(v->srgb);
  // Linear: stride stored minus 4 (Mesa pack_pbe).
  cs::Pbe l;
  l.layout = cs::Layout::kLinear;
  l.stride = 256 - 4;
  v = decode_pbe(packed(l));
  ASSERT_TRUE(v.ok());
  EXPECT_EQ(v->linear_stride_B, 256u);
  EXPECT_EQ(v->levels, 1u);
  l.flip_vertical = true;
  v = decode_pbe(packed(l));
  ASSERT_TRUE(v.ok());
  EXPECT_TRUE(v->flip_vertical);
  EXPECT_FALSE(v->rotate_90);
  l.rotate_90 = true;
  v = decode_pbe(packed(l));
  ASSERT_TRUE(v.ok());
  EXPECT_TRUE(v->rotate_90);
  EXPECT_TRUE(v->flip_vertical);
}

TEST(TextureDescriptor, MalformedWordsAreErrors) {
  // Raw values no enum names, written at the table's own field positions.
  auto with_raw = [](const char* field, uint64_t raw) {
    std::vector<uint32_t> w(6, 0);
    const cs::FieldDesc& f = cs::kTexture.fields[cs::field_index(cs::kTexture, field)];
    cs::or_raw(w.data(), f.start, f.size, raw);
    return w;
  };
  auto v = decode_texture(with_raw("Channels", 0x7F));  // no such class
  ASSERT_FALSE(v.ok());
  EXPECT_NE(v.error().message().find("0x7f"), std::string::npos) << v.error().message();
  v = decode_texture(with_raw("Dimension", 15));
  ASSERT_FALSE(v.ok());
  EXPECT_NE(v.error().message().find("dimension"), std::string::npos) << v.error().message();
  v = decode_texture(with_raw("Type", 7));
  ASSERT_FALSE(v.ok());
  // Too few words.
  EXPECT_FALSE(decode_texture(std::vector<uint32_t>(3, 0)).ok());
}

TEST(TextureDescriptor, UscTextureAndSamplerWords) {
  cs::UscTexture t;
  t.start = 4;
  t.count = 9;
  t.buffer = 0x123458;
  auto tb = cs::pack(t);
  ASSERT_TRUE(tb.ok());
  auto b = parse_state_word(*tb);
  ASSERT_TRUE(b.ok()) << b.error().message();
  EXPECT_EQ(b->kind, StateKind::texture);
  EXPECT_EQ(b->start, 4u);
  EXPECT_EQ(b->count, 9u);
  EXPECT_EQ(b->buffer, 0x123458u);
  cs::UscSampler s;
  s.start = 1;
  s.count = 2;
  s.buffer = 0x8000;
  auto sb = cs::pack(s);
  ASSERT_TRUE(sb.ok());
  b = parse_state_word(*sb);
  ASSERT_TRUE(b.ok());
  EXPECT_EQ(b->kind, StateKind::sampler);
  EXPECT_EQ(b->count, 2u);
  EXPECT_EQ(b->buffer, 0x8000u);
  // Another word is neither.
  cs::UscShared sh;
  auto shb = cs::pack(sh);
  ASSERT_TRUE(shb.ok());
  EXPECT_FALSE(parse_state_word(*shb).ok());
  EXPECT_TRUE(extended_sampler_states(uint32_t(cs::SamplerStates::k8Extended)));
  EXPECT_FALSE(extended_sampler_states(uint32_t(cs::SamplerStates::k16Compact)));
}

}  // namespace
}  // namespace agx::gpu
