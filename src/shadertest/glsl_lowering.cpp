// The compatibility-profile lowering (glsl_lowering.h): identifiers renamed
// outside comments, a preamble declaring what the renamed built-ins became,
// and explicit locations on every vertex input and varying.
#include "shadertest/glsl_lowering.h"
#include "shadertest/glsl_lowering_tables.h"

#include <algorithm>
#include <array>
#include <cstdio>
#include <span>
#include <cctype>
#include <optional>
#include <set>

namespace agx::shadertest {

namespace {

using compiler::Stage;
using namespace lowering;

bool ident_start(char c) { return std::isalpha(uint8_t(c)) || c == '_'; }
bool ident_char(char c) { return std::isalnum(uint8_t(c)) || c == '_'; }

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

// Locations a value of `type` takes (GLSL 4.50 section 4.4.1): 1 each, a
// matrix one per column, dvec3/dvec4 two; nullopt for a structure.
std::optional<uint32_t> slots_of(std::string_view type) {
  static constexpr std::string_view kOne[] = {"float", "int", "uint", "bool", "double", "vec2", "vec3", "vec4",
                                              "ivec2", "ivec3", "ivec4", "uvec2", "uvec3", "uvec4", "bvec2",
                                              "bvec3", "bvec4", "dvec2"};
  if (std::find(std::begin(kOne), std::end(kOne), type) != std::end(kOne)) return 1;
  if (type == "dvec3" || type == "dvec4") return 2;
  bool dbl = type.starts_with("dmat");
  if (type.starts_with("mat") || dbl) {
    std::string_view d = type.substr(dbl ? 4 : 3);
    if (d.empty() || d[0] < '2' || d[0] > '4') return std::nullopt;
    uint32_t cols = uint32_t(d[0] - '0'), rows = d.size() == 3 ? uint32_t(d[2] - '0') : cols;
    return cols * (dbl && rows > 2 ? 2 : 1);
  }
  return std::nullopt;
}

class Lowerer {
 public:
  Lowerer(Stage stage, bool es, LoweringState& state) : stage_(stage), es_(es), state_(state) {}

  // Renames identifiers outside comments; returns the text.
  std::string rename(std::string_view text);
  Result<std::string> locate(std::string_view text);  // explicit locations
  std::string preamble();
  LoweredShader out;
  std::optional<std::string> replacement(std::string_view ident);
  Result<std::string> located(std::string_view whole);
  Result<std::string> located_declaration(std::string_view stmt);
  uint32_t varying_location(const std::string& name, uint32_t slots);
  // The built-in attributes' locations, which vertex inputs avoid.
  void reserve_builtin_attributes() {
    for (const auto& b : kVertexBuiltins)
      if (b.location >= 0 && used_.count(std::string(b.name))) taken_attributes_.insert(uint32_t(b.location));
  }

 private:
  Stage stage_;
  bool es_;
  LoweringState& state_;
  std::set<std::string> used_;           // gl_ names replaced
  std::set<uint32_t> taken_attributes_;  // built-in attribute locations
  uint32_t next_attribute_ = 0;
  uint32_t next_output_ = 0;  // fragment outputs without a location
};

std::optional<std::string> Lowerer::replacement(std::string_view id) {
  if (id == "main" && stage_ == Stage::vertex) return "piglit_main";  // kClipZMain calls it
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
    if (stage_ == Stage::fragment && (id == "gl_Color" || id == "gl_SecondaryColor"))
      return id == "gl_Color" ? "piglit_FrontColor" : "piglit_FrontSecondaryColor";
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

uint32_t Lowerer::varying_location(const std::string& name, uint32_t slots) {
  auto it = state_.varying_locations.find(name);
  if (it != state_.varying_locations.end()) return it->second;
  uint32_t at = state_.next_varying;
  state_.varying_locations[name] = at;
  state_.next_varying += slots;
  return at;
}

// Tokens of one global statement: identifiers, numbers, single punctuation.
std::vector<std::string_view> tokens(std::string_view s) {
  std::vector<std::string_view> out;
  size_t i = 0;
  while (i < s.size()) {
    if (std::isspace(uint8_t(s[i]))) {
      ++i;
    } else if (ident_char(s[i])) {
      size_t e = i;
      while (e < s.size() && ident_char(s[e])) ++e;
      out.push_back(s.substr(i, e - i));
      i = e;
    } else {
      out.push_back(s.substr(i++, 1));
    }
  }
  return out;
}

// Where a statement's declaration starts: after leading blanks and comments
// (they stay where they are, with their line breaks).
size_t declaration_start(std::string_view stmt) {
  size_t i = 0;
  while (i < stmt.size()) {
    if (std::isspace(uint8_t(stmt[i]))) {
      ++i;
    } else if (stmt.compare(i, 2, "//") == 0) {
      size_t e = stmt.find('\n', i);
      i = e == std::string_view::npos ? stmt.size() : e;
    } else if (stmt.compare(i, 2, "/*") == 0) {
      size_t e = stmt.find("*/", i + 2);
      i = e == std::string_view::npos ? stmt.size() : e + 2;
    } else {
      break;
    }
  }
  return i;
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
  for (; k < t.size(); ++k) {
    if (t[k] == "layout") {
      // layout(...): an explicit location is kept as written.
      size_t close = k;
      while (close < t.size() && t[close] != ")") {
        if (t[close] == "location") return std::string(stmt);
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
  if (!attribute && !varying && !output) return std::string(stmt);
  bool function = std::find(t.begin(), t.end(), "(") != t.end() && std::find(t.begin(), t.end(), "layout") == t.end();
  if (k >= t.size() || function)
    return std::string(stmt);  // a function prototype or nothing to place
  std::string_view type = t[k];
  if (type.starts_with("gl_") || k + 1 >= t.size() || t[k + 1].starts_with("gl_")) return std::string(stmt);
  // A redeclared built-in varying (`varying vec4 gl_TexCoord[2];`, renamed
  // above): the preamble declares it; its line breaks stay.
  for (size_t n = k + 1; n < t.size(); ++n) {
    if (!is_builtin_varying(t[n])) continue;
    std::string blank;
    for (char c : stmt)
      if (c == '\n') blank.push_back(c);
    return blank;
  }
  auto slots = slots_of(type);
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
    if (at >= t.size() || t[at] != "[") return 1u;
    if (at + 2 >= t.size() || t[at + 2] != "]" || !std::isdigit(uint8_t(t[at + 1][0])))
      return Error::unsupported("an array of a size that is not a number in '{}'", stmt);
    text += "[" + std::string(t[at + 1]) + "]";
    uint32_t n = uint32_t(std::stoul(std::string(t[at + 1])));
    at += 3;
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
      case Builtin::Kind::varying:
        p += fmt::format("layout(location = {}) {} {}{} {}{};\n", varying_location(name, b.slots),
                         stage_ == Stage::vertex ? "out" : "in", prec, type, name, array);
        break;
      case Builtin::Kind::fragment_out:
        p += fmt::format("layout(location = 0) out {}{} {}{};\n", prec, type, name, array);
        break;
      case Builtin::Kind::global:
        p += fmt::format("{}{} {};\n", prec, type, name);
        out.unsupported.emplace_back("gl_ClipVertex (user clip planes)");
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
      p += fmt::format("{}vec4 {}({}{} s, {}{} c{}) {{ return vec4({}(s, c{})); }}\n", prec, piglit_name(f[0]), prec,
                       f[1], prec, f[2], ps, f[3], as);
    };
    wrapper(params, args);
    if (params.empty() && stage_ == Stage::fragment && f[0] != "shadow2DArray") wrapper(", float b", ", b");
  }
  return p;
}

}  // namespace

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
  std::string body = l.rename(v.body);
  if (stage == Stage::vertex) l.reserve_builtin_attributes();
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
                             pre, line, body.substr(at), stage == Stage::vertex ? kClipZMain : "");
  return std::move(l.out);
}

}  // namespace agx::shadertest
