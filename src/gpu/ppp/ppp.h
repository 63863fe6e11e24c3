// The PPP (primitive processor) of the software GPU: the PPP updates a VDM
// stream points to, read into the PPP words in force, and the primitive
// stage between the vertex shaders and the tiler: primitive assembly,
// clipping (view volume, guard band, depth, user clip distances), culling,
// the viewport transform, point size, line width, layer and viewport index.
// Its output is the scene (gpu/render/scene.h) the fragment half reads.
// docs/gpu.md ("The PPP") gives every rule and the choices made where the
// hardware is not publicly known.
//
// The public header of src/gpu/ppp/; ppp_internal.h is private to it.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "cmdstream/typed.h"
#include "gpu/render/scene.h"
#include "util/gpu_memory.h"
#include "util/result.h"

namespace agx::gpu {

// Applies the PPP update `record` (read from `va`) to `words`: the PPP
// Header's present bits select the words that follow, in
// cmdstream/ppp_order.h's order. A header or word with bits no field
// covers, a record too short for its words or longer than them is a decode
// error naming the word and its offset; then `words` is unchanged.
Status apply_ppp_update(std::span<const uint8_t> record, GpuVa va, PppWords& words);

// How clipping makes a new vertex's output word from the two it lies
// between: 32-bit floats interpolated, 16-bit float pairs interpolated as
// two halves (lerp: at the edge's clip-space parameter; linear: the
// noperspective varyings of Varying Counts' Linear groups, at the
// parameter of the new vertex's window position along the edge, so they
// stay linear in window space), or the provoking vertex's word (flat
// varyings, layer and viewport index).
enum class OutputRule : uint8_t { lerp32, lerp16, linear32, linear16, flat };

// What the primitive stage needs to know of a draw state's vertex outputs.
struct OutputPlan {
  uint32_t count = 0;              // words per vertex (position first: x, y, z, w)
  std::vector<OutputRule> rules;   // per word
  int point_size = -1;             // word index, or -1
  int layer_viewport = -1;         // layer in the low 16 bits, viewport in the high
  std::vector<uint32_t> clip_distances;  // the word of each user clip plane
};

// Fills state.slots (the varyings unit's remap of the Output Select,
// Varying Counts and Vertex Outputs words) and returns the plan. Words that
// disagree or fewer than 4 outputs fault.
Result<OutputPlan> plan_draw_state(DrawState& state);

// One instance of one draw: the elements in submission order, each the
// index of a shaded vertex (kRestartElement: a primitive restart), and the
// shaded vertices' output words (plan.count per vertex).
inline constexpr uint32_t kRestartElement = UINT32_MAX;
struct PrimitiveInput {
  cmdstream::Primitive topology = cmdstream::Primitive::kTriangles;
  std::span<const uint32_t> elements;
  std::span<const uint32_t> outputs;
  uint32_t state = 0;  // index into Scene::states
};

struct PrimitiveCounts {
  uint64_t in = 0;   // primitives assembled
  uint64_t out = 0;  // primitives added to the scene (a clipped triangle may add several)
};

// Assembles, clips, culls and transforms the instance's primitives into
// `scene` (vertices, outputs, primitives); primitive IDs count from 0.
Result<PrimitiveCounts> run_primitives(const PrimitiveInput& in, const OutputPlan& plan, Scene& scene);

}  // namespace agx::gpu
