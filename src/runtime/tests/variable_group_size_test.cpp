// GL_ARB_compute_variable_group_size through glslang: the declarations a unit
// makes and the text compiled for one local size.
#include <gtest/gtest.h>

#include "runtime/glsl_frontend.h"
#include "runtime/variable_group_size.h"

namespace agx::runtime {
namespace AGX_UNITY_ID {

TEST(VariableGroupSize, Declarations) {
  EXPECT_EQ(group_size_declaration("layout(local_size_variable) in;\nvoid main() {}\n"),
            GroupSizeDeclaration::variable);
  EXPECT_EQ(group_size_declaration("layout( local_size_variable )  in ;"), GroupSizeDeclaration::variable);
  EXPECT_EQ(group_size_declaration("layout(local_size_x = 8, local_size_y = 4) in;"), GroupSizeDeclaration::fixed);
  EXPECT_EQ(group_size_declaration("layout(std430, binding = 0) buffer B { uint v; };\nvoid main() {}\n"),
            GroupSizeDeclaration::none);
  // An output or buffer layout is not the input size.
  EXPECT_EQ(group_size_declaration("layout(binding = 0) uniform atomic_uint a;"), GroupSizeDeclaration::none);
}

TEST(VariableGroupSize, Rewrite) {
  const std::string unit =
      "#extension GL_ARB_compute_shader: enable\n"
      "  #extension GL_ARB_compute_variable_group_size : require\n"
      "layout(local_size_variable) in;\n"
      "void main() { uvec3 s = gl_LocalGroupSizeARB; uvec3 t = gl_LocalGroupSizeARBx; }\n";
  EXPECT_EQ(with_group_size(unit, std::array<uint32_t, 3>{8, 4, 2}),
            "#extension GL_ARB_compute_shader: enable\n"
            "\n"
            "layout(local_size_x = 8, local_size_y = 4, local_size_z = 2) in;\n"
            "void main() { uvec3 s = gl_WorkGroupSize; uvec3 t = gl_LocalGroupSizeARBx; }\n");
  // A fixed-size unit keeps its layout; the built-in is its declared size.
  EXPECT_EQ(with_group_size("layout(local_size_x = 2) in;\nuint n = gl_LocalGroupSizeARB.x;\n", std::nullopt),
            "layout(local_size_x = 2) in;\nuint n = gl_WorkGroupSize.x;\n");
}

TEST(VariableGroupSize, GlslangTakesTheRewrite) {
  std::vector<std::string> units{with_group_size(
      "#version 430\n#extension GL_ARB_compute_variable_group_size: require\nlayout(local_size_variable) in;\n"
      "layout(std430, binding = 0) buffer B { uint v[]; };\n"
      "void main() { v[gl_LocalInvocationIndex] = gl_LocalGroupSizeARB.x * gl_LocalGroupSizeARB.y; }\n",
      std::array<uint32_t, 3>{3, 5, 1})};
  auto words = glsl_to_opengl_spirv(units, "shader");
  EXPECT_TRUE(words.ok()) << words.error().message();
}

}  // namespace
}  // namespace agx::runtime
