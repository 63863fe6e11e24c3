// The tables of the GLSL lowering (glsl_lowering.h): the compatibility
// built-ins and what replaces them, the GLSL 1.10 sampling functions and
// their GLSL 1.30 names, the shadow* wrappers. Sources in each comment.
#pragma once

#include <array>
#include <cstdint>
#include <string_view>
#include <utility>

namespace agx::shadertest::lowering {

// A built-in the lowering replaces: its new name and what declares it.
struct Builtin {
  std::string_view name;
  enum class Kind { attribute, varying, uniform, fragment_out, global, function } kind;
  std::string_view type;      // GLSL type; arrays as "vec4[8]"
  int location = -1;          // attributes: ARB_vertex_program's aliasing
  uint32_t slots = 1;         // varyings: locations taken
};

// GLSL 1.20 section 7.3 (vertex attributes; locations from ARB_vertex_program
// "Generic vertex attribute aliasing"), 7.5 (matrices), 7.6 (varyings).
inline constexpr Builtin kVertexBuiltins[] = {
    {"gl_Vertex", Builtin::Kind::attribute, "vec4", 0},
    {"gl_Normal", Builtin::Kind::attribute, "vec3", 2},
    {"gl_Color", Builtin::Kind::attribute, "vec4", 3},
    {"gl_SecondaryColor", Builtin::Kind::attribute, "vec4", 4},
    {"gl_FogCoord", Builtin::Kind::attribute, "float", 5},
    {"gl_MultiTexCoord0", Builtin::Kind::attribute, "vec4", 8},
    {"gl_MultiTexCoord1", Builtin::Kind::attribute, "vec4", 9},
    {"gl_MultiTexCoord2", Builtin::Kind::attribute, "vec4", 10},
    {"gl_MultiTexCoord3", Builtin::Kind::attribute, "vec4", 11},
    {"gl_MultiTexCoord4", Builtin::Kind::attribute, "vec4", 12},
    {"gl_MultiTexCoord5", Builtin::Kind::attribute, "vec4", 13},
    {"gl_MultiTexCoord6", Builtin::Kind::attribute, "vec4", 14},
    {"gl_MultiTexCoord7", Builtin::Kind::attribute, "vec4", 15},
    {"gl_FrontColor", Builtin::Kind::varying, "vec4"},
    {"gl_BackColor", Builtin::Kind::varying, "vec4"},
    {"gl_FrontSecondaryColor", Builtin::Kind::varying, "vec4"},
    {"gl_BackSecondaryColor", Builtin::Kind::varying, "vec4"},
    {"gl_TexCoord", Builtin::Kind::varying, "vec4[8]", -1, 8},
    {"gl_FogFragCoord", Builtin::Kind::varying, "float"},
    {"gl_ClipVertex", Builtin::Kind::global, "vec4"},
    {"ftransform", Builtin::Kind::function, ""},
};
// Fragment gl_Color / gl_SecondaryColor are the front colours (two-sided
// lighting is off in shader_runner).
inline constexpr Builtin kFragmentBuiltins[] = {
    {"gl_Color", Builtin::Kind::varying, "vec4"},
    {"gl_SecondaryColor", Builtin::Kind::varying, "vec4"},
    {"gl_TexCoord", Builtin::Kind::varying, "vec4[8]", -1, 8},
    {"gl_FogFragCoord", Builtin::Kind::varying, "float"},
    {"gl_FragColor", Builtin::Kind::fragment_out, "vec4"},
    {"gl_FragData", Builtin::Kind::fragment_out, "vec4[8]"},
};
inline constexpr std::string_view kMatrices[] = {"ModelViewMatrix", "ProjectionMatrix", "ModelViewProjectionMatrix",
                                          "TextureMatrix"};
inline constexpr std::string_view kMatrixForms[] = {"", "Inverse", "Transpose", "InverseTranspose"};

// GLSL 1.10 section 8.7 sampling functions -> GLSL 1.30's overloads.
inline constexpr std::pair<std::string_view, std::string_view> kSampling[] = {
    {"texture1D", "texture"},         {"texture2D", "texture"},          {"texture3D", "texture"},
    {"textureCube", "texture"},       {"texture2DRect", "texture"},      {"texture1DProj", "textureProj"},
    {"texture2DProj", "textureProj"}, {"texture3DProj", "textureProj"},  {"texture2DRectProj", "textureProj"},
    {"texture1DLod", "textureLod"},   {"texture2DLod", "textureLod"},    {"texture3DLod", "textureLod"},
    {"textureCubeLod", "textureLod"}, {"texture1DProjLod", "textureProjLod"},
    {"texture2DProjLod", "textureProjLod"}, {"texture3DProjLod", "textureProjLod"},
    {"texture2DLodEXT", "textureLod"}, {"texture2DProjLodEXT", "textureProjLod"},
    {"textureCubeLodEXT", "textureLod"}, {"texture2DGradARB", "textureGrad"},
    {"textureCubeGradARB", "textureGrad"}, {"texture2DRectGradARB", "textureGrad"},
    {"texture1DGradARB", "textureGrad"}, {"texture3DGradARB", "textureGrad"},
    {"texture2DProjGradARB", "textureProjGrad"}, {"texture1DArray", "texture"}, {"texture2DArray", "texture"},
    {"texture1DArrayLod", "textureLod"}, {"texture2DArrayLod", "textureLod"},
};
// shadow*: (r, r, r, 1) of the comparison result r (GL_LUMINANCE depth mode).
inline constexpr std::string_view kShadow[] = {"shadow1D",     "shadow2D",      "shadow2DRect", "shadow1DProj",
                                        "shadow2DProj", "shadow2DRectProj", "shadow1DLod", "shadow2DLod",
                                        "shadow1DArray", "shadow2DArray", "shadow2DGradARB", "shadow1DArrayLod"};

// shadow*(s, c[, extra]): name, sampler, coordinate type, GLSL 1.30 function.
inline constexpr std::array<std::array<std::string_view, 4>, 12> kShadowForms = {{
    {"shadow1D", "sampler1DShadow", "vec3", "texture"},
    {"shadow2D", "sampler2DShadow", "vec3", "texture"},
    {"shadow2DRect", "sampler2DRectShadow", "vec3", "texture"},
    {"shadow1DProj", "sampler1DShadow", "vec4", "textureProj"},
    {"shadow2DProj", "sampler2DShadow", "vec4", "textureProj"},
    {"shadow2DRectProj", "sampler2DRectShadow", "vec4", "textureProj"},
    {"shadow1DLod", "sampler1DShadow", "vec3", "textureLod"},
    {"shadow2DLod", "sampler2DShadow", "vec3", "textureLod"},
    {"shadow1DArray", "sampler1DArrayShadow", "vec3", "texture"},
    {"shadow2DArray", "sampler2DArrayShadow", "vec4", "texture"},
    {"shadow2DGradARB", "sampler2DShadow", "vec3", "textureGrad"},
    {"shadow1DArrayLod", "sampler1DArrayShadow", "vec3", "textureLod"},
}};

// Extensions glslang 12 refuses in an `#extension` line ("extension not
// supported") whose features are core in the GLSL 4.50 / ES 3.10 the
// lowering compiles: the line is emptied. Sources: the extensions' specs in
// the Khronos OpenGL registry and the GLSL 4.50 specification:
// ARB_arrays_of_arrays is core in GLSL 4.30 (section 4.1.9, "Arrays") and
// ES 3.10; ARB_shader_precision (GLSL 4.10) adds no syntax, only the
// precision of section 4.7.1; MESA_shader_integer_functions adds GLSL 4.00's
// integer functions (section 8.8: uaddCarry, usubBorrow, umulExtended,
// imulExtended, bitfield*, bitCount, findLSB, findMSB), frexp/ldexp and the
// implicit int -> uint conversion of section 4.1.10;
// ARB_texture_query_levels adds textureQueryLevels (GLSL 4.30 section
// 8.9.1).
inline constexpr std::string_view kCoreExtensions[] = {
    "GL_ARB_arrays_of_arrays",
    "GL_ARB_shader_precision",
    "GL_MESA_shader_integer_functions",
    "GL_ARB_texture_query_levels",  // textureQueryLevels: GLSL 4.30 core
};

}  // namespace agx::shadertest::lowering
