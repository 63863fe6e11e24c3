// Graphics pipelines, close to Vulkan's VkGraphicsPipelineCreateInfo: a
// vertex and a fragment program and the fixed-function state a draw packs
// into its PPP update and VDM State (docs/runtime.md "Graphics"). create()
// checks the description, lays the vertex outputs out (the varyings unit),
// binds the fragment inputs and puts the programs, their uniforms and USC
// word lists (the one packer, runtime/encoder.h) in the device's memory;
// RenderPass::draw* (render_pass.h) record draws with it.
#pragma once

#include <array>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "cmdstream/typed.h"
#include "runtime/encoder.h"
#include "runtime/runtime.h"
#include "varyings/varyings.h"

namespace agx::runtime {

enum class Topology : uint8_t { points, lines, line_strip, triangles, triangle_strip, triangle_fan };
enum class CullMode : uint8_t { none, front, back, front_and_back };
enum class FrontFace : uint8_t { counter_clockwise, clockwise };
enum class PolygonMode : uint8_t { fill, line, point };
enum class CompareOp : uint8_t { never, less, equal, less_equal, greater, not_equal, greater_equal, always };
enum class StencilOp : uint8_t {
  keep, zero, replace, increment_clamp, decrement_clamp, invert, increment_wrap, decrement_wrap
};

struct StencilFace {
  StencilOp fail = StencilOp::keep, pass = StencilOp::keep, depth_fail = StencilOp::keep;
  CompareOp compare = CompareOp::always;
  uint8_t read_mask = 0xFF, write_mask = 0xFF, reference = 0;
};

// Window coordinates, y down (Vulkan's VkViewport); none: the render area
// with depth 0..1.
struct Viewport {
  float x = 0, y = 0, width = 0, height = 0, min_depth = 0, max_depth = 1;
};
// Pixels [x, x + width) x [y, y + height) (VkRect2D).
struct Scissor {
  uint32_t x = 0, y = 0, width = 0, height = 0;
};
// vkCmdSetDepthBias: constant (in depth units), slope factor, clamp (0: none).
struct DepthBias {
  float constant = 0, slope = 0, clamp = 0;
};

// A program: machine code ending in stop, the 16-bit register halves it
// uses, the 32-bit uniforms u0.. it starts with and its texture and
// sampler state registers (ts0.., ss0..: as LaunchDesc has them; a
// compiled stage's from bind_resources, runtime/resource_binding.h).
struct ProgramCode {
  std::vector<uint8_t> code;
  uint32_t register_halves = 0;
  std::vector<uint32_t> uniforms;
  std::vector<uint8_t> texture_states;  // 24-byte Texture / PBE descriptors
  std::vector<uint8_t> sampler_states;  // 8-byte Samplers, or 24 (Sampler + Border) when extended
  bool extended_samplers = false;
  // Stack (scratch) bytes per thread: the compiler's Stats::scratch_B.
  // Nonzero: the Registers word's spill size bucket, and the render pass
  // names a helper program for the stage (docs/runtime.md, "Scratch").
  uint32_t scratch_B = 0;
  // The push constant / loose uniform block in memory (push_memory.h):
  // `uniforms` holds it past the file; create() moves it into a buffer
  // and loads the file alone.
  std::optional<PushMemory> push_memory;
};
// A compiled (linked) shader's program: its code, registers, scratch and
// where its push constant block lives, with `uniforms` as its Abi lays
// them out.
ProgramCode program_code(const compiler::Shader& shader, std::vector<uint32_t> uniforms);

// The vertex program writes the position to vertex outputs 0-3 and the
// varyings of `outputs` where varyings::layout_vertex_outputs puts them
// (st_var / st_var_final). The fragment program (empty code: none, a
// depth/stencil-only pipeline) reads them through coefficient registers
// bound at compile time (varyings::compile_time_bindings: W in cf0, then
// each varying's components in slot order), as hand-made shaders do.
struct GraphicsPipelineDesc {
  ProgramCode vertex;
  varyings::Interface outputs;
  ProgramCode fragment;
  // A compiled fragment shader picks its own coefficient registers
  // (compiler::FragmentAbi): its inputs as varyings::separable_bindings
  // entries against `outputs` (a varying's index, or Z), W in
  // `fragment_w_cf`. None: the compile-time bindings above.
  std::optional<std::vector<varyings::SeparableEntry>> fragment_inputs;
  unsigned fragment_w_cf = 0;

  Topology topology = Topology::triangles;
  bool primitive_restart = false;  // indexed draws: the all-ones index of the index size restarts
  CullMode cull = CullMode::none;
  FrontFace front_face = FrontFace::counter_clockwise;
  PolygonMode polygon_mode = PolygonMode::fill;
  float line_width = 1.0f;          // 1/16 to 16 pixels
  bool provoking_vertex_last = false;
  bool rasterizer_discard = false;

  bool depth_test = false, depth_write = false;
  CompareOp depth_compare = CompareOp::less;
  bool depth_clamp = false;         // clamp instead of clipping at the viewport's depth range
  std::optional<DepthBias> depth_bias;  // none: no bias

  bool stencil_test = false;
  StencilFace front, back;

  std::optional<Viewport> viewport;
  std::optional<Scissor> scissor;   // none: the whole render area
  std::string label;                // names the pipeline in errors
};

class GraphicsPipeline {
 public:
  // Checks the programs (code, at most 256 register halves and 256
  // uniforms each, after a push constant block in memory leaves them), the interface, the line width and the viewport; lays
  // out the vertex outputs and packs the CF bindings; uploads code,
  // uniforms and word lists. Errors name the pipeline.
  static Result<std::unique_ptr<GraphicsPipeline>> create(Device& device, GraphicsPipelineDesc desc);
  ~GraphicsPipeline();

  const GraphicsPipelineDesc& desc() const { return desc_; }
  const varyings::Report& varyings() const { return report_; }
  // The vertex program's USC word list (USC offset from usc_exec_base);
  // the fragment program's words without the tilebuffer's Shared word
  // (the render pass adds it); the CF bindings' USC offset.
  uint32_t vertex_words_usc() const { return vertex_words_; }
  const UscWordList& fragment_words() const { return fragment_; }
  // The vertex program's word list as placed (its counts for VDM State).
  const UscWordList& vertex_words() const { return vertex_; }
  bool has_fragment() const { return !desc_.fragment.code.empty(); }
  uint32_t cf_bindings_usc() const { return cf_bindings_; }

 private:
  GraphicsPipeline(Device& device, GraphicsPipelineDesc desc) : device_(device), desc_(std::move(desc)) {}
  Result<uint32_t> upload_usc(std::span<const uint8_t> bytes, const char* what);
  Result<UscWordList> place(const ProgramCode& program, const char* what);
  Status place_push_memory(ProgramCode& program, const char* what);

  Device& device_;
  GraphicsPipelineDesc desc_;
  varyings::Report report_;
  uint32_t vertex_words_ = 0, cf_bindings_ = 0;
  UscWordList vertex_, fragment_;
  std::vector<std::unique_ptr<Buffer>> buffers_;
};

// The fixed-function words of a pipeline's PPP update (the cmdstream
// tables' structs), for a render area of `width_px` x `height_px`; the
// depth and stencil tests only with an attachment to test against
// (Vulkan: without one the test passes and nothing is written).
struct FixedFunctionWords {
  cmdstream::FragmentControl control{};
  cmdstream::FragmentFace front_face{}, back_face{};
  cmdstream::FragmentStencil front_stencil{}, back_stencil{};
  cmdstream::Viewport viewport{};
  cmdstream::Cull cull{};
  cmdstream::Cull2 cull_2{};
  cmdstream::Scissor scissor{};  // the draw's entry of the scissor array
};
FixedFunctionWords fixed_function_words(const GraphicsPipelineDesc& desc, uint32_t width_px, uint32_t height_px,
                                        bool depth_attachment, bool stencil_attachment);

}  // namespace agx::runtime
