// Graphics pipelines (graphics_pipeline.h): the checks, the vertex output
// layout and CF bindings (the varyings unit), the programs' uploads and
// word lists, and the fixed-function words a draw's PPP update carries, as
// Mesa's Vulkan driver packs them (bminor/mesa-mesa
// src/asahi/vulkan/hk_cmd_draw.c, src/asahi/lib/agx_ppp.h; fields:
// src/asahi/genxml/cmdbuf.xml through the cmdstream tables).
#include "runtime/graphics_pipeline.h"
#include "runtime/hardware.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstring>

namespace agx::runtime {

namespace cs = agx::cmdstream;

namespace {

using hw::kMaxRegisterHalves;
using hw::kMaxUniforms;

Status check_program(const ProgramCode& p, const char* what) {
  if (p.code.empty()) return Error::invalid_argument("{}: no code", what);
  if (p.register_halves == 0 || p.register_halves > kMaxRegisterHalves)
    return Error::invalid_argument("{}: {} register halves (1 to {})", what, p.register_halves, kMaxRegisterHalves);
  if (p.uniforms.size() > kMaxUniforms)
    return Error::invalid_argument("{}: {} uniforms (at most {})", what, p.uniforms.size(), kMaxUniforms);
  AGX_CHECK(check_state_descriptors(p.texture_states, p.sampler_states, p.extended_samplers, what));
  if (p.scratch_B > kMaxScratch_B)
    return Error::limit("{}: {} bytes of scratch per thread (at most {}, the largest spill size bucket)", what,
                        p.scratch_B, kMaxScratch_B);
  return {};
}

Status check_state(const GraphicsPipelineDesc& d) {
  if (!(d.line_width >= 1.0f / 16 && d.line_width <= 16.0f))
    return Error::invalid_argument("line width {} (1/16 to 16 pixels)", d.line_width);
  if (const Viewport* v = d.viewport ? &*d.viewport : nullptr) {
    const bool finite = std::isfinite(v->x) && std::isfinite(v->y) && std::isfinite(v->width) && std::isfinite(v->height);
    if (!finite || !(v->width > 0) || !(v->height > 0))
      return Error::invalid_argument("viewport {}x{} at ({}, {}): a finite, positive size", v->width, v->height, v->x, v->y);
    if (!(v->min_depth >= 0 && v->min_depth <= 1 && v->max_depth >= 0 && v->max_depth <= 1))
      return Error::invalid_argument("viewport depth range {}..{} (each in 0..1)", v->min_depth, v->max_depth);
  }
  if (const DepthBias* b = d.depth_bias ? &*d.depth_bias : nullptr)
    if (!std::isfinite(b->constant) || !std::isfinite(b->slope) || !std::isfinite(b->clamp))
      return Error::invalid_argument("depth bias {}, slope {}, clamp {}: finite values", b->constant, b->slope, b->clamp);
  // Clip distances need nothing more than the layout's words: the Output
  // Select plane bits make the hardware clip against them.
  if (d.outputs.point_size || d.outputs.layer_viewport)
    return Error::unsupported("vertex outputs beyond position, varyings and clip distances (point size, layer)");
  // Z reaches a fragment shader only through a binding it asks for.
  if (d.outputs.fragcoord_z && !d.fragment_inputs)
    return Error::unsupported("fragment Z without separable fragment inputs (the compile-time bindings have no Z)");
  return {};
}

// CompareOp and StencilOp list Vulkan's values in the order of cmdbuf.xml's
// "ZS Func" and "Stencil Op" enums.
cs::ZsFunc zs_func(CompareOp op) { return static_cast<cs::ZsFunc>(op); }

cs::FragmentStencil stencil_word(const StencilFace& f, bool enabled) {
  cs::FragmentStencil s{};
  s.compare = enabled ? zs_func(f.compare) : cs::ZsFunc::kAlways;
  s.read_mask = enabled ? f.read_mask : 0xFF;
  s.write_mask = enabled ? f.write_mask : 0;
  if (enabled) {
    s.stencil_fail = static_cast<cs::StencilOp>(f.fail);
    s.depth_fail = static_cast<cs::StencilOp>(f.depth_fail);
    s.depth_pass = static_cast<cs::StencilOp>(f.pass);
  }
  return s;
}

// The vertex whose flat outputs a primitive takes: the first, or the last
// of its points / line / triangle ("PPP Vertex" 1, 2, 3 = vertex 0, 1, 2).
cs::PppVertex flat_vertex(const GraphicsPipelineDesc& d) {
  if (!d.provoking_vertex_last || d.topology == Topology::points) return cs::PppVertex::k0;
  const bool line = d.topology == Topology::lines || d.topology == Topology::line_strip;
  return line ? cs::PppVertex::k1 : cs::PppVertex::k2;
}

}  // namespace

FixedFunctionWords fixed_function_words(const GraphicsPipelineDesc& d, uint32_t width_px, uint32_t height_px,
                                        bool depth_attachment, bool stencil_attachment) {
  FixedFunctionWords w;
  const bool depth = d.depth_test && depth_attachment, stencil = d.stencil_test && stencil_attachment;
  w.control.unk_1 = true;
  w.control.scissor_enable = true;  // always: the scissor array's entry holds the render area at least
  w.control.depth_bias_enable = d.depth_bias.has_value();
  w.control.stencil_test_enable = w.control.two_sided_stencil = stencil;
  w.control.pass_type = cs::PassType::kOpaque;
  // Line width: 4:4 fixed point minus one (Mesa's agx_pack_line_width).
  const uint32_t line = uint32_t(std::clamp(std::lround(d.line_width * 16.0f) - 1, 0L, 255L));
  for (cs::FragmentFace* f : {&w.front_face, &w.back_face}) {
    f->line_width = line;
    f->polygon_mode = static_cast<cs::PolygonMode>(d.polygon_mode);
    f->depth_function = depth ? zs_func(d.depth_compare) : cs::ZsFunc::kAlways;
    f->disable_depth_write = !(depth && d.depth_write);
  }
  w.front_face.stencil_reference = stencil ? d.front.reference : 0;
  w.back_face.stencil_reference = stencil ? d.back.reference : 0;
  w.front_stencil = stencil_word(d.front, stencil);
  w.back_stencil = stencil_word(d.back, stencil);

  const Viewport v = d.viewport ? *d.viewport : Viewport{0, 0, float(width_px), float(height_px), 0, 1};
  w.viewport.scale_x = v.width / 2;
  w.viewport.translate_x = v.x + v.width / 2;
  w.viewport.scale_y = v.height / 2;
  w.viewport.translate_y = v.y + v.height / 2;
  w.viewport.translate_z = v.min_depth;
  w.viewport.scale_z = v.max_depth - v.min_depth;

  w.cull.cull_front = d.cull == CullMode::front || d.cull == CullMode::front_and_back;
  w.cull.cull_back = d.cull == CullMode::back || d.cull == CullMode::front_and_back;
  w.cull.front_face_ccw = d.front_face == FrontFace::counter_clockwise;
  w.cull.flat_shading_vertex = flat_vertex(d);
  w.cull.depth_clamp = d.depth_clamp;
  w.cull.depth_clip = !d.depth_clamp;
  w.cull.rasterizer_discard = w.cull_2.rasterizer_discard = d.rasterizer_discard;

  // The scissor: the pipeline's, within the render area; its depth range
  // the viewport's.
  const Scissor s = d.scissor ? *d.scissor : Scissor{0, 0, width_px, height_px};
  w.scissor.min_x = std::min(s.x, width_px);
  w.scissor.min_y = std::min(s.y, height_px);
  w.scissor.max_x = uint32_t(std::min<uint64_t>(uint64_t(s.x) + s.width, width_px));
  w.scissor.max_y = uint32_t(std::min<uint64_t>(uint64_t(s.y) + s.height, height_px));
  w.scissor.min_z = std::min(v.min_depth, v.max_depth);
  w.scissor.max_z = std::max(v.min_depth, v.max_depth);
  return w;
}

Result<std::unique_ptr<GraphicsPipeline>> GraphicsPipeline::create(Device& device, GraphicsPipelineDesc desc) {
  if (desc.label.empty()) desc.label = "graphics pipeline";
  std::unique_ptr<GraphicsPipeline> p(new GraphicsPipeline(device, std::move(desc)));
  const GraphicsPipelineDesc& d = p->desc_;
  Status st = p->place_push_memory(p->desc_.vertex, "vertex program");
  if (st.ok()) st = p->place_push_memory(p->desc_.fragment, "fragment program");
  if (st.ok()) st = check_program(d.vertex, "vertex program");
  if (st.ok() && !d.fragment.code.empty()) st = check_program(d.fragment, "fragment program");
  if (st.ok()) st = check_state(d);
  if (!st.ok()) return st.error().context(d.label);
  auto report = varyings::make_report(d.outputs);
  if (!report.ok()) return report.error().context(d.label + ": vertex outputs");
  p->report_ = std::move(*report);
  if (d.fragment_inputs) {
    auto b = varyings::separable_bindings(p->report_.slots, d.outputs, *d.fragment_inputs, d.fragment_w_cf);
    if (!b.ok()) return b.error().context(d.label + ": fragment inputs");
    AGX_TRY(p->report_.binding_words, varyings::pack_bindings(*b));
    p->report_.bindings = std::move(*b);
  }
  AGX_TRY(p->vertex_, p->place(d.vertex, "vertex program"));
  AGX_TRY(auto words, pack_usc_words(p->vertex_));
  AGX_TRY(p->vertex_words_, p->upload_usc(words, "vertex USC word list"));
  if (p->has_fragment()) {
    AGX_TRY(p->fragment_, p->place(d.fragment, "fragment program"));
    const std::vector<uint32_t>& b = p->report_.binding_words;
    AGX_TRY(p->cf_bindings_,
            p->upload_usc({reinterpret_cast<const uint8_t*>(b.data()), b.size() * 4}, "CF bindings"));
  }
  return p;
}

GraphicsPipeline::~GraphicsPipeline() = default;

Result<uint32_t> GraphicsPipeline::upload_usc(std::span<const uint8_t> bytes, const char* what) {
  AGX_TRY(auto b, device_.create_buffer(std::max<size_t>(bytes.size(), 1), fmt::format("{}: {}", desc_.label, what), true));
  std::memcpy(b->host().data(), bytes.data(), bytes.size());
  const uint64_t at = b->gpu_va() - device_.va_layout().usc_base;
  buffers_.push_back(std::move(b));
  return uint32_t(at);
}

// A block in memory: its buffer made and kept, the program's uniforms
// the file alone (render_draw.cpp counts them).
Status GraphicsPipeline::place_push_memory(ProgramCode& program, const char* what) {
  if (!program.push_memory) return {};
  std::unique_ptr<Buffer> block;
  AGX_TRY(program.uniforms, runtime::place_push_memory(device_, program.uniforms, *program.push_memory, &block,
                                                       fmt::format("{}: push constant block", what)));
  program.push_memory.reset();
  buffers_.push_back(std::move(block));
  return {};
}

ProgramCode program_code(const compiler::Shader& shader, std::vector<uint32_t> uniforms) {
  ProgramCode program;
  program.code = shader.code;
  program.register_halves = shader.stats.gprs;
  program.uniforms = std::move(uniforms);
  program.scratch_B = shader.stats.scratch_B;
  program.push_memory = push_memory(shader.abi);
  return program;
}

// The code in the USC window; the uniforms and the state descriptors in
// buffers of their own.
Result<UscWordList> GraphicsPipeline::place(const ProgramCode& program, const char* what) {
  UscWordList w;
  auto upload_states = [&](std::span<const uint8_t> bytes, const char* kind) -> Result<uint64_t> {
    if (bytes.empty()) return uint64_t(0);
    AGX_TRY(auto b, device_.create_buffer(bytes.size(), fmt::format("{}: {} {}", desc_.label, what, kind)));
    std::memcpy(b->host().data(), bytes.data(), bytes.size());
    buffers_.push_back(std::move(b));
    return buffers_.back()->gpu_va();
  };
  w.texture_count = texture_state_count(program.texture_states);
  AGX_TRY(w.textures_va, upload_states(program.texture_states, "texture states"));
  w.extended_samplers = program.extended_samplers;
  w.sampler_count = sampler_state_count(program.sampler_states, program.extended_samplers);
  AGX_TRY(w.samplers_va, upload_states(program.sampler_states, "sampler states"));
  AGX_TRY(w.code_usc, upload_usc(program.code, what));
  w.register_halves = program.register_halves;
  w.spill_bucket = spill_size_bucket(program.scratch_B);
  w.uniform_count = uint32_t(program.uniforms.size());
  if (w.uniform_count) {
    const size_t size_B = program.uniforms.size() * 4;
    AGX_TRY(auto b, device_.create_buffer(size_B, fmt::format("{}: {} uniforms", desc_.label, what)));
    std::memcpy(b->host().data(), program.uniforms.data(), size_B);
    w.uniforms_va = b->gpu_va();
    buffers_.push_back(std::move(b));
  }
  return w;
}

}  // namespace agx::runtime
