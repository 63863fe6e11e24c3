// The compatibility-profile lowering (glsl_lowering.h): identifiers renamed
// outside comments, a preamble declaring what the renamed built-ins became,
// and explicit locations on every vertex input and varying.
#include "shadertest/glsl_lowering.h"
#include "shadertest/glsl_lowering_internal.h"

#include <algorithm>
#include <array>
#include <cstdio>
#include <span>
#include <cctype>
#include <optional>
#include <set>

namespace agx::shadertest {

namespace lowering {

std::string piglit_name(std::string_view gl_name) {
  return "piglit_" + std::string(gl_name.substr(gl_name.starts_with("gl_") ? 3 : 0));
}

// A name the lowering gave a built-in varying (the user's own piglit_*
// names, such as piglit_vertex, are not).
bool is_builtin_varying(std::string_view name) {
  if (name == "piglit_FrontColor" || name == "piglit_FrontSecondaryColor") return true;
  for (const auto& b : kVertexBuiltins)
    if (b.kind == Builtin::Kind::varying && name == piglit_name(b.name)) return true;
  return false;
}

std::optional<std::string> Lowerer::replacement(std::string_view id) {
  if (colour_builtin(id)) ++colour_uses_[std::string(id)];
  if (id == "gl_ClipDistance") clip_distance_used_ = true;
  if (id == "main" && (stage_ == Stage::vertex || two_sided("gl_Color") || two_sided("gl_SecondaryColor")))
    return "piglit_main";  // kClipZMain (two_side_main) calls it
  if (id == "attribute" && stage_ == Stage::vertex) return "in";
  if (id == "varying") return stage_ == Stage::vertex ? "out" : "in";
  for (const auto& [from, to] : kSampling)
    if (id == from) return std::string(to);
  for (auto s : kShadow)
    if (id == s) return used_.insert(std::string(s)), piglit_name(s);
  if (id.starts_with("gl_")) {
    for (auto m : kMatrices)
      for (auto f : kMatrixForms)
        if (id.substr(3) == std::string(m) + std::string(f)) return used_.insert(std::string(id)), piglit_name(id);
    if (id == "gl_NormalMatrix") return used_.insert(std::string(id)), piglit_name(id);
  }
  auto table = stage_ == Stage::vertex ? std::span<const Builtin>(kVertexBuiltins)
                                       : std::span<const Builtin>(kFragmentBuiltins);
  for (const auto& b : table) {
    if (id != b.name) continue;
    used_.insert(std::string(id));
    if (id == "ftransform") used_.insert("gl_Vertex"), used_.insert("gl_ModelViewProjectionMatrix");
    if (stage_ == Stage::fragment && (id == "gl_Color" || id == "gl_SecondaryColor")) {
      if (two_sided(id)) return id == "gl_Color" ? "piglit_Color" : "piglit_SecondaryColor";
      return id == "gl_Color" ? "piglit_FrontColor" : "piglit_FrontSecondaryColor";
    }
    return piglit_name(id);
  }
  return std::nullopt;
}

std::string Lowerer::rename(std::string_view text) {
  std::string out;
  size_t i = 0;
  while (i < text.size()) {
    if (text.compare(i, 2, "//") == 0) {
      size_t e = text.find('\n', i);
      e = e == std::string_view::npos ? text.size() : e;
      out.append(text.substr(i, e - i));
      i = e;
    } else if (text.compare(i, 2, "/*") == 0) {
      size_t e = text.find("*/", i + 2);
      e = e == std::string_view::npos ? text.size() : e + 2;
      out.append(text.substr(i, e - i));
      i = e;
    } else if (ident_start(text[i]) && (i == 0 || !ident_char(text[i - 1]))) {
      size_t e = i;
      while (e < text.size() && ident_char(text[e])) ++e;
      std::string_view id = text.substr(i, e - i);
      auto r = replacement(id);
      out.append(r ? *r : std::string(id));
      i = e;
    } else {
      out.push_back(text[i++]);
    }
  }
  return out;
}

Result<std::string> Lowerer::located(std::string_view whole) {
  size_t lead_end = declaration_start(whole);
  std::string lead(whole.substr(0, lead_end));
  std::string_view stmt = whole.substr(lead_end);
  AGX_TRY(std::string decl, located_declaration(stmt));
  return lead + decl;
}

Result<std::string> Lowerer::located_declaration(std::string_view stmt) {
  static constexpr std::string_view kQualifiers[] = {"in", "out", "flat", "smooth", "noperspective", "centroid",
                                                     "sample", "invariant", "precise", "highp", "mediump", "lowp"};
  auto t = tokens(stmt);
  bool in = false, out = false;
  size_t k = 0;
  std::optional<uint32_t> explicit_location;
  bool has_location = false;
  for (; k < t.size(); ++k) {
    if (t[k] == "layout") {
      // layout(...): an explicit location is kept as written.
      size_t close = k;
      while (close < t.size() && t[close] != ")") {
        if (t[close] == "location") {
          has_location = true;
          if (close + 2 < t.size() && t[close + 1] == "=" && std::isdigit(uint8_t(t[close + 2][0])))
            explicit_location = uint32_t(std::stoul(std::string(t[close + 2])));
        }
        ++close;
      }
      k = close;
      continue;
    }
    if (std::find(std::begin(kQualifiers), std::end(kQualifiers), t[k]) == std::end(kQualifiers)) break;
    in = in || t[k] == "in";
    out = out || t[k] == "out";
  }
  bool attribute = stage_ == Stage::vertex && in, varying = (stage_ == Stage::vertex && out) ||
                                                            (stage_ == Stage::fragment && in);
  // A fragment output without a location: GL gives a program's only output
  // location 0; several take locations in declaration order (glslang
  // assigns none for OpenGL SPIR-V, and the compiler needs them).
  bool output = stage_ == Stage::fragment && out;
  if (has_location) {
    if (varying && explicit_location) note_explicit_varying(t, k, *explicit_location);
    return std::string(stmt);
  }
  if (recording_ || (!attribute && !varying && !output)) return std::string(stmt);
  bool function = std::find(t.begin(), t.end(), "(") != t.end() && std::find(t.begin(), t.end(), "layout") == t.end();
  if (k >= t.size() || function)
    return std::string(stmt);  // a function prototype or nothing to place
  std::string_view type = t[k];
  if (type.starts_with("gl_") || k + 1 >= t.size() || t[k + 1].starts_with("gl_")) return std::string(stmt);
  // A redeclared built-in varying (`varying vec4 gl_TexCoord[2];`, renamed
  // above): the preamble declares it; its line breaks stay.
  for (size_t n = k + 1; n < t.size(); ++n) {
    const bool two_sided_colour = stage_ == Stage::fragment && (t[n] == "piglit_Color" || t[n] == "piglit_SecondaryColor");
    if (!is_builtin_varying(t[n]) && !two_sided_colour) continue;
    note_colour_redeclaration(t, k, t[n]);
    std::string blank;
    for (char c : stmt)
      if (c == '\n') blank.push_back(c);
    return blank;
  }
  auto slots = this->slots(type);
  if (!slots)
    return Error::unsupported("a {} of type '{}' (structures are not placed)",
                              varying ? "varying" : output ? "fragment output" : "vertex input", type);
  std::string prefix(stmt.substr(0, size_t(type.data() - stmt.data())));
  // GLSL 1.20 allowed `invariant varying` in a fragment shader; GLSL 4.50
  // takes invariant on outputs only (section 4.8.1), and it changes nothing
  // on an input.
  if (stage_ == Stage::fragment)
    for (size_t p = prefix.find("invariant"); p != std::string::npos; p = prefix.find("invariant", p))
      prefix.replace(p, 9, "         ");
  std::string result;
  size_t i = k + 1;
  std::string type_suffix;
  auto array = [&](size_t& at, std::string& text) -> Result<uint32_t> {
    uint32_t n = 1;
    for (; at < t.size() && t[at] == "["; at += 3) {  // arrays of arrays: each size in turn
      if (at + 2 >= t.size() || t[at + 2] != "]" || !std::isdigit(uint8_t(t[at + 1][0])))
        return Error::unsupported("an array of a size that is not a number in '{}'", stmt);
      text += "[" + std::string(t[at + 1]) + "]";
      n *= uint32_t(std::stoul(std::string(t[at + 1])));
    }
    return n;
  };
  AGX_TRY(uint32_t type_count, array(i, type_suffix));
  while (i < t.size() && t[i] != ";") {
    std::string name(t[i++]), suffix;
    AGX_TRY(uint32_t count, array(i, suffix));
    uint32_t n = *slots * type_count * count;
    uint32_t loc = 0;
    if (varying) {
      loc = varying_location(name, n);
    } else if (output) {
      loc = next_output_;
      next_output_ += n;
    } else {
      auto clash = [&](uint32_t at) {
        for (uint32_t s = at; s < at + n; ++s)
          if (taken_attributes_.count(s)) return true;
        return false;
      };
      while (clash(next_attribute_)) ++next_attribute_;
      loc = next_attribute_;
      next_attribute_ += n;
    }
    result += fmt::format("layout(location = {}) {}{}{} {}{};", loc, prefix, type, type_suffix, name, suffix);
    if (i < t.size() && t[i] == ",") ++i;
  }
  return result;
}

Result<std::string> Lowerer::locate(std::string_view text) {
  std::string out;
  size_t stmt = 0, i = 0;
  int depth = 0;
  bool line_start = true;
  while (i < text.size()) {
    char c = text[i];
    if (text.compare(i, 2, "//") == 0 || (line_start && c == '#')) {
      size_t e = text.find('\n', i);
      i = e == std::string_view::npos ? text.size() : e;
      if (depth == 0 && c == '#') {
        out.append(text.substr(stmt, i - stmt));
        stmt = i;
      }
      continue;
    }
    if (text.compare(i, 2, "/*") == 0) {
      size_t e = text.find("*/", i + 2);
      i = e == std::string_view::npos ? text.size() : e + 2;
      continue;
    }
    if (c == '\n') line_start = true;
    else if (!std::isspace(uint8_t(c))) line_start = false;
    if (c == '{') ++depth;
    if (c == '}' && --depth == 0) {
      note_structure(text.substr(stmt, i + 1 - stmt));
      out.append(text.substr(stmt, i + 1 - stmt));
      stmt = i + 1;
    }
    if (c == ';' && depth == 0) {
      AGX_TRY(std::string s, located(text.substr(stmt, i + 1 - stmt)));
      out += s;
      stmt = i + 1;
    }
    ++i;
  }
  out.append(text.substr(stmt));
  return out;
}

std::string Lowerer::preamble() {
  std::string p;
  const char* prec = es_ ? "highp " : "";
  auto has = [&](std::string_view n) { return used_.count(std::string(n)) != 0; };
  for (const auto& u : used_) {
    for (auto m : kMatrices) {
      for (auto f : kMatrixForms) {
        if (u != "gl_" + std::string(m) + std::string(f)) continue;
        p += fmt::format("uniform {}mat4 {}{};\n", prec, piglit_name(u), m == "TextureMatrix" ? "[8]" : "");
        out.uniforms.push_back(piglit_name(u));
      }
    }
  }
  if (has("gl_NormalMatrix")) {
    p += fmt::format("uniform {}mat3 piglit_NormalMatrix;\n", prec);
    out.uniforms.push_back(piglit_name("gl_NormalMatrix"));  // (a literal here trips g++ 12's -Warray-bounds)
  }
  auto table = stage_ == Stage::vertex ? std::span<const Builtin>(kVertexBuiltins)
                                       : std::span<const Builtin>(kFragmentBuiltins);
  for (const auto& b : table) {
    if (!has(b.name)) continue;
    std::string type(b.type), array;
    if (auto br = type.find('['); br != std::string::npos) array = type.substr(br), type = type.substr(0, br);
    std::string name = stage_ == Stage::fragment && (b.name == "gl_Color" || b.name == "gl_SecondaryColor")
                           ? (b.name == "gl_Color" ? "piglit_FrontColor" : "piglit_FrontSecondaryColor")
                           : piglit_name(b.name);
    switch (b.kind) {
      case Builtin::Kind::attribute:
        p += fmt::format("layout(location = {}) in {}{} {};\n", b.location, prec, type, name);
        out.attributes.emplace_back(b.name);
        break;
      case Builtin::Kind::varying: {
        const std::string qualifier = colour_qualifier(b.name);
        if (stage_ == Stage::fragment && two_sided(b.name)) {
          p += two_sided_inputs(b.name, qualifier, prec);
          break;
        }
        p += fmt::format("layout(location = {}) {}{} {}{} {}{};\n", varying_location(name, b.slots), qualifier,
                         stage_ == Stage::vertex ? "out" : "in", prec, type, name, array);
        break;
      }
      case Builtin::Kind::fragment_out:
        p += fmt::format("layout(location = 0) out {}{} {}{};\n", prec, type, name, array);
        break;
      case Builtin::Kind::global:
        p += fmt::format("{}{} {};\n", prec, type, name);  // gl_ClipVertex: clip_main reads it
        break;
      case Builtin::Kind::uniform:  // the matrices, declared above
        break;
      case Builtin::Kind::function:
        p += fmt::format("{}vec4 piglit_ftransform() {{ return piglit_ModelViewProjectionMatrix * piglit_Vertex; }}\n",
                         prec);
        break;
    }
  }
  for (const auto& f : kShadowForms) {
    if (!has(f[0])) continue;
    // The extra parameters: a LOD, the gradients, or (fragment shaders,
    // an overload) the bias.
    std::string params = f[3] == "textureLod" ? ", float l" : f[3] == "textureGrad" ? ", vec2 dx, vec2 dy" : "";
    std::string args = f[3] == "textureLod" ? ", l" : f[3] == "textureGrad" ? ", dx, dy" : "";
    auto wrapper = [&](const std::string& ps, const std::string& as) {
      p += fmt::format("{}vec4 {}({}{} s, {}{} c{}) {{ float r = {}(s, c{}); return vec4(r, r, r, 1.0); }}\n", prec,
                       piglit_name(f[0]), prec, f[1], prec, f[2], ps, f[3], as);
    };
    wrapper(params, args);
    if (params.empty() && stage_ == Stage::fragment && f[0] != "shadow2DArray") wrapper(", float b", ", b");
  }
  return p;
}

}  // namespace lowering

using namespace lowering;

VersionLine find_version(std::string_view text) {
  VersionLine v;
  for (size_t p = text.find("#version"); p != std::string_view::npos; p = text.find("#version", p + 1)) {
    size_t bol = text.rfind('\n', p);
    bol = bol == std::string_view::npos ? 0 : bol + 1;
    if (text.find_first_not_of(" \t", bol) != p) continue;
    size_t eol = text.find('\n', p);
    std::string line(text.substr(p, eol == std::string_view::npos ? std::string_view::npos : eol - p));
    v.found = true;
    std::sscanf(line.c_str(), "#version %u", &v.number);
    v.es = line.find(" es") != std::string::npos;
    // The line is emptied so the others keep their numbers.
    v.body = std::string(text.substr(0, p)) + std::string(eol == std::string_view::npos ? "" : text.substr(eol));
    return v;
  }
  v.body = std::string(text);
  return v;
}

Result<LoweredShader> lower_glsl(std::string_view text, Stage stage, unsigned version, bool es, unsigned first_line,
                                 LoweringState& state) {
  if (stage != Stage::vertex && stage != Stage::fragment)
    return Error::invalid_argument("the GLSL lowering is for vertex and fragment shaders");
  VersionLine v = find_version(text);
  if (v.found) version = v.number, es = v.es || v.number == 100;
  // ES 1.00 has no SPIR-V path: compiled as desktop GLSL 4.50 (its precision
  // qualifiers are accepted and ignored there, GLSL 4.50 section 4.7).
  std::string out_version = es && version >= 300 ? fmt::format("{} es", std::max(version, 310u))
                                                  : fmt::format("{}", std::max(version, 450u));
  Lowerer l(stage, es && version >= 300, state);
  std::string body = l.rename(drop_core_extensions(std::move(v.body)));
  if (stage == Stage::vertex) l.reserve_builtin_attributes();
  // A first pass notes the explicit varying locations, which the implicit
  // ones then avoid.
  l.recording_ = true;
  if (auto noted = l.locate(body); !noted.ok()) return noted.error();
  l.recording_ = false;
  AGX_TRY(body, l.locate(body));
  std::string pre = l.preamble();
  // The preamble goes before the first line that is not blank, a comment or
  // a directive (#extension must come before any other token), and not
  // inside a conditional (`#ifdef GL_ES` / `precision ...;` / `#endif`).
  size_t at = 0;
  unsigned line = first_line;
  bool in_comment = false;
  int conditional = 0;  // #if nesting
  while (at < body.size()) {
    size_t eol = body.find('\n', at);
    std::string_view ln(body.data() + at, (eol == std::string::npos ? body.size() : eol) - at);
    size_t first = ln.find_first_not_of(" \t\r");
    if (!in_comment && first != std::string_view::npos && ln[first] == '#') {
      std::string_view d = ln.substr(ln.find_first_not_of(" \t", first + 1) == std::string_view::npos
                                         ? ln.size() : ln.find_first_not_of(" \t", first + 1));
      if (d.starts_with("if")) ++conditional;
      else if (d.starts_with("endif")) --conditional;
    }
    bool skip = in_comment || conditional > 0 || first == std::string_view::npos || ln[first] == '#' ||
                ln.substr(first, 2) == "//" || ln.substr(first, 2) == "/*";
    if (ln.find("/*") != std::string_view::npos) in_comment = ln.find("*/", ln.find("/*")) == std::string_view::npos;
    else if (in_comment && ln.find("*/") != std::string_view::npos) in_comment = false;
    if (!skip || eol == std::string::npos) break;
    at = eol + 1;
    ++line;
  }
  l.out.source = fmt::format("#version {}\n#line {}\n{}{}#line {}\n{}{}", out_version, first_line, body.substr(0, at),
                             pre, line, body.substr(at), stage == Stage::vertex ? l.clip_main(body) : l.two_side_main());
  l.finish_colours();
  if (stage == Stage::vertex)
    for (const auto& [name, qualifier] : l.out.colour_qualifiers) state.vertex_colours.insert(name);
  return std::move(l.out);
}

}  // namespace agx::shadertest
