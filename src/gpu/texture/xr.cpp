// Texture Type XR (extended range). No Mesa format uses it; the encoding is
// Apple's public Metal documentation of MTLPixelFormat.bgr10_xr,
// bgr10_xr_srgb, bgra10_xr and bgra10_xr_srgb
// (developer.apple.com/documentation/metal/mtlpixelformat/bgr10_xr and its
// siblings): a 10-bit code c is the shader value (c - 384) / 510, i.e.
// [0, 1023] onto [-0.752941, 1.25098]; alpha is clamped to [0, 1] when read
// and written; the sRGB forms apply the linear encoding, then the sRGB
// transfer (their documented linear range -0.5271 .. 1.66894 is the EOTF of
// -0.752941 .. 1.25098 with the sign mirrored). The 32-bit bgr10_xr keeps B,
// G, R in bits 0-9, 10-19, 20-29 (bits 30-31 padding, 0); the 64-bit
// bgra10_xr keeps each component in the top 10 bits of a 16-bit lane (bits
// 0-5 of each lane padding, 0).
//
// Which Channels classes XR combines with on AGX is not public: our choice
// (docs/texture.md, "Texture Type XR") is the table kXrClasses.
#include <algorithm>
#include <array>
#include <cmath>

#include "gpu/texture/texture_internal.h"

namespace agx::gpu::internal {
namespace {

using format::Channels;

// The code of shader value 0 and the codes per unit (Metal's formula).
constexpr int kXr10Bias = 384;
constexpr double kXr10Scale = 510.0;
constexpr uint32_t kXr10MaxCode = 1023;

struct XrClass {
  Channels channels;
  uint8_t count;                  // XR channels; a class without alpha reads 1
  std::array<uint8_t, 4> shift;   // bit offset of each 10-bit code
};
// R10G10B10A2: bgr10_xr's three packed codes (the 2-bit field is padding).
// R16G16B16A16: bgra10_xr's four codes in the top of 16-bit lanes.
constexpr XrClass kXrClasses[] = {
    {Channels::R10G10B10A2, 3, {0, 10, 20, 0}},
    {Channels::R16G16B16A16, 4, {6, 22, 38, 54}},
};

// The sRGB transfer functions extended to every real number by mirroring
// the sign (no clamping to [0, 1]).
double eotf_mirrored(double v) { return std::copysign(srgb_eotf(std::fabs(v)), v); }
double oetf_mirrored(double l) { return std::copysign(srgb_oetf(std::fabs(l)), l); }

double round_with(double v, Rounding r) {
  switch (r) {
    case Rounding::toward_zero: return std::trunc(v);
    case Rounding::toward_pos: return std::ceil(v);
    case Rounding::toward_neg: return std::floor(v);
    case Rounding::nearest_even: break;
  }
  return std::nearbyint(v);
}

}  // namespace

Result<TexelFormat> xr_texel_format(Channels channels, bool srgb) {
  AGX_TRY(format::ChannelsInfo ci, format::channels_info(channels));
  for (const XrClass& x : kXrClasses) {
    if (x.channels != channels) continue;
    TexelFormat f;
    f.channels = channels;
    f.type = format::TextureType::XR;
    f.kind = TexelFormat::Kind::xr10;
    f.count = x.count;
    f.bytes = ci.bytes_B;
    for (unsigned i = 0; i < x.count; ++i) {
      f.bits[i] = 10;
      f.shift[i] = x.shift[i];
    }
    if (srgb) f.srgb = {true, true, true, false};  // alpha stays linear
    return f;
  }
  return Error::unsupported(
      "texture format {} with type XR: extended range is done for the R10G10B10A2 and "
      "R16G16B16A16 classes only",
      ci.name);
}

float xr10_to_float(uint32_t code, bool srgb, bool alpha) {
  const double v = (double(code & kXr10MaxCode) - kXr10Bias) / kXr10Scale;
  if (alpha) return float(std::clamp(v, 0.0, 1.0));
  return float(srgb ? eotf_mirrored(v) : v);
}

uint32_t float_to_xr10(float value, bool srgb, bool alpha, Rounding rounding) {
  if (std::isnan(value)) return kXr10Bias;  // NaN stores 0.0
  double v = value;
  if (alpha) v = std::clamp(v, 0.0, 1.0);
  else if (srgb) v = oetf_mirrored(v);
  // Clamp to the representable codes, rounding the value's distance from
  // the zero code so that toward-zero rounds toward 0.0.
  const double lo = -double(kXr10Bias), hi = double(kXr10MaxCode) - kXr10Bias;
  const double q = round_with(std::clamp(v * kXr10Scale, lo, hi), rounding);
  return uint32_t(int32_t(q) + kXr10Bias);
}

}  // namespace agx::gpu::internal
