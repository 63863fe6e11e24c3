// The [test] commands compute tests use, one line each (forms from
// X11Libre/mirror.fdo.piglit tests/shaders/shader_runner.c piglit_display).
#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstring>
#include <utility>

#include "shadertest/command_words.h"
#include "shadertest/shader_test.h"

namespace agx::shadertest {

namespace {

using namespace words;

std::string_view rest_after(std::string_view line, const Words& w, size_t index) {
  if (index >= w.size()) return {};
  return line.substr(size_t(w[index].data() - line.data()));
}

Status need(const Words& w, size_t n, const char* form) {
  if (w.size() != n) return Error::parse("expected '{}'", form);
  return {};
}

Result<CommandBody> parse_uniform(std::string_view line, const Words& w) {
  if (w.size() >= 2 && w[1] == "handle") {
    AGX_CHECK(need(w, 4, "uniform handle NAME UNIT"));
    CmdUniformHandle h;
    h.name = std::string(w[2]);
    AGX_TRY(h.unit, parse_int<int>(w[3], "unit"));
    return CommandBody{h};
  }
  if (w.size() < 4) return Error::parse("expected 'uniform TYPE NAME VALUES'");
  CmdUniform u;
  AGX_TRY(u.type, parse_glsl_type(w[1]));
  u.name = std::string(w[2]);
  AGX_TRY(u.data, parse_values(u.type, rest_after(line, w, 3)));
  return CommandBody{std::move(u)};
}

Result<CommandBody> parse_ssbo(std::string_view line, const Words& w) {
  if (w.size() == 3) {
    CmdSsbo s;
    AGX_TRY(s.index, parse_int<int>(w[1], "ssbo index"));
    AGX_TRY(s.size_B, parse_int<uint32_t>(w[2], "ssbo size"));
    if (s.index < 0 || s.index >= 32) return Error::parse("ssbo index {} is not 0..31", s.index);
    return CommandBody{s};
  }
  if (w.size() >= 6 && w[2] == "subdata") {
    CmdSsboSubdata s;
    AGX_TRY(s.index, parse_int<int>(w[1], "ssbo index"));
    if (s.index < 0 || s.index >= 32) return Error::parse("ssbo index {} is not 0..31", s.index);
    AGX_TRY(GlslType type, parse_glsl_type(w[3] == "int64" ? "int64_t" : w[3] == "uint64" ? "uint64_t" : w[3]));
    if (type.components() != 1 || type.opaque || type.scalar == Scalar::boolean)
      return Error::parse("ssbo subdata type '{}' is not float, double, int, uint, int64 or uint64", w[3]);
    AGX_TRY(s.offset_B, parse_int<uint64_t>(w[4], "offset"));
    // piglit writes one value (the first) per subdata line.
    Words values(w.begin() + 5, w.end());
    AGX_TRY(s.data, parse_values(type, values[0]));
    return CommandBody{std::move(s)};
  }
  return Error::parse("expected 'ssbo N SIZE' or 'ssbo N subdata TYPE OFFSET VALUE'");
}

Result<ProbeType> parse_probe_type(std::string_view w) {
  if (w == "uint") return ProbeType::uint32;
  if (w == "int") return ProbeType::int32;
  if (w == "uint64") return ProbeType::uint64;
  if (w == "int64") return ProbeType::int64;
  if (w == "float") return ProbeType::float32;
  if (w == "double") return ProbeType::float64;
  return Error::parse("probe ssbo type '{}' is not uint, int, uint64, int64, float or double", w);
}

Result<CommandBody> parse_probe(std::string_view line, const Words& w) {
  if (w.size() >= 2 && w[1] == "ssbo") {
    AGX_CHECK(need(w, 7, "probe ssbo TYPE N OFFSET OP VALUE"));
    CmdProbeSsbo p;
    AGX_TRY(p.type, parse_probe_type(w[2]));
    AGX_TRY(p.index, parse_int<int>(w[3], "ssbo index"));
    if (p.index < 0 || p.index >= 32) return Error::parse("ssbo index {} is not 0..31", p.index);
    AGX_TRY(p.offset_B, parse_int<uint64_t>(w[4], "offset"));
    AGX_TRY(p.cmp, parse_compare(w[5]));
    static constexpr Scalar kScalar[] = {Scalar::uint32, Scalar::int32,   Scalar::uint64,
                                         Scalar::int64,  Scalar::float32, Scalar::float64};
    AGX_TRY(p.bits, parse_scalar(w[6], kScalar[int(p.type)]));
    return CommandBody{p};
  }
  if (w.size() >= 3 && w[1] == "atomic" && w[2] == "counter") {
    CmdProbeAtomicCounter p;
    size_t i = 3;
    if (w.size() >= 4 && w[3] == "buffer") {
      AGX_CHECK(need(w, 8, "probe atomic counter buffer B OFFSET OP VALUE"));
      p.by_buffer = true;
      AGX_TRY(p.binding, parse_int<uint32_t>(w[4], "binding"));
      i = 5;
    } else {
      AGX_CHECK(need(w, 6, "probe atomic counter N OP VALUE"));
    }
    AGX_TRY(p.index, parse_int<uint32_t>(w[i], "counter"));
    AGX_TRY(p.cmp, parse_compare(w[i + 1]));
    AGX_TRY(uint64_t v, parse_scalar(w[i + 2], Scalar::uint32));
    p.value = uint32_t(v);
    return CommandBody{p};
  }
  if (w.size() >= 2 && (w[1] == "rgb" || w[1] == "rgba")) {
    CmdProbeRgba p;
    p.alpha = w[1] == "rgba";
    if (w.size() < (p.alpha ? 8u : 7u)) return Error::parse("expected 'probe {} X Y R G B{}'", w[1], p.alpha ? " A" : "");
    AGX_TRY(auto c, parse_floats<6>(w, 2, p.alpha ? 6 : 5));
    p.x = int(c[0]);  // piglit reads X and Y as floats and truncates
    p.y = int(c[1]);
    p.rgba = {c[2], c[3], c[4], p.alpha ? c[5] : 1.0f};
    return CommandBody{p};
  }
  if (w.size() >= 3 && w[1] == "all" && (w[2] == "rgb" || w[2] == "rgba")) {
    CmdProbeAll p;
    p.alpha = w[2] == "rgba";
    AGX_TRY(auto c, parse_floats<4>(w, 3, p.alpha ? 4 : 3));
    p.rgba = {c[0], c[1], c[2], p.alpha ? c[3] : 1.0f};
    return CommandBody{p};
  }
  return Error::parse("unknown probe (ssbo, atomic counter, rgb, rgba, all rgb, all rgba)");
}

// The shaped forms of `texture` (CmdTextureShaped); w[1] is the kind.
Result<CommandBody> parse_texture_shaped(const Words& w) {
  CmdTextureShaped t;
  auto sizes = [&](size_t from, std::initializer_list<uint32_t*> out, const char* form) -> Status {
    if (w.size() != from + out.size()) return Error::parse("expected '{}'", form);
    size_t i = from;
    for (uint32_t* o : out) {
      AGX_TRY(*o, parse_int<uint32_t>(w[i++], "size"));
      if (*o == 0) return Error::parse("a size of 0 in '{}'", form);
    }
    return {};
  };
  auto unit = [&](size_t i) -> Status {
    AGX_TRY(t.unit, parse_int<int>(w[i], "unit"));
    if (t.unit < 0 || t.unit >= 32) return Error::parse("texture unit {} is not 0..31", t.unit);
    return {};
  };
  if (w[1] == "storage") {
    // texture storage UNIT TARGET FORMAT (LEVELS W [H [D]])
    t.kind = CmdTextureShaped::Kind::storage;
    if (w.size() < 7 || w.size() > 9) return Error::parse("expected 'texture storage UNIT TARGET FORMAT (LEVELS W [H [D]])'");
    AGX_CHECK(unit(2));
    t.target = std::string(w[3]);
    t.format = std::string(w[4]);
    AGX_TRY(t.levels, parse_int<uint32_t>(w[5], "levels"));
    AGX_TRY(t.width_px, parse_int<uint32_t>(w[6], "width"));
    if (w.size() > 7) {
      AGX_TRY(t.height_px, parse_int<uint32_t>(w[7], "height"));
    }
    if (w.size() > 8) {
      AGX_TRY(t.depth, parse_int<uint32_t>(w[8], "depth"));
    }
    // glTexStorage2D of a 1D array: the height is the layer count.
    if (t.target == "1DArray") t.depth = t.height_px, t.height_px = 1;
    if (t.levels == 0 || t.width_px == 0 || t.height_px == 0 || t.depth == 0)
      return Error::parse("texture storage with a size or level count of 0");
    return CommandBody{t};
  }
  if (w.size() < 4) return Error::parse("expected 'texture {} TARGET UNIT ...'", w[1]);
  if (w[1] == "rgbw" || w[1] == "junk") {
    t.kind = w[1] == "rgbw" ? CmdTextureShaped::Kind::rgbw : CmdTextureShaped::Kind::junk;
    t.target = std::string(w[2]);
    AGX_CHECK(unit(3));
    if (t.kind == CmdTextureShaped::Kind::rgbw && t.target == "1D") {
      t.width_px = 4;  // piglit_rgbw_texture_1d
      return CommandBody{t};
    }
    if (t.kind == CmdTextureShaped::Kind::rgbw && t.target == "3D") {
      t.width_px = t.height_px = t.depth = 2;  // piglit_rgbw_texture_3d
      return CommandBody{t};
    }
    if (t.target == "2DArray") {
      AGX_CHECK(sizes(4, {&t.width_px, &t.height_px, &t.depth}, "texture rgbw|junk 2DArray UNIT (W, H, L)"));
      return CommandBody{t};
    }
    if (t.kind == CmdTextureShaped::Kind::rgbw && t.target == "1DArray") {
      AGX_CHECK(sizes(4, {&t.width_px, &t.depth}, "texture rgbw 1DArray UNIT (W, L)"));
      return CommandBody{t};
    }
    return Error::unsupported("texture {} {} is not a shader_runner texture", w[1], w[2]);
  }
  // texture shadowTARGET UNIT (sizes)
  t.kind = CmdTextureShaped::Kind::shadow;
  t.target = std::string(w[1].substr(6));
  AGX_CHECK(unit(2));
  if (t.target == "2D" || t.target == "Rect") {
    AGX_CHECK(sizes(3, {&t.width_px, &t.height_px}, "texture shadow2D UNIT (W, H)"));
  } else if (t.target == "1D") {
    AGX_CHECK(sizes(3, {&t.width_px}, "texture shadow1D UNIT (W)"));
  } else if (t.target == "1DArray") {
    AGX_CHECK(sizes(3, {&t.width_px, &t.depth}, "texture shadow1DArray UNIT (W, L)"));
  } else if (t.target == "2DArray") {
    AGX_CHECK(sizes(3, {&t.width_px, &t.height_px, &t.depth}, "texture shadow2DArray UNIT (W, H, L)"));
  } else {
    return Error::unsupported("texture {} is not a shader_runner texture", w[1]);
  }
  return CommandBody{t};
}

Result<CommandBody> parse_texture(std::string_view line) {
  std::string flat = unparenthesize(line);
  Words w = split_words(flat);
  // `texture rgbw UNIT ...` has a number where the shaped forms name a target.
  auto is_number = [](std::string_view s) {
    return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return std::isdigit(uint8_t(c)) != 0; });
  };
  if (w.size() >= 3 && ((w[1] == "rgbw" && !is_number(w[2])) || w[1] == "junk" || w[1] == "storage" ||
                        w[1].substr(0, 6) == "shadow"))
    return parse_texture_shaped(w);
  if (w.size() >= 2 && w[1] == "rgbw") {
    if (w.size() != 5 && w.size() != 6) return Error::parse("expected 'texture rgbw UNIT (W, H) [FORMAT]'");
    CmdTextureRgbw t;
    AGX_TRY(t.unit, parse_int<int>(w[2], "unit"));
    AGX_TRY(t.width_px, parse_int<uint32_t>(w[3], "width"));
    AGX_TRY(t.height_px, parse_int<uint32_t>(w[4], "height"));
    if (w.size() == 6) t.format = std::string(w[5]);
    if (t.unit < 0 || t.unit >= 32) return Error::parse("texture unit {} is not 0..31", t.unit);
    return CommandBody{t};
  }
  if (w.size() >= 2 && w[1] == "integer") {
    if (w.size() != 8) return Error::parse("expected 'texture integer UNIT (W, H) (B, A) FORMAT'");
    CmdTextureInteger t;
    AGX_TRY(t.unit, parse_int<int>(w[2], "unit"));
    AGX_TRY(t.width_px, parse_int<uint32_t>(w[3], "width"));
    AGX_TRY(t.height_px, parse_int<uint32_t>(w[4], "height"));
    AGX_TRY(t.b, parse_int<int>(w[5], "b"));
    AGX_TRY(t.a, parse_int<int>(w[6], "a"));
    t.format = std::string(w[7]);
    if (t.unit < 0 || t.unit >= 32) return Error::parse("texture unit {} is not 0..31", t.unit);
    return CommandBody{t};
  }
  if (w.size() >= 2 && w[1] == "miptree") {
    // piglit ignores anything after the unit (always 8x8, 4 levels)
    if (w.size() < 3) return Error::parse("expected 'texture miptree UNIT'");
    CmdTextureMiptree t;
    AGX_TRY(t.unit, parse_int<int>(w[2], "unit"));
    if (t.unit < 0 || t.unit >= 32) return Error::parse("texture unit {} is not 0..31", t.unit);
    return CommandBody{t};
  }
  return Error::unsupported("texture command '{}' is not supported (rgbw, integer, miptree, junk, shadow*, storage)",
                            w.size() >= 2 ? w[1] : std::string_view("?"));
}

Result<CommandBody> parse_image(const Words& w) {
  size_t i = w[0] == "resident" ? 1 : 0;
  if (w.size() != i + 4 || w[i] != "image" || w[i + 1] != "texture")
    return Error::parse("expected '[resident] image texture UNIT FORMAT'");
  CmdImageTexture t;
  t.resident = i == 1;
  AGX_TRY(t.unit, parse_int<int>(w[i + 2], "unit"));
  if (t.unit < 0 || t.unit >= 32) return Error::parse("image unit {} is not 0..31", t.unit);
  t.format = std::string(w[i + 3]);
  return CommandBody{t};
}

Result<CommandBody> parse_atomic(const Words& w) {
  if (w.size() == 3 && w[1] == "counters") {
    CmdAtomicCounters c;
    AGX_TRY(c.count, parse_int<uint32_t>(w[2], "count"));
    return CommandBody{c};
  }
  if (w.size() == 5 && w[1] == "counter" && w[2] == "buffer") {
    CmdAtomicCounterBuffer c;
    AGX_TRY(c.binding, parse_int<uint32_t>(w[3], "binding"));
    AGX_TRY(c.count, parse_int<uint32_t>(w[4], "count"));
    if (c.binding >= 8) return Error::parse("atomic counter buffer {} is not 0..7", c.binding);
    return CommandBody{c};
  }
  if (w.size() == 5 && w[1] == "counter") {
    CmdAtomicCounterSet c;
    AGX_TRY(c.binding, parse_int<uint32_t>(w[2], "buffer"));
    AGX_TRY(c.index, parse_int<uint32_t>(w[3], "counter"));
    AGX_TRY(c.value, parse_int<uint32_t>(w[4], "value"));
    if (c.binding >= 8) return Error::parse("atomic counter buffer {} is not 0..7", c.binding);
    return CommandBody{c};
  }
  return Error::parse(
      "expected 'atomic counters N', 'atomic counter buffer B N' or 'atomic counter B N VALUE'");
}

Result<CommandBody> parse_compute(const Words& w) {
  if (w.size() == 4) {
    CmdCompute c;
    AGX_TRY(c.x, parse_int<uint32_t>(w[1], "x"));
    AGX_TRY(c.y, parse_int<uint32_t>(w[2], "y"));
    AGX_TRY(c.z, parse_int<uint32_t>(w[3], "z"));
    return CommandBody{c};
  }
  if (w.size() == 9 && w[1] == "group" && w[2] == "size") {
    CmdComputeGroupSize c;
    for (int i = 0; i < 3; ++i) {
      AGX_TRY(c.groups[i], parse_int<uint32_t>(w[3 + i], "group count"));
      AGX_TRY(c.local[i], parse_int<uint32_t>(w[6 + i], "group size"));
    }
    return CommandBody{c};
  }
  return Error::parse("expected 'compute X Y Z' or 'compute group size X Y Z LX LY LZ'");
}

}  // namespace

Result<CommandBody> parse_command(std::string_view line, unsigned line_num) {
  Words w = split_words(line);
  auto body = [&]() -> Result<CommandBody> {
    if (w.empty()) return Error::parse("empty command");
    if (auto g = parse_graphics_command(line)) {
      if (!g->ok()) return std::move(*g).error();
      return CommandBody{CmdGraphics{std::move(*g).value()}};
    }
    const std::string_view c = w[0];
    if (c == "uniform") return parse_uniform(line, w);
    if (c == "ssbo") return parse_ssbo(line, w);
    if (c == "probe") return parse_probe(line, w);
    if (c == "compute") return parse_compute(w);
    if (c == "atomic") return parse_atomic(w);
    if (c == "texture") return parse_texture(line);
    if (c == "image" || c == "resident") return parse_image(w);
    if (c == "fb") {
      // shader_runner: an optional "draw " or "read " target, then "tex 2d
      // UNIT..." or "winsys"; its other forms (tex slice, tex layered, ms)
      // are for layered and multisampled render targets.
      CmdFbTex2d f;
      size_t i = 1;
      if (w.size() > i && (w[i] == "draw" || w[i] == "read")) {
        f.target = w[i] == "draw" ? CmdFbTex2d::Target::draw : CmdFbTex2d::Target::read;
        ++i;
      }
      if (w.size() == i + 1 && w[i] == "winsys") {
        f.winsys = true;
        return CommandBody{f};
      }
      if (w.size() < i + 3 || w[i] != "tex" || w[i + 1] != "2d")
        return Error::unsupported("fb command '{}' is not supported (fb [draw|read] tex 2d UNIT..., fb [draw|read] winsys)",
                                  line);
      for (i += 2; i < w.size(); ++i) {
        AGX_TRY(int u, parse_int<int>(w[i], "unit"));
        if (u < -1 || u >= 32) return Error::parse("fb texture unit {} is not -1..31", u);
        f.units.push_back(u);
      }
      return CommandBody{f};
    }
    if (c == "clear") {
      if (w.size() == 1) return CommandBody{CmdClear{}};
      if (w[1] == "color") {
        CmdClearColor cc;
        AGX_TRY(cc.rgba, parse_floats<4>(w, 2, 4));
        return CommandBody{cc};
      }
      return Error::unsupported("'clear {}' is not supported (clear, clear color)", w[1]);
    }
    if (c == "tolerance") {
      CmdTolerance t;
      AGX_TRY(t.values, parse_floats<4>(w, 1, 4));
      return CommandBody{t};
    }
    if (c == "memory" && w.size() == 3 && w[1] == "barrier") return CommandBody{CmdMemoryBarrier{std::string(w[2])}};
    if (c == "link" && w.size() == 2 && w[1] == "error") return CommandBody{CmdLinkError{}};
    if (c == "link" && w.size() == 2 && w[1] == "success") return CommandBody{CmdLinkSuccess{}};
    if (c == "verify" && w.size() == 4 && w[1] == "program_query")
      return CommandBody{CmdVerifyProgramQuery{std::string(w[2]), std::string(w[3])}};
    if (c == "texparameter") {
      if (w.size() < 4) return Error::parse("expected 'texparameter TARGET NAME VALUE...'");
      CmdTexParameter t{std::string(w[1]), std::string(w[2]), {}};
      for (size_t i = 3; i < w.size(); ++i) t.values.emplace_back(w[i]);
      return CommandBody{t};
    }
    if (c == "ubo" || c == "block") {
      // The forms shader_runner's piglit_display knows; one integer follows.
      static constexpr std::pair<std::string_view, BlockField> kForms[] = {
          {"ubo array index", BlockField::array_index}, {"block array index", BlockField::array_index},
          {"block binding", BlockField::binding},       {"block offset", BlockField::offset},
          {"block matrix stride", BlockField::matrix_stride}, {"block row major", BlockField::row_major},
      };
      std::string what;
      for (size_t i = 0; i + 1 < w.size(); ++i) what += std::string(w[i]) + (i + 2 < w.size() ? " " : "");
      for (const auto& [form, field] : kForms) {
        if (what != form) continue;
        CmdBlockIndex b{field, what, 0};
        AGX_TRY(b.value, parse_int<int>(w.back(), what.c_str()));
        return CommandBody{b};
      }
      return Error::parse("unknown command '{}' (ubo array index, block array index, block binding, block offset, "
                          "block matrix stride, block row major)", line);
    }
    return Error::parse("unknown command '{}'", c);
  }();
  if (!body.ok()) return std::move(body).error().context(fmt::format("line {}: '{}'", line_num, line));
  return body;
}

}  // namespace agx::shadertest
