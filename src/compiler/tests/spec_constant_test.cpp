// Specialization constants: defaults, given values (Options::specializations),
// expressions on them (OpSpecConstantOp) and the workgroup size from
// local_size_x_id, run against the same formulas in C++.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>

#include "compiler/tests/buffer_words.h"
#include "compiler/tests/run_helpers.h"

namespace agx::compiler::test {
namespace AGX_UNITY_ID {

constexpr const char* kSpecKernel = R"(#version 450
layout(local_size_x_id = 7, local_size_y = 1) in;
layout(constant_id = 1) const int X = 3;
layout(constant_id = 2) const uint Y = 10u;
layout(constant_id = 3) const bool B = false;
layout(constant_id = 4) const float F = 1.5;
const int E = X * 7 - int(Y >> 1u);          // OpSpecConstantOp
const uint M = (Y % 4u) << 3u | uint(X);     // OpSpecConstantOp
const bool NB = !B && (X > 2);               // OpSpecConstantOp on bools
const uint W = gl_WorkGroupSize.x * 2u;      // on the specialized workgroup size
layout(set = 0, binding = 0) buffer A { uint a[]; };
void main() {
  uint i = gl_GlobalInvocationID.x;
  uint v = a[i];
  a[i] = v * uint(E) + M + (NB ? 1000u : 0u) + (B ? 5u : 0u) + W * 10000u;
  a[i + 128u] = floatBitsToUint(float(v) * F);
  a[i + 256u] = gl_WorkGroupSize.x;
})";

struct Values {
  int32_t x = 3;
  uint32_t y = 10;
  bool b = false;
  float f = 1.5f;
  uint32_t wg = 1;  // local_size_x_id without a default: 1
};

void run_spec(const Options& o, const Values& v) {
  auto compiled = compile_glsl(kSpecKernel, o);
  ASSERT_TRUE(compiled.ok()) << compiled.error().message();
  const Shader& s = *compiled;
  ASSERT_EQ(s.abi.workgroup_size[0], v.wg);
  Job r;
  r.buffers = {random_words(384, 77, 100000)};
  r.groups = {64 / v.wg, 1, 1};
  auto in = r.buffers[0];
  ASSERT_OK(execute(s, r));
  uint32_t e = static_cast<uint32_t>(v.x * 7 - static_cast<int32_t>(v.y >> 1));
  uint32_t m = ((v.y % 4u) << 3u) | static_cast<uint32_t>(v.x);
  bool nb = !v.b && v.x > 2;
  for (uint32_t i = 0; i < 64; ++i) {
    uint32_t want = in[i] * e + m + (nb ? 1000u : 0u) + (v.b ? 5u : 0u) + v.wg * 2u * 10000u;
    EXPECT_EQ(r.buffers[0][i], want) << i;
    float prod = static_cast<float>(in[i]) * v.f;
    uint32_t bits;
    std::memcpy(&bits, &prod, 4);
    EXPECT_EQ(r.buffers[0][i + 128], bits) << i;
    EXPECT_EQ(r.buffers[0][i + 256], v.wg) << i;
  }
}

Options spec_options() {
  Options o;
  o.file_name = "spec.comp";
  return o;
}

TEST(SpecConstant, Defaults) { run_spec(spec_options(), Values{}); }

TEST(SpecConstant, GivenValues) {
  Options o = spec_options();
  o.specializations = {{1, "-4"}, {2, "0x1f"}, {3, "true"}, {4, "0.25"}, {7, "32"}};
  run_spec(o, Values{-4, 31, true, 0.25f, 32});
  o.specializations = {{1, "9"}, {7, "16"}};
  run_spec(o, Values{9, 10, false, 1.5f, 16});
}

// Raw bits as glSpecializeShader passes them: a bool is nonzero, a float
// its IEEE bits; a text value for the same SpecId gives way to them.
TEST(SpecConstant, GivenBits) {
  Options o = spec_options();
  o.specializations = {{1, "5"}};
  o.specialization_bits = {{1, 0xFFFFFFFDu}, {3, 2}, {4, 0x3E800000u}, {7, 8}};
  run_spec(o, Values{-3, 10, true, 0.25f, 8});
}

TEST(SpecConstant, UnknownIdAndBadValue) {
  Options o = spec_options();
  o.specializations = {{5, "1"}};
  auto s = compile_glsl(kSpecKernel, o);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.error().message().find("SpecId 5"), std::string::npos) << s.error().message();
  o.specializations = {{1, "seven"}};
  s = compile_glsl(kSpecKernel, o);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.error().message().find("seven"), std::string::npos) << s.error().message();
  o.specializations = {{2, "-1"}};  // an unsigned constant
  EXPECT_FALSE(compile_glsl(kSpecKernel, o).ok());
  o.specializations = {{1, "0x80000000"}};  // beyond int32
  EXPECT_FALSE(compile_glsl(kSpecKernel, o).ok());
  o.specializations = {{3, "maybe"}};
  EXPECT_FALSE(compile_glsl(kSpecKernel, o).ok());
  o.specializations = {{3, "1"}, {4, "2.5e1"}};
  EXPECT_TRUE(compile_glsl(kSpecKernel, o).ok());
}

// What SPIRV-Tools' fold pass leaves (64-bit arithmetic, conversions,
// comparisons) is folded by spirv_spec_fold.cpp.
TEST(SpecConstant, Int64Expressions) {
  const char* src = R"(#version 450
#extension GL_ARB_gpu_shader_int64 : require
layout(local_size_x = 32) in;
layout(constant_id = 1) const int X = 3;
const int64_t L = int64_t(X) * 5l - (int64_t(X) << 33);
const uint64_t U = uint64_t(X) % 7ul;
const bool B = L < 0l;
const int64_t D = L / -3l + (L % 10l);
layout(set = 0, binding = 0) buffer O { int64_t v[]; };
void main() { v[gl_GlobalInvocationID.x * 2u] = L + int64_t(U) + (B ? 100l : 0l); v[gl_GlobalInvocationID.x * 2u + 1u] = D; }
)";
  for (int32_t x : {3, -7, 1000000}) {
    Options o = spec_options();
    o.specializations = {{1, std::to_string(x)}};
    auto s = compile_glsl(src, o);
    ASSERT_TRUE(s.ok()) << s.error().message();
    Job r;
    r.buffers = {std::vector<uint32_t>(128)};
    ASSERT_OK(execute(*s, r));
    int64_t l = int64_t{x} * 5 - static_cast<int64_t>(static_cast<uint64_t>(int64_t{x}) << 33);
    uint64_t u = static_cast<uint64_t>(int64_t{x}) % 7u;
    int64_t want = l + static_cast<int64_t>(u) + (l < 0 ? 100 : 0);
    int64_t m = l % 10;  // glslang's % is OpSMod: the divisor's sign
    if (m < 0) m += 10;
    int64_t d = l / -3 + m;  // OpSDiv: C's truncation
    for (uint32_t i = 0; i < 32; ++i) {
      int64_t got, got_d;
      std::memcpy(&got, &r.buffers[0][i * 4], 8);
      std::memcpy(&got_d, &r.buffers[0][i * 4 + 2], 8);
      EXPECT_EQ(got, want) << x;
      EXPECT_EQ(got_d, d) << x;
    }
  }
}

// An expression whose value SPIR-V leaves undefined (a 64-bit division by
// zero: OpSDiv, opcode 135) is refused naming the opcode.
TEST(SpecConstant, UndefinedExpressionIsRefused) {
  auto s = compile_glsl(R"(#version 450
#extension GL_ARB_gpu_shader_int64 : require
layout(local_size_x = 32) in;
layout(constant_id = 1) const int X = 3;
const int64_t Q = int64_t(X) / int64_t(X - 3);
layout(set = 0, binding = 0) buffer O { int64_t v[]; };
void main() { v[gl_GlobalInvocationID.x] = Q; }
)", spec_options());
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.error().message().find("OpSpecConstantOp with opcode 135"), std::string::npos) << s.error().message();
}

}  // namespace
}  // namespace agx::compiler::test
