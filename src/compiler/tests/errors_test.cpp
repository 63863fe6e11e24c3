// Bad and unsupported input gives errors naming the file, the line and
// the construct.
#include <gtest/gtest.h>

#include "compiler/compiler.h"

namespace agx::compiler {
namespace AGX_UNITY_ID {

std::string error_of(const std::string& src, TargetEnv env = TargetEnv::vulkan) {
  Options o;
  o.env = env;
  o.file_name = "k.comp";
  auto s = compile_glsl(src, o);
  EXPECT_FALSE(s.ok());
  return s.ok() ? "" : s.error().message();
}

TEST(Errors, GlslSyntaxNamesFileAndLine) {
  std::string e = error_of("#version 450\nlayout(local_size_x = 1) in;\nvoid main() {\n  int x = nope;\n}\n");
  EXPECT_NE(e.find("k.comp:4:"), std::string::npos) << e;
  EXPECT_NE(e.find("nope"), std::string::npos) << e;
}

// Options::stage picks glslang's stage; the SPIR-V entry point's execution
// model must agree with it.
TEST(Errors, StageComesFromOptions) {
  Options o;
  o.file_name = "v.vert";
  o.stage = Stage::vertex;
  const std::string vs = "#version 450\nvoid main() { gl_Position = vec4(0.0); }\n";
  auto compute = compile_glsl(vs, Options{});
  ASSERT_FALSE(compute.ok());  // gl_Position is no compute built-in
  EXPECT_NE(compute.error().message().find("gl_Position"), std::string::npos) << compute.error().message();
  auto spirv = glsl_to_spirv(vs, o);
  ASSERT_TRUE(spirv.ok()) << spirv.error().message();
  Options as_compute;
  as_compute.file_name = "v.spv";
  auto mismatch = compile_spirv(*spirv, as_compute);
  ASSERT_FALSE(mismatch.ok());
  EXPECT_NE(mismatch.error().message().find("entry point 'main' is a vertex shader, a compute shader was asked for"),
            std::string::npos)
      << mismatch.error().message();
  EXPECT_STREQ(stage_name(Stage::fragment), "fragment");
}

TEST(Errors, UnsupportedConstructNamesLine) {
  std::string e = error_of(R"(#version 450
layout(local_size_x = 1) in;
#extension GL_EXT_shader_atomic_float : require
layout(set = 0, binding = 0) buffer A { double d[]; };
void main() {
  atomicAdd(d[0], d[1] * 2.0lf);
}
)");
  EXPECT_NE(e.find("k.comp:6:"), std::string::npos) << e;
  EXPECT_NE(e.find("float atomic on a 64-bit value"), std::string::npos) << e;
}

// Image operations that are not translated name the line and what.
TEST(Errors, UnsupportedImageOperations) {
  std::string e = error_of(R"(#version 450
layout(local_size_x = 1) in;
layout(set = 0, binding = 0, r32i) uniform iimageBuffer c;
void main() {
  imageAtomicAdd(c, 0, 1);
}
)");
  EXPECT_NE(e.find("k.comp:5:"), std::string::npos) << e;
  EXPECT_NE(e.find("image atomics on a buffer image are not supported"), std::string::npos) << e;
  // Sparse lookups (residency codes) are not translated.
  e = error_of(R"(#version 450
#extension GL_ARB_sparse_texture2 : require
layout(local_size_x = 1) in;
layout(set = 0, binding = 0) uniform sampler2D t;
layout(set = 0, binding = 1) buffer B { vec4 v; };
void main() {
  int r = sparseTextureLodARB(t, vec2(0.5), 0.0, v);
}
)");
  EXPECT_NE(e.find("k.comp:7:"), std::string::npos) << e;
  EXPECT_NE(e.find("not supported"), std::string::npos) << e;
  e = error_of(R"(#version 450
layout(local_size_x = 1) in;
layout(set = 0, binding = 0, r32ui) uniform uimage2DMS f;
void main() {
  imageAtomicAdd(f, ivec2(0), 1, 1u);
}
)");
  EXPECT_NE(e.find("k.comp:5:"), std::string::npos) << e;
  EXPECT_NE(e.find("image atomics on a 2d_ms image are not supported"), std::string::npos) << e;
}

TEST(Errors, NonComputeAndBadSpirv) {
  Options o;
  std::vector<uint32_t> junk = {1, 2, 3, 4, 5, 6};
  auto s = compile_spirv(junk, o);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.error().message().find("magic"), std::string::npos) << s.error().message();
  std::vector<uint32_t> header_only = {0x07230203u, 0x00010000u, 0, 1, 0};
  auto t = compile_spirv(header_only, o);
  ASSERT_FALSE(t.ok());
}

TEST(Errors, MissingEntryPoint) {
  Options o;
  o.entry = "other";
  auto words = glsl_to_spirv("#version 450\nlayout(local_size_x = 1) in;\nvoid main() {}\n", Options{});
  ASSERT_TRUE(words.ok());
  auto s = compile_spirv(*words, o);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.error().message().find("other"), std::string::npos) << s.error().message();
}

}  // namespace
}  // namespace agx::compiler

