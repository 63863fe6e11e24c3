// Lowering of the GLSL piglit's vertex/fragment files are written in (GLSL
// 1.10-4.60, many in the compatibility profile, and GLSL ES 1.00-3.20) to
// the core-profile GLSL glslang turns into OpenGL SPIR-V (glslang refuses
// the compatibility profile for SPIR-V). docs/shadertest.md "Vertex and
// fragment files" gives each rewrite with its public source; in short:
//
// - `#version`: desktop GLSL below 4.50 is compiled as `#version 450`,
//   ES 1.00 as desktop 4.50 (ES 1.00 has no SPIR-V path), ES 3.00 as
//   `#version 310 es`; a `#line` keeps the file's line numbers.
// - `attribute` -> `in`; `varying` -> `out` (vertex) / `in` (fragment)
//   (GLSL 1.30 section 4.3: the storage qualifiers that replaced them).
// - the compatibility built-ins (GLSL 1.20 section 7): vertex attributes
//   gl_Vertex, gl_Normal, gl_Color, gl_SecondaryColor, gl_FogCoord,
//   gl_MultiTexCoord0-7 -> `in` variables at the generic locations they
//   alias (ARB_vertex_program, "Generic vertex attribute aliasing": 0, 2,
//   3, 4, 5, 8-15); the matrices gl_ModelViewMatrix, gl_ProjectionMatrix,
//   gl_ModelViewProjectionMatrix, gl_TextureMatrix[8], gl_NormalMatrix and
//   their Inverse / Transpose / InverseTranspose forms -> loose uniforms
//   `piglit_<name>` the runner writes (identity unless `ortho`/`frustum`);
//   ftransform() -> piglit_ModelViewProjectionMatrix * gl_Vertex; the
//   varyings gl_FrontColor, gl_BackColor, gl_FrontSecondaryColor,
//   gl_BackSecondaryColor, gl_TexCoord[8], gl_FogFragCoord -> `out`/`in`
//   variables (fragment gl_Color / gl_SecondaryColor read the front ones);
//   gl_FragColor / gl_FragData[8] -> `out vec4` at location 0.
// - the GLSL 1.10 sampling functions (texture2D, texture2DProj,
//   texture2DLod, textureCube, texture1D/3D, texture2DRect, ...) -> the
//   GLSL 1.30 overloaded ones; shadow1D/2D/2DRect (+Proj, +Lod) return
//   (r, r, r, 1) of the comparison result r, as GLSL 1.20 section 8.7
//   defines them for GL's default GL_DEPTH_TEXTURE_MODE, GL_LUMINANCE
//   (GL 2.1 section 3.8.14; `texparameter ... depth_mode luminance` only).
// - every vertex input and varying gets an explicit location: varyings by
//   name, the same in both stages (GL links them by name; SPIR-V by
//   location), vertex inputs the lowest locations the built-ins leave free.
// - GL's clip volume -w <= z <= w becomes the hardware's (Vulkan's)
//   0 <= z <= w: a vertex shader's `main` is renamed `piglit_main` and a
//   new `main` calls it, then stores z as (z + w) / 2 (kClipZMain), the
//   rewrite Mesa's nir_lower_clip_halfz makes for GL on such hardware.
// - user clip planes: that `main` first writes gl_ClipDistance from
//   gl_ClipVertex (or gl_Position) and the runner's uniform planes
//   piglit_ClipPlane[8], or zeroes the distances a shader writes for the
//   planes the runner's piglit_ClipDistanceEnable leaves off
//   (glsl_lowering_clip.cpp).
#pragma once

#include <map>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "compiler/compiler.h"
#include "util/result.h"

namespace agx::shadertest {

// GL's user clip planes (GL_MAX_CLIP_PLANES as shader_runner's GL gives 8).
inline constexpr unsigned kClipPlanes = 8;

// The `main` appended to every lowered vertex shader (after its own, renamed
// piglit_main) that has no user clip planes.
inline constexpr const char* kClipZMain =
    "\nvoid main() { piglit_main(); gl_Position.z = (gl_Position.z + gl_Position.w) * 0.5; }\n";

// A source's `#version` line: its number, `es`, and the text with that line
// emptied (the other lines keep their numbers).
struct VersionLine {
  bool found = false;
  unsigned number = 0;
  bool es = false;
  std::string body;
};
VersionLine find_version(std::string_view text);

// What the lowering of one program keeps across its stages.
struct LoweringState {
  std::map<std::string, uint32_t> varying_locations;  // name -> first location
  std::set<uint32_t> explicit_varyings;                // locations given by layout(location = N)
  // The colour built-ins the vertex shader uses (its LoweredShader's
  // colour_qualifiers), for two-sided colour in the fragment shader.
  std::set<std::string> vertex_colours;
  // `shade model flat` in the file: the colours redeclared without an
  // interpolation qualifier are flat (GLSL 1.30 section 4.3.7).
  bool flat_colours = false;
  // The file enables a user clip plane: a vertex shader that writes neither
  // gl_ClipVertex nor gl_ClipDistance clips gl_Position against the planes.
  bool user_clip_planes = false;
  uint32_t next_varying = 0;
};

struct LoweredShader {
  std::string source;                   // what glslang is given
  std::vector<std::string> uniforms;    // the piglit_* matrices the runner writes
  std::vector<std::string> attributes;  // the built-in attributes read (gl_Vertex, ...)
  // The colour built-ins the shader statically uses (gl_FrontColor,
  // gl_BackColor, gl_FrontSecondaryColor, gl_BackSecondaryColor in a vertex
  // shader, gl_Color, gl_SecondaryColor in a fragment shader) and the
  // interpolation qualifier a redeclaration gives them ("" for none), for
  // the check between stages of GLSL 1.30 section 4.3.7.
  std::map<std::string, std::string> colour_qualifiers;
};

// `version`/`es`: the #version to assume when the text has none (piglit
// adds one from [require]); `first_line`: the file line of the text's
// first line. Errors name what cannot be lowered.
Result<LoweredShader> lower_glsl(std::string_view text, compiler::Stage stage, unsigned version, bool es,
                                 unsigned first_line, LoweringState& state);

}  // namespace agx::shadertest
