// The scene: what the vertex half of a render command leaves for its
// fragment half. On the AGX the vertex half (VDM -> vertex shaders on the
// USC -> PPP: primitive assembly, clipping, culling, viewport) writes the
// screen-space primitives, their varyings and the fixed-function state in
// force into the tiler's buffers, and the fragment half (ISP, PDM, ZLS,
// PBE) reads them tile by tile. The layout of those buffers is not public
// (the kernel allocates them; include/uapi/drm/asahi_drm.h in
// torvalds/linux exposes none of it), so the software GPU keeps the scene
// in host memory, one per render command, handed from the vertex queue's
// executor to the fragment queue's (docs/gpu.md, "The scene").
//
// Plain state structs only: the vdm/ and ppp/ folders fill a Scene, the
// isp/, pdm/ and zls/ folders read it.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "cmdstream/typed.h"
#include "varyings/varyings.h"

namespace agx::gpu {

// The PPP words in force for a draw: each is the last value a PPP update
// (the words a VDM "PPP State" block points to, in the order of Mesa's
// src/asahi/lib/agx_ppp.h) gave it. `present` has the PPP Header bit of
// every word some update has set (bit positions of cmdstream::PppHeader,
// bminor/mesa-mesa src/asahi/genxml/cmdbuf.xml "PPP Header"); a word never
// set holds its all-zero value.
struct PppWords {
  uint32_t present = 0;
  cmdstream::FragmentControl fragment_control{};
  cmdstream::FragmentControl fragment_control_2{};
  cmdstream::FragmentFace front{}, back{};
  cmdstream::FragmentFace2 front_2{}, back_2{};
  cmdstream::FragmentStencil front_stencil{}, back_stencil{};
  cmdstream::DepthBiasScissor depth_bias_scissor{};
  cmdstream::RegionClip region_clip{};
  std::vector<cmdstream::Viewport> viewports;  // Viewport count of the last update with viewports
  cmdstream::WClamp w_clamp{};
  cmdstream::OutputSelect output_select{};
  cmdstream::VaryingCounts varying_counts_32{}, varying_counts_16{};
  cmdstream::Cull cull{};
  cmdstream::Cull2 cull_2{};
  cmdstream::FragmentShaderWord0 fragment_shader_0{};
  cmdstream::FragmentShaderWord1 fragment_shader_1{};
  cmdstream::FragmentShaderWord2 fragment_shader_2{};
  cmdstream::FragmentShaderWord3 fragment_shader_3{};
  cmdstream::FragmentOcclusionQuery occlusion_query{};
  cmdstream::FragmentOcclusionQuery2 occlusion_query_2{};
  cmdstream::OutputSize output_size{};
};

// One draw's state as the fragment half needs it.
struct DrawState {
  PppWords ppp;
  // Which vertex output word each coefficient-register slot reads (W, the
  // optional Z, the user varyings), as Output Select and the Varying Counts
  // words lay them out (the varyings unit's remap).
  varyings::SlotMap slots;
  uint32_t output_count = 0;  // vertex output words per vertex (VDM State Vertex Outputs)
};

// A vertex after the viewport transform: window coordinates, depth after
// the depth range, and clip-space w (> 0). Its vertex output words are
// outputs[0 .. output_count) of Scene::outputs from `first_output` on;
// vertices made by clipping carry outputs interpolated as the PPP rules
// say (docs/gpu.md).
struct SceneVertex {
  varyings::ScreenVertex screen{};
  uint32_t first_output = 0;
};

enum class PrimitiveKind : uint8_t { triangle, line, point };

// One primitive that survived clipping and culling, in submission order.
// Lines and points keep their kind: the ISP rasterizes them with the width
// and size given here. A triangle whose face has polygon mode Line or Point
// arrives as its edges or vertices (docs/gpu.md, "The primitive stage").
struct ScenePrimitive {
  PrimitiveKind kind = PrimitiveKind::triangle;
  std::array<uint32_t, 3> vertices{};  // indices into Scene::vertices (1 for points, 2 for lines)
  uint8_t provoking = 0;               // which of `vertices` flat varyings come from
  bool front_facing = true;            // lines and points: true, unless drawn for a
                                       // triangle's polygon mode (Line, Point): its facing
  uint32_t state = 0;                  // index into Scene::states
  uint32_t primitive_id = 0;           // gl_PrimitiveID: count within its draw
  uint32_t layer = 0;                  // render target array layer
  uint32_t viewport = 0;
  float point_size_px = 1.0f;          // points
  float line_width_px = 1.0f;          // lines
};

struct Scene {
  std::vector<DrawState> states;
  std::vector<uint32_t> outputs;  // every vertex's output words
  std::vector<SceneVertex> vertices;
  std::vector<ScenePrimitive> primitives;
};

}  // namespace agx::gpu
