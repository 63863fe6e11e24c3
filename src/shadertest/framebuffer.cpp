// Probes of the host framebuffer (the rules and messages of
// X11Libre/mirror.fdo.piglit tests/util/piglit-util-gl.c, framebuffer.h).
#include "shadertest/framebuffer.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>

namespace agx::shadertest {

Framebuffer::Framebuffer(uint32_t width_px, uint32_t height_px, FramebufferFormat format)
    : width_px_(width_px),
      height_px_(height_px),
      format_(format),
      pixels_(size_t(width_px) * height_px, Rgba{0, 0, 0, 0}),
      depths_(size_t(width_px) * height_px, 1.0f) {}

Result<Framebuffer> Framebuffer::from_rgba8(uint32_t width_px, uint32_t height_px, const std::vector<uint8_t>& bytes) {
  if (bytes.size() != size_t(width_px) * height_px * 4)
    return Error::invalid_argument("{} bytes are not a {}x{} RGBA8 framebuffer", bytes.size(), width_px, height_px);
  Framebuffer fb(width_px, height_px, FramebufferFormat::unorm8);
  for (size_t i = 0; i < fb.pixels_.size(); ++i)
    for (int c = 0; c < 4; ++c) fb.pixels_[i][c] = bytes[i * 4 + c] / 255.0f;
  return fb;
}

Rgba Framebuffer::stored(const Rgba& rgba) const {
  if (format_ == FramebufferFormat::float32) return rgba;
  Rgba out;
  for (int c = 0; c < 4; ++c) out[c] = std::round(std::clamp(rgba[c], 0.0f, 1.0f) * 255.0f) / 255.0f;
  return out;
}

void Framebuffer::clear(const Rgba& rgba) { std::fill(pixels_.begin(), pixels_.end(), stored(rgba)); }
void Framebuffer::clear_depth(float depth) { std::fill(depths_.begin(), depths_.end(), std::clamp(depth, 0.0f, 1.0f)); }
void Framebuffer::set(uint32_t x, uint32_t y, const Rgba& rgba) { pixels_[size_t(y) * width_px_ + x] = stored(rgba); }
void Framebuffer::set_depth(uint32_t x, uint32_t y, float depth) {
  depths_[size_t(y) * width_px_ + x] = std::clamp(depth, 0.0f, 1.0f);
}

bool probe_matches(const Rgba& observed, const Rgba& expected, const Rgba& tolerance, int channels) {
  for (int i = 0; i < channels; ++i)
    if (!(std::fabs(observed[i] - expected[i]) <= tolerance[i])) return false;
  return true;
}

std::array<float, 4> tolerance_for_bits(const std::array<int, 4>& bits) {
  std::array<float, 4> t{};
  for (int i = 0; i < 4; ++i) t[i] = bits[i] < 2 ? 1.0f : 3.0f / float(1u << bits[i]);
  return t;
}

PixelRect probe_pixels(const CmdProbeRegion& p, uint32_t width_px, uint32_t height_px) {
  PixelRect r;
  if (!p.relative) {
    r = {int(p.where[0]), int(p.where[1]), p.rect ? int(p.where[2]) : 1, p.rect ? int(p.where[3]) : 1};
    return r;
  }
  // shader_runner: x = c[0] * read_width (a float product stored in an int).
  r.x = int(p.where[0] * float(width_px));
  r.y = int(p.where[1] * float(height_px));
  if (p.rect) {
    r.w = int(p.where[2] * float(width_px));
    r.h = int(p.where[3] * float(height_px));
  } else {
    r.x = std::min(r.x, int(width_px) - 1);
    r.y = std::min(r.y, int(height_px) - 1);
  }
  return r;
}

namespace {

Status inside(const Framebuffer& fb, const PixelRect& r) {
  if (r.x < 0 || r.y < 0 || r.w < 0 || r.h < 0 || int64_t(r.x) + r.w > int64_t(fb.width_px()) ||
      int64_t(r.y) + r.h > int64_t(fb.height_px()))
    return Error::invalid_argument("probe of {}x{} pixels at ({}, {}) is outside the {}x{} framebuffer", r.w, r.h, r.x,
                                   r.y, fb.width_px(), fb.height_px());
  return {};
}

template <typename T>
std::string channels_text(const T& values, int channels, const char* spec) {
  std::string s;
  for (int i = 0; i < channels; ++i) s += fmt::format(fmt::runtime(spec), values[i]);
  return s;
}

// The failure at pixel (x, y) of `r`: piglit's report from the texts of
// the expected and observed values, and the values themselves.
ProbeFailure color_failure(const Framebuffer& fb, const PixelRect& r, int x, int y, const std::string& expected_text,
                           const std::string& observed_text, const Rgba& expected, int channels) {
  ProbeFailure f;
  f.text = fmt::format("Probe color at ({},{})\n  Expected:{}\n  Observed:{}", x, y, expected_text, observed_text);
  f.region = r;
  f.x = x;
  f.y = y;
  f.expected = expected;
  f.observed = fb.at(uint32_t(x), uint32_t(y));
  f.channels = channels;
  f.fb_width_px = fb.width_px();
  f.fb_height_px = fb.height_px();
  return f;
}

}  // namespace

Result<std::optional<ProbeFailure>> probe_pixel(const Framebuffer& fb, int x, int y, const Rgba& expected, int channels,
                                                const Rgba& tolerance) {
  AGX_CHECK(inside(fb, {x, y, 1, 1}));
  const Rgba& got = fb.at(uint32_t(x), uint32_t(y));
  if (probe_matches(got, expected, tolerance, channels)) return std::optional<ProbeFailure>();
  return std::optional(color_failure(fb, {x, y, 1, 1}, x, y, channels_text(expected, channels, " {:f}"),
                                     channels_text(got, channels, " {:f}"), expected, channels));
}

Result<std::optional<ProbeFailure>> probe_rect(const Framebuffer& fb, const PixelRect& r, const Rgba& expected,
                                               int channels, const Rgba& tolerance) {
  AGX_CHECK(inside(fb, r));
  const bool bytes = fb.format() == FramebufferFormat::unorm8;
  std::array<int, 4> want{}, tol{};
  for (int c = 0; c < 4; ++c) {
    // (GLubyte)(e * 255): C's conversion truncates; out-of-range values are
    // clamped here, where C leaves them undefined.
    want[c] = int(std::clamp(expected[c], 0.0f, 1.0f) * 255.0f);
    tol[c] = int(std::ceil(tolerance[c] * 255.0f));
  }
  for (int j = 0; j < r.h; ++j) {
    for (int i = 0; i < r.w; ++i) {
      const Rgba& got = fb.at(uint32_t(r.x + i), uint32_t(r.y + j));
      for (int c = 0; c < channels; ++c) {
        if (bytes) {
          std::array<int, 4> b{};
          for (int k = 0; k < 4; ++k) b[k] = int(std::lround(got[k] * 255.0f));
          if (std::abs(b[c] - want[c]) < tol[c]) continue;
          return std::optional(color_failure(fb, r, r.x + i, r.y + j, channels_text(want, channels, " {}"),
                                             channels_text(b, channels, " {}"), expected, channels));
        }
        if (std::fabs(got[c] - expected[c]) < tolerance[c]) continue;
        return std::optional(color_failure(fb, r, r.x + i, r.y + j, channels_text(expected, channels, " {:f}"),
                                           channels_text(got, channels, " {:f}"), expected, channels));
      }
    }
  }
  return std::optional<ProbeFailure>();
}

Result<std::optional<ProbeFailure>> probe_rect_int(const Framebuffer& fb, const PixelRect& r,
                                                   const std::array<int32_t, 4>& expected, const Rgba& tolerance) {
  AGX_CHECK(inside(fb, r));
  for (int j = 0; j < r.h; ++j) {
    for (int i = 0; i < r.w; ++i) {
      const Rgba& got = fb.at(uint32_t(r.x + i), uint32_t(r.y + j));
      std::array<int32_t, 4> g{};
      for (int c = 0; c < 4; ++c) g[c] = int32_t(got[c]);
      for (int c = 0; c < 4; ++c) {
        if (float(std::abs(int64_t(g[c]) - expected[c])) < tolerance[c]) continue;
        Rgba want{float(expected[0]), float(expected[1]), float(expected[2]), float(expected[3])};
        ProbeFailure f = color_failure(fb, r, r.x + i, r.y + j, channels_text(expected, 4, " {}"),
                                       channels_text(g, 4, " {}"), want, 4);
        f.kind = ProbeFailure::Kind::integer;
        return std::optional(std::move(f));
      }
    }
  }
  return std::optional<ProbeFailure>();
}

Result<std::optional<ProbeFailure>> probe_depth(const Framebuffer& fb, int x, int y, float expected) {
  AGX_CHECK(inside(fb, {x, y, 1, 1}));
  float got = fb.depth_at(uint32_t(x), uint32_t(y));
  if (std::fabs(got - expected) < kDepthProbeTolerance) return std::optional<ProbeFailure>();
  ProbeFailure f;
  f.kind = ProbeFailure::Kind::depth;
  f.text = fmt::format("Probe depth at ({},{})\n  Expected: {:f}\n  Observed: {:f}", x, y, expected, got);
  f.region = {x, y, 1, 1};
  f.x = x;
  f.y = y;
  f.expected = {expected, 0, 0, 0};
  f.observed = {got, 0, 0, 0};
  f.channels = 1;
  f.fb_width_px = fb.width_px();
  f.fb_height_px = fb.height_px();
  return std::optional(std::move(f));
}

Result<std::optional<ProbeFailure>> run_probe(const Framebuffer& fb, const CmdProbeRegion& p, const Rgba& tolerance) {
  PixelRect r = probe_pixels(p, fb.width_px(), fb.height_px());
  int channels = p.alpha ? 4 : 3;
  if (p.integer) return probe_rect_int(fb, r, p.rgba_int, tolerance);
  if (p.rect) return probe_rect(fb, r, p.rgba, channels, tolerance);
  return probe_pixel(fb, r.x, r.y, p.rgba, channels, tolerance);
}

}  // namespace agx::shadertest
