// Background and end-of-tile programs (compiler/bg_eot.h) run on the
// software GPU's fragment half: a render command with no primitives whose
// background program clears (colours from uniforms) or loads (a texture)
// every render target and whose end-of-tile program stores them through
// their PBE descriptors; the images are read back.
#include <gtest/gtest.h>

#include <algorithm>

#include "compiler/bg_eot.h"
#include "compiler/compiler.h"
#include "gpu/tests/pdm_fixture.h"
#include "gpu/tests/texture_words.h"
#include "runtime/render_pass.h"

namespace agx::compiler {
namespace AGX_UNITY_ID {

namespace cs = agx::cmdstream;
using gpu::test::f2u;
using gpu::test::u2f;

class TileProgramTest : public gpu::test::RenderTest {
 public:
  static constexpr GpuVa kHeap = 0x5100'0000ull, kSource = 0x2c00'0000ull, kSecond = 0x2800'0000ull;

  TileTarget tile_target(uint32_t rt) const { return runtime::tile_target(tib, rt); }
  // A tile program's word list (state words first) and Counts word; the
  // code is placed in the USC window unless `code_at` says where it is.
  drm_asahi_bg_eot place(const TileProgram& p, const std::vector<uint8_t>& state_words,
                         std::optional<uint32_t> code_at = std::nullopt) {
    const uint32_t at = words(code_at ? *code_at : usc_put(p.code), false, p.register_halves, std::nullopt, state_words);
    cs::Counts counts{};
    counts.uniform_register_count = p.uniform_halves;
    counts.texture_state_register_count = p.texture_states ? 8 : 0;
    counts.sampler_state_register_count = p.sampler_states ? cs::SamplerStates::k4Compact : cs::SamplerStates::k0;
    auto b = cs::pack(counts);
    EXPECT_TRUE(b.ok());
    drm_asahi_bg_eot out{};
    out.usc = at | 4;
    if (b.ok()) std::memcpy(&out.rsrc_spec, b->data(), 4);
    return out;
  }
  // The USC Uniform word loading `words` into u0.. .
  std::vector<uint8_t> uniforms(const std::vector<uint32_t>& values) {
    std::vector<uint8_t> bytes(values.size() * 4);
    std::memcpy(bytes.data(), values.data(), bytes.size());
    cs::UscUniform u{};
    u.start_halfs = 0;
    u.size_halfs = uint32_t(values.size() * 2);
    u.buffer = kUsc + usc_put(bytes, 16);
    std::vector<uint8_t> w;
    append(w, u);
    return w;
  }
  // u2..u5 = the colour of render target 0 (u0_u1 unused).
  static std::vector<uint32_t> clear_colour(float r, float g, float b, float a) {
    return {0, 0, f2u(r), f2u(g), f2u(b), f2u(a)};
  }
  // The USC Texture word of descriptors at kHeap (ts0..).
  std::vector<uint8_t> texture_states(const std::vector<std::vector<uint8_t>>& descriptors) {
    std::vector<uint8_t> heap;
    for (const auto& d : descriptors) heap.insert(heap.end(), d.begin(), d.end());
    EXPECT_TRUE(mem.map(kHeap + 0x1000 * heaps, heap).ok());
    cs::UscTexture t{};
    t.start = 0;
    t.count = uint32_t(descriptors.size());
    t.buffer = kHeap + 0x1000 * heaps++;
    std::vector<uint8_t> w;
    append(w, t);
    return w;
  }
  uint32_t heaps = 0;
  // The target's PBE descriptor, as target_of() mapped it at kPbeHeap.
  std::vector<uint8_t> target_pbe() {
    std::vector<uint8_t> d(24);
    GpuFault f;
    EXPECT_TRUE(mem.read(kPbeHeap, d.data(), d.size(), GpuUnit::host, &f));
    return d;
  }
  // Background clear of render target 0; returns the code's offset.
  uint32_t clear_program(const std::vector<uint32_t>& u, std::optional<uint32_t> code_at = std::nullopt) {
    BackgroundKey bg;
    bg.op[0] = BackgroundOp::clear;
    bg.targets[0] = tile_target(0);
    bg.samples = render.samples;
    bg.layered = render.layers > 1;
    auto b = compile_background(bg);
    EXPECT_TRUE(b.ok()) << (b.ok() ? "" : b.error().message());
    if (!b.ok()) return 0;
    const uint32_t at = code_at ? *code_at : usc_put(b->code);
    render.bg = place(*b, uniforms(u), at);
    return at;
  }
  void store_program(uint32_t targets, const std::vector<std::vector<uint8_t>>& pbes) {
    EndOfTileKey eot;
    for (uint32_t rt = 0; rt < targets; ++rt) eot.store[rt] = true, eot.targets[rt] = tile_target(rt);
    eot.samples = render.samples;
    eot.layered = render.layers > 1;
    auto e = compile_end_of_tile(eot);
    ASSERT_TRUE(e.ok()) << e.error().message();
    render.eot = place(*e, texture_states(pbes));
  }
  void expect_everywhere(std::array<uint8_t, 4> want, uint32_t samples = 1, uint32_t layers = 1) {
    for (uint32_t layer = 0; layer < layers; ++layer)
      for (uint32_t s = 0; s < samples; ++s)
        for (auto [x, y] : {std::pair{0, 0}, {render.width_px - 1, render.height_px - 1}, {17, 9}})
          EXPECT_EQ(pixel(x, y, s, layer), want) << x << "," << y << " sample " << s << " layer " << layer;
  }
};

TEST_F(TileProgramTest, ClearColourComesFromUniformsSoOneProgramServesEveryValue) {
  target_of("R8G8B8A8_UNORM", 40, 36);
  const uint32_t code = clear_program(clear_colour(0.25f, 0.5f, 0.75f, 1.0f));
  store_program(1, {target_pbe()});
  ASSERT_TRUE(run().ok()) << describe(last_fault);
  expect_everywhere({64, 128, 191, 255});
  // The same code with other uniforms.
  clear_program(clear_colour(1.0f, 0.0f, 0.0f, 0.5f), code);
  ASSERT_TRUE(run().ok()) << describe(last_fault);
  expect_everywhere({255, 0, 0, 128});
}

// Whether `code` holds the encoding of the assembly line `text` (the form
// the gpu unit's render tests assemble).
bool holds(const std::vector<uint8_t>& code, const char* text) {
  auto e = isa::assemble(text);
  EXPECT_TRUE(e.ok()) << (e.ok() ? "" : e.error().message());
  if (!e.ok()) return false;
  return std::search(code.begin(), code.end(), e->bytes.begin(), e->bytes.begin() + e->length_B) != code.end();
}

TEST_F(TileProgramTest, ProgramsAreMachineCodeOfTheKey) {
  BackgroundKey bg;
  bg.op[0] = BackgroundOp::clear;
  auto b = compile_background(bg);
  ASSERT_TRUE(b.ok()) << b.error().message();
  const std::string text = disassemble(b->code);
  EXPECT_NE(text.find("u2"), std::string::npos) << text;
  EXPECT_NE(text.find("u5"), std::string::npos) << text;
  EXPECT_NE(text.find("st_tile"), std::string::npos) << text;
  EXPECT_NE(text.find("stop"), std::string::npos) << text;
  EXPECT_TRUE(holds(b->code, "st_tile r0_r1_r2_r3, u8norm, 0, xyzw, 0, 255, 0"));
  EXPECT_EQ(b->uniform_halves, 12u);
  EXPECT_EQ(b->texture_states, 0u);
  EndOfTileKey eot;
  eot.store[2] = true;
  auto e = compile_end_of_tile(eot);
  ASSERT_TRUE(e.ok()) << e.error().message();
  const std::string et = disassemble(e->code);
  EXPECT_NE(et.find("image_write_block"), std::string::npos) << et;
  EXPECT_NE(et.find("ts2"), std::string::npos) << et;
  EXPECT_EQ(e->texture_states, 3u);
  EXPECT_TRUE(holds(e->code, "image_write_block r3l, r4_r5, 0, ts2, tex_2d, rte, u8norm, 0, 9, 1"));
  EXPECT_TRUE(holds(e->code, "stop"));
}

TEST_F(TileProgramTest, TwoRenderTargetsClearedAndStored) {
  target_of("R8G8B8A8_UNORM", 32, 32);
  // A second target, R32_FLOAT, in the same records.
  tilebuffer::RenderTargets rts{};
  rts[0] = format::Format::R8G8B8A8_UNORM;
  rts[1] = format::Format::R32_FLOAT;
  auto l = tilebuffer::build_layout(rts, 1);
  ASSERT_TRUE(l.ok()) << l.error().message();
  tib = *l;
  render.sample_size_B = uint8_t(tib.sample_size_B);
  gpu::test::TestImage second = gpu::test::make_test_image(mem, kSecond, format::Format::R32_FLOAT,
                                                           layout::Tiling::twiddled, gpu::Dim::d2, 32, 32, 1, 1);
  BackgroundKey bg;
  bg.op[0] = bg.op[1] = BackgroundOp::clear;
  bg.targets[0] = tile_target(0);
  bg.targets[1] = tile_target(1);
  EXPECT_EQ(bg.targets[1].components, 1u);
  EXPECT_EQ(bg.targets[1].tile_format, 2u);  // i32
  auto b = compile_background(bg);
  ASSERT_TRUE(b.ok()) << b.error().message();
  std::vector<uint32_t> u = clear_colour(0.0f, 1.0f, 0.0f, 1.0f);
  u.insert(u.end(), {f2u(-2.5f), 0, 0, 0});  // u6..u9: render target 1
  render.bg = place(*b, uniforms(u));
  store_program(2, {target_pbe(), gpu::test::pbe_words(second, cs::TextureDimension::k2D, cs::Layout::kTwiddled)});
  ASSERT_TRUE(run().ok()) << describe(last_fault);
  expect_everywhere({0, 255, 0, 255});
  for (auto [x, y] : {std::pair{0, 0}, {31, 31}}) {
    auto at = layout::element_address_B(second.layout, uint32_t(x), uint32_t(y), 0, 0, 0);
    ASSERT_TRUE(at.ok());
    uint32_t v = 0;
    GpuFault f;
    ASSERT_TRUE(mem.read(kSecond + *at, &v, 4, GpuUnit::host, &f));
    EXPECT_EQ(u2f(v), -2.5f);
  }
}

TEST_F(TileProgramTest, MultisampledTargetStoresEverySample) {
  target_of("R8G8B8A8_UNORM", 32, 32, 4);
  clear_program(clear_colour(0.0f, 0.0f, 1.0f, 1.0f));
  store_program(1, {target_pbe()});
  ASSERT_TRUE(run().ok()) << describe(last_fault);
  expect_everywhere({0, 0, 255, 255}, 4);
}

TEST_F(TileProgramTest, ResolveAveragesTheSamplesIntoASingleSampledImage) {
  target_of("R8G8B8A8_UNORM", 32, 32, 4);
  // Sample 0 red, sample 1 green, samples 2 and 3 black (hand-written
  // background: st_tile per sample mask).
  auto fill = [](float r, float g, unsigned mask) {
    return "mov_imm r0, " + std::to_string(f2u(r)) + ", 0b0\nmov_imm r1, " + std::to_string(f2u(g)) +
           ", 0b0\nmov_imm r2, 0, 0b0\nmov_imm r3, " + std::to_string(f2u(1.0f)) +
           ", 0b0\nst_tile r0_r1_r2_r3, u8norm, 0, xyzw, 0, " + std::to_string(mask) + ", 0\n";
  };
  render.bg = tile_program(fill(1, 0, 1) + fill(0, 1, 2) + fill(0, 0, 12), false);
  gpu::test::TestImage single = gpu::test::make_test_image(mem, kSecond, format::Format::R8G8B8A8_UNORM,
                                                           layout::Tiling::twiddled, gpu::Dim::d2, 32, 32, 1, 1);
  EndOfTileKey eot;
  eot.store[0] = eot.resolve[0] = true;
  eot.targets[0] = tile_target(0);
  eot.samples = 4;
  auto e = compile_end_of_tile(eot);
  ASSERT_TRUE(e.ok()) << e.error().message();
  EXPECT_NE(disassemble(e->code).find("ld_tile"), std::string::npos);
  render.eot = place(*e, texture_states({gpu::test::pbe_words(single, cs::TextureDimension::k2D, cs::Layout::kTwiddled)}));
  ASSERT_TRUE(run().ok()) << describe(last_fault);
  for (auto [x, y] : {std::pair{0u, 0u}, {31u, 31u}, {9u, 20u}}) {
    auto at = layout::element_address_B(single.layout, x, y, 0, 0, 0);
    ASSERT_TRUE(at.ok());
    std::array<uint8_t, 4> v{};
    GpuFault f;
    ASSERT_TRUE(mem.read(kSecond + *at, v.data(), 4, GpuUnit::host, &f));
    EXPECT_EQ(v, (std::array<uint8_t, 4>{64, 64, 0, 255})) << x << "," << y;
  }
  // An f16 target's resolve is refused.
  eot.targets[0].tile_format = 3;
  auto f16 = compile_end_of_tile(eot);
  ASSERT_FALSE(f16.ok());
  EXPECT_EQ(f16.error().kind(), ErrorKind::unsupported);
}

TEST_F(TileProgramTest, LayeredTargetStoresEachLayer) {
  target_of("R8G8B8A8_UNORM", 32, 32, 1, 3);
  clear_program(clear_colour(1.0f, 1.0f, 0.0f, 1.0f));
  store_program(1, {target_pbe()});
  ASSERT_TRUE(run().ok()) << describe(last_fault);
  expect_everywhere({255, 255, 0, 255}, 1, 3);
}

TEST_F(TileProgramTest, LoadReadsTheImageIntoTheTile) {
  target_of("R8G8B8A8_UNORM", 24, 20);
  gpu::test::TestImage source = gpu::test::make_test_image(mem, kSource, format::Format::R8G8B8A8_UNORM,
                                                           layout::Tiling::twiddled, gpu::Dim::d2, 24, 20, 1, 1);
  auto texel = [](uint32_t x, uint32_t y) { return std::array<uint8_t, 4>{uint8_t(x * 10), uint8_t(y * 12), 7, 255}; };
  for (uint32_t y = 0; y < 20; ++y)
    for (uint32_t x = 0; x < 24; ++x) {
      auto at = layout::element_address_B(source.layout, x, y, 0, 0, 0);
      ASSERT_TRUE(at.ok());
      const auto v = texel(x, y);
      GpuFault f;
      ASSERT_TRUE(mem.write(kSource + *at, v.data(), 4, GpuUnit::host, &f));
    }
  BackgroundKey bg;
  bg.op[0] = BackgroundOp::load;
  bg.targets[0] = tile_target(0);
  auto b = compile_background(bg);
  ASSERT_TRUE(b.ok()) << b.error().message();
  EXPECT_EQ(b->texture_states, 1u);
  EXPECT_EQ(b->sampler_states, 1u);
  std::vector<uint8_t> state = texture_states({gpu::test::texture_words(source, cs::TextureDimension::k2D, cs::Layout::kTwiddled)});
  const std::vector<uint8_t> sampler = gpu::test::sampler_words(cs::Sampler{});
  cs::UscSampler s{};
  s.start = 0;
  s.count = 1;
  s.buffer = kUsc + usc_put(sampler, 16);
  append(state, s);
  render.bg = place(*b, state);
  store_program(1, {target_pbe()});
  ASSERT_TRUE(run().ok()) << describe(last_fault);
  for (auto [x, y] : {std::pair{0u, 0u}, {23u, 19u}, {5u, 11u}}) EXPECT_EQ(pixel(int32_t(x), int32_t(y)), texel(x, y)) << x << "," << y;
}

TEST(TileProgramKeys, BadKeysAreErrorsNamingTheTarget) {
  BackgroundKey none;
  EXPECT_FALSE(compile_background(none).ok());
  EXPECT_FALSE(compile_end_of_tile(EndOfTileKey{}).ok());
  BackgroundKey bg;
  bg.op[3] = BackgroundOp::clear;
  bg.targets[3].tile_format = 9;
  auto r = compile_background(bg);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message().find("render target 3"), std::string::npos) << r.error().message();
  bg.targets[3].tile_format = 4;
  bg.targets[3].components = 5;
  EXPECT_FALSE(compile_background(bg).ok());
  bg.targets[3].components = 4;
  bg.targets[3].offset_B = 64;
  EXPECT_FALSE(compile_background(bg).ok());
  bg.targets[3].offset_B = 0;
  bg.samples = 3;
  EXPECT_FALSE(compile_background(bg).ok());
  bg.samples = 4;
  bg.op[3] = BackgroundOp::load;
  auto ms = compile_background(bg);
  ASSERT_FALSE(ms.ok());
  EXPECT_EQ(ms.error().kind(), ErrorKind::unsupported);
  EndOfTileKey eot;
  eot.store[0] = true;
  eot.samples = 8;
  EXPECT_FALSE(compile_end_of_tile(eot).ok());
}

}  // namespace
}  // namespace agx::compiler
