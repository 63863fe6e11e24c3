// GraphicsSession's draws (graphics_session.h): the attributes' sources
// (piglit_draw_rect's corners, [vertex data] columns, current values),
// the vertex prolog and fragment epilog linked to the main shaders, the
// runtime pipeline and one render pass per draw over the window.
#include <fmt/format.h>

#include <cstring>

#include "compiler/vertex_prolog.h"
#include "runtime/render_pass.h"
#include "shadertest/graphics_session.h"

namespace agx::shadertest {

namespace {

using compiler::VertexFormat;
using BaseType = compiler::VertexAttribute::BaseType;

VertexFormat float_format(uint8_t components) {
  return VertexFormat{VertexFormat::Type::sfloat, VertexFormat::Layout::plain, 32, components, false};
}

VertexFormat double_format(uint8_t components) {
  return VertexFormat{VertexFormat::Type::sfloat, VertexFormat::Layout::plain, 64, components, false};
}

// piglit-vbo's glVertexAttribPointer (not normalized) for float inputs,
// glVertexAttribIPointer for integer ones and glVertexAttribLPointer for
// double ones (GL_DOUBLE data for a double input).
Result<VertexFormat> column_format(const VertexAttributeColumn& c, BaseType shader_type) {
  if ((c.type == VertexDataType::double_) != (shader_type == BaseType::double_))
    return Error::unsupported("[vertex data] column {}: {} data for a {} input (only double data feeds a double input, "
                              "without conversion)", c.name, c.type == VertexDataType::double_ ? "double" : "non-double",
                              compiler::base_type_name(shader_type));
  if (c.type == VertexDataType::double_) return double_format(uint8_t(c.components));
  VertexFormat f = float_format(uint8_t(c.components));
  if (c.type == VertexDataType::float_) {
    if (shader_type != BaseType::float_)
      return Error::invalid_argument("[vertex data] column {}: float data for an integer input", c.name);
    return f;
  }
  const bool is_signed = c.type == VertexDataType::byte || c.type == VertexDataType::short_ ||
                         c.type == VertexDataType::int_;
  f.bits = uint8_t(size_B(c.type) * 8);
  if (shader_type == BaseType::float_) f.type = is_signed ? VertexFormat::Type::sscaled : VertexFormat::Type::uscaled;
  else f.type = is_signed ? VertexFormat::Type::sint : VertexFormat::Type::uint;
  return f;
}

Result<runtime::Topology> topology(const std::string& mode) {
  static const std::pair<const char*, runtime::Topology> kModes[] = {
      {"GL_POINTS", runtime::Topology::points},         {"GL_LINES", runtime::Topology::lines},
      {"GL_LINE_STRIP", runtime::Topology::line_strip}, {"GL_TRIANGLES", runtime::Topology::triangles},
      {"GL_TRIANGLE_STRIP", runtime::Topology::triangle_strip},
      {"GL_TRIANGLE_FAN", runtime::Topology::triangle_fan}};
  for (const auto& [name, t] : kModes)
    if (mode == name) return t;
  return Error::unsupported("primitive mode {} is not supported by the runtime", mode);
}

}  // namespace

std::array<std::array<float, 4>, 4> rect_corners(const std::array<float, 4>& r) {
  const float x = r[0], y = r[1], w = r[2], h = r[3];
  return {{{x, y, 0, 1}, {x + w, y, 0, 1}, {x, y + h, 0, 1}, {x + w, y + h, 0, 1}}};
}

std::array<std::array<float, 2>, 4> rect_tex_corners(const std::array<float, 4>& t) {
  const float x = t[0], y = t[1], w = t[2], h = t[3];
  return {{{x, y}, {x + w, y}, {x, y + h}, {x + w, y + h}}};
}

Result<const runtime::Buffer*> GraphicsSession::buffer(const void* data, size_t size_B, const char* label) {
  AGX_TRY(auto b, device_.create_buffer(std::max<size_t>(size_B, 16), label));
  std::memcpy(b->host().data(), data, size_B);
  buffers_.push_back(std::move(b));
  return buffers_.back().get();
}

// The main vertex shader behind its prolog: each attribute it declares
// from its source, or the current value (glVertexAttrib: (0, 0, 0, 1)
// unless `color` set it) as a stride-0 attribute.
Result<runtime::ProgramCode> GraphicsSession::vertex_program(const std::map<uint32_t, AttributeSource>& sources) {
  const compiler::Shader& vs = program_.vertex;
  const compiler::VertexAbi& abi = vs.abi.vertex;
  compiler::VertexPrologKey key;
  compiler::set_prolog_uniforms(key, abi);
  std::vector<uint32_t> u = vertex_uniforms_;
  if (u.size() < abi.first_shader_uniform) u.resize(abi.first_shader_uniform, 0);
  for (const auto& a : abi.attributes) {
    AttributeSource src;
    if (auto it = sources.find(a.location); it != sources.end()) {
      src = it->second;
    } else {
      auto cur = current_attributes_.find(a.location);
      std::array<float, 4> value = cur != current_attributes_.end() ? cur->second : std::array<float, 4>{0, 0, 0, 1};
      src.format = float_format(4);
      if (a.type == BaseType::double_) {  // as many doubles as the shader reads (no spill into another location)
        src.format = double_format(uint8_t(a.components));
        const std::array<double, 4> d{value[0], value[1], value[2], value[3]};
        AGX_TRY(src.buffer, buffer(d.data(), sizeof d, "current attribute value"));
      } else {
        if (a.type != BaseType::float_) {
          src.format.type = a.type == BaseType::int_ ? VertexFormat::Type::sint : VertexFormat::Type::uint;
          std::array<int32_t, 4> ints{};
          for (int c = 0; c < 4; ++c) ints[c] = int32_t(value[c]);
          std::memcpy(value.data(), ints.data(), 16);
        }
        AGX_TRY(src.buffer, buffer(value.data(), 16, "current attribute value"));
      }
    }
    key.attributes.push_back({a.location, src.format, src.stride_B, false, 1, a.type});
    const uint64_t va = src.buffer->gpu_va() + src.offset_B;
    u[abi.address_uniform + 2 * a.location] = uint32_t(va);
    u[abi.address_uniform + 2 * a.location + 1] = uint32_t(va >> 32);
    u[abi.clamp_uniform + a.location] = src.elements ? src.elements - 1 : 0;
  }
  AGX_TRY(auto prolog, compiler::compile_vertex_prolog(key));
  AGX_TRY(compiler::Shader linked, compiler::link_vertex(prolog, vs));
  runtime::ProgramCode program = runtime::program_code(linked, std::move(u));
  AGX_CHECK(bind_stage(vs, program, "vertex"));
  return program;
}

// The main fragment shader and its epilog for the pass's tilebuffer.
Result<runtime::ProgramCode> GraphicsSession::fragment_program(const tilebuffer::Layout& layout) {
  const compiler::Shader& fs = program_.fragment;
  if (fs.abi.fragment.writes_stencil) return Error::unsupported("a fragment shader writing stencil (no stencil buffer)");
  compiler::FragmentEpilogKey key;
  key.layout = layout;
  key.write_depth = fs.abi.fragment.writes_depth && depth_;
  AGX_TRY(auto epilog, compiler::compile_fragment_epilog(key));
  AGX_TRY(compiler::Shader linked, compiler::link_fragment(fs, epilog));
  runtime::ProgramCode program = runtime::program_code(linked, fragment_uniforms_);
  AGX_CHECK(bind_stage(fs, program, "fragment"));
  return program;
}

Result<std::unique_ptr<runtime::GraphicsPipeline>> GraphicsSession::pipeline(
    const std::map<uint32_t, AttributeSource>& sources, runtime::Topology topo, const runtime::RenderPass& pass) {
  const compiler::VertexAbi& va = program_.vertex.abi.vertex;
  const compiler::FragmentAbi& fa = program_.fragment.abi.fragment;
  runtime::GraphicsPipelineDesc d;
  d.label = fmt::format("draw {}", draws_);
  AGX_TRY(d.vertex, vertex_program(sources));
  AGX_TRY(d.fragment, fragment_program(pass.tilebuffer()));
  d.outputs = va.outputs;
  // Each fragment input binds the vertex output of its location (GL links
  // by name; the lowering gave both stages' varyings the same locations).
  std::vector<varyings::SeparableEntry> entries;
  for (const auto& in : fa.inputs) {
    size_t i = 0;
    while (i < va.output_locations.size() && va.output_locations[i] != in.location) ++i;
    if (i == va.output_locations.size())
      return Error::invalid_argument("fragment input at location {} is not written by the vertex shader", in.location);
    const varyings::Varying& v = va.outputs.varyings[i];
    const varyings::Interp want = in.interpolation == compiler::Interpolation::flat ? varyings::Interp::flat
                                  : in.interpolation == compiler::Interpolation::noperspective ? varyings::Interp::linear
                                                                                               : varyings::Interp::smooth;
    if (in.component != 0 || v.components != in.components || v.interp != want)
      return Error::unsupported("fragment input at location {} ({} components from {}, {}) differs from the vertex "
                                "output ({} components, {})",
                                in.location, in.components, in.component, compiler::interpolation_name(in.interpolation),
                                v.components, varyings::to_string(v.interp));
    entries.push_back({int(i), varyings::CoefficientSource::kVarying, in.cf, 0});
  }
  if (fa.z_cf != compiler::FragmentAbi::kNoCf) {
    d.outputs.fragcoord_z = true;
    entries.push_back({-1, varyings::CoefficientSource::kFragcoordZ, fa.z_cf, 1});
  }
  if (fa.reads_point_coord || fa.reads_primitive_id)
    return Error::unsupported("gl_PointCoord / gl_PrimitiveID in a fragment shader are not bound by the runner yet");
  d.fragment_inputs = std::move(entries);
  d.fragment_w_cf = fa.w_cf;
  d.topology = topo;
  d.cull = state_.cull_face ? runtime::CullMode::back : runtime::CullMode::none;
  // GL's counter-clockwise front: the window's rows are GL's (not
  // flipped), so the hardware, which counts rows from the top as Vulkan
  // does, sees GL's picture mirrored in y, and GL's counter-clockwise is
  // its clockwise (culling and gl_FrontFacing alike).
  d.front_face = runtime::FrontFace::clockwise;
  d.provoking_vertex_last = state_.provoking_last;
  d.depth_test = state_.depth_test;
  d.depth_write = state_.depth_test;  // glDepthMask stays GL_TRUE
  d.depth_compare = state_.depth_func;
  d.depth_clamp = state_.depth_clamp;
  return runtime::GraphicsPipeline::create(device_, std::move(d));
}

Status GraphicsSession::draw(const std::map<uint32_t, AttributeSource>& sources, runtime::Topology topo,
                             uint32_t vertices, uint32_t instances, uint32_t first) {
  runtime::RenderPassDesc d;
  d.label = current_ ? fmt::format("'{}' at line {}", current_->text, current_->line) : "draw";
  d.colors.push_back({window_.get(), runtime::LoadOp::load, runtime::StoreOp::store, {}});
  d.depth.image = depth_.get();
  d.depth.load = runtime::LoadOp::load;
  AGX_TRY(auto pass, runtime::RenderPass::begin(device_, d));
  AGX_TRY(auto p, pipeline(sources, topo, *pass));
  ++draws_;
  AGX_CHECK(pass->bind_pipeline(*p));
  AGX_CHECK(pass->draw(vertices, instances, first, 0));
  return pass->end();
}

// piglit_draw_rect: the corners in piglit_vertex (or gl_Vertex), and with
// `tex` the texture coordinates in piglit_texcoord (or gl_MultiTexCoord0).
// `ortho` takes window pixels: shader_runner maps them to clip space.
Status GraphicsSession::draw_rect(const CmdDrawRect& r) {
  if (r.patch) return Error::unsupported("draw rect patch: tessellation is not supported");
  std::array<float, 4> rect = r.rect;
  if (r.ortho) {
    const float w = float(window_px_[0]), h = float(window_px_[1]);
    rect = {-1 + 2 * rect[0] / w, -1 + 2 * rect[1] / h, 2 * rect[2] / w, 2 * rect[3] / h};
  }
  std::map<uint32_t, AttributeSource> sources;
  const auto corners = rect_corners(rect);
  AGX_TRY(const runtime::Buffer* pos, buffer(corners.data(), sizeof corners, "draw rect vertices"));
  for (const char* name : {"piglit_vertex", "piglit_Vertex"})
    if (auto it = program_.inputs.find(name); it != program_.inputs.end())
      sources[it->second] = {pos, 0, 16, 4, float_format(4)};
  if (r.tex) {
    const auto tex = rect_tex_corners(r.tex_rect);
    AGX_TRY(const runtime::Buffer* tc, buffer(tex.data(), sizeof tex, "draw rect texcoords"));
    for (const char* name : {"piglit_texcoord", "piglit_MultiTexCoord0"})
      if (auto it = program_.inputs.find(name); it != program_.inputs.end())
        sources[it->second] = {tc, 0, 8, 4, float_format(2)};
  }
  return draw(sources, runtime::Topology::triangle_strip, 4, r.instanced ? r.instances : 1);
}

// The [vertex data] columns at the locations of their names (gl_Vertex &
// co. at the lowering's piglit_* inputs); a matrix column at the matrix's
// location + column (+ 2 columns for dvec3 / dvec4 columns, which take two
// locations each); array element i (NAME[i]) i elements on, an element
// taking its matrix's columns' locations (the compiler's interface
// locations, docs/compiler.md). Columns the program does not read are left
// out.
Status GraphicsSession::vertex_data_sources(std::map<uint32_t, AttributeSource>& sources) {
  if (!test_.vertex_data) return {};
  const VertexData& vd = *test_.vertex_data;
  const std::vector<uint8_t> bytes = vd.packed();
  AGX_TRY(const runtime::Buffer* buf, buffer(bytes.data(), bytes.size(), "vertex data"));
  uint32_t row_B = 0;
  for (const auto& c : vd.columns) row_B += c.components * size_B(c.type);
  uint32_t offset_B = 0;
  for (const auto& c : vd.columns) {
    const uint32_t at = offset_B;
    offset_B += c.components * size_B(c.type);
    std::string name = c.name.starts_with("gl_") ? "piglit_" + c.name.substr(3) : c.name;
    auto it = program_.inputs.find(name);
    if (it == program_.inputs.end()) continue;
    uint32_t per_column = 1;
    for (const auto& a : program_.vertex.abi.vertex.attributes)
      if (a.location == it->second && a.type == BaseType::double_ && a.components > 2) per_column = 2;
    const uint32_t location = it->second + per_column * (c.array_index * c.matrix_columns +
                                                         uint32_t(std::max(c.matrix_column, 0)));
    BaseType type = BaseType::float_;
    bool read = false;
    for (const auto& a : program_.vertex.abi.vertex.attributes)
      if (a.location == location) type = a.type, read = true;
    if (!read) continue;
    AGX_TRY(VertexFormat f, column_format(c, type));
    const uint32_t col_B = c.components * size_B(c.type);
    if (at % f.element_bytes() || row_B % f.element_bytes()) {
      // The prolog loads whole elements (a double as 32-bit words): a
      // column the packed rows leave unaligned (piglit's byte columns
      // before it) gets a buffer of its own, the same bytes tightly packed.
      std::vector<uint8_t> col;
      for (uint32_t r = 0; r < vd.rows; ++r)
        col.insert(col.end(), bytes.begin() + size_t(r) * row_B + at, bytes.begin() + size_t(r) * row_B + at + col_B);
      AGX_TRY(const runtime::Buffer* own, buffer(col.data(), col.size(), "vertex data column"));
      sources[location] = {own, 0, col_B, vd.rows, f};
      continue;
    }
    sources[location] = {buf, at, row_B, vd.rows, f};
  }
  return {};
}

Status GraphicsSession::draw_arrays(const CmdDrawArrays& d) {
  using K = CmdDrawArrays::Kind;
  if (d.kind != K::arrays && d.kind != K::instanced)
    return Error::unsupported("only 'draw arrays' and 'draw arrays instanced' are supported");
  AGX_TRY(runtime::Topology topo, topology(d.mode));
  if (d.first[0] < 0 || d.count[0] < 0) return Error::invalid_argument("draw arrays: a negative first or count");
  std::map<uint32_t, AttributeSource> sources;
  AGX_CHECK(vertex_data_sources(sources));
  if (d.count[0] == 0 || d.instances == 0) return {};
  return draw(sources, topo, uint32_t(d.count[0]), d.instances, uint32_t(d.first[0]));
}

}  // namespace agx::shadertest
