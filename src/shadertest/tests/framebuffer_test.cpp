// The host framebuffer and piglit's probes of it: tolerances, coordinates
// and the reports piglit-util-gl.c prints.
#include <gtest/gtest.h>

#include "shadertest/framebuffer.h"
#include "shadertest/shader_test.h"

namespace agx::shadertest {
namespace AGX_UNITY_ID {

const Rgba kTol{0.01f, 0.01f, 0.01f, 0.01f};  // piglit_tolerance's default

CmdProbeRegion region(std::string_view line) {
  auto c = parse_command(line, 1);
  EXPECT_TRUE(c.ok()) << line;
  return std::get<CmdProbeRegion>(std::get<CmdGraphics>(*c).command);
}

TEST(Framebuffer, DefaultWindowAndStores) {
  Framebuffer fb;
  EXPECT_EQ(fb.width_px(), 250u);
  EXPECT_EQ(fb.height_px(), 250u);
  EXPECT_EQ(fb.at(0, 0), (Rgba{0, 0, 0, 0}));
  EXPECT_EQ(fb.depth_at(249, 249), 1.0f);
  fb.clear({0.5f, 2.0f, -1.0f, 0.2f});  // unorm8: clamped, 1/255 steps
  EXPECT_FLOAT_EQ(fb.at(3, 4)[0], 128 / 255.0f);
  EXPECT_EQ(fb.at(3, 4)[1], 1.0f);
  EXPECT_EQ(fb.at(3, 4)[2], 0.0f);
  Framebuffer f32(2, 2, FramebufferFormat::float32);
  f32.clear({0.5f, 2.0f, -1.0f, 0.2f});
  EXPECT_EQ(f32.at(1, 1)[1], 2.0f);
  fb.clear_depth(0.25f);
  EXPECT_EQ(fb.depth_at(0, 0), 0.25f);
  EXPECT_FALSE(Framebuffer::from_rgba8(2, 2, std::vector<uint8_t>(15)).ok());
}

TEST(Framebuffer, ToleranceForBits) {
  auto t = tolerance_for_bits({8, 8, 8, 1});
  EXPECT_FLOAT_EQ(t[0], 3.0f / 256);
  EXPECT_EQ(t[3], 1.0f);  // fewer than 2 bits: not checked
  EXPECT_FLOAT_EQ(tolerance_for_bits({5, 6, 5, 0})[1], 3.0f / 64);
}

TEST(Framebuffer, PixelProbeIsFloatWithinTolerance) {
  Framebuffer fb(4, 4, FramebufferFormat::float32);
  fb.clear({0.5f, 0.25f, 0.0f, 1.0f});
  auto r = probe_pixel(fb, 1, 2, {0.51f, 0.25f, 0.0f, 0.0f}, 3, kTol);  // |d| = 0.01 <= tolerance; alpha not probed
  ASSERT_TRUE(r.ok());
  EXPECT_FALSE(*r);
  r = probe_pixel(fb, 1, 2, {0.5f, 0.25f, 0.0f, 0.0f}, 4, kTol);
  ASSERT_TRUE(r.ok() && *r);
  EXPECT_EQ((*r)->text, "Probe color at (1,2)\n  Expected: 0.500000 0.250000 0.000000 0.000000\n"
                 "  Observed: 0.500000 0.250000 0.000000 1.000000");
  EXPECT_FALSE(probe_pixel(fb, 4, 0, {}, 3, kTol).ok());
  EXPECT_NE(probe_pixel(fb, 0, -1, {}, 3, kTol).error().message().find("outside the 4x4 framebuffer"),
            std::string::npos);
}

TEST(Framebuffer, RectProbeOnBytesUsesCeilOfToleranceTimes255) {
  Framebuffer fb(8, 4);
  fb.clear({0.0f, 1.0f, 0.0f, 1.0f});
  fb.set(5, 2, {0.0f, 1.0f - 2.0f / 255, 0.0f, 1.0f});  // 2 below: within ceil(2.55) = 3
  auto r = probe_rect(fb, {0, 0, 8, 4}, {0, 1, 0, 1}, 4, kTol);
  ASSERT_TRUE(r.ok());
  EXPECT_FALSE(*r);
  fb.set(6, 3, {0.0f, 1.0f - 3.0f / 255, 0.0f, 1.0f});  // 3 below: fails
  fb.set(7, 3, {1.0f, 0.0f, 0.0f, 1.0f});
  r = probe_rect(fb, {0, 0, 8, 4}, {0, 1, 0, 1}, 4, kTol);
  ASSERT_TRUE(r.ok() && *r);
  EXPECT_EQ((*r)->text, "Probe color at (6,3)\n  Expected: 0 255 0 255\n  Observed: 0 252 0 255");
  // The same as values: the region probed, the first failing pixel, both colours.
  const ProbeFailure& f = **r;
  EXPECT_EQ(f.kind, ProbeFailure::Kind::color);
  EXPECT_EQ(f.region.x, 0);
  EXPECT_EQ(f.region.w, 8);
  EXPECT_EQ(f.region.h, 4);
  EXPECT_EQ(f.x, 6);
  EXPECT_EQ(f.y, 3);
  EXPECT_EQ(f.expected, (Rgba{0, 1, 0, 1}));
  EXPECT_FLOAT_EQ(f.observed[1], 252.0f / 255);
  EXPECT_EQ(f.channels, 4);
  EXPECT_EQ(f.fb_width_px, 8u);
  EXPECT_EQ(f.fb_height_px, 4u);
  // The expected bytes are truncated: 0.5 is 127, and 128 is 1 away.
  fb.clear({0.5f, 0.5f, 0.5f, 0.5f});
  r = probe_rect(fb, {0, 0, 8, 4}, {0.5f, 0.5f, 0.5f, 0.5f}, 3, kTol);
  EXPECT_TRUE(r.ok() && !*r);
  EXPECT_FALSE(probe_rect(fb, {4, 0, 5, 1}, {}, 3, kTol).ok());  // past the right edge
}

TEST(Framebuffer, RectProbeOnFloatsFailsAtTheTolerance) {
  Framebuffer fb(2, 2, FramebufferFormat::float32);
  fb.clear({0.5f, 0.5f, 0.5f, 0.5f});
  auto r = probe_rect(fb, {0, 0, 2, 2}, {0.5f, 0.5f, 0.5f, 0.5f}, 4, kTol);
  EXPECT_TRUE(r.ok() && !*r);
  r = probe_rect(fb, {0, 0, 2, 2}, {0.5f, 0.5f, 0.25f, 0.5f}, 3, kTol);
  ASSERT_TRUE(r.ok() && *r);
  EXPECT_EQ((*r)->text, "Probe color at (0,0)\n  Expected: 0.500000 0.500000 0.250000\n  Observed: 0.500000 0.500000 0.500000");
}

TEST(Framebuffer, RelativeCoordinatesAsShaderRunner) {
  // x = X * width truncated; a point probe clamps to the last pixel.
  PixelRect r = probe_pixels(region("relative probe rgb (0.75, 0.25) (0, 1, 0)"), 250, 250);
  EXPECT_EQ(r.x, 187);
  EXPECT_EQ(r.y, 62);
  r = probe_pixels(region("relative probe rgb (1.0, 1.0) (0, 1, 0)"), 250, 250);
  EXPECT_EQ(r.x, 249);
  EXPECT_EQ(r.y, 249);
  r = probe_pixels(region("relative probe rect rgb (0.5, 0.0, 0.5, 0.5) (1, 0, 0)"), 250, 100);
  EXPECT_EQ(r.x, 125);
  EXPECT_EQ(r.w, 125);
  EXPECT_EQ(r.h, 50);
  r = probe_pixels(region("probe rect rgba (1, 2, 3, 4) (0, 1, 0, 1)"), 250, 250);
  EXPECT_EQ(r.y, 2);
  EXPECT_EQ(r.h, 4);
}

TEST(Framebuffer, RunProbeIntegerAndDepth) {
  Framebuffer fb(4, 4, FramebufferFormat::float32);
  fb.clear({1, -2, 3, 4});
  auto r = run_probe(fb, region("relative probe rect rgba int (0, 0, 1, 1) (1, -2, 3, 4)"), kTol);
  EXPECT_TRUE(r.ok() && !*r);
  r = run_probe(fb, region("relative probe rect rgba int (0, 0, 1, 1) (1, -2, 3, 5)"), kTol);
  ASSERT_TRUE(r.ok() && *r);
  EXPECT_EQ((*r)->text, "Probe color at (0,0)\n  Expected: 1 -2 3 5\n  Observed: 1 -2 3 4");
  EXPECT_EQ((*r)->kind, ProbeFailure::Kind::integer);
  EXPECT_EQ((*r)->expected, (Rgba{1, -2, 3, 5}));
  EXPECT_EQ((*r)->region.w, 4);
  r = run_probe(fb, region("relative probe rgb (0.5, 0.5) (1, -2, 3)"), kTol);
  EXPECT_TRUE(r.ok() && !*r);
  fb.set_depth(2, 1, 0.5f);
  EXPECT_FALSE(*probe_depth(fb, 2, 1, 0.505f));
  auto d = probe_depth(fb, 2, 1, 0.52f);  // |d| >= 0.01 fails
  ASSERT_TRUE(d.ok() && *d);
  EXPECT_EQ((*d)->text, "Probe depth at (2,1)\n  Expected: 0.520000\n  Observed: 0.500000");
  EXPECT_EQ((*d)->kind, ProbeFailure::Kind::depth);
  EXPECT_FLOAT_EQ((*d)->expected[0], 0.52f);
  EXPECT_FLOAT_EQ((*d)->observed[0], 0.5f);
  EXPECT_EQ((*d)->region.w, 1);
}

}  // namespace
}  // namespace agx::shadertest
