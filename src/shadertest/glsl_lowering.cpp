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
// matrix one per column, dvec3/dvec4 two, 64-bit integer vectors as the
// double ones; nullopt for a structure (Lowerer::slots knows the ones
// declared).
std::optional<uint32_t> slots_of(std::string_view type) {
  static constexpr std::string_view kOne[] = {"float", "int", "uint", "bool", "double", "vec2", "vec3", "vec4",
                                              "ivec2", "ivec3", "ivec4", "uvec2", "uvec3", "uvec4", "bvec2",
                                              "bvec3", "bvec4", "dvec2", "int64_t", "uint64_t", "i64vec2",
                                              "u64vec2"};
  if (std::find(std::begin(kOne), std::end(kOne), type) != std::end(kOne)) return 1;
  for (std::string_view two : {"dvec3", "dvec4", "i64vec3", "i64vec4", "u64vec3", "u64vec4"})
    if (type == two) return 2;
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
  // Locations of a type: slots_of, or a structure declared before.
  std::optional<uint32_t> slots(std::string_view type) const;
  // Records `struct NAME { members }` (its locations: the members' sum,
  // GLSL 4.50 section 4.4.1); other statements are left alone.
  void note_structure(std::string_view stmt);
  // Records an explicit `layout(location = N)` varying (t[k]: its type).
  void note_explicit_varying(const std::vector<std::string_view>& t, size_t k, uint32_t location);
  bool recording_ = false;  // locate() only noting the explicit locations
  // The colour built-ins: uses (a redeclaration counts one) and the
  // interpolation qualifier a redeclaration gives; LoweredShader's
  // colour_qualifiers from them (finish_colours).
  bool colour_builtin(std::string_view id) const {
    for (std::string_view c : {"gl_FrontColor", "gl_BackColor", "gl_FrontSecondaryColor", "gl_BackSecondaryColor",
                               "gl_Color", "gl_SecondaryColor"})
      if (id == c && (stage_ == Stage::fragment) == (c == "gl_Color" || c == "gl_SecondaryColor")) return true;
    return false;
  }
  void note_colour_redeclaration(const std::vector<std::string_view>& t, size_t k, std::string_view renamed);
  void finish_colours();
  std::map<std::string, int> colour_uses_;
  std::map<std::string, std::string> colour_redeclared_;
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
  std::map<std::string, uint32_t, std::less<>> structures_;  // name -> locations
};

std::optional<std::string> Lowerer::replacement(std::string_view id) {
  if (colour_builtin(id)) ++colour_uses_[std::string(id)];
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
  // Past the explicit locations (GL_ARB_separate_shader_objects' layouts).
  uint32_t at = state_.next_varying;
  auto clash = [&](uint32_t a) {
    for (uint32_t s = a; s < a + slots; ++s)
      if (state_.explicit_varyings.count(s)) return true;
    return false;
  };
  while (clash(at)) ++at;
  state_.varying_locations[name] = at;
  state_.next_varying = at + slots;
  return at;
}

void Lowerer::note_colour_redeclaration(const std::vector<std::string_view>& t, size_t k, std::string_view renamed) {
  // The fragment's gl_Color / gl_SecondaryColor became the front ones.
  std::string name = stage_ == Stage::fragment ? (renamed == "piglit_FrontColor"            ? "gl_Color"
                                                  : renamed == "piglit_FrontSecondaryColor" ? "gl_SecondaryColor"
                                                                                            : "")
                                               : "gl_" + std::string(renamed.substr(7));
  if (name.empty() || !colour_builtin(name)) return;
  std::string qualifier;
  for (size_t i = 0; i < k; ++i)
    if (t[i] == "flat" || t[i] == "smooth" || t[i] == "noperspective") qualifier = std::string(t[i]);
  colour_redeclared_[name] = qualifier;
}

void Lowerer::finish_colours() {
  for (const auto& [name, uses] : colour_uses_) {
    auto r = colour_redeclared_.find(name);
    if (uses > (r != colour_redeclared_.end() ? 1 : 0))
      out.colour_qualifiers[name] = r != colour_redeclared_.end() ? r->second : "";
  }
}

void Lowerer::note_explicit_varying(const std::vector<std::string_view>& t, size_t k, uint32_t location) {
  // TYPE[N]... NAME[N]...: the locations it takes (1 when the type is not
  // known: a block); the name keeps the location in the other stage.
  uint32_t n = k < t.size() ? slots(t[k]).value_or(1) : 1;
  size_t i = k + 1;
  for (int part = 0; part < 2; ++part) {
    for (; i + 2 < t.size() && t[i] == "[" && t[i + 2] == "]" && std::isdigit(uint8_t(t[i + 1][0])); i += 3)
      n *= uint32_t(std::stoul(std::string(t[i + 1])));
    if (part == 0 && i < t.size()) {
      if (!std::isdigit(uint8_t(t[i][0])) && t[i] != "[" && t[i] != ";") state_.varying_locations[std::string(t[i])] = location;
      ++i;
    }
  }
  for (uint32_t s = location; s < location + n; ++s) state_.explicit_varyings.insert(s);
}

std::optional<uint32_t> Lowerer::slots(std::string_view type) const {
  auto it = structures_.find(type);
  return it != structures_.end() ? std::optional<uint32_t>(it->second) : slots_of(type);
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

void Lowerer::note_structure(std::string_view stmt) {
  auto t = tokens(stmt.substr(declaration_start(stmt)));
  if (t.size() < 4 || t[0] != "struct" || t[2] != "{") return;
  uint32_t total = 0;
  // Members: [precision] TYPE[N]... NAME[N]... {, NAME[N]...} ;
  size_t k = 3;
  while (k < t.size() && t[k] != "}") {
    while (k < t.size() && (t[k] == "highp" || t[k] == "mediump" || t[k] == "lowp" || t[k] == "precise")) ++k;
    if (k >= t.size()) return;
    auto member = slots(t[k++]);
    if (!member) return;  // not placed: a varying of this type is refused
    auto dims = [&]() -> std::optional<uint32_t> {
      uint32_t n = 1;
      while (k + 2 < t.size() && t[k] == "[") {
        if (t[k + 2] != "]" || !std::isdigit(uint8_t(t[k + 1][0]))) return std::nullopt;
        n *= uint32_t(std::stoul(std::string(t[k + 1])));
        k += 3;
      }
      return n;
    };
    auto type_dims = dims();
    if (!type_dims) return;
    while (k < t.size() && t[k] != ";") {
      ++k;  // the name
      auto name_dims = dims();
      if (!name_dims) return;
      total += *member * *type_dims * *name_dims;
      if (k < t.size() && t[k] == ",") ++k;
    }
    ++k;  // ;
  }
  structures_[std::string(t[1])] = total;
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
    if (!is_builtin_varying(t[n])) continue;
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
        // A colour keeps the interpolation qualifier its redeclaration gave.
        auto q = colour_redeclared_.find(std::string(b.name));
        std::string qualifier = q != colour_redeclared_.end() && !q->second.empty() ? q->second + " " : "";
        p += fmt::format("layout(location = {}) {}{} {}{} {}{};\n", varying_location(name, b.slots), qualifier,
                         stage_ == Stage::vertex ? "out" : "in", prec, type, name, array);
        break;
      }
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

// Empties the `#extension NAME : behaviour` lines of kCoreExtensions (the
// other lines keep their numbers).
std::string drop_core_extensions(std::string text) {
  size_t bol = 0;
  while (bol < text.size()) {
    size_t eol = std::min(text.find('\n', bol), text.size());
    std::string_view ln(text.data() + bol, eol - bol);
    size_t p = ln.find_first_not_of(" \t");
    if (p != std::string_view::npos && ln[p] == '#') {
      ln.remove_prefix(p + 1);
      ln.remove_prefix(std::min(ln.find_first_not_of(" \t"), ln.size()));
      if (ln.starts_with("extension")) {
        ln.remove_prefix(9);
        ln.remove_prefix(std::min(ln.find_first_not_of(" \t"), ln.size()));
        std::string_view name = ln.substr(0, ln.find_first_of(" \t:"));
        if (std::find(std::begin(kCoreExtensions), std::end(kCoreExtensions), name) != std::end(kCoreExtensions))
          text.replace(bol, eol - bol, std::string(eol - bol, ' '));
      }
    }
    bol = eol + 1;
  }
  return text;
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
                             pre, line, body.substr(at), stage == Stage::vertex ? kClipZMain : "");
  l.finish_colours();
  return std::move(l.out);
}

}  // namespace agx::shadertest
