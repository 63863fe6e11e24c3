// The graphics [test] commands (forms from X11Libre/mirror.fdo.piglit
// tests/shaders/shader_runner.c piglit_display; primitive modes from its
// decode_drawing_mode, which takes the GL 4.6 / compatibility primitive
// names).
#include "shadertest/graphics_commands.h"

#include <algorithm>

#include "shadertest/command_words.h"

namespace agx::shadertest {

namespace {

using namespace words;

constexpr std::string_view kModes[] = {
    "GL_POINTS", "GL_LINE_STRIP", "GL_LINE_LOOP", "GL_LINES", "GL_TRIANGLES", "GL_TRIANGLE_STRIP",
    "GL_TRIANGLE_FAN", "GL_QUADS", "GL_QUAD_STRIP", "GL_POLYGON", "GL_LINES_ADJACENCY",
    "GL_LINE_STRIP_ADJACENCY", "GL_TRIANGLES_ADJACENCY", "GL_TRIANGLE_STRIP_ADJACENCY", "GL_PATCHES"};

Result<std::string> parse_mode(std::string_view w) {
  if (std::find(std::begin(kModes), std::end(kModes), w) == std::end(kModes))
    return Error::parse("drawing mode '{}' is not a GL primitive mode", w);
  return std::string(w);
}

// Words after the first `n` must be exactly `count` numbers.
template <size_t N>
Result<std::array<float, N>> exact_floats(const Words& w, size_t first, const char* form) {
  if (w.size() != first + N) return Error::parse("expected '{}'", form);
  return parse_floats<N>(w, first, N);
}

std::vector<std::string> rest(const Words& w, size_t from) {
  std::vector<std::string> out;
  for (size_t i = from; i < w.size(); ++i) out.emplace_back(w[i]);
  return out;
}

Result<GraphicsCommand> parse_draw_rect(const Words& w, bool instanced) {
  // w: "draw" "rect" ... or "draw" "instanced" "rect" ...
  CmdDrawRect d;
  d.instanced = instanced;
  size_t i = instanced ? 3 : 2;
  if (i < w.size() && w[i] == "tex" && !instanced) {
    d.tex = true;
    AGX_TRY(auto c, exact_floats<8>(w, i + 1, "draw rect tex X Y W H TX TY TW TH"));
    std::copy(c.begin(), c.begin() + 4, d.rect.begin());
    std::copy(c.begin() + 4, c.end(), d.tex_rect.begin());
    return GraphicsCommand{d};
  }
  if (i < w.size() && w[i] == "ortho") d.ortho = true, ++i;
  if (i < w.size() && w[i] == "patch") d.patch = true, ++i;
  // shader_runner has no "draw instanced rect patch" (without ortho).
  if (instanced && d.patch && !d.ortho) return Error::parse("expected 'draw instanced rect [ortho [patch]] N X Y W H'");
  if (instanced) {
    if (w.size() != i + 5) return Error::parse("expected 'draw instanced rect [ortho [patch]] N X Y W H'");
    AGX_TRY(d.instances, parse_int<uint32_t>(w[i], "instance count"));
    ++i;
  }
  AGX_TRY(d.rect, exact_floats<4>(w, i, "draw rect [ortho] [patch] X Y W H"));
  return GraphicsCommand{d};
}

Result<GraphicsCommand> parse_draw_arrays(const Words& w) {
  // draw arrays [instanced [base]] MODE FIRST COUNT [N [BASE]]; draw elements MODE COUNT BASEVERTEX
  CmdDrawArrays d;
  if (w[1] == "elements") {
    if (w.size() != 5) return Error::parse("expected 'draw elements MODE COUNT BASE_VERTEX'");
    d.kind = CmdDrawArrays::Kind::elements;
    AGX_TRY(d.mode, parse_mode(w[2]));
    AGX_TRY(d.count[0], parse_int<int32_t>(w[3], "count"));
    AGX_TRY(d.base_vertex, parse_int<int32_t>(w[4], "base vertex"));
    return GraphicsCommand{d};
  }
  size_t i = 2;
  if (i < w.size() && w[i] == "instanced") {
    d.kind = CmdDrawArrays::Kind::instanced;
    ++i;
    if (i < w.size() && w[i] == "base") d.kind = CmdDrawArrays::Kind::instanced_base, ++i;
  }
  size_t want = d.kind == CmdDrawArrays::Kind::arrays ? 3 : d.kind == CmdDrawArrays::Kind::instanced ? 4 : 5;
  if (w.size() != i + want)
    return Error::parse("expected 'draw arrays MODE FIRST COUNT', 'draw arrays instanced MODE FIRST COUNT N' or "
                        "'draw arrays instanced base MODE FIRST COUNT N BASE'");
  AGX_TRY(d.mode, parse_mode(w[i]));
  AGX_TRY(d.first[0], parse_int<int32_t>(w[i + 1], "first"));
  AGX_TRY(d.count[0], parse_int<int32_t>(w[i + 2], "count"));
  if (d.first[0] < 0 || d.count[0] < 0) return Error::parse("draw arrays with a negative first or count");
  if (want >= 4) {
    AGX_TRY(d.instances, parse_int<uint32_t>(w[i + 3], "instance count"));
  }
  if (want == 5) {
    AGX_TRY(d.base_instance, parse_int<uint32_t>(w[i + 4], "base instance"));
  }
  return GraphicsCommand{d};
}

Result<GraphicsCommand> parse_multidraw(const Words& w) {
  // multidraw arrays MODE N FIRST0..FIRSTN-1 COUNT0..COUNTN-1
  if (w.size() < 4 || w[1] != "arrays") return Error::parse("expected 'multidraw arrays MODE N FIRST... COUNT...'");
  CmdDrawArrays d;
  d.kind = CmdDrawArrays::Kind::multi;
  AGX_TRY(d.mode, parse_mode(w[2]));
  AGX_TRY(uint32_t n, parse_int<uint32_t>(w[3], "drawcount"));
  if (n == 0) return Error::parse("multidraw arrays 'drawcount' must be > 0");
  if (w.size() != 4 + 2 * size_t(n)) return Error::parse("Bad argument count in the multidraw command");
  d.first.assign(n, 0);
  d.count.assign(n, 0);
  for (uint32_t k = 0; k < n; ++k) {
    AGX_TRY(d.first[k], parse_int<int32_t>(w[4 + k], "first"));
    AGX_TRY(d.count[k], parse_int<int32_t>(w[4 + n + k], "count"));
  }
  return GraphicsCommand{d};
}

// probe rect ..., probe depth, probe warn all rgba, probe xfb ...; nullopt
// for the probes the compute parser knows (rgb, rgba, all, ssbo, atomic).
std::optional<Result<GraphicsCommand>> parse_probe(Words w, bool relative) {
  size_t i = relative ? 2 : 1;
  if (relative && (w.size() < 2 || w[1] != "probe")) return Result<GraphicsCommand>(Error::parse("expected 'relative probe ...'"));
  if (!relative && w.size() >= 2 && w[1] == "depth") {
    CmdProbeDepth p;
    auto c = exact_floats<3>(w, 2, "probe depth X Y DEPTH");
    if (!c.ok()) return Result<GraphicsCommand>(std::move(c).error());
    p.x = int((*c)[0]), p.y = int((*c)[1]), p.depth = (*c)[2];
    return Result<GraphicsCommand>(GraphicsCommand{p});
  }
  if (!relative && w.size() >= 4 && w[1] == "warn" && w[2] == "all" && w[3] == "rgba") {
    auto c = exact_floats<4>(w, 4, "probe warn all rgba R G B A");
    if (!c.ok()) return Result<GraphicsCommand>(std::move(c).error());
    return Result<GraphicsCommand>(GraphicsCommand{CmdProbeWarnAll{*c}});
  }
  if (!relative && w.size() >= 2 && w[1] == "xfb") {
    if (w.size() != 7 || w[2] != "buffer" || (w[3] != "float" && w[3] != "double"))
      return Result<GraphicsCommand>(Error::parse("expected 'probe xfb buffer float|double N INDEX VALUE'"));
    return Result<GraphicsCommand>(GraphicsCommand{CmdXfb{CmdXfb::Kind::probe, rest(w, 3)}});
  }
  CmdProbeRegion p;
  p.relative = relative;
  if (i < w.size() && w[i] == "rect") p.rect = true, ++i;
  if (!relative && !p.rect) return std::nullopt;
  if (i >= w.size() || (w[i] != "rgb" && w[i] != "rgba"))
    return Result<GraphicsCommand>(Error::parse("expected '{}probe {}rgb|rgba ...'", relative ? "relative " : "",
                                                p.rect ? "rect " : ""));
  p.alpha = w[i] == "rgba";
  ++i;
  if (relative && p.rect && p.alpha && i < w.size() && w[i] == "int") p.integer = true, ++i;
  size_t where = p.rect ? 4 : 2, color = p.alpha ? 4 : 3;
  // A relative probe is shader_runner's sscanf: values after the ones it
  // converts are ignored (`relative probe rgb (0, 0) (1, 0, 0, 1)`).
  if (relative && w.size() > i + where + color) w.resize(i + where + color);
  if (w.size() != i + where + color)
    return Result<GraphicsCommand>(Error::parse("expected {} coordinates and {} channels", where, color));
  for (size_t k = 0; k < where; ++k) {
    if (!relative) {
      auto v = parse_int<int32_t>(w[i + k], "coordinate");
      if (!v.ok()) return Result<GraphicsCommand>(std::move(v).error());
      p.where[k] = float(*v);
    } else {
      auto v = parse_float(w[i + k]);
      if (!v.ok()) return Result<GraphicsCommand>(std::move(v).error());
      p.where[k] = *v;
    }
  }
  for (size_t k = 0; k < color; ++k) {
    if (p.integer) {
      auto v = parse_int<int32_t>(w[i + where + k], "channel");
      if (!v.ok()) return Result<GraphicsCommand>(std::move(v).error());
      p.rgba_int[k] = *v;
    } else {
      auto v = parse_float(w[i + where + k]);
      if (!v.ok()) return Result<GraphicsCommand>(std::move(v).error());
      p.rgba[k] = *v;
    }
  }
  return Result<GraphicsCommand>(GraphicsCommand{p});
}

Result<GraphicsCommand> state(CmdGlState::Kind kind, const Words& w, size_t from, size_t n, const char* form) {
  if (w.size() != from + n) return Error::parse("expected '{}'", form);
  return GraphicsCommand{CmdGlState{kind, rest(w, from)}};
}

Result<GraphicsCommand> parse_texture_pattern(const Words& w) {
  CmdTexturePattern t;
  t.quads = w[1] == "quads";
  size_t colors = t.quads ? 4 : 2, first = t.quads ? 8 : 6;
  if (w.size() != first + 4 * colors)
    return Error::parse("{}", t.quads ? "expected 'texture quads UNIT LEVEL (W, H) (X, Y) (C0) (C1) (C2) (C3)'"
                                      : "expected 'texture checkerboard UNIT LEVEL (W, H) (C0) (C1)'");
  AGX_TRY(t.unit, parse_int<int>(w[2], "unit"));
  if (t.unit < 0 || t.unit >= 32) return Error::parse("texture unit {} is not 0..31", t.unit);
  AGX_TRY(t.level, parse_int<int>(w[3], "level"));
  AGX_TRY(t.width_px, parse_int<uint32_t>(w[4], "width"));
  AGX_TRY(t.height_px, parse_int<uint32_t>(w[5], "height"));
  if (t.width_px == 0 || t.height_px == 0) return Error::parse("a texture of size 0");
  if (t.quads) {
    AGX_TRY(t.split_x, parse_int<int32_t>(w[6], "x"));
    AGX_TRY(t.split_y, parse_int<int32_t>(w[7], "y"));
  }
  for (size_t c = 0; c < colors; ++c) {
    AGX_TRY(auto rgba, parse_floats<4>(w, first + 4 * c, 4));
    t.colors.push_back(rgba);
  }
  return GraphicsCommand{t};
}

Result<GraphicsCommand> parse_fixed_function(const Words& w) {
  CmdFixedFunction f;
  auto numbers = [&](size_t from, size_t n, const char* form) -> Status {
    if (w.size() != from + n) return Error::parse("expected '{}'", form);
    for (size_t k = from; k < w.size(); ++k) {
      AGX_TRY(float v, parse_float(w[k]));
      f.values.push_back(v);
    }
    return {};
  };
  if (w[0] == "ortho") {
    f.kind = CmdFixedFunction::Kind::ortho;
    if (w.size() != 1) AGX_CHECK(numbers(1, 4, "ortho [L R B T]"));
  } else if (w[0] == "frustum") {
    f.kind = CmdFixedFunction::Kind::frustum;
    AGX_CHECK(numbers(1, 6, "frustum L R B T N F"));
  } else if (w[0] == "clip") {
    f.kind = CmdFixedFunction::Kind::clip_plane;
    if (w.size() != 7 || w[1] != "plane") return Error::parse("expected 'clip plane N A B C D'");
    AGX_TRY(f.index, parse_int<int>(w[2], "clip plane"));
    if (f.index < 0 || f.index >= 8) return Error::parse("clip plane id {} out of range", f.index);
    AGX_CHECK(numbers(3, 4, "clip plane N A B C D"));
  } else if (w[0] == "color") {
    f.kind = CmdFixedFunction::Kind::color;
    AGX_CHECK(numbers(1, 4, "color R G B A"));
  } else if (w[0] == "texcoord" || w[0] == "parameter") {
    // texcoord N (S, T, R, Q); parameter env_vp|local_vp|env_fp|local_fp N (X, Y, Z, W)
    bool tc = w[0] == "texcoord";
    f.kind = tc ? CmdFixedFunction::Kind::texcoord : CmdFixedFunction::Kind::parameter;
    size_t at = tc ? 1 : 2;
    if (!tc) {
      if (w.size() < 2 || (w[1] != "env_vp" && w[1] != "local_vp" && w[1] != "env_fp" && w[1] != "local_fp"))
        return Error::parse("expected 'parameter env_vp|local_vp|env_fp|local_fp N (X, Y, Z, W)'");
      f.name = std::string(w[1]);
    }
    if (w.size() != at + 5) return Error::parse("expected '{} N (X, Y, Z, W)'", tc ? "texcoord" : "parameter TARGET");
    AGX_TRY(f.index, parse_int<int>(w[at], "index"));
    AGX_CHECK(numbers(at + 1, 4, "(X, Y, Z, W)"));
  } else {  // light N NAME float V...
    f.kind = CmdFixedFunction::Kind::light;
    if (w.size() < 5 || w[3] != "float") return Error::parse("expected 'light N GL_NAME float VALUES'");
    AGX_TRY(f.index, parse_int<int>(w[1], "light"));
    f.name = std::string(w[2]);
    AGX_CHECK(numbers(4, w.size() - 4, "light N GL_NAME float VALUES"));
  }
  return GraphicsCommand{f};
}

Result<GraphicsCommand> parse_state(const Words& w) {
  using K = CmdGlState::Kind;
  const std::string_view c = w[0];
  if (c == "enable" || c == "disable") {
    if (w.size() != 2 || !starts_with(w[1], "GL_")) return Error::parse("expected '{} GL_CAPABILITY'", c);
    return GraphicsCommand{CmdGlState{c == "enable" ? K::enable : K::disable, rest(w, 1)}};
  }
  if (c == "depthfunc") return state(K::depth_func, w, 1, 1, "depthfunc GL_FUNC");
  if (c == "polygon") {
    if (w.size() < 2 || w[1] != "mode") return Error::parse("expected 'polygon mode FACE MODE'");
    return state(K::polygon_mode, w, 2, 2, "polygon mode FACE MODE");
  }
  if (c == "provoking") {
    if (w.size() != 3 || w[1] != "vertex" || (w[2] != "first" && w[2] != "last"))
      return Error::parse("expected 'provoking vertex first|last'");
    return GraphicsCommand{CmdGlState{K::provoking_vertex, rest(w, 2)}};
  }
  if (c == "hint") return state(K::hint, w, 1, 2, "hint TARGET MODE");
  if (c == "shade") {
    if (w.size() != 3 || w[1] != "model" || (w[2] != "smooth" && w[2] != "flat"))
      return Error::parse("expected 'shade model smooth|flat'");
    return GraphicsCommand{CmdGlState{K::shade_model, rest(w, 2)}};
  }
  if (c == "active") return state(K::active_shader_program, w, 3, 1, "active shader program STAGE");
  if (c == "newlist") return state(K::display_list, w, 0, 2, "newlist MODE");
  if (c == "endlist" || c == "calllist" || c == "deletelist") return state(K::display_list, w, 0, 1, "endlist");
  if (c == "program") {
    if (w.size() != 4 || w[1] != "binary" || w[2] != "save" || w[3] != "restore")
      return Error::parse("expected 'program binary save restore'");
    return GraphicsCommand{CmdGlState{K::program_binary, {}}};
  }
  if (c == "blend" || c == "fbfetch") {
    if (w.size() != 2 || w[1] != "barrier") return Error::parse("expected '{} barrier'", c);
    return GraphicsCommand{CmdGlState{K::barrier, rest(w, 0)}};
  }
  if (c == "viewport") {
    if (w.size() == 7 && w[1] == "swizzle") return GraphicsCommand{CmdGlState{K::viewport_swizzle, rest(w, 2)}};
    if (w.size() == 7 && w[1] == "indexed") {
      for (size_t k = 3; k < 7; ++k) AGX_CHECK(parse_float(w[k]));
      return GraphicsCommand{CmdGlState{K::viewport_indexed, rest(w, 2)}};
    }
    return Error::parse("expected 'viewport swizzle N X Y Z W' or 'viewport indexed N X Y W H'");
  }
  if (c == "patch") {
    if (w.size() < 4 || w[1] != "parameter") return Error::parse("expected 'patch parameter ...'");
    return GraphicsCommand{CmdGlState{K::patch_parameter, rest(w, 2)}};
  }
  // blit color|depth|stencil linear|nearest
  if (w.size() != 3 || (w[1] != "color" && w[1] != "depth" && w[1] != "stencil") ||
      (w[2] != "linear" && w[2] != "nearest"))
    return Error::parse("FB blit command not understood: expected 'blit color|depth|stencil linear|nearest'");
  return GraphicsCommand{CmdGlState{K::blit, rest(w, 1)}};
}

Result<GraphicsCommand> parse_query(const Words& w) {
  using K = CmdProgramQuery::Kind;
  if (w[0] == "active") {
    if (w.size() != 5) return Error::parse("expected 'active uniform NAME PNAME VALUE'");
    return GraphicsCommand{CmdProgramQuery{K::active_uniform, rest(w, 2)}};
  }
  if (w[0] == "subuniform") {
    if (w.size() != 4) return Error::parse("expected 'subuniform STAGE NAME FUNCTION'");
    return GraphicsCommand{CmdProgramQuery{K::subuniform, rest(w, 1)}};
  }
  if (w[0] == "vertex") {
    if (w.size() < 3 || w[1] != "attrib") return Error::parse("expected 'vertex attrib ...'");
    return GraphicsCommand{CmdProgramQuery{K::vertex_attrib, rest(w, 2)}};
  }
  if (w[1] == "query_object") {
    if (w.size() != 4) return Error::parse("expected 'verify query_object PNAME VALUE'");
    return GraphicsCommand{CmdProgramQuery{K::query_object, rest(w, 2)}};
  }
  if (w.size() != 6) return Error::parse("expected 'verify program_interface_query INTERFACE NAME PNAME VALUE'");
  return GraphicsCommand{CmdProgramQuery{K::interface_query, rest(w, 2)}};
}

Result<GraphicsCommand> parse_xfb(const Words& w) {
  if (w.size() == 5 && w[1] == "buffer" && w[2] == "object") {
    AGX_TRY(uint32_t n, parse_int<uint32_t>(w[3], "xfb buffer"));
    if (n >= 4) return Error::parse("xfb buffer id {} out of range", n);
    AGX_CHECK(parse_int<uint32_t>(w[4], "size"));
    return GraphicsCommand{CmdXfb{CmdXfb::Kind::buffer_object, rest(w, 3)}};
  }
  if (w.size() == 6 && w[1] == "draw" && w[2] == "arrays") {
    AGX_CHECK(parse_mode(w[3]));
    return GraphicsCommand{CmdXfb{CmdXfb::Kind::draw_arrays, rest(w, 3)}};
  }
  return Error::parse("expected 'xfb buffer object N SIZE' or 'xfb draw arrays MODE FIRST COUNT'");
}

}  // namespace

std::optional<Result<GraphicsCommand>> parse_graphics_command(std::string_view line) {
  std::string flat = unparenthesize(line);
  Words w = split_words(flat);
  if (w.empty()) return std::nullopt;
  const std::string_view c = w[0];
  auto some = [](Result<GraphicsCommand> r) { return std::optional<Result<GraphicsCommand>>(std::move(r)); };
  if (c == "draw" && w.size() >= 2) {
    if (w[1] == "rect") return some(parse_draw_rect(w, false));
    if (w[1] == "instanced" && w.size() >= 3 && w[2] == "rect") return some(parse_draw_rect(w, true));
    if (w[1] == "arrays" || w[1] == "elements") return some(parse_draw_arrays(w));
    return some(Error::parse("unknown draw command (draw rect, draw instanced rect, draw arrays, draw elements)"));
  }
  if (c == "multidraw") return some(parse_multidraw(w));
  if (c == "clear" && w.size() >= 2 && w[1] == "depth") {
    auto d = exact_floats<1>(w, 2, "clear depth D");
    if (!d.ok()) return some(std::move(d).error());
    return some(GraphicsCommand{CmdClearDepth{(*d)[0]}});
  }
  if (c == "probe") return parse_probe(w, false);
  if (c == "relative") {
    // shader_runner's sscanf forms ignore what follows them (a stray ';').
    if (w.back() == ";") w.pop_back();
    return parse_probe(w, true);
  }
  if (c == "texture" && w.size() >= 2 && (w[1] == "checkerboard" || w[1] == "quads"))
    return some(parse_texture_pattern(w));
  if (c == "ortho" || c == "frustum" || c == "clip" || c == "color" || c == "texcoord" || c == "light" ||
      c == "parameter")
    return some(parse_fixed_function(w));
  if ((c == "active" && w.size() >= 2 && w[1] == "uniform") || c == "subuniform" || c == "vertex" ||
      (c == "verify" && w.size() >= 2 && (w[1] == "program_interface_query" || w[1] == "query_object")))
    return some(parse_query(w));
  if (c == "xfb") return some(parse_xfb(w));
  if (c == "fb") {
    // The layered and multisampled attachments; nullopt for tex 2d / winsys.
    size_t i = w.size() > 1 && (w[1] == "draw" || w[1] == "read") ? 2 : 1;
    if (w.size() > i + 1 && w[i] == "tex" && (w[i + 1] == "slice" || w[i + 1] == "layered")) {
      bool slice = w[i + 1] == "slice";
      if (w.size() != i + (slice ? 6 : 3))
        return some(Error::parse("{}", slice ? "expected 'fb [draw|read] tex slice TARGET UNIT LEVEL LAYER'"
                                       : "expected 'fb [draw|read] tex layered UNIT'"));
      for (size_t k = i + (slice ? 3 : 2); k < w.size(); ++k) {
        auto n = parse_int<int32_t>(w[k], "fb operand");
        if (!n.ok()) return some(std::move(n).error());
      }
      auto args = rest(w, i + 2);
      if (i == 2) args.insert(args.begin(), std::string(w[1]));
      return some(GraphicsCommand{CmdGlState{slice ? CmdGlState::Kind::fb_tex_slice : CmdGlState::Kind::fb_tex_layered, args}});
    }
    if (w.size() > i && w[i] == "ms") {
      if (w.size() != i + 5) return some(Error::parse("expected 'fb [draw|read] ms FORMAT W H SAMPLES'"));
      auto args = rest(w, i + 1);
      if (i == 2) args.insert(args.begin(), std::string(w[1]));
      return some(GraphicsCommand{CmdGlState{CmdGlState::Kind::fb_ms, args}});
    }
    return std::nullopt;
  }
  if (c == "enable" || c == "disable" || c == "depthfunc" || c == "polygon" || c == "provoking" || c == "hint" ||
      c == "shade" || (c == "active" && w.size() >= 3 && w[1] == "shader" && w[2] == "program") ||
      c == "newlist" || c == "endlist" || c == "calllist" || c == "deletelist" || c == "program" ||
      c == "blend" || c == "fbfetch" || c == "viewport" || c == "patch" || c == "blit")
    return some(parse_state(w));
  return std::nullopt;
}

}  // namespace agx::shadertest
