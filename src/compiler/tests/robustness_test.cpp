// Mutated SPIR-V (bit flips, replaced and dropped words) never crashes the
// module reader or the pipeline: every input gives a Shader or an Error.
#include <gtest/gtest.h>

#include <cstdlib>
#include <random>

#include "compiler/compiler.h"
#include "compiler/kernels.h"
#include "compiler/spirv_module.h"
#include "compiler/tests/mutation_rounds.h"

namespace agx::compiler {
namespace AGX_UNITY_ID {

TEST(Robustness, MutatedSpirvGivesShadersOrErrors) {
  const char* seed = std::getenv("AGX_COMPILER_MUTATION_SEED");
  std::mt19937 rng(seed ? static_cast<uint32_t>(std::atoi(seed)) : 77u);
  size_t errors = 0;
  for (const Kernel& k : sample_kernels()) {
    Options o;
    o.env = k.env;
    auto words = glsl_to_spirv(k.glsl, o);
    ASSERT_TRUE(words.ok());
    auto opt = optimize_spirv(*words, o);
    ASSERT_TRUE(opt.ok());
    // AGX_COMPILER_MUTATIONS raises the count for a longer local run.
    const char* env = std::getenv("AGX_COMPILER_MUTATIONS");
    int rounds = env ? std::atoi(env) : 100;
    // The reader alone (no validator in front of it) and the pipeline.
    errors += test::mutation_rounds(*opt, o, rounds, rng).errors;
  }
  EXPECT_GT(errors, 0u);
}

// Image SPIR-V (types, loads, stores, queries, texel pointers, atomics,
// sampled textures) mutated the same way.
TEST(Robustness, MutatedImageSpirvGivesShadersOrErrors) {
  static const char* kImages[] = {
      "#version 450\nlayout(local_size_x = 4) in;\n"
      "layout(set = 0, binding = 0, rgba8) uniform image2D a;\n"
      "layout(set = 0, binding = 1, r32i) uniform iimage2D b;\n"
      "layout(set = 0, binding = 2) uniform sampler2D t;\n"
      "layout(set = 0, binding = 3, rgba32f) uniform image2DArray c;\n"
      "void main() {\n"
      "  ivec2 p = ivec2(gl_GlobalInvocationID.xy);\n"
      "  vec4 v = imageLoad(a, p) + texelFetch(t, p, 0) + texture(t, vec2(0.5)) + vec4(imageSize(a), textureSize(t, 0));\n"
      "  int old = imageAtomicAdd(b, p, 3) + imageAtomicCompSwap(b, p + 1, 2, 4);\n"
      "  imageStore(a, p, v * float(old));\n"
      "  imageStore(c, ivec3(p, 2), v);\n"
      "}\n",
      "#version 450\nlayout(local_size_x = 1) in;\n"
      "layout(set = 0, binding = 0, rgba8ui) uniform uimage2DMS m;\n"
      "void main() { imageStore(m, ivec2(0), imageSamples(m) - 1, uvec4(255)); }\n",
  };
  const char* seed = std::getenv("AGX_COMPILER_MUTATION_SEED");
  std::mt19937 rng(seed ? static_cast<uint32_t>(std::atoi(seed)) + 1 : 78u);
  const char* env = std::getenv("AGX_COMPILER_MUTATIONS");
  const int rounds = env ? std::atoi(env) : 200;
  size_t errors = 0;
  for (const char* glsl : kImages) {
    Options o;
    auto words = glsl_to_spirv(glsl, o);
    ASSERT_TRUE(words.ok()) << words.error().message();
    auto opt = optimize_spirv(*words, o);
    ASSERT_TRUE(opt.ok());
    auto clean = compile_spirv(*opt, o);
    ASSERT_TRUE(clean.ok()) << clean.error().message();
    EXPECT_EQ(clean->abi.images.size(), glsl == kImages[0] ? 4u : 1u);
    errors += test::mutation_rounds(*opt, o, rounds, rng).errors;
  }
  EXPECT_GT(errors, 0u);
}

// 8/16-bit types (translate_small*.cpp: struct members, push constants,
// shared memory, conversions to and from doubles and int64, bitcasts)
// mutated the same way.
TEST(Robustness, MutatedSmallTypeSpirvGivesShadersOrErrors) {
  static const char* kSmall =
      "#version 450\n"
      "#extension GL_EXT_shader_explicit_arithmetic_types : require\n"
      "layout(local_size_x = 32) in;\n"
      "struct S { int8_t a; float16_t h; u8vec3 v; i16vec3 d; f16vec4 e; };\n"
      "layout(std430, set = 0, binding = 0) buffer In { S s_in[]; };\n"
      "layout(std430, set = 0, binding = 1) buffer Out { float16_t o[32]; int16_t q[32]; uint8_t b[]; };\n"
      "layout(push_constant) uniform P { int8_t pa; float16_t ph; } p;\n"
      "shared float16_t sh[32];\n"
      "void main() {\n"
      "  uint i = gl_LocalInvocationIndex;\n"
      "  S x = S(s_in[i].a, s_in[i].h, s_in[i].v, s_in[i].d, s_in[i].e);\n"
      "  sh[i] = x.h * p.ph + float16_t(x.a);\n"
      "  barrier();\n"
      "  float16_t acc = sh[31u - i];\n"
      "  acc = fma(acc, x.e.y, sqrt(abs(x.e.x)));\n"
      "  o[i] = acc / x.e.w + float16_t(double(x.d.z) * 0.1);\n"
      "  q[i] = int16_t(acc) >> int16_t(x.v.y & uint8_t(15)) ^ (x.d.x / int16_t(3)) + int16_t(int64_t(x.d.y) * 5l);\n"
      "  b[i] = uint8_t(pack16(u8vec2(x.v.xz)) >> uint16_t(4)) + uint8_t(float16BitsToUint16(acc)) + uint8_t(p.pa);\n"
      "}\n";
  const char* seed = std::getenv("AGX_COMPILER_MUTATION_SEED");
  std::mt19937 rng(seed ? static_cast<uint32_t>(std::atoi(seed)) + 2 : 79u);
  const char* env = std::getenv("AGX_COMPILER_MUTATIONS");
  const int rounds = env ? std::atoi(env) : 200;
  Options o;
  auto words = glsl_to_spirv(kSmall, o);
  ASSERT_TRUE(words.ok()) << words.error().message();
  auto opt = optimize_spirv(*words, o);
  ASSERT_TRUE(opt.ok());
  auto clean = compile_spirv(*opt, o);
  ASSERT_TRUE(clean.ok()) << clean.error().message();
  EXPECT_GT(test::mutation_rounds(*opt, o, rounds, rng).errors, 0u);
}

}  // namespace
}  // namespace agx::compiler
