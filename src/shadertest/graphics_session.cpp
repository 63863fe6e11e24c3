// GraphicsSession (graphics_session.h): uniforms, the compatibility
// matrices, clears, GL state and probes; draws are in graphics_draw.cpp.
#include "shadertest/graphics_session.h"

#include <fmt/format.h>

#include <cmath>
#include <cstring>

#include "shadertest/loose_uniforms.h"
#include "shadertest/overloaded.h"

namespace agx::shadertest {

namespace {

constexpr Mat4 kIdentity{1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1};

Mat4 transpose(const Mat4& m) {
  Mat4 t{};
  for (int c = 0; c < 4; ++c)
    for (int r = 0; r < 4; ++r) t[r * 4 + c] = m[c * 4 + r];
  return t;
}

// Gauss-Jordan with partial pivoting; a singular matrix gives zeros.
Mat4 inverse(const Mat4& m) {
  double a[4][8];
  for (int r = 0; r < 4; ++r)
    for (int c = 0; c < 4; ++c) {
      a[r][c] = m[c * 4 + r];
      a[r][c + 4] = r == c ? 1 : 0;
    }
  for (int c = 0; c < 4; ++c) {
    int p = c;
    for (int r = c + 1; r < 4; ++r)
      if (std::fabs(a[r][c]) > std::fabs(a[p][c])) p = r;
    if (a[p][c] == 0) return Mat4{};
    for (int k = 0; k < 8; ++k) std::swap(a[c][k], a[p][k]);
    const double d = a[c][c];
    for (int k = 0; k < 8; ++k) a[c][k] /= d;
    for (int r = 0; r < 4; ++r) {
      if (r == c) continue;
      const double f = a[r][c];
      for (int k = 0; k < 8; ++k) a[r][k] -= f * a[c][k];
    }
  }
  Mat4 out{};
  for (int r = 0; r < 4; ++r)
    for (int c = 0; c < 4; ++c) out[c * 4 + r] = float(a[r][c + 4]);
  return out;
}

runtime::CompareOp compare_op(const std::string& gl) {
  static const std::pair<const char*, runtime::CompareOp> kOps[] = {
      {"GL_NEVER", runtime::CompareOp::never},     {"GL_LESS", runtime::CompareOp::less},
      {"GL_EQUAL", runtime::CompareOp::equal},     {"GL_LEQUAL", runtime::CompareOp::less_equal},
      {"GL_GREATER", runtime::CompareOp::greater}, {"GL_NOTEQUAL", runtime::CompareOp::not_equal},
      {"GL_GEQUAL", runtime::CompareOp::greater_equal}, {"GL_ALWAYS", runtime::CompareOp::always}};
  for (const auto& [name, op] : kOps)
    if (gl == name) return op;
  return runtime::CompareOp(0xFF);
}

}  // namespace

Mat4 ortho_matrix(double l, double r, double b, double t) {
  Mat4 m = kIdentity;
  m[0] = float(2 / (r - l));
  m[5] = float(2 / (t - b));
  m[10] = -1;  // -2 / (far - near) with near -1, far 1
  m[12] = float(-(r + l) / (r - l));
  m[13] = float(-(t + b) / (t - b));
  return m;
}

Mat4 frustum_matrix(double l, double r, double b, double t, double n, double f) {
  Mat4 m{};
  m[0] = float(2 * n / (r - l));
  m[5] = float(2 * n / (t - b));
  m[8] = float((r + l) / (r - l));
  m[9] = float((t + b) / (t - b));
  m[10] = float(-(f + n) / (f - n));
  m[11] = -1;
  m[14] = float(-2 * f * n / (f - n));
  return m;
}

std::optional<std::vector<float>> compat_matrix(const std::string& name, const Mat4& projection) {
  if (!name.starts_with("piglit_")) return std::nullopt;
  std::string base = name.substr(7);
  bool inv = false, tr = false;
  if (base.ends_with("InverseTranspose")) inv = tr = true, base.resize(base.size() - 16);
  else if (base.ends_with("Inverse")) inv = true, base.resize(base.size() - 7);
  else if (base.ends_with("Transpose")) tr = true, base.resize(base.size() - 9);
  Mat4 m;
  if (base == "ModelViewMatrix" || base == "TextureMatrix") m = kIdentity;
  else if (base == "ProjectionMatrix" || base == "ModelViewProjectionMatrix") m = projection;  // modelview = I
  else if (base == "NormalMatrix" && !inv && !tr) return std::vector<float>{1, 0, 0, 0, 1, 0, 0, 0, 1};
  else return std::nullopt;
  if (inv) m = inverse(m);
  if (tr) m = transpose(m);
  return std::vector<float>(m.begin(), m.end());
}

GraphicsSession::GraphicsSession(runtime::Device& device, const CompiledGraphics& program, const ShaderTest& test)
    : device_(device), program_(program), test_(test), resources_(device, no_compute_) {
  if (test.require.window_px) window_px_ = *test.require.window_px;
  ignore_missing_uniforms_ = test.require.ignore_missing_uniforms;
  resources_.set_ignore_missing_uniforms(ignore_missing_uniforms_);
  resources_.set_uniform_blocks(program.uniform_blocks);
}

// A texture or buffer command, run by the resource session; its failed
// probes (probe ssbo, probe atomic counter) become this session's.
Status GraphicsSession::resource_command(const Command& command) {
  const size_t before = resources_.failures().size();
  AGX_CHECK(resources_.run(command));
  for (size_t i = before; i < resources_.failures().size(); ++i) {
    ProbeFailure f;
    f.text = resources_.failures()[i];
    f.line = command.line;
    failures_.push_back(f.text);
    probe_failures_.push_back(std::move(f));
  }
  return {};
}

// A stage's buffers, textures and samplers into its program (its uniforms
// and state registers), by the rule compute dispatches bind with.
Status GraphicsSession::bind_stage(const compiler::Shader& shader, runtime::ProgramCode& program, const char* stage) {
  auto states = runtime::bind_resources(shader.abi, resources_.resource_lookup(), program.uniforms);
  if (!states.ok()) return std::move(states).error().context(fmt::format("{} shader", stage));
  program.texture_states = std::move(states->textures);
  program.sampler_states = std::move(states->samplers);
  program.extended_samplers = states->extended_samplers;
  return {};
}

Status GraphicsSession::begin() {
  layout::Request r;
  r.format = format::Format::R8G8B8A8_UNORM;
  r.width_px = window_px_[0];
  r.height_px = window_px_[1];
  r.tiling = layout::Tiling::gpu;
  r.renderable = true;
  AGX_TRY(window_, runtime::Image::create(device_, r, "window"));
  if (test_.require.depthbuffer) {
    r.format = format::Format::Z32_FLOAT;
    AGX_TRY(depth_, runtime::Image::create(device_, r, "window depth"));
  }
  auto size = [](const compiler::Shader& s, uint32_t at_least) {
    return std::max({s.abi.uniform_count, s.abi.push_constants_uniform + s.abi.push_constants_size_B / 4, at_least});
  };
  vertex_uniforms_.assign(size(program_.vertex, program_.vertex.abi.vertex.first_shader_uniform), 0);
  fragment_uniforms_.assign(size(program_.fragment, compiler::FragmentAbi::kFirstShaderUniform), 0);
  // GLSL initializers (a loose uniform's words packed as written: arrays,
  // whose elements may be padded, only when the sizes agree).
  for (auto* stage : {&program_.vertex, &program_.fragment}) {
    auto& words = stage == &program_.vertex ? vertex_uniforms_ : fragment_uniforms_;
    const auto& inits = stage == &program_.vertex ? program_.vertex_initializers : program_.fragment_initializers;
    for (const auto& lu : stage->abi.loose_uniforms) {
      auto it = inits.find(lu.name);
      if (it == inits.end() || it->second.size() * 4 != lu.size_B) continue;
      if (words.size() < lu.uniform + it->second.size()) words.resize(lu.uniform + it->second.size(), 0);
      std::copy(it->second.begin(), it->second.end(), words.begin() + lu.uniform);
    }
  }
  AGX_CHECK(write_compat_matrices());
  return clear();  // a defined start (GL leaves a new window's contents undefined)
}

Status GraphicsSession::write_compat_matrices() {
  for (auto* stage : {&program_.vertex, &program_.fragment}) {
    auto& words = stage == &program_.vertex ? vertex_uniforms_ : fragment_uniforms_;
    for (const auto& lu : stage->abi.loose_uniforms) {
      auto m = compat_matrix(lu.name, projection_);
      if (!m) continue;
      for (uint32_t at = 0; at + m->size() * 4 <= lu.size_B; at += uint32_t(m->size() * 4)) {
        const uint32_t first = lu.uniform + at / 4;
        if (words.size() < first + m->size()) words.resize(first + m->size(), 0);
        std::memcpy(words.data() + first, m->data(), m->size() * 4);
      }
    }
  }
  return {};
}

// `uniform TYPE NAME VALUES` into every stage that has NAME (GL's program
// has one uniform of that name); `NAME[i]` writes element i of an array at
// the compiler's array stride (loose_uniforms.h).
Result<bool> GraphicsSession::write_uniform(std::string_view name, std::span<const uint8_t> data) {
  bool found = false;
  for (auto* stage : {&program_.vertex, &program_.fragment}) {
    auto& words = stage == &program_.vertex ? vertex_uniforms_ : fragment_uniforms_;
    AGX_TRY(auto t, find_loose_uniform(stage->abi.loose_uniforms, name, data.size()));
    if (!t) continue;
    const uint32_t first = t->uniform->uniform + t->offset_B / 4;
    const size_t n = (data.size() + 3) / 4;
    if (words.size() < first + n) words.resize(first + n, 0);
    std::memcpy(words.data() + first, data.data(), data.size());
    found = true;
  }
  return found;
}

Status GraphicsSession::set_uniform(const CmdUniform& u) {
  AGX_TRY(bool found, write_uniform(u.name, u.data));
  if (found) return {};
  // Sampler and image units (`uniform int tex 0`) and uniform block
  // members: the resource session's, as in compute files.
  return resources_.run(*current_);
}

Status GraphicsSession::clear() {
  runtime::RenderPassDesc d;
  d.label = "clear";
  std::array<uint32_t, 4> bits;
  std::memcpy(bits.data(), clear_color_.data(), 16);
  d.colors.push_back({window_.get(), runtime::LoadOp::clear, runtime::StoreOp::store, bits});
  d.depth.image = depth_.get();
  d.depth.clear = clear_depth_;
  AGX_TRY(auto pass, runtime::RenderPass::begin(device_, d));
  return pass->end();
}

Status GraphicsSession::probe_failed(ProbeFailure failure) {
  failure.line = current_ ? current_->line : 0;
  failures_.push_back(fmt::format("{}\nTest failure on line {}", failure.text, failure.line));
  probe_failures_.push_back(std::move(failure));
  return {};
}

Result<Framebuffer> GraphicsSession::framebuffer() const {
  std::vector<uint8_t> px(size_t(window_px_[0]) * window_px_[1] * 4);
  AGX_CHECK(window_->download(px, uint64_t(window_px_[0]) * 4));
  AGX_TRY(Framebuffer fb, Framebuffer::from_rgba8(window_px_[0], window_px_[1], px));
  if (depth_) {
    std::vector<float> z(size_t(window_px_[0]) * window_px_[1]);
    AGX_CHECK(depth_->download({reinterpret_cast<uint8_t*>(z.data()), z.size() * 4}, uint64_t(window_px_[0]) * 4));
    for (uint32_t y = 0; y < window_px_[1]; ++y)
      for (uint32_t x = 0; x < window_px_[0]; ++x) fb.set_depth(x, y, z[size_t(y) * window_px_[0] + x]);
  }
  return fb;
}

Result<PngImage> GraphicsSession::window_png() const {
  PngImage png;
  png.width_px = window_px_[0];
  png.height_px = window_px_[1];
  const size_t row_B = size_t(png.width_px) * 4;
  std::vector<uint8_t> px(row_B * png.height_px);
  AGX_CHECK(window_->download(px, row_B));
  png.data.resize(px.size());
  for (uint32_t y = 0; y < png.height_px; ++y)  // GL's bottom row last
    std::memcpy(png.data.data() + (png.height_px - 1 - y) * row_B, px.data() + y * row_B, row_B);
  return png;
}

Status GraphicsSession::probe_depth(const CmdProbeDepth& p) {
  if (!depth_) return Error::unsupported("probe depth without a depth buffer ([require] depthbuffer)");
  AGX_TRY(Framebuffer fb, framebuffer());
  AGX_TRY(auto report, shadertest::probe_depth(fb, p.x, p.y, p.depth));
  return report ? probe_failed(*report) : Status{};
}

Status GraphicsSession::gl_state(const CmdGlState& s) {
  using K = CmdGlState::Kind;
  const std::string arg = s.args.empty() ? "" : s.args[0];
  if (s.kind == K::enable || s.kind == K::disable) {
    const bool on = s.kind == K::enable;
    if (arg == "GL_DEPTH_TEST") state_.depth_test = on;
    else if (arg == "GL_CULL_FACE") state_.cull_face = on;
    else if (arg == "GL_DEPTH_CLAMP") state_.depth_clamp = on;
    else if (arg == "GL_VERTEX_PROGRAM_TWO_SIDE") return two_side(on);
    else if (auto plane = clip_plane_enum(arg)) return enable_clip_plane(*plane, on);
    // Blending with GL's default factors (ONE, ZERO) writes the source:
    // shader_runner has no command that changes them.
    else if (arg == "GL_BLEND" || arg == "GL_DITHER" || arg == "GL_MULTISAMPLE") return {};
    else return Error::unsupported("{} {} is not supported by the runner", on ? "enable" : "disable", arg);
    return {};
  }
  if (s.kind == K::depth_func) {
    runtime::CompareOp op = compare_op(arg);
    if (op == runtime::CompareOp(0xFF)) return Error::invalid_argument("depthfunc {}: not a GL comparison", arg);
    state_.depth_func = op;
    return {};
  }
  if (s.kind == K::provoking_vertex) {
    state_.provoking_last = arg == "last";
    return {};
  }
  // Hints change nothing; `shade model flat` was given to the lowering
  // (the colours' interpolation, build_graphics_program).
  if (s.kind == K::hint || s.kind == K::shade_model) return {};
  return Error::unsupported("this GL state command is not supported by the runner");
}

std::optional<unsigned> clip_plane_enum(std::string_view gl) {
  for (std::string_view prefix : {"GL_CLIP_PLANE", "GL_CLIP_DISTANCE"}) {
    if (!gl.starts_with(prefix) || gl.size() != prefix.size() + 1) continue;
    const char d = gl.back();
    if (d >= '0' && d < char('0' + kClipPlanes)) return unsigned(d - '0');
  }
  return std::nullopt;
}

Status GraphicsSession::enable_clip_plane(unsigned plane, bool on) {
  clip_enable_ = on ? clip_enable_ | 1u << plane : clip_enable_ & ~(1u << plane);
  return write_clip_uniforms();
}

// The lowering's user clip plane uniforms (glsl_lowering_clip.cpp): each
// enabled plane, zeros for the others, and the enable bits.
Status GraphicsSession::write_clip_uniforms() {
  for (unsigned i = 0; i < kClipPlanes; ++i) {
    const std::array<float, 4> plane = clip_enable_ >> i & 1 ? clip_planes_[i] : std::array<float, 4>{};
    AGX_CHECK(write_uniform(fmt::format("piglit_ClipPlane[{}]", i),
                            {reinterpret_cast<const uint8_t*>(plane.data()), sizeof plane}));
  }
  AGX_CHECK(write_uniform("piglit_ClipDistanceEnable", {reinterpret_cast<const uint8_t*>(&clip_enable_), 4}));
  return {};
}

// Two-sided colour: the lowering's piglit_TwoSide in the fragment shader
// (a fragment shader without it reads no colour the vertex shader writes a
// back side of: nothing changes).
Status GraphicsSession::two_side(bool on) {
  for (const auto& lu : program_.fragment.abi.loose_uniforms) {
    if (lu.name != "piglit_TwoSide") continue;
    if (fragment_uniforms_.size() <= lu.uniform) fragment_uniforms_.resize(lu.uniform + 1, 0);
    fragment_uniforms_[lu.uniform] = on ? 1 : 0;
  }
  return {};
}

Status GraphicsSession::fixed_function(const CmdFixedFunction& f) {
  using K = CmdFixedFunction::Kind;
  if (f.kind == K::ortho) {
    const auto& v = f.values;
    projection_ = v.size() == 4 ? ortho_matrix(v[0], v[1], v[2], v[3])
                                : ortho_matrix(0, window_px_[0], 0, window_px_[1]);
    return write_compat_matrices();
  }
  if (f.kind == K::frustum) {
    const auto& v = f.values;
    if (v.size() != 6 || v[0] == v[1] || v[2] == v[3] || v[4] == v[5] || v[4] <= 0 || v[5] <= 0)
      return Error::invalid_argument("frustum: GL_INVALID_VALUE (planes L R B T N F with N, F > 0 and distinct pairs)");
    projection_ = frustum_matrix(v[0], v[1], v[2], v[3], v[4], v[5]);
    return write_compat_matrices();
  }
  if (f.kind == K::clip_plane) {
    // glClipPlane takes the plane to eye coordinates with the inverse of the
    // modelview matrix, which is the identity here (compat_matrix): the
    // plane is kept as written.
    if (f.index < 0 || unsigned(f.index) >= kClipPlanes || f.values.size() != 4)
      return Error::invalid_argument("clip plane {}: GL_INVALID_ENUM (planes 0 to {})", f.index, kClipPlanes - 1);
    for (unsigned k = 0; k < 4; ++k) clip_planes_[size_t(f.index)][k] = float(f.values[k]);
    return write_clip_uniforms();
  }
  if (f.kind == K::color) {
    // glColor: the current value of gl_Color (location 3, as the lowering places it).
    std::array<float, 4> c{0, 0, 0, 1};
    for (size_t i = 0; i < f.values.size() && i < 4; ++i) c[i] = float(f.values[i]);
    current_attributes_[3] = c;
    return {};
  }
  return Error::unsupported("this fixed-function command is not supported by the runner");
}

Status GraphicsSession::graphics(const GraphicsCommand& g) {
  return std::visit(
      Overloaded{
          [&](const CmdDrawRect& r) { return draw_rect(r); },
          [&](const CmdDrawArrays& d) { return draw_arrays(d); },
          [&](const CmdClearDepth& c) -> Status {
            clear_depth_ = c.depth;
            return {};
          },
          [&](const CmdProbeRegion& p) -> Status {
            AGX_TRY(Framebuffer fb, framebuffer());
            AGX_TRY(auto report, run_probe(fb, p, tolerance_));
            return report ? probe_failed(*report) : Status{};
          },
          [&](const CmdProbeDepth& p) { return probe_depth(p); },
          [&](const CmdGlState& s) { return gl_state(s); },
          [&](const CmdFixedFunction& f) { return fixed_function(f); },
          [&](const auto&) -> Status { return Error::unsupported("not supported by the runner"); },
      },
      g);
}

Status GraphicsSession::run(const Command& command) {
  current_ = &command;
  return std::visit(
      Overloaded{
          [&](const CmdUniform& u) { return set_uniform(u); },
          [&](const CmdClearColor& c) -> Status {
            clear_color_ = c.rgba;
            return {};
          },
          [&](const CmdClear&) { return clear(); },
          [&](const CmdProbeRgba& p) -> Status {
            AGX_TRY(Framebuffer fb, framebuffer());
            AGX_TRY(auto report, shadertest::probe_pixel(fb, p.x, p.y, p.rgba, p.alpha ? 4 : 3, tolerance_));
            return report ? probe_failed(*report) : Status{};
          },
          [&](const CmdProbeAll& p) -> Status {
            AGX_TRY(Framebuffer fb, framebuffer());
            PixelRect all{0, 0, int(fb.width_px()), int(fb.height_px())};
            AGX_TRY(auto report, probe_rect(fb, all, p.rgba, p.alpha ? 4 : 3, tolerance_));
            return report ? probe_failed(*report) : Status{};
          },
          [&](const CmdTolerance& t) -> Status {
            tolerance_ = t.values;
            return {};
          },
          [&](const CmdLinkSuccess&) -> Status { return {}; },
          [&](const CmdGraphics& g) {
            return Session::is_resource_command(command) ? resource_command(command) : graphics(g.command);
          },
          [&](const auto&) -> Status {
            if (Session::is_resource_command(command)) return resource_command(command);
            return Error::unsupported("not supported in vertex/fragment files yet");
          },
      },
      command.body);
}

}  // namespace agx::shadertest
