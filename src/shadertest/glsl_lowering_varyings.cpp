// The GLSL lowering's varyings (glsl_lowering_internal.h): the locations
// of implicit and explicit varyings and of structures, the colour
// built-ins (their uses, qualifiers and two-sided selection), and the
// #extension lines of features core in GLSL 4.50.
#include <algorithm>

#include "shadertest/glsl_lowering_internal.h"

namespace agx::shadertest::lowering {

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
  std::string name = stage_ == Stage::fragment ? (renamed == "piglit_FrontColor" || renamed == "piglit_Color" ? "gl_Color"
                                                  : renamed == "piglit_FrontSecondaryColor" || renamed == "piglit_SecondaryColor"
                                                      ? "gl_SecondaryColor"
                                                      : "")
                                               : "gl_" + std::string(renamed.substr(7));
  if (name.empty() || !colour_builtin(name)) return;
  std::string qualifier;
  for (size_t i = 0; i < k; ++i)
    if (t[i] == "flat" || t[i] == "smooth" || t[i] == "noperspective") qualifier = std::string(t[i]);
  colour_redeclared_[name] = qualifier;
}

std::string Lowerer::colour_qualifier(std::string_view name) const {
  if (!colour_builtin(name)) return "";
  auto q = colour_redeclared_.find(std::string(name));
  if (q != colour_redeclared_.end() && !q->second.empty()) return q->second + " ";
  return state_.flat_colours ? "flat " : "";
}

std::string Lowerer::two_sided_inputs(std::string_view fragment_colour, const std::string& qualifier, const char* prec) {
  const std::string part = fragment_colour == "gl_Color" ? "Color" : "SecondaryColor";
  std::string p;
  for (const char* side : {"Front", "Back"}) {
    const std::string name = fmt::format("piglit_{}{}", side, part);
    if (state_.vertex_colours.count("gl_" + std::string(side) + part))
      p += fmt::format("layout(location = {}) {}in {}vec4 {};\n", varying_location(name, 1), qualifier, prec, name);
    else  // not written by the vertex shader: undefined in GL
      p += fmt::format("{}vec4 {} = vec4(0.0);\n", prec, name);
  }
  if (!two_side_uniform_) {
    p += "uniform int piglit_TwoSide;\n";
    two_side_uniform_ = true;
  }
  return p + fmt::format("{}vec4 piglit_{};\n", prec, part);
}

std::string Lowerer::two_side_main() const {
  if (!two_sided("gl_Color") && !two_sided("gl_SecondaryColor")) return "";
  std::string body;
  for (const std::string part : {"Color", "SecondaryColor"})
    if (used_.count("gl_" + part) && two_sided("gl_" + part))
      body += fmt::format(" piglit_{0} = piglit_TwoSide != 0 && !gl_FrontFacing ? piglit_Back{0} : piglit_Front{0};", part);
  return fmt::format("\nvoid main() {{{} piglit_main(); }}\n", body);
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

// The text with its comments blanked (line breaks kept).
std::string without_comments(std::string_view s) {
  std::string out(s);
  for (size_t i = 0; i + 1 < out.size(); ++i) {
    const bool line = out.compare(i, 2, "//") == 0, block = out.compare(i, 2, "/*") == 0;
    if (!line && !block) continue;
    size_t e = line ? out.find('\n', i) : out.find("*/", i + 2);
    e = e == std::string::npos ? out.size() : line ? e : e + 2;
    for (size_t k = i; k < e; ++k)
      if (out[k] != '\n') out[k] = ' ';
    i = e - 1;
  }
  return out;
}

void Lowerer::note_structure(std::string_view stmt) {
  const std::string text = without_comments(stmt);
  auto t = tokens(text);
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

}  // namespace agx::shadertest::lowering
