#include "shadertest/session.h"

#include "shadertest/census.h"
#include "shadertest/loose_uniforms.h"
#include "shadertest/overloaded.h"

#include "runtime/encoder.h"
#include "runtime/image_binding.h"
#include "runtime/resource_binding.h"

#include <cfloat>
#include <cmath>
#include <cstring>

namespace agx::shadertest {

namespace {

uint8_t unorm8(float v) {
  if (!(v > 0)) return 0;
  if (v >= 1) return 255;
  return uint8_t(std::lround(v * 255.0f));
}

}  // namespace

Result<IntegerFormat> integer_texture_format(const std::string& gl_name) {
  if (gl_name == "GL_R32I") return IntegerFormat{format::Format::R32_SINT, 1};
  if (gl_name == "GL_R32UI") return IntegerFormat{format::Format::R32_UINT, 1};
  if (gl_name == "GL_RGBA32I") return IntegerFormat{format::Format::R32G32B32A32_SINT, 4};
  if (gl_name == "GL_RGBA32UI") return IntegerFormat{format::Format::R32G32B32A32_UINT, 4};
  return Error::unsupported("integer texture format {} is not supported (GL_R32I, GL_R32UI, GL_RGBA32I, GL_RGBA32UI)",
                            gl_name);
}

std::vector<int32_t> integer_texels(uint32_t w, uint32_t h, int32_t b, int32_t a, unsigned channels) {
  std::vector<int32_t> out;
  out.reserve(size_t(w) * h * channels);
  for (uint32_t y = 0; y < h; ++y)
    for (uint32_t x = 0; x < w; ++x) {
      if (channels == 1) {
        out.push_back(a + b * int32_t(y) + int32_t(x));
      } else {
        out.insert(out.end(), {int32_t(x), int32_t(y), b, a});
      }
    }
  return out;
}

Result<std::vector<uint8_t>> read_rgba8(const runtime::Image& image) {
  std::vector<uint8_t> px(size_t(image.width_px()) * image.height_px() * 4);
  AGX_CHECK(image.download(px, uint64_t(image.width_px()) * 4));
  return px;
}

std::vector<uint8_t> rgbw_rgba8(uint32_t w, uint32_t h) {
  std::vector<uint8_t> out(size_t(w) * h * 4);
  for (uint32_t y = 0; y < h; ++y) {
    for (uint32_t x = 0; x < w; ++x) {
      bool left = x < w / 2, bottom = y < h / 2;
      uint8_t r, g, b;
      // red (left, bottom), green (right, bottom), blue (left, top), white (right, top)
      if (left && bottom) r = 255, g = 0, b = 0;
      else if (bottom) r = 0, g = 255, b = 0;
      else if (left) r = 0, g = 0, b = 255;
      else r = g = b = 255;
      uint8_t* p = out.data() + (size_t(y) * w + x) * 4;
      p[0] = r, p[1] = g, p[2] = b, p[3] = 255;
    }
  }
  return out;
}

bool probe_value(ProbeType type, uint64_t observed, uint64_t reference, Compare cmp) {
  switch (type) {
    case ProbeType::uint32: return compare(uint32_t(reference), uint32_t(observed), cmp);
    case ProbeType::int32: return compare(int32_t(reference), int32_t(observed), cmp);
    case ProbeType::uint64: return compare(reference, observed, cmp);
    case ProbeType::int64: return compare(int64_t(reference), int64_t(observed), cmp);
    case ProbeType::float32:
    case ProbeType::float64: {
      double o, r;
      if (type == ProbeType::float32) {
        float fo, fr;
        uint32_t bo = uint32_t(observed), br = uint32_t(reference);
        std::memcpy(&fo, &bo, 4);
        std::memcpy(&fr, &br, 4);
        o = fo, r = fr;
      } else {
        std::memcpy(&o, &observed, 8);
        std::memcpy(&r, &reference, 8);
      }
      if (cmp == Compare::eq) return std::fabs(o - r) < DBL_EPSILON;
      if (cmp == Compare::ne) return std::fabs(o - r) >= DBL_EPSILON;
      return compare(r, o, cmp);
    }
  }
  return false;
}

Result<std::unique_ptr<runtime::Image>> Session::make_image(const std::string& label, uint32_t w, uint32_t h,
                                                  format::Format fmt) {
  if (w == 0 || h == 0 || w > 16384 || h > 16384)
    return Error::invalid_argument("{}: size {}x{} is not 1..16384", label, w, h);
  layout::Request r;
  r.format = fmt;
  r.width_px = w;
  r.height_px = h;
  r.tiling = layout::Tiling::gpu;
  r.writeable_image = true;  // image stores
  r.renderable = true;       // a framebuffer
  return runtime::Image::create(device_, r, label);
}

Result<runtime::Buffer*> Session::ssbo(int index) {
  auto it = ssbos_.find(index);
  if (it == ssbos_.end()) return Error::not_found("no ssbo {} (an 'ssbo {} SIZE' line comes first)", index, index);
  return it->second.get();
}

Status Session::set_uniform(const CmdUniform& u) {
  if (u.type.opaque || (u.type.components() == 1 && u.type.scalar == Scalar::int32 &&
                        opaque_units_.count(u.name))) {
    int32_t unit;
    std::memcpy(&unit, u.data.data(), 4);
    opaque_units_[u.name] = unit;
    return {};
  }
  auto write = [&](const LooseTarget& t) {
    const uint32_t first = t.uniform->uniform - shader_.abi.push_constants_uniform + t.offset_B / 4;
    const size_t words = (u.data.size() + 3) / 4;
    if (uniform_words_.size() < first + words) uniform_words_.resize(first + words, 0);
    std::memcpy(uniform_words_.data() + first, u.data.data(), u.data.size());
  };
  // SPIR-V files name uniforms by location (loose_uniforms.h).
  bool by_location = !u.name.empty() && u.name.find_first_not_of("0123456789") == std::string::npos;
  if (by_location) {
    if (auto t = find_loose_location(shader_.abi.loose_uniforms, uint32_t(std::stoul(u.name)), u.data.size())) {
      write(*t);
      return {};
    }
  }
  // A uniform block member first, as shader_runner's set_ubo_uniform.
  if (!by_location) {
    if (auto at = runtime::find_block_member(uniform_blocks_, u.name); at.ok()) return set_block_member(u, *at);
    else if (at.error().kind() != ErrorKind::not_found) return std::move(at).error();
  }
  AGX_TRY(auto loose, find_loose_uniform(shader_.abi.loose_uniforms, u.name, u.data.size()));
  if (loose) {
    write(*loose);
    return {};
  }
  // Sampler and image units are set with `uniform int NAME UNIT` too; the
  // compiler's ABI does not list opaque uniforms yet, so an unknown int is
  // taken as a unit.
  if (u.type.components() == 1 && u.type.scalar == Scalar::int32) {
    int32_t unit;
    std::memcpy(&unit, u.data.data(), 4);
    opaque_units_[u.name] = unit;
    return {};
  }
  if (ignore_missing_uniforms_) return {};
  return Error::not_found("uniform '{}' is not an active uniform of the shader", u.name);
}

Status Session::launch(const compiler::Shader& shader, std::array<uint32_t, 3> groups, const Command& at) {
  ++dispatches_;
  const compiler::Abi& abi = shader.abi;
  // The uniform file by the compiler's compute ABI (docs/compiler.md):
  // resource addresses, gl_NumWorkGroups, then the loose uniforms.
  std::vector<uint32_t> u(std::max<uint32_t>(abi.uniform_count, abi.push_constants_uniform + uint32_t(uniform_words_.size())), 0);
  AGX_TRY(runtime::StateDescriptors states, runtime::bind_resources(abi, resource_lookup(), u));
  if (abi.workgroup_count_uniform + 3 > u.size()) u.resize(abi.workgroup_count_uniform + 3, 0);
  for (int i = 0; i < 3; ++i) u[abi.workgroup_count_uniform + i] = groups[i];
  for (size_t i = 0; i < uniform_words_.size(); ++i) u[abi.push_constants_uniform + i] = uniform_words_[i];

  runtime::LaunchDesc launch = runtime::shader_launch(shader, groups);
  launch.texture_states = states.textures;
  launch.sampler_states = states.samplers;
  launch.extended_samplers = states.extended_samplers;
  launch.uniforms = u;
  std::string what = fmt::format("dispatch {} ('{}' at line {})", dispatches_, at.text, at.line);
  if (groups[0] == 0 || groups[1] == 0 || groups[2] == 0) return {};  // an empty grid runs nothing
  AGX_TRY(runtime::EncodedLaunch encoded, runtime::encode_launch(device_, launch));
  return device_.submit_compute(encoded.command, what);
}

// Every resource the ABI names has its buffer (piglit binds by index):
// storage buffers and atomic counters from their commands, uniform blocks
// from the program's blocks at their binding.
runtime::ResourceLookup Session::resource_lookup() {
  runtime::ResourceLookup l;
  l.buffer_for = [this](const compiler::Resource& r) -> Result<const runtime::Buffer*> {
    switch (r.kind) {
      case compiler::Resource::Kind::storage_buffer: {
        auto it = ssbos_.find(int(r.binding));
        if (it == ssbos_.end())
          return Error::not_found("the shader's buffer '{}' (binding {}) has no 'ssbo {} SIZE'", r.name, r.binding,
                                  r.binding);
        return it->second.get();
      }
      case compiler::Resource::Kind::atomic_counter: {
        auto it = atomic_buffers_.find(r.binding);
        if (it == atomic_buffers_.end())
          return Error::not_found("the shader's atomic counters (binding {}) have no buffer ('atomic counters N')",
                                  r.binding);
        return it->second.get();
      }
      case compiler::Resource::Kind::uniform_buffer: break;
    }
    auto b = std::find_if(uniform_blocks_.begin(), uniform_blocks_.end(),
                          [&](const runtime::UniformBlock& ub) { return ub.binding == r.binding; });
    if (b == uniform_blocks_.end())
      return Error::not_found("uniform block '{}' (binding {}): no block at that binding in the program{}", r.name,
                              r.binding, uniform_blocks_error_.empty() ? "" : " (" + uniform_blocks_error_ + ")");
    AGX_TRY(runtime::Buffer * ubo, uniform_buffer(*b));
    return ubo;
  };
  l.image_for = [this](const compiler::ImageBinding& b) { return bound_image(b); };
  l.atomic_lock = [this]() -> Result<const runtime::Buffer*> {
    // Zeroed once; every lock holder gives it back before its dispatch ends.
    if (!atomic_lock_) {
      AGX_TRY(atomic_lock_, device_.create_buffer(4, "64-bit atomics lock"));
    }
    return atomic_lock_.get();
  };
  return l;
}

// The image a shader's image uniform reaches: the unit is the uniform's
// value (`uniform int NAME UNIT`), else its initial value, the binding
// (`layout(binding = N)` initializes it in GL; glslang gives the others
// bindings in declaration order).
Result<runtime::BoundImage> Session::bound_image(const compiler::ImageBinding& b) const {
  auto u = opaque_units_.find(b.name);
  // An array's first element is also set by the array's own name ("s" for
  // "s[0]", as glGetUniformLocation takes it).
  if (u == opaque_units_.end() && b.array_size && b.array_element == 0)
    u = opaque_units_.find(b.name.substr(0, b.name.rfind('[')));
  const int unit = u == opaque_units_.end() ? int(b.binding) : u->second;
  if (b.kind == compiler::ImageBinding::Kind::storage_image && !image_units_.count(unit))
    return Error::not_found("image '{}': no image bound to unit {} ('image texture {} FORMAT')", b.name, unit, unit);
  auto t = textures_.find(unit);
  if (t == textures_.end()) return Error::not_found("image '{}': no texture {}", b.name, unit);
  runtime::BoundImage out{t->second.get(), {}};
  if (auto p = sampler_params_.find(unit); p != sampler_params_.end()) out.sampler = p->second;
  return out;
}

Result<runtime::Image*> Session::read_framebuffer() {
  if (fb_texture_) {
    auto it = textures_.find(*fb_texture_);
    if (*fb_texture_ < 0) return Error::not_found("the read framebuffer has no color attachment 0 (fb tex 2d -1)");
    if (it == textures_.end()) return Error::not_found("fb tex 2d {}: no such texture", *fb_texture_);
    return it->second.get();
  }
  if (!winsys_) {
    AGX_TRY(winsys_, make_image("window", window_px_[0], window_px_[1]));
  }
  return winsys_.get();
}

// `fb tex 2d N...` binds the units' textures as color attachments 0..
// (GL_FRAMEBUFFER: both draw and read), `fb draw|read ...` one of them,
// `winsys` the window again; probes read attachment 0, `clear` clears every
// draw attachment.
Status Session::bind_framebuffer(const CmdFbTex2d& f) {
  if (!f.winsys) {
    for (int u : f.units)
      if (u >= 0 && !textures_.count(u)) return Error::not_found("fb tex 2d {}: no texture {}", u, u);
    if (f.units.empty()) return Error::invalid_argument("fb tex 2d without a texture");
  }
  if (f.target != CmdFbTex2d::Target::read) {
    if (f.winsys) draw_units_.reset();
    else draw_units_ = f.units;
  }
  if (f.target != CmdFbTex2d::Target::draw) {
    if (f.winsys) fb_texture_.reset();
    else fb_texture_ = f.units[0];
  }
  return {};
}

Status Session::clear_draw_framebuffer() {
  std::vector<runtime::Image*> targets;
  if (!draw_units_) {
    if (!winsys_) {
      AGX_TRY(winsys_, make_image("window", window_px_[0], window_px_[1]));
    }
    targets.push_back(winsys_.get());
  } else {
    for (int u : *draw_units_) {
      if (u < 0) continue;  // an attachment left empty
      auto it = textures_.find(u);
      if (it == textures_.end()) return Error::not_found("clear: texture {} is gone", u);
      targets.push_back(it->second.get());
    }
  }
  uint8_t px[4] = {unorm8(clear_color_[0]), unorm8(clear_color_[1]), unorm8(clear_color_[2]), unorm8(clear_color_[3])};
  for (runtime::Image* fb : targets) {
    if (fb->layout().request.format != format::Format::R8G8B8A8_UNORM)
      return Error::unsupported("clear of a texture that is not GL_RGBA8");
    std::vector<uint8_t> fill(size_t(fb->width_px()) * fb->height_px() * 4);
    for (size_t i = 0; i < fill.size(); i += 4) std::memcpy(&fill[i], px, 4);
    AGX_CHECK(fb->upload(fill, uint64_t(fb->width_px()) * 4));
  }
  return {};
}

Status Session::probe_failed(std::string message) {
  failures_.push_back(fmt::format("{}\nTest failure on line {}", message, current_ ? current_->line : 0));
  return {};
}

Result<Framebuffer> Session::framebuffer_model() {
  AGX_TRY(runtime::Image * fb, read_framebuffer());
  AGX_TRY(auto px, read_rgba8(*fb));
  return Framebuffer::from_rgba8(fb->width_px(), fb->height_px(), px);
}

Status Session::probe_pixel(const CmdProbeRgba& p) {
  AGX_TRY(Framebuffer fb, framebuffer_model());
  AGX_TRY(auto report, shadertest::probe_pixel(fb, p.x, p.y, p.rgba, p.alpha ? 4 : 3, tolerance_));
  return report ? probe_failed(report->text) : Status{};
}

Status Session::probe_all(const CmdProbeAll& p) {
  AGX_TRY(Framebuffer fb, framebuffer_model());
  PixelRect all{0, 0, int(fb.width_px()), int(fb.height_px())};
  AGX_TRY(auto report, probe_rect(fb, all, p.rgba, p.alpha ? 4 : 3, tolerance_));
  return report ? probe_failed(report->text) : Status{};
}

bool Session::is_resource_command(const Command& c) {
  if (const auto* g = std::get_if<CmdGraphics>(&c.body)) return std::holds_alternative<CmdTexturePattern>(g->command);
  return std::visit(Overloaded{
                        [](const CmdSsbo&) { return true; }, [](const CmdSsboSubdata&) { return true; },
                        [](const CmdAtomicCounters&) { return true; }, [](const CmdAtomicCounterBuffer&) { return true; },
                        [](const CmdAtomicCounterSet&) { return true; }, [](const CmdProbeSsbo&) { return true; },
                        [](const CmdProbeAtomicCounter&) { return true; }, [](const CmdTextureRgbw&) { return true; },
                        [](const CmdTextureInteger&) { return true; }, [](const CmdTextureMiptree&) { return true; },
                        [](const CmdTextureShaped&) { return true; }, [](const CmdTexParameter&) { return true; },
                        [](const CmdImageTexture&) { return true; }, [](const CmdMemoryBarrier&) { return true; },
                        [](const CmdBlockIndex&) { return true; }, [](const auto&) { return false; },
                    },
                    c.body);
}

Status Session::run(const Command& command) {
  current_ = &command;
  return std::visit(
      Overloaded{
          [&](const CmdUniform& u) { return set_uniform(u); },
          [&](const CmdUniformHandle&) -> Status {
            return Error::unsupported("bindless handles (ARB_bindless_texture) are not supported");
          },
          [&](const CmdSsbo& s) -> Status {
            ssbos_.erase(s.index);  // a new buffer, as glBufferData
            AGX_TRY(ssbos_[s.index], device_.create_buffer(std::max<uint32_t>(s.size_B, 4), fmt::format("ssbo {}", s.index)));
            return {};
          },
          [&](const CmdSsboSubdata& s) -> Status {
            AGX_TRY(runtime::Buffer * b, ssbo(s.index));
            if (s.offset_B > b->size_B() || s.data.size() > b->size_B() - s.offset_B)
              return Error::invalid_argument("ssbo {} subdata at {} overruns its {} bytes", s.index, s.offset_B, b->size_B());
            std::memcpy(b->host().data() + s.offset_B, s.data.data(), s.data.size());
            return {};
          },
          [&](const CmdAtomicCounters& a) -> Status {
            atomic_buffers_.erase(0);
            AGX_TRY(atomic_buffers_[0], device_.create_buffer(std::max<uint32_t>(a.count, 1) * 4u, "atomic counters"));
            return {};
          },
          [&](const CmdAtomicCounterBuffer& a) -> Status {
            atomic_buffers_.erase(a.binding);
            AGX_TRY(atomic_buffers_[a.binding],
                    device_.create_buffer(std::max<uint32_t>(a.count, 1) * 4u, fmt::format("atomic counter buffer {}", a.binding)));
            return {};
          },
          [&](const CmdAtomicCounterSet& a) -> Status {
            auto it = atomic_buffers_.find(a.binding);
            if (it == atomic_buffers_.end()) return Error::not_found("no atomic counter buffer {}", a.binding);
            if (uint64_t(a.index) * 4 + 4 > it->second->size_B())
              return Error::invalid_argument("atomic counter {} is past buffer {}", a.index, a.binding);
            std::memcpy(it->second->host().data() + a.index * 4, &a.value, 4);
            return {};
          },
          [&](const CmdCompute& c) { return dispatch({c.x, c.y, c.z}, std::nullopt, command); },
          [&](const CmdComputeGroupSize& c) { return dispatch(c.groups, c.local, command); },
          [&](const CmdProbeSsbo& p) { return probe_ssbo(p); },
          [&](const CmdProbeAtomicCounter& p) { return probe_atomic_counter(p); },
          [&](const CmdTextureRgbw& t) -> Status {
            if (t.format != "GL_RGBA8" && t.format != "GL_RGBA")
              return Error::unsupported("texture format {} is not supported (GL_RGBA8)", t.format);
            AGX_TRY(auto img, make_image(fmt::format("texture {}", t.unit), t.width_px, t.height_px));
            auto data = rgbw_rgba8(t.width_px, t.height_px);
            AGX_CHECK(img->upload(data, uint64_t(t.width_px) * 4));
            textures_[t.unit] = std::move(img);
            sampler_params_.erase(t.unit);
            active_unit_ = t.unit;
            return {};
          },
          [&](const CmdTextureInteger& t) -> Status {
            AGX_TRY(auto fmt, integer_texture_format(t.format));
            AGX_TRY(auto img, make_image(fmt::format("texture {}", t.unit), t.width_px, t.height_px, fmt.format));
            auto data = integer_texels(t.width_px, t.height_px, t.b, t.a, fmt.channels);
            AGX_CHECK(img->upload({reinterpret_cast<const uint8_t*>(data.data()), data.size() * 4},
                                  uint64_t(t.width_px) * fmt.channels * 4));
            textures_[t.unit] = std::move(img);
            sampler_params_.erase(t.unit);
            active_unit_ = t.unit;
            return {};
          },
          [&](const CmdTextureMiptree& t) { return texture_miptree(t); },
          [&](const CmdTextureShaped& t) { return texture_shaped(t); },
          [&](const CmdTexParameter& t) -> Status {
            // glTexParameter on the texture of the active unit.
            static const char* kTargets[] = {"1D", "2D", "3D", "1DArray", "2DArray", "Cube", "CubeArray", "Rect"};
            if (std::find(std::begin(kTargets), std::end(kTargets), t.target) == std::end(kTargets))
              return Error::unsupported("texparameter {}: the target is not supported", t.target);
            if (!textures_.count(active_unit_))
              return Error::not_found("texparameter: no texture on unit {}", active_unit_);
            // GL_DEPTH_TEXTURE_MODE: the GLSL lowering's shadow* functions
            // return GL_LUMINANCE's (r, r, r, 1), GL's default.
            if (t.name == "depth_mode") {
              if (t.values.size() == 1 && t.values[0] == "luminance") return {};
              return Error::unsupported("texparameter depth_mode {}: the shadow* functions return GL_LUMINANCE's "
                                        "(r, r, r, 1) only", t.values.empty() ? "" : t.values[0]);
            }
            return runtime::apply_texparameter(sampler_params_[active_unit_], t.name, t.values);
          },
          [&](const CmdImageTexture& i) -> Status {
            if (i.resident) return Error::unsupported("resident images (ARB_bindless_texture) are not supported");
            if (!textures_.count(i.unit)) return Error::not_found("image texture {}: no texture {}", i.unit, i.unit);
            const format::Format have = textures_.at(i.unit)->layout().request.format;
            AGX_TRY(format::Format want, gl_image_format(i.format));
            if (want != have)
              return Error::unsupported("image format {} on texture {} of format {} is not supported (the texture's own format)",
                                        i.format, i.unit, format::name(have));
            image_units_[i.unit] = i.format;
            return {};
          },
          [&](const CmdFbTex2d& f) { return bind_framebuffer(f); },
          [&](const CmdClearColor& c) -> Status {
            clear_color_ = c.rgba;
            return {};
          },
          [&](const CmdClear&) { return clear_draw_framebuffer(); },
          [&](const CmdProbeRgba& p) { return probe_pixel(p); },
          [&](const CmdProbeAll& p) { return probe_all(p); },
          [&](const CmdTolerance& t) -> Status {
            tolerance_ = t.values;
            return {};
          },
          // The runtime waits for every dispatch: barriers have nothing to order.
          [&](const CmdMemoryBarrier&) -> Status { return {}; },
          [&](const CmdLinkError&) -> Status { return Error::invalid_argument("link error expected"); },
          [&](const CmdLinkSuccess&) -> Status { return {}; },
          [&](const CmdVerifyProgramQuery& q) -> Status { return verify_program_query(q); },
          // State only, as in shader_runner: `uniform` reads it for block members.
          [&](const CmdBlockIndex& b) -> Status {
            int* field[] = {&block_data_.array_index, &block_data_.binding, &block_data_.offset,
                            &block_data_.matrix_stride, &block_data_.row_major};
            *field[int(b.field)] = b.value;
            return {};
          },
          // A compute session has no draws, window depth or fixed-function state.
          [&](const CmdGraphics& g) -> Status {
            if (const auto* t = std::get_if<CmdTexturePattern>(&g.command)) return texture_pattern(*t);
            return Error::unsupported("'{}' is a graphics command, which a compute program cannot run",
                                      graphics_kind(g.command));
          },
      },
      command.body);
}

}  // namespace agx::shadertest
