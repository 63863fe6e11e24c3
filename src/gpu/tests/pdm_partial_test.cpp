// Partial renders (FragmentOptions::partial_render_every,
// AGX_GPU_PARTIAL_RENDER): the scene split after every N primitives, each
// tile running partial_eot, ZLS store, ZLS load and partial_bg between the
// parts. With partial programs that store and reload the tile, and a
// zls_ctrl that stores and loads depth / stencil (as Mesa's drivers set it
// for partial renders), the image, depth and stencil equal the unsplit
// render's; a partial background that does not reload, or a zls_ctrl
// without Z Load, shows the split.
#include <cstdlib>

#include "pdm_fixture.h"

namespace agx::gpu::test {
namespace AGX_UNITY_ID {

using Rgba = std::array<uint8_t, 4>;
constexpr Rgba kRed{255, 0, 0, 255}, kGreen{0, 255, 0, 255}, kBlue{0, 0, 255, 255};

class PdmPartial : public RenderTest {
 public:
  // The target (70 x 40: 3 x 2 tiles of 32 x 32, the last ones cut), the
  // clear / store programs, and the partial programs storing (the eot) and
  // reloading (texture_load of the target) the tile.
  void setup(bool reload = true) {
    mem = usc::RegionMemory();
    scene = Scene();
    usc_used = 0;
    render = drm_asahi_cmd_render{};
    target_of("R8G8B8A8_UNORM", 70, 40);
    clear_and_store(0.2f, 0.2f, 0.2f, 1);
    render.partial_eot = store_program();
    render.partial_bg = reload ? reload_program() : tile_program(colour(0, 0, 1, 1), false);
  }
  // Depth and stencil stored and loaded; the depth buffer starts at 1.0,
  // the stencil at 0.
  void depth_stencil(bool z_load = true) {
    cs::ZlsControl c{};
    c.z_load = z_load;
    c.z_store = c.s_load = c.s_store = true;
    c.z_format = cs::ZlsFormat::k32F;
    zls(c, 1.0f, 0);
    std::vector<float> ones(depth_layout.size_B / 4, 1.0f);
    GpuFault f;
    ASSERT_TRUE(mem.write(kDepth, ones.data(), depth_layout.size_B, GpuUnit::host, &f)) << describe(f);
  }
  // Depth Less with writes, stencil Always incrementing (wrapping) on pass.
  static PppWords counting_words() {
    PppWords w = open_words();
    w.fragment_control.stencil_test_enable = true;
    for (cs::FragmentFace* f : {&w.front, &w.back}) {
      f->depth_function = cs::ZsFunc::kLess;
      f->disable_depth_write = false;
    }
    for (cs::FragmentStencil* st : {&w.front_stencil, &w.back_stencil}) st->depth_pass = cs::StencilOp::kIncrWrap;
    return w;
  }
  // Overlapping rectangles and triangles of four colours at various depths.
  void scene_of_overlaps() {
    const PppWords w = counting_words();
    const uint32_t red = draw(colour(1, 0, 0, 1), {}, w), green = draw(colour(0, 1, 0, 1), {}, w),
                   blue = draw(colour(0, 0, 1, 1), {}, w), white = draw(colour(1, 1, 1, 1), {}, w);
    rect(red, 0, 0, 40, 30, 0.5);
    rect(green, 20, 10, 70, 40, 0.3);
    triangle(blue, vertex(5, 2, 0.4), vertex(66, 8, 0.4), vertex(30, 38, 0.4));
    rect(white, 10, 5, 60, 35, 0.6);
    triangle(red, vertex(60.5, 1, 0.1), vertex(68, 39, 0.1), vertex(1, 37.5, 0.1));
    rect(green, 33, 0, 37, 40, 0.2);
  }
  struct Image {
    std::vector<Rgba> rgba;
    std::vector<float> depth;
    std::vector<uint8_t> stencil;
    bool operator==(const Image&) const = default;
  };
  Image read_back() {
    Image i;
    for (int y = 0; y < 40; ++y)
      for (int x = 0; x < 70; ++x) {
        i.rgba.push_back(pixel(x, y));
        i.depth.push_back(depth_at(x, y));
        i.stencil.push_back(stencil_at(x, y));
      }
    return i;
  }
  Image render_overlaps(uint64_t every) {
    setup();
    depth_stencil();
    scene_of_overlaps();
    FragmentOptions o;
    o.partial_render_every = every;
    auto st = run(std::move(o));
    EXPECT_TRUE(st.ok()) << st.error().message();
    return read_back();
  }
  // Red over the left part, then green over the right part: primitives 0, 1
  // and 2, 3.
  void red_then_green(PppWords w = open_words()) {
    rect(draw(colour(1, 0, 0, 1), {}, w), 0, 0, 40, 40, 0.3);
    rect(draw(colour(0, 1, 0, 1), {}, w), 30, 0, 70, 40, 0.6);
  }
};

TEST_F(PdmPartial, StoredAndReloadedTilesGiveTheUnsplitImage) {
  const Image whole = render_overlaps(0);
  EXPECT_EQ(last_stats.partial_renders, 0u);
  // Not a trivial image: every colour, several depths and stencil counts.
  EXPECT_EQ(whole.rgba[0], kRed);
  EXPECT_EQ(whole.rgba[39 * 70 + 69], kGreen);
  EXPECT_EQ(whole.stencil[20 * 70 + 35], 3);  // red, green, the red triangle passed
  for (uint64_t every : {1u, 3u, 4u, 7u}) {
    EXPECT_EQ(render_overlaps(every), whole) << "split after every " << every << " primitives";
    // 10 primitives: ceil(10 / every) - 1 splits in each of the 6 tiles.
    EXPECT_EQ(last_stats.partial_renders, 6u * ((10 + every - 1) / every - 1)) << every;
  }
}

TEST_F(PdmPartial, APartialBackgroundThatDoesNotReloadShowsTheSplit) {
  setup(false);
  red_then_green();
  FragmentOptions o;
  o.partial_render_every = 2;
  auto st = run(std::move(o));
  ASSERT_TRUE(st.ok()) << st.error().message();
  EXPECT_EQ(last_stats.partial_renders, 6u);
  for (int y = 0; y < 40; y += 3)
    for (int x = 0; x < 70; x += 3) ASSERT_EQ(pixel(x, y), x < 30 ? kBlue : kGreen) << x << "," << y;
  // Unsplit (the partial programs never run): red stays.
  setup(false);
  red_then_green();
  st = run();
  ASSERT_TRUE(st.ok()) << st.error().message();
  EXPECT_EQ(pixel(10, 10), kRed);
  EXPECT_EQ(pixel(50, 10), kGreen);
}

TEST_F(PdmPartial, WithoutPartialProgramsTheTileColourIsLost) {
  setup();
  render.partial_bg = render.partial_eot = drm_asahi_bg_eot{};
  red_then_green();
  FragmentOptions o;
  o.partial_render_every = 2;
  auto st = run(std::move(o));
  ASSERT_TRUE(st.ok()) << st.error().message();
  EXPECT_EQ(pixel(10, 10), (Rgba{0, 0, 0, 0}));  // the zeroed tilebuffer
  EXPECT_EQ(pixel(50, 10), kGreen);
}

// zls_ctrl without Z Load: after the split the depth restarts at
// isp_bgobjdepth, so the green rectangle behind the red one passes.
TEST_F(PdmPartial, WithoutZLoadTheDepthRestartsAtTheClearValue) {
  for (bool split : {false, true}) {
    setup();
    depth_stencil(false);
    PppWords w = counting_words();
    red_then_green(w);
    FragmentOptions o;
    o.partial_render_every = split ? 2 : 0;
    auto st = run(std::move(o));
    ASSERT_TRUE(st.ok()) << st.error().message();
    EXPECT_EQ(pixel(35, 10), split ? kGreen : kRed) << split;
    EXPECT_EQ(depth_at(35, 10), split ? 0.6f : 0.3f) << split;
    // S Load is set: the first part's count survives the split.
    EXPECT_EQ(stencil_at(35, 10), split ? 2 : 1) << split;
    EXPECT_EQ(pixel(5, 10), kRed);
    EXPECT_EQ(pixel(65, 10), kGreen);
  }
}

TEST_F(PdmPartial, TheEnvironmentSetsTheSplitAndTheOptionWins) {
  setup();
  red_then_green();
  ASSERT_EQ(setenv("AGX_GPU_PARTIAL_RENDER", "1", 1), 0);
  auto st = run();
  ASSERT_TRUE(st.ok()) << st.error().message();
  EXPECT_EQ(last_stats.partial_renders, 6u * 3);
  FragmentOptions o;
  o.partial_render_every = 3;
  st = run(std::move(o));
  unsetenv("AGX_GPU_PARTIAL_RENDER");
  ASSERT_TRUE(st.ok()) << st.error().message();
  EXPECT_EQ(last_stats.partial_renders, 6u);
  EXPECT_EQ(pixel(10, 10), kRed);
  EXPECT_EQ(pixel(50, 10), kGreen);
}

TEST_F(PdmPartial, AFaultingPartialProgramIsNamed) {
  setup();
  render.partial_bg = tile_program("mov_imm r0, 0, 0b0\nmov_imm r1, 16, 0b0\n"
                                   "device_load 0, i32, x, r2, r0_r1, 0, unsigned\nwait 0\n",
                                   false);
  red_then_green();
  FragmentOptions o;
  o.partial_render_every = 2;
  auto st = run(std::move(o));
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(last_fault.unit, GpuUnit::usc);
  EXPECT_NE(st.error().message().find("partial background program"), std::string::npos) << st.error().message();
  EXPECT_NE(st.error().message().find("tile at (0, 0)"), std::string::npos) << st.error().message();
}

TEST_F(PdmPartial, ABadPartialProgramWordListFaultsTheCommand) {
  setup();
  render.partial_eot.usc = 0xFFF00 | 4;  // zeros: no Shader word
  red_then_green();
  FragmentOptions o;
  o.partial_render_every = 2;
  auto st = run(std::move(o));
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.error().message().find("partial end-of-tile program"), std::string::npos) << st.error().message();
  // Unsplit, the partial programs are not read.
  st = run();
  EXPECT_TRUE(st.ok()) << st.error().message();
}

}  // namespace
}  // namespace agx::gpu::test
