// The fragment stage's ABI (docs/compiler.md, "Fragment shaders"): what a
// compiled fragment shader reads and writes, following Mesa's
// non-monolithic fragment ABI (bminor/mesa-mesa src/asahi/compiler/README.md,
// section "ABI", Fragment; src/asahi/lib/agx_abi.h).
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "tilebuffer/tilebuffer.h"

namespace agx::compiler {

// How an input is interpolated (SPIR-V Flat / NoPerspective decorations)
// and where (Centroid / Sample).
enum class Interpolation : uint8_t { smooth, flat, noperspective };
enum class InterpolationPoint : uint8_t { center, centroid, sample };
const char* interpolation_name(Interpolation i);     // "smooth", "flat", "noperspective"
const char* interpolation_point_name(InterpolationPoint p);  // "center", "centroid", "sample"

// One `in` variable: its coefficient registers cf<cf> .. cf<cf + components - 1>,
// one per component (the runtime binds them with varyings::separable_bindings
// against the vertex shader's layout).
struct FragmentInput {
  uint32_t location = 0, component = 0;  // Location, Component decorations
  uint32_t components = 0;               // 1-4
  Interpolation interpolation = Interpolation::smooth;
  InterpolationPoint point = InterpolationPoint::center;
  uint32_t cf = 0;
};

struct FragmentAbi {
  // The uniforms every fragment shader reserves (README "ABI", Fragment):
  // u0_u1 the render targets' texture heap, u2..u5 the blend constant
  // (4 floats, read by the epilog), u6_u7 the root descriptor; the
  // shader's own uniforms start at u8.
  static constexpr uint32_t kRenderTargetHeapUniform = 0;
  static constexpr uint32_t kBlendConstantUniform = 2;
  static constexpr uint32_t kRootDescriptorUniform = 6;
  static constexpr uint32_t kFirstShaderUniform = 8;
  // Register outputs at the end of the main shader: render target i's
  // colour in r(4(i+1))..r(4(i+1)+3) (32-bit), depth in r2, stencil in r3l.
  static constexpr uint32_t kDepthRegister = 2;
  static constexpr uint32_t kStencilHalf = 6;  // r3l
  static constexpr uint32_t colour_register(uint32_t rt) { return 4 * (rt + 1); }
  static constexpr uint32_t kNoCf = UINT32_MAX;

  std::vector<FragmentInput> inputs;   // by location
  uint32_t w_cf = 0;                   // 1/W (linear), always cf0
  uint32_t z_cf = kNoCf;               // gl_FragCoord.z (source Fragcoord Z)
  uint32_t point_coord_cf = kNoCf;     // gl_PointCoord (2 registers, source point coord)
  uint32_t primitive_id_cf = kNoCf;    // gl_PrimitiveID (source primitive ID, flat)
  uint32_t cf_count = 1;               // coefficient registers used
  // Built-ins read.
  bool reads_frag_coord = false, reads_front_facing = false, reads_point_coord = false;
  bool reads_sample_mask = false, reads_primitive_id = false;
  // Outputs written: bit i = render target i (Location i, Index 0);
  // dual_source: Location 0 Index 1 (its colour goes in render target 1's
  // registers, Mesa's dual-source convention).
  uint32_t colour_outputs = 0;
  bool dual_source = false;
  bool writes_depth = false, writes_stencil = false;
  bool discards = false;  // OpKill / OpTerminateInvocation / OpDemoteToHelperInvocation
  // Execution modes. The shader computes gl_FragCoord.y as the pixel's
  // row from the top of the render area; with OriginLowerLeft (GL's
  // default) the runtime flips the viewport so that row 0 is the bottom.
  bool early_fragment_tests = false;
  bool origin_lower_left = false, pixel_center_integer = false;
};

// The fragment epilog's key (compile_fragment_epilog): the fixed-function
// state after the fragment shader, as GL and Vulkan name it. Blending is
// done in the shader (the AGX has no fixed-function blender; Mesa's
// agx_nir_lower_tilebuffer.c and nir_lower_blend).
enum class BlendFactor : uint8_t {
  zero, one, src_color, one_minus_src_color, src_alpha, one_minus_src_alpha, dst_color, one_minus_dst_color,
  dst_alpha, one_minus_dst_alpha, constant_color, one_minus_constant_color, constant_alpha,
  one_minus_constant_alpha, src_alpha_saturate, src1_color, one_minus_src1_color, src1_alpha, one_minus_src1_alpha
};
enum class BlendOp : uint8_t { add, subtract, reverse_subtract, min, max };
// GL / Vulkan logic ops, in their numeric order (VkLogicOp).
enum class LogicOp : uint8_t {
  clear, and_, and_reverse, copy, and_inverted, noop, xor_, or_, nor, equivalent, invert, or_reverse,
  copy_inverted, or_inverted, nand, set
};
struct BlendState {
  bool enable = false;
  BlendFactor src_rgb = BlendFactor::one, dst_rgb = BlendFactor::zero;
  BlendFactor src_alpha = BlendFactor::one, dst_alpha = BlendFactor::zero;
  BlendOp rgb = BlendOp::add, alpha = BlendOp::add;
};
struct EpilogTarget {
  uint8_t write_mask = 0xF;  // bit c: component c is written
  BlendState blend;
};
struct FragmentEpilogKey {
  // The render targets' formats and byte offsets in the sample record
  // (tilebuffer::build_layout); the default is one R8G8B8A8_UNORM target.
  tilebuffer::Layout layout = default_layout();
  std::array<EpilogTarget, tilebuffer::kMaxRenderTargets> targets{};
  // A logic op replaces blending on every target (GL_COLOR_LOGIC_OP /
  // VkPipelineColorBlendStateCreateInfo::logicOpEnable): integer and
  // 8-bit normalized targets.
  bool logic_op_enable = false;
  LogicOp logic_op = LogicOp::copy;
  bool alpha_to_coverage = false;  // render target 0's alpha
  bool write_depth = false;        // zs_emit of r2
  bool write_stencil = false;      // zs_emit of r3l

  static tilebuffer::Layout default_layout();
};

}  // namespace agx::compiler
