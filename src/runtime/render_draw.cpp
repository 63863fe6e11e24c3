// Draws in a render pass (render_pass.h): each draw appends a PPP State
// (its PPP update, packed in cmdstream/ppp_order.h's order), a VDM State
// (restart index, the vertex program's words, the output counts) and an
// Index List to the pass's VDM stream, and its entries to the scissor and
// depth-bias arrays, as Mesa's Vulkan driver records them (bminor/mesa-mesa
// src/asahi/vulkan/hk_cmd_draw.c; src/asahi/lib/agx_ppp.h and
// agx_helpers.h agx_vdm_draw; fields: src/asahi/genxml/cmdbuf.xml through
// the cmdstream tables).
#include <fmt/format.h>

#include <cstring>
#include <type_traits>

#include "cmdstream/ppp_order.h"
#include "runtime/render_pass.h"

namespace agx::runtime {

namespace cs = agx::cmdstream;

namespace {

constexpr uint32_t kMaxArrayEntries = 1u << 16;  // Depth bias/Scissor's 16-bit indices

template <class T>
Result<T> from_word(uint32_t word) {
  uint8_t b[4];
  std::memcpy(b, &word, 4);
  return cs::unpack<T>(b);
}

uint32_t index_size_B(IndexType t) { return t == IndexType::u8 ? 1 : t == IndexType::u16 ? 2 : 4; }

// Vulkan's topologies as "Primitive" values (hk_cmd_draw.c's mapping).
cs::Primitive primitive(Topology t) {
  switch (t) {
    case Topology::points: return cs::Primitive::kPoints;
    case Topology::lines: return cs::Primitive::kLines;
    case Topology::line_strip: return cs::Primitive::kLineStrip;
    case Topology::triangles: return cs::Primitive::kTriangles;
    case Topology::triangle_strip: return cs::Primitive::kTriangleStrip;
    case Topology::triangle_fan: return cs::Primitive::kTriangleFan;
  }
  return cs::Primitive::kTriangles;
}

// Every word of a PPP update a draw sets, by record position.
struct PppUpdate {
  cs::PppHeader header{};
  FixedFunctionWords fixed;
  cs::DepthBiasScissor indices{};
  cs::OutputSelect select{};
  cs::VaryingCounts counts_32{}, counts_16{};
  cs::FragmentShaderWord0 fs0{};
  cs::FragmentShaderWord1 fs1{};
  cs::FragmentShaderWord2 fs2{};
  cs::OutputSize output_size{};
};

// The update's bytes: the header, then each present word where
// cmdstream/ppp_order.h puts it.
Result<std::vector<uint8_t>> pack_ppp(const PppUpdate& u) {
  std::vector<uint8_t> out;
  AGX_CHECK(push(out, u.header));
  Status st;
  using W = cs::PppWord;
  cs::for_each_ppp_word(u.header, [&]<class T>(cs::PppTag<T>, W w, const char*, uint64_t) {
    const FixedFunctionWords& f = u.fixed;
    if constexpr (std::is_same_v<T, cs::FragmentControl>) st = push(out, f.control);
    else if constexpr (std::is_same_v<T, cs::FragmentFace>) st = push(out, w == W::front_face ? f.front_face : f.back_face);
    else if constexpr (std::is_same_v<T, cs::FragmentStencil>)
      st = push(out, w == W::front_stencil ? f.front_stencil : f.back_stencil);
    else if constexpr (std::is_same_v<T, cs::DepthBiasScissor>) st = push(out, u.indices);
    else if constexpr (std::is_same_v<T, cs::ViewportControl>) st = push(out, cs::ViewportControl{});
    else if constexpr (std::is_same_v<T, cs::Viewport>) st = push(out, f.viewport);
    else if constexpr (std::is_same_v<T, cs::OutputSelect>) st = push(out, u.select);
    else if constexpr (std::is_same_v<T, cs::VaryingCounts>)
      st = push(out, w == W::varying_counts_32 ? u.counts_32 : u.counts_16);
    else if constexpr (std::is_same_v<T, cs::Cull>) st = push(out, f.cull);
    else if constexpr (std::is_same_v<T, cs::Cull2>) st = push(out, f.cull_2);
    else if constexpr (std::is_same_v<T, cs::FragmentShaderWord0>) st = push(out, u.fs0);
    else if constexpr (std::is_same_v<T, cs::FragmentShaderWord1>) st = push(out, u.fs1);
    else if constexpr (std::is_same_v<T, cs::FragmentShaderWord2>) st = push(out, u.fs2);
    else if constexpr (std::is_same_v<T, cs::FragmentShaderWord3>) st = push(out, cs::FragmentShaderWord3{});
    else if constexpr (std::is_same_v<T, cs::OutputSize>) st = push(out, u.output_size);
    else st = Error::unsupported("PPP update: a word draws do not set");
    return st.ok();
  });
  if (!st.ok()) return st.error();
  return out;
}

}  // namespace

struct RenderPass::DrawCounts {
  bool indexed = false;
  uint32_t count = 0, instances = 1, first = 0, first_instance = 0;
  int32_t vertex_offset = 0;
  const Buffer* indirect = nullptr;
  uint64_t indirect_offset_B = 0;
};

Status RenderPass::bind_pipeline(const GraphicsPipeline& pipeline) {
  pipeline_ = &pipeline;
  return {};
}

Status RenderPass::bind_index_buffer(const Buffer& buffer, uint64_t offset_B, IndexType type) {
  if (offset_B % index_size_B(type) != 0 || offset_B >= buffer.size_B())
    return Error::invalid_argument("{}: index buffer offset {} (a multiple of the index size, {} bytes, inside the {}-byte "
                                   "buffer)",
                                   desc_.label, offset_B, index_size_B(type), buffer.size_B());
  index_buffer_ = &buffer;
  index_offset_B_ = offset_B;
  index_type_ = type;
  return {};
}

Status RenderPass::draw(uint32_t vertex_count, uint32_t instance_count, uint32_t first_vertex, uint32_t first_instance) {
  return record({false, vertex_count, instance_count, first_vertex, first_instance});
}
Status RenderPass::draw_indexed(uint32_t index_count, uint32_t instance_count, uint32_t first_index,
                                int32_t vertex_offset, uint32_t first_instance) {
  return record({true, index_count, instance_count, first_index, first_instance, vertex_offset});
}
Status RenderPass::draw_indirect(const Buffer& buffer, uint64_t offset_B) {
  return record({false, 0, 1, 0, 0, 0, &buffer, offset_B});
}
Status RenderPass::draw_indexed_indirect(const Buffer& buffer, uint64_t offset_B) {
  return record({true, 0, 1, 0, 0, 0, &buffer, offset_B});
}

// The fragment program's word list with this pass's tilebuffer Shared word
// (once per pipeline and pass).
Result<uint32_t> RenderPass::fragment_words(const GraphicsPipeline& p) {
  for (const auto& [q, at] : fragment_words_)
    if (q == &p) return at;
  UscWordList w = p.fragment_words();
  w.tile_shared = tilebuffer::usc_shared(tib_);
  AGX_TRY(auto words, pack_usc_words(w));
  AGX_TRY(uint64_t at, upload(words, "fragment USC word list", true));
  fragment_words_.emplace_back(&p, uint32_t(at));
  return uint32_t(at);
}

// PPP State (the pipeline's update for this pass) and VDM State.
Status RenderPass::draw_state() {
  const GraphicsPipeline& p = *pipeline_;
  const GraphicsPipelineDesc& d = p.desc();
  const varyings::VertexOutputLayout& layout = p.varyings().layout;
  if (scissors_.size() / cs::Scissor::kSize_B >= kMaxArrayEntries)
    return Error::unsupported("more than {} draws in one pass (the scissor array's 16-bit index)", kMaxArrayEntries);
  PppUpdate u;
  u.fixed = fixed_function_words(d, area_.width_px, area_.height_px, desc_.depth.image != nullptr,
                                 desc_.stencil.image != nullptr);
  u.indices.scissor = uint32_t(scissors_.size() / cs::Scissor::kSize_B);
  AGX_CHECK(push(scissors_, u.fixed.scissor));
  if (d.depth_bias) {
    u.indices.depth_bias = uint32_t(depth_biases_.size() / cs::DepthBias::kSize_B);
    cs::DepthBias b{};
    b.depth_bias = d.depth_bias->constant;
    b.slope_scale = d.depth_bias->slope;
    b.clamp = d.depth_bias->clamp;
    AGX_CHECK(push(depth_biases_, b));
  }
  cs::PppHeader& h = u.header;
  h.fragment_control = h.fragment_front_face = h.fragment_front_stencil = true;
  h.fragment_back_face = h.fragment_back_stencil = h.depth_bias_scissor = true;
  h.viewport = h.output_select = h.varying_counts_32 = h.varying_counts_16 = h.cull = h.cull_2 = true;
  h.output_size = true;
  h.viewport_count = 1;
  AGX_TRY(u.select, from_word<cs::OutputSelect>(layout.output_select));
  AGX_TRY(u.counts_32, from_word<cs::VaryingCounts>(layout.varying_counts_32));
  AGX_TRY(u.counts_16, from_word<cs::VaryingCounts>(layout.varying_counts_16));
  u.output_size.count = layout.output_count;
  if (p.has_fragment()) {
    h.fragment_shader = true;
    u.fs0.uniform_register_count = p.fragment_words().uniform_count * 2;
    u.fs0.texture_state_register_count = p.fragment_words().texture_count;
    u.fs0.sampler_state_register_count =
        sampler_state_count(p.fragment_words().sampler_count, p.fragment_words().extended_samplers);
    u.fs0.cf_binding_count = uint32_t(p.varyings().bindings.bindings.size());
    AGX_TRY(u.fs1.pipeline, fragment_words(p));
    u.fs2.cf_bindings = p.cf_bindings_usc();
  }
  AGX_TRY(auto update, pack_ppp(u));
  AGX_TRY(uint64_t update_va, upload(update, "PPP update", false));
  cs::PppState ps{};
  ps.pointer_hi = uint32_t(update_va >> 32);
  ps.pointer_lo = uint32_t(update_va);
  ps.size_words = uint32_t(update.size() / 4);
  AGX_CHECK(push(stream_, ps));

  const size_t state_at = stream_.size();
  cs::VdmState vs{};
  vs.restart_index_present = vs.vertex_shader_word_0_present = vs.vertex_shader_word_1_present = true;
  vs.vertex_outputs_present = true;
  AGX_CHECK(push(stream_, vs));
  cs::VdmStateRestartIndex restart{};
  restart.value = 0xFFFFFFFF;  // compared at the index size: 0xFF, 0xFFFF, 0xFFFFFFFF
  AGX_CHECK(push(stream_, restart));
  cs::VdmStateVertexShaderWord0 w0{};
  w0.uniform_register_count = uint32_t(d.vertex.uniforms.size() * 2);
  w0.texture_state_register_count = p.vertex_words().texture_count;
  w0.sampler_state_register_count = sampler_state_count(p.vertex_words().sampler_count, p.vertex_words().extended_samplers);
  AGX_CHECK(push(stream_, w0));
  cs::VdmStateVertexShaderWord1 w1{};
  w1.pipeline = p.vertex_words_usc();
  AGX_CHECK(push(stream_, w1));
  AGX_TRY(auto outputs, from_word<cs::VdmStateVertexOutputs>(layout.vdm_vertex_outputs));
  AGX_CHECK(push(stream_, outputs));
  while ((stream_.size() - state_at) % 8) stream_.push_back(0);  // a VDM State block is padded to 8 bytes
  return {};
}

// A stage with scratch makes the pass's command name a helper program for
// that stage (vertex and fragment each with their own header, as Mesa's
// batches keep a scratch per stage: agx_batch.c).
Status RenderPass::scratch_helpers(const GraphicsPipeline& p) {
  auto need = [&](uint32_t scratch_B, std::optional<HelperProgram>& h, const char* stage) -> Status {
    if (scratch_B == 0 || h) return {};
    AGX_TRY(auto made, create_helper_program(device_, fmt::format("{}: {} helper program", desc_.label, stage)));
    h = std::move(made);
    return {};
  };
  AGX_CHECK(need(p.desc().vertex.scratch_B, vertex_helper_, "vertex"));
  return need(p.has_fragment() ? p.desc().fragment.scratch_B : 0, fragment_helper_, "fragment");
}

Status RenderPass::record(const DrawCounts& c) {
  const std::string draw = fmt::format("{}: draw {}", desc_.label, draws_);
  if (!pipeline_) return Error::invalid_argument("{}: no graphics pipeline bound", draw);
  if (c.first_instance != 0)
    return Error::unsupported("{}: first instance {} (the vertex prolog's base instance uniform is not bound yet)", draw,
                              c.first_instance);
  if (c.indexed && !index_buffer_) return Error::invalid_argument("{}: an indexed draw without an index buffer", draw);
  const uint32_t words = c.indexed ? 5 : 4;
  if (c.indirect && (c.indirect_offset_B % 4 || c.indirect_offset_B + 4 * words > c.indirect->size_B()))
    return Error::invalid_argument("{}: indirect counts at offset {} ({} words, 4-byte aligned, inside the {}-byte buffer)",
                                   draw, c.indirect_offset_B, words, c.indirect->size_B());
  uint64_t index_va = 0, index_size = 0;
  if (c.indexed) {
    const uint64_t skip = c.indirect ? 0 : uint64_t(c.first) * index_size_B(index_type_);
    if (index_offset_B_ + skip >= index_buffer_->size_B() && (c.indirect || c.count > 0))
      return Error::invalid_argument("{}: first index {} is past the end of the index buffer", draw, c.first);
    index_va = index_buffer_->gpu_va() + index_offset_B_ + skip;
    // Buffer size in words (Mesa aligns it up; the buffer's pages are mapped).
    index_size = (index_buffer_->size_B() - std::min(index_buffer_->size_B(), index_offset_B_ + skip) + 3) / 4 * 4;
  }
  if (Status st = draw_state(); !st.ok()) return st.error().context(draw);
  if (Status st = scratch_helpers(*pipeline_); !st.ok()) return st.error().context(draw);

  cs::IndexList l{};
  l.primitive = primitive(pipeline_->desc().topology);
  l.index_buffer_present = l.index_buffer_size_present = c.indexed;
  l.index_count_present = l.instance_count_present = l.start_present = !c.indirect;
  l.indirect_buffer_present = c.indirect != nullptr;
  if (c.indexed) {
    l.index_buffer_hi = uint32_t(index_va >> 32);
    l.index_size = static_cast<cs::IndexSize>(index_type_);
    l.restart_enable = pipeline_->desc().primitive_restart;
  }
  AGX_CHECK(push(stream_, l));
  auto word = [&]<class T>(T v) { return push(stream_, v); };
  if (c.indexed) {
    cs::IndexListBufferLo lo{};
    lo.buffer_lo = uint32_t(index_va);
    AGX_CHECK(word(lo));
  }
  if (!c.indirect) {
    cs::IndexListCount n{};
    n.count = c.count;
    cs::IndexListInstances i{};
    i.count = c.instances;
    cs::IndexListStart s{};  // the index bias of indexed draws, else the first vertex
    s.start = c.indexed ? uint32_t(c.vertex_offset) : c.first;
    AGX_CHECK(word(n));
    AGX_CHECK(word(i));
    AGX_CHECK(word(s));
  } else {
    const uint64_t va = c.indirect->gpu_va() + c.indirect_offset_B;
    cs::IndexListIndirectBuffer b{};
    b.address_hi = uint32_t(va >> 32);
    b.address_lo = uint32_t(va);
    AGX_CHECK(word(b));
  }
  if (c.indexed) {
    cs::IndexListBufferSize size{};
    size.size = uint32_t(std::min<uint64_t>(index_size, 0xFFFFFFFCu));
    AGX_CHECK(word(size));
  }
  draw_ends_.push_back(stream_.size());
  ++draws_;
  return {};
}

}  // namespace agx::runtime
