// Private to src/gpu/ppp/ (shared by its files); never included outside
// that folder.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <span>
#include <vector>

#include "gpu/ppp/ppp.h"

namespace agx::gpu::detail {

// ---------------------------------------------------------------------------
// Primitive assembly (assemble.cpp).

// One primitive: `n` element positions of its run in the order the
// rasterizer sees them (the winding), and which of them is provoking.
struct Assembled {
  PrimitiveKind kind = PrimitiveKind::triangle;
  std::array<uint32_t, 3> v{};
  uint8_t n = 3;
  uint8_t provoking = 0;
};

// Cull's "Flat shading vertex" as the provoking vertex of a triangle
// (0, 1 or 2; a line's is min(it, 1)).
unsigned provoking_rule(const cmdstream::Cull& cull);

// Calls emit for each primitive of `count` elements without a restart
// (positions 0..count-1), in submission order; quads and quad strips as
// two triangles a quad (docs/gpu.md, "The primitive stage"). A topology no
// enum value names is an error.
Status assemble_run(cmdstream::Primitive topology, uint32_t count, unsigned provoking,
                    const std::function<Status(const Assembled&)>& emit);

// ---------------------------------------------------------------------------
// Clipping (clip.cpp): in clip space, against planes numbered as follows
// (a vertex is inside a plane where its distance is >= 0):
//   0       w >= min_w (the near-w plane; every transformed vertex has w > 0):
//           the W Clamp word's value when an update has set a positive one
//           (bminor/mesa-mesa src/gallium/drivers/asahi/agx_state.c sets
//           1e-10 in every batch), else kMinW
//   1..4    the guard band: -G w <= x <= G w, -G w <= y <= G w
//   5..6    depth (Cull's Depth clip): 0 <= z <= w
//   7..     user clip distances (Output Select planes): d >= 0
// and, for trivial rejection only, the view volume's x and y planes (-w <=
// x, y <= w), numbered from kViewVolumePlane.

inline constexpr double kMinW = 1.0 / (1 << 30);
inline constexpr double kGuardBand = 8.0;  // G: the guard band, in view-volume widths
inline constexpr unsigned kViewVolumePlane = 60;

struct ClipPlanes {
  double min_w = kMinW;
  bool depth = false;
  std::vector<uint32_t> user;  // the word of each user clip distance
  unsigned count() const { return 7 + static_cast<unsigned>(user.size()); }
};

// The planes `words` (one vertex's outputs) lies outside of, one bit each.
uint64_t outside(const ClipPlanes& planes, std::span<const uint32_t> words);

// A polygon (or a line's two ends) during clipping: each vertex's output
// words, and whether clipping made it (an edge between two made vertices
// lies on a clip plane: a "clipped edge").
struct ClipVertex {
  std::vector<uint32_t> words;
  bool made = false;
};
using ClipPolygon = std::vector<ClipVertex>;

// Clips a closed polygon (triangles) or an open segment (lines) against
// every clipping plane in `mask`; new vertices take the plan's rules
// (flat words from `provoking`). An empty result: nothing is left.
void clip(ClipPolygon& poly, bool closed, const ClipPlanes& planes, uint64_t mask, const OutputPlan& plan,
          std::span<const uint32_t> provoking);

}  // namespace agx::gpu::detail
