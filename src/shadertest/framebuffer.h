// The window a shader_test draws into, on the host, and piglit's probes of
// it. Model only: RGBA float pixels (and depths) of a W x H framebuffer,
// piglit's default 250x250 (X11Libre/mirror.fdo.piglit
// tests/shaders/shader_runner.c DEFAULT_WINDOW_WIDTH/HEIGHT), row 0 at the
// bottom as glReadPixels counts it.
//
// Probes follow piglit's tests/util/piglit-util-gl.c:
// - piglit_probe_pixel_rgb/rgba (`probe rgb|rgba`, `relative probe
//   rgb|rgba`): the float readback, a channel fails when |observed -
//   expected| > tolerance; the report is "Probe color at (X,Y)" then
//   "  Expected: %f %f %f[ %f]" and "  Observed: ...".
// - piglit_probe_rect_rgb/rgba (`probe rect`, `relative probe rect`,
//   `probe all`): on a framebuffer of 8-bit unorm channels (can_probe_ubyte,
//   which the window is) the bytes are compared: expected = (GLubyte)(e *
//   255) (truncated), tolerance = ceil(t * 255), a channel fails when
//   |observed - expected| >= tolerance, and the report prints the bytes
//   (%u); on a float framebuffer the floats, failing when |o - e| >= t.
//   The first failing pixel, bottom row first, is reported.
// - piglit_probe_rect_rgba_int (`relative probe rect rgba int`): integers,
//   failing when |o - e| >= tolerance, reported with %d.
// - piglit_probe_pixel_depth (`probe depth`): fails when |o - e| >= 0.01,
//   "Probe depth at (X,Y)", "  Expected: %f", "  Observed: %f".
// The tolerance is piglit_tolerance: 0.01 per channel until `tolerance`
// sets it (tests/util/piglit-util.c); piglit_set_tolerance_for_bits gives
// 3 / 2^bits per channel (1.0 below 2 bits), `tolerance_for_bits` here.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "shadertest/graphics_commands.h"
#include "util/result.h"

namespace agx::shadertest {

inline constexpr uint32_t kDefaultWindowWidth = 250, kDefaultWindowHeight = 250;
inline constexpr float kDepthProbeTolerance = 0.01f;

using Rgba = std::array<float, 4>;

enum class FramebufferFormat { unorm8, float32 };

class Framebuffer {
 public:
  Framebuffer(uint32_t width_px = kDefaultWindowWidth, uint32_t height_px = kDefaultWindowHeight,
              FramebufferFormat format = FramebufferFormat::unorm8);
  // The window as RGBA8 bytes, row 0 first (what a render target download gives).
  static Result<Framebuffer> from_rgba8(uint32_t width_px, uint32_t height_px, const std::vector<uint8_t>& bytes);

  uint32_t width_px() const { return width_px_; }
  uint32_t height_px() const { return height_px_; }
  FramebufferFormat format() const { return format_; }

  // What a write stores: unorm8 clamps to [0, 1] and rounds to 1/255 steps.
  void clear(const Rgba& rgba);
  void clear_depth(float depth);
  void set(uint32_t x, uint32_t y, const Rgba& rgba);
  void set_depth(uint32_t x, uint32_t y, float depth);
  const Rgba& at(uint32_t x, uint32_t y) const { return pixels_[size_t(y) * width_px_ + x]; }
  float depth_at(uint32_t x, uint32_t y) const { return depths_[size_t(y) * width_px_ + x]; }

 private:
  Rgba stored(const Rgba& rgba) const;
  uint32_t width_px_, height_px_;
  FramebufferFormat format_;
  std::vector<Rgba> pixels_;
  std::vector<float> depths_;
};

// piglit's pixel probe: every channel within the tolerance (|observed -
// expected| <= tolerance); `channels` is 3 for rgb, 4 for rgba.
bool probe_matches(const Rgba& observed, const Rgba& expected, const Rgba& tolerance, int channels);

std::array<float, 4> tolerance_for_bits(const std::array<int, 4>& bits);

// A probe's pixels, in window coordinates.
struct PixelRect {
  int x = 0, y = 0, w = 1, h = 1;
};
// shader_runner's coordinates of a probe command: `relative probe` scales by
// the read framebuffer's size (x = X * width, truncated; a point probe is
// clamped to the last row and column), `probe rect` takes pixels.
PixelRect probe_pixels(const CmdProbeRegion& p, uint32_t width_px, uint32_t height_px);

// A probe that did not match: piglit's report (`text`) and what it says,
// as values, so a report can show the colours and mark the region.
struct ProbeFailure {
  enum class Kind { color, integer, depth };
  Kind kind = Kind::color;
  std::string text;         // "Probe color at (X,Y)\n  Expected: ...\n  Observed: ..."
  PixelRect region;         // the probed pixels (window coordinates, row 0 at the bottom)
  int x = 0, y = 0;         // the first failing pixel
  Rgba expected{}, observed{};  // colour (or depth in [0]); integers as floats
  int channels = 4;         // channels compared (3 for rgb)
  uint32_t fb_width_px = 0, fb_height_px = 0;  // the framebuffer probed
  unsigned line = 0;        // the [test] line (set by the session; 0: unknown)
};

// nullopt when the probe passes, else the failure. A region outside the
// framebuffer is an error naming it (glReadPixels would read undefined data).
Result<std::optional<ProbeFailure>> probe_pixel(const Framebuffer& fb, int x, int y, const Rgba& expected,
                                                int channels, const Rgba& tolerance);
Result<std::optional<ProbeFailure>> probe_rect(const Framebuffer& fb, const PixelRect& r, const Rgba& expected,
                                               int channels, const Rgba& tolerance);
Result<std::optional<ProbeFailure>> probe_rect_int(const Framebuffer& fb, const PixelRect& r,
                                                   const std::array<int32_t, 4>& expected, const Rgba& tolerance);
Result<std::optional<ProbeFailure>> probe_depth(const Framebuffer& fb, int x, int y, float expected);
// Any probe command of a vertex/fragment file, on `fb`.
Result<std::optional<ProbeFailure>> run_probe(const Framebuffer& fb, const CmdProbeRegion& p, const Rgba& tolerance);

}  // namespace agx::shadertest
