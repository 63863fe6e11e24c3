// The GLSL lowering's internals (glsl_lowering.h): the Lowerer of one
// shader and the text helpers its two files share (glsl_lowering.cpp:
// renaming, declarations, the preamble; glsl_lowering_varyings.cpp:
// locations of varyings and structures, the colour built-ins, two-sided
// colour, the emptied #extension lines).
#pragma once

#include <cctype>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "shadertest/glsl_lowering.h"
#include "shadertest/glsl_lowering_tables.h"

namespace agx::shadertest::lowering {

using compiler::Stage;

inline bool ident_start(char c) { return std::isalpha(uint8_t(c)) || c == '_'; }
inline bool ident_char(char c) { return std::isalnum(uint8_t(c)) || c == '_'; }
std::string piglit_name(std::string_view gl_name);
// A name the lowering gave a built-in varying (the user's own piglit_*
// names, such as piglit_vertex, are not).
bool is_builtin_varying(std::string_view name);
// Locations a value of `type` takes (GLSL 4.50 section 4.4.1): 1 each, a
// matrix one per column, dvec3/dvec4 two, 64-bit integer vectors as the
// double ones; nullopt for a structure (Lowerer::slots knows the ones
// declared).
std::optional<uint32_t> slots_of(std::string_view type);
// Tokens of one global statement: identifiers, numbers, single punctuation.
std::vector<std::string_view> tokens(std::string_view s);
// Where a statement's declaration starts: after leading blanks and comments.
size_t declaration_start(std::string_view stmt);
// The text with its comments blanked (line breaks kept).
std::string without_comments(std::string_view s);
// Empties the `#extension NAME : behaviour` lines of kCoreExtensions (the
// other lines keep their numbers).
std::string drop_core_extensions(std::string text);

// The size of a gl_ClipDistance the text never redeclares: its largest
// constant index + 1 (at most kClipPlanes); nullopt when it is redeclared
// with a size.
std::optional<unsigned> implicit_clip_distances(std::string_view text);

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
  // Two-sided colour (GL_VERTEX_PROGRAM_TWO_SIDE): a fragment shader's
  // gl_Color / gl_SecondaryColor when the vertex shader writes the back
  // one: a global set by an appended main from the front or back input,
  // by gl_FrontFacing and the runner's uniform piglit_TwoSide.
  bool two_sided(std::string_view fragment_colour) const {
    if (stage_ != Stage::fragment) return false;
    if (fragment_colour == "gl_Color") return state_.vertex_colours.count("gl_BackColor") != 0;
    if (fragment_colour == "gl_SecondaryColor") return state_.vertex_colours.count("gl_BackSecondaryColor") != 0;
    return false;
  }
  std::string two_sided_inputs(std::string_view fragment_colour, const std::string& qualifier, const char* prec);
  std::string two_side_main() const;
  // The `main` appended to a vertex shader: kClipZMain, with the clip
  // distances of user clip planes first when the shader or the file uses
  // them (glsl_lowering_clip.cpp); `body`: the lowered text.
  std::string clip_main(std::string_view body) const;
  bool clip_distance_used_ = false;  // the text names gl_ClipDistance
  // The interpolation qualifier (with a space) of a colour built-in: its
  // redeclaration's, else flat under `shade model flat`.
  std::string colour_qualifier(std::string_view name) const;
  std::map<std::string, int> colour_uses_;
  std::map<std::string, std::string> colour_redeclared_;
  bool two_side_uniform_ = false;
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

}  // namespace agx::shadertest::lowering
