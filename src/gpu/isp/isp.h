// The ISP (image synthesis processor): which samples of which pixels a
// primitive covers, its depth there, and the depth / stencil / scissor tests
// and visibility counts of a render command's fragment half. Plain functions
// over the scene's primitives (gpu/render/scene.h) and the PPP words in
// force for them; the PDM (gpu/pdm) calls them tile by tile.
//
// Public facts: the PPP words (bminor/mesa-mesa src/asahi/genxml/cmdbuf.xml
// "Fragment face", "Fragment stencil", "Fragment control", "Scissor",
// "Depth bias", through the cmdstream tables), the sample positions Mesa
// packs in ppp_multisamplectl (src/asahi/vulkan/hk_cmd_draw.c
// hk_default_sample_positions; src/asahi/lib/agx_nir_lower_sample_mask.c /
// agx_nir_lower_msaa: one byte per sample, x in the low nibble and y in the
// high nibble, in 1/16 pixel). Our choices, where the hardware is not public
// (docs/gpu.md, "The ISP"): the sub-pixel precision (kSubpixelBits), the
// fill convention (top-left), how lines and points cover samples, the depth
// bias units, the order of tests.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "cmdstream/typed.h"
#include "gpu/render/scene.h"
#include "util/result.h"

namespace agx::gpu {

// Vertex positions snap to 1/256 pixel before coverage is computed (our
// choice; the hardware's precision is not public).
inline constexpr unsigned kSubpixelBits = 8;
inline constexpr unsigned kMaxSamples = 4;

// Sample positions inside a pixel (0..1, from its upper-left corner).
struct SamplePositions {
  unsigned count = 1;
  std::array<std::array<float, 2>, kMaxSamples> at{};
};
// Decodes ppp_multisamplectl for `samples` (1, 2 or 4) samples; another
// count is an invalid_argument error.
Result<SamplePositions> decode_sample_positions(uint64_t ppp_multisamplectl, unsigned samples);
// Mesa's default positions packed as ppp_multisamplectl (hk_default_sample_positions).
uint64_t default_multisamplectl(unsigned samples);

// A rectangle of pixels, [x0, x1) x [y0, y1).
struct PixelRect {
  int32_t x0 = 0, y0 = 0, x1 = 0, y1 = 0;
  bool empty() const { return x0 >= x1 || y0 >= y1; }
};
PixelRect intersect(const PixelRect& a, const PixelRect& b);

// One primitive set up for coverage: edge equations in fixed point, the
// depth plane, the bounding box of the pixels it may cover.
struct RasterPrimitive {
  PrimitiveKind kind = PrimitiveKind::triangle;
  PixelRect bounds;  // pixels whose samples it may cover
  // Triangles: edges a*x + b*y + c >= 0 (x, y in 1/256 px), with the
  // top-left bias folded into c; the depth plane z = zx*x + zy*y + zc in
  // pixels.
  std::array<std::array<int64_t, 3>, 3> edge{};
  double zx = 0, zy = 0, zc = 0;
  // Lines: the segment and half its width; points: centre and half size.
  double x0 = 0, y0 = 0, x1 = 0, y1 = 0, half_width = 0.5;
  double z0 = 0, z1 = 0;
  bool degenerate = false;  // covers nothing (zero area or length)
  // The three screen vertices coefficient setup uses (lines and points get
  // a triangle whose third vertex copies the first: varyings constant
  // across the line, the point's everywhere).
  std::array<varyings::ScreenVertex, 3> plane{};
  std::array<uint32_t, 3> plane_vertex{};  // Scene::vertices index of each
};

// Sets up a scene primitive; an index past Scene::vertices is an error.
Result<RasterPrimitive> setup_primitive(const Scene& scene, const ScenePrimitive& p);
// The samples of pixel (x, y) the primitive covers (bit s = sample s).
uint32_t coverage(const RasterPrimitive& r, int32_t x, int32_t y, const SamplePositions& pos);
// The primitive's depth at a point (window coordinates, pixels).
double depth_at(const RasterPrimitive& r, double x, double y);
// max(|dz/dx|, |dz/dy|): the slope depth bias scales.
double max_depth_slope(const RasterPrimitive& r);

// ---- depth and stencil ----

enum class DepthFormat : uint8_t { f32, unorm16 };

// The state of one face (Fragment face + Fragment stencil of that side).
struct FaceTest {
  cmdstream::ZsFunc depth_func = cmdstream::ZsFunc::kAlways;
  bool depth_write = false;
  bool stencil = false;  // Fragment control's Stencil test enable
  cmdstream::ZsFunc stencil_func = cmdstream::ZsFunc::kAlways;
  cmdstream::StencilOp stencil_fail = cmdstream::StencilOp::kKeep;
  cmdstream::StencilOp depth_fail = cmdstream::StencilOp::kKeep;
  cmdstream::StencilOp depth_pass = cmdstream::StencilOp::kKeep;
  uint8_t read_mask = 0xFF, write_mask = 0xFF, reference = 0;
};
// The face a primitive uses: front words for front-facing primitives, back
// words for back-facing ones (the stencil of the back side only with
// Two-sided stencil).
FaceTest face_test(const PppWords& ppp, bool front_facing);

bool compare(cmdstream::ZsFunc f, double fragment, double stored);
uint8_t stencil_op(cmdstream::StencilOp op, uint8_t value, uint8_t reference);
// Depth as the buffer holds it: unorm16 rounds to the nearest 1/65535.
double quantize_depth(double z, DepthFormat f);

// One sample's stored depth and stencil and the fragment's; returns whether
// the sample passes both tests and updates the stored values.
bool depth_stencil_test(const FaceTest& t, DepthFormat f, double fragment_z, float& stored_z,
                        uint8_t& stored_s);

// The depth bias of a primitive: Depth bias + Slope scale x slope, clamped
// by Clamp (when nonzero), in depth units: the constant counts units of
// 2^-16 with DRM_ASAHI_RENDER_DBIAS_IS_INT (16-bit depth) and of 2^-23 of
// the primitive's largest depth exponent otherwise.
double depth_bias(const cmdstream::DepthBias& b, const RasterPrimitive& r, bool bias_is_int);

}  // namespace agx::gpu
