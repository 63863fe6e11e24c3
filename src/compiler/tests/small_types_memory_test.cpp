// 8/16-bit types in memory as whole values: struct/array loads, stores and
// copies in buffers, shared memory and push constants; local variables
// that stay in memory; dynamically indexed push constants. Expected values
// computed here from the bytes put in (half arithmetic through half_ref.h).
#include <gtest/gtest.h>

#include <cstring>
#include <random>

#include "compiler/tests/half_ref.h"
#include "compiler/tests/run_helpers.h"

namespace agx::compiler::test {
namespace AGX_UNITY_ID {

std::vector<uint32_t> words_of(const std::vector<uint8_t>& b) {
  std::vector<uint32_t> w((b.size() + 3) / 4);
  std::memcpy(w.data(), b.data(), b.size());
  return w;
}
std::vector<uint8_t> bytes_of(const std::vector<uint32_t>& w) {
  std::vector<uint8_t> b(w.size() * 4);
  std::memcpy(b.data(), w.data(), b.size());
  return b;
}
uint16_t u16(const uint8_t* p) { return static_cast<uint16_t>(p[0] | p[1] << 8); }

// std430 S: a 0, h 2, v 4..6, d 8..13, e 16..23, f 24..29, g 30; padding
// at 1, 7, 14..15, 31.
constexpr const char* kStruct =
    "struct S { int8_t a; float16_t h; u8vec3 v; i16vec3 d; f16vec4 e; uint16_t f[3]; int8_t g; };\n";
constexpr size_t kSize_B = 32;
constexpr size_t kPadding[] = {1, 7, 14, 15, 31};

bool is_padding(size_t b) {
  for (size_t p : kPadding)
    if (b == p) return true;
  return false;
}

TEST(SmallTypesMemory, WholeStructsInBuffersSharedAndPushConstants) {
  Shader s = must_compile(std::string(R"(#version 450
#extension GL_EXT_shader_explicit_arithmetic_types : require
layout(local_size_x = 32) in;
)") + kStruct + R"(
layout(std430, set = 0, binding = 0) buffer In { S s_in[]; };
layout(std430, set = 0, binding = 1) buffer Out { S s_out[]; };
layout(std430, set = 0, binding = 2) buffer Out2 { S p_out[]; };
layout(push_constant) uniform P { S ps; } p;
shared S sh[32];
void main() {
  uint i = gl_GlobalInvocationID.x, l = gl_LocalInvocationIndex;
  S x = s_in[i];
  x.h = x.h * 2.0hf;
  x.a = x.a + int8_t(1);
  sh[l] = x;
  barrier();
  s_out[i] = sh[31u - l];
  p_out[i] = p.ps;
}
)");
  ASSERT_FALSE(s.code.empty());
  const size_t n = 32;
  std::vector<uint8_t> in(n * kSize_B), push(kSize_B);
  std::mt19937 rng(5);
  for (auto& byte : in) byte = static_cast<uint8_t>(rng());
  for (auto& byte : push) byte = static_cast<uint8_t>(rng());
  for (size_t i = 0; i < n; ++i) in[i * kSize_B + 3] &= 0x3F;  // h finite, so h * 2 is too
  Job r;
  r.buffers = {words_of(in), std::vector<uint32_t>(n * kSize_B / 4, 0xEEEEEEEEu), std::vector<uint32_t>(n * kSize_B / 4, 0xDDDDDDDDu)};
  r.push = words_of(push);
  ASSERT_OK(execute(s, r));
  auto out = bytes_of(r.buffers[1]), pout = bytes_of(r.buffers[2]);
  for (size_t i = 0; i < n; ++i) {
    const uint8_t* x = &in[(n - 1 - i) * kSize_B];
    const uint8_t* o = &out[i * kSize_B];
    for (size_t b = 0; b < kSize_B; ++b) {
      if (is_padding(b)) {
        EXPECT_EQ(o[b], 0xEE) << "padding byte " << b;
        EXPECT_EQ(pout[i * kSize_B + b], 0xDD) << "padding byte " << b;
        continue;
      }
      EXPECT_EQ(pout[i * kSize_B + b], push[b]) << "push constant byte " << b;
      if (b == 0) {
        EXPECT_EQ(o[0], uint8_t(x[0] + 1));
      } else if (b == 2) {
        EXPECT_EQ(u16(o + 2), ref_half(ref_double(u16(x + 2)) * 2.0));
      } else if (b != 3) {
        EXPECT_EQ(o[b], x[b]) << "byte " << b << " of element " << i;
      }
    }
  }
}

TEST(SmallTypesMemory, Std140UniformStructArrayToBuffer) {
  // std140: T { uint8_t b; float16_t h; i16vec2 v; } arrays have a 16-byte
  // stride; copied whole into a std430 array (stride 8), padding untouched.
  Shader s = must_compile(R"(#version 450
#extension GL_EXT_shader_explicit_arithmetic_types : require
layout(local_size_x = 4) in;
struct T { uint8_t b; float16_t h; i16vec2 v; };
layout(std140, set = 0, binding = 0) uniform U { T t[4]; } u;
layout(std430, set = 0, binding = 1) buffer O { T o[4]; T all[4]; };
void main() {
  uint i = gl_LocalInvocationIndex;
  o[i] = u.t[3u - i];
  if (i == 0u) all = u.t;
}
)");
  ASSERT_FALSE(s.code.empty());
  std::vector<uint8_t> ub(64);
  std::mt19937 rng(9);
  for (auto& byte : ub) byte = static_cast<uint8_t>(rng());
  const size_t out = s.abi.resources[0].binding == 1 ? 0 : 1;
  Job r;
  r.buffers.resize(2);
  r.buffers[1 - out] = words_of(ub);
  r.buffers[out] = std::vector<uint32_t>(16, 0xEEEEEEEEu);
  ASSERT_OK(execute(s, r));
  auto o = bytes_of(r.buffers[out]);
  for (size_t i = 0; i < 8; ++i) {
    const uint8_t* x = &ub[(i < 4 ? 3 - i : i - 4) * 16];
    const uint8_t* y = &o[i * 8];
    EXPECT_EQ(y[0], x[0]);
    EXPECT_EQ(y[1], 0xEE) << "padding";
    for (size_t b = 2; b < 8; ++b) EXPECT_EQ(y[b], x[b]) << "element " << i << " byte " << b;
  }
}

TEST(SmallTypesMemory, LocalArraysIndexedAtRunTime) {
  Shader s = must_compile(R"(#version 450
#extension GL_EXT_shader_explicit_arithmetic_types : require
layout(local_size_x = 32) in;
struct T { int8_t b; float16_t f; u16vec2 v; };
layout(std430, set = 0, binding = 0) buffer In { int x[]; };
layout(std430, set = 0, binding = 1) buffer O { int o[]; };
void main() {
  uint i = gl_GlobalInvocationID.x;
  int16_t a[8];
  float16_t h[5];
  T t[4];
  uint8_t c[3];
  for (int k = 0; k < 8; ++k) a[k] = int16_t(x[i * 8u + uint(k)]);
  for (int k = 0; k < 5; ++k) h[k] = float16_t(x[i * 8u + uint(k)]) * 0.25hf;
  for (int k = 0; k < 4; ++k) t[k] = T(int8_t(x[i * 8u + uint(k)]), float16_t(k) + 0.5hf, u16vec2(x[i * 8u + uint(k)], k));
  for (int k = 0; k < 3; ++k) c[k] = uint8_t(x[i * 8u + uint(k) + 4u]);
  uint j = uint(x[i * 8u + 7u]) & 7u, m = j % 5u, q = j & 3u;
  a[j] = a[j] + int16_t(30000);
  h[m] = h[m] + 1.0hf;
  t[q].v.x = t[q].v.x * uint16_t(3);
  c[j % 3u] = c[j % 3u] + uint8_t(200);
  o[i * 8u + 0u] = int(a[j]);
  o[i * 8u + 1u] = int(a[7u - j]);
  o[i * 8u + 2u] = int(float16BitsToUint16(h[m]));
  o[i * 8u + 3u] = int(float16BitsToUint16(h[4u - m]));
  o[i * 8u + 4u] = int(t[q].b) * 65536 + int(t[q].v.x);
  o[i * 8u + 5u] = int(float16BitsToUint16(t[3u - q].f)) + int(t[3u - q].v.y) * 65536;
  o[i * 8u + 6u] = int(c[j % 3u]) + int(c[(j + 1u) % 3u]) * 256;
  o[i * 8u + 7u] = int(j);
}
)");
  ASSERT_FALSE(s.code.empty());
  const size_t n = 32;
  std::vector<uint32_t> x(n * 8);
  std::mt19937 rng(17);
  for (auto& v : x) v = static_cast<uint32_t>(static_cast<int32_t>(rng() % 100001) - 50000);
  Job r;
  r.buffers = {x, std::vector<uint32_t>(n * 8)};
  ASSERT_OK(execute(s, r));
  for (size_t i = 0; i < n; ++i) {
    const int32_t* in = reinterpret_cast<const int32_t*>(&x[i * 8]);
    const int32_t* o = reinterpret_cast<const int32_t*>(&r.buffers[1][i * 8]);
    int16_t a[8];
    uint16_t h[5];
    for (int k = 0; k < 8; ++k) a[k] = static_cast<int16_t>(in[k]);
    for (int k = 0; k < 5; ++k) h[k] = ref_half(ref_double(ref_half(static_cast<double>(in[k]))) * 0.25);
    uint8_t c[3];
    for (int k = 0; k < 3; ++k) c[k] = static_cast<uint8_t>(in[k + 4]);
    uint32_t j = static_cast<uint32_t>(in[7]) & 7u, m = j % 5u, q = j & 3u;
    a[j] = static_cast<int16_t>(a[j] + 30000);
    h[m] = ref_half(ref_double(h[m]) + 1.0);
    uint16_t tvx = static_cast<uint16_t>(static_cast<uint16_t>(in[q]) * 3);
    c[j % 3] = static_cast<uint8_t>(c[j % 3] + 200);
    EXPECT_EQ(o[0], a[j]);
    EXPECT_EQ(o[1], a[7 - j]);
    EXPECT_EQ(o[2], h[m]);
    EXPECT_EQ(o[3], h[4 - m]);
    EXPECT_EQ(o[4], int8_t(in[q]) * 65536 + tvx);
    EXPECT_EQ(o[5], ref_half(3.0 - q + 0.5) + static_cast<int32_t>(3 - q) * 65536);
    EXPECT_EQ(o[6], c[j % 3] + c[(j + 1) % 3] * 256);
  }
}

TEST(SmallTypesMemory, PushConstantsIndexedAtRunTime) {
  // std430 push constants: int8_t b[7] at 0, uint16_t w[5] at 8,
  // float16_t h[3] at 18, i16vec2 v[2] at 24.
  Shader s = must_compile(R"(#version 450
#extension GL_EXT_shader_explicit_arithmetic_types : require
layout(local_size_x = 32) in;
layout(push_constant) uniform P { int8_t b[7]; uint16_t w[5]; float16_t h[3]; i16vec2 v[2]; } p;
layout(std430, set = 0, binding = 0) buffer O { int o[]; };
void main() {
  uint i = gl_LocalInvocationIndex;
  o[i * 4u + 0u] = int(p.b[i % 7u]);
  o[i * 4u + 1u] = int(p.w[i % 5u]);
  o[i * 4u + 2u] = int(float16BitsToUint16(p.h[i % 3u] * 2.0hf));
  o[i * 4u + 3u] = int(p.v[i & 1u].x) * 65536 + int(uint16_t(p.v[i & 1u].y));
}
)");
  ASSERT_FALSE(s.code.empty());
  std::vector<uint8_t> pc(32);
  std::mt19937 rng(23);
  for (auto& byte : pc) byte = static_cast<uint8_t>(rng());
  for (int k = 0; k < 3; ++k) pc[18 + 2 * k + 1] &= 0x3F;
  Job r;
  r.push = words_of(pc);
  r.buffers = {std::vector<uint32_t>(32 * 4)};
  ASSERT_OK(execute(s, r));
  for (uint32_t i = 0; i < 32; ++i) {
    const int32_t* o = reinterpret_cast<const int32_t*>(&r.buffers[0][i * 4]);
    EXPECT_EQ(o[0], int8_t(pc[i % 7])) << i;
    EXPECT_EQ(o[1], u16(&pc[8 + 2 * (i % 5)])) << i;
    EXPECT_EQ(o[2], ref_half(ref_double(u16(&pc[18 + 2 * (i % 3)])) * 2.0)) << i;
    const uint8_t* v = &pc[24 + 4 * (i & 1)];
    EXPECT_EQ(o[3], int16_t(u16(v)) * 65536 + u16(v + 2)) << i;
  }
}

// Half arithmetic as SPIR-V's 16-bit OpFAdd/OpFMul: one rounding per step.
uint16_t hadd(uint16_t a, uint16_t b) { return ref_half(ref_double(a) + ref_double(b)); }
uint16_t hmul(uint16_t a, uint16_t b) { return ref_half(ref_double(a) * ref_double(b)); }

TEST(SmallTypesLanes, SubgroupOperationsAndTrinaryMinMax) {
  Shader s = must_compile(R"(#version 450
#extension GL_EXT_shader_explicit_arithmetic_types : require
#extension GL_KHR_shader_subgroup_arithmetic : require
#extension GL_KHR_shader_subgroup_clustered : require
#extension GL_KHR_shader_subgroup_shuffle : require
#extension GL_KHR_shader_subgroup_quad : require
#extension GL_KHR_shader_subgroup_ballot : require
#extension GL_KHR_shader_subgroup_vote : require
#extension GL_KHR_shader_subgroup_shuffle_relative : require
#extension GL_EXT_shader_subgroup_extended_types_float16 : require
#extension GL_EXT_shader_subgroup_extended_types_int16 : require
#extension GL_EXT_shader_subgroup_extended_types_int8 : require
#extension GL_AMD_shader_trinary_minmax : require
layout(local_size_x = 32) in;
layout(std430, set = 0, binding = 0) buffer H { float16_t h[32]; };
layout(std430, set = 0, binding = 1) buffer S { int16_t s[32]; };
layout(std430, set = 0, binding = 2) buffer B { int8_t b[32]; };
layout(std430, set = 0, binding = 3) buffer O { int o[]; };
void main() {
  uint l = gl_LocalInvocationIndex;
  float16_t x = h[l];
  int16_t y = s[l];
  int8_t z = b[l];
  uint k = l * 19u;
  o[k + 0u] = int(float16BitsToUint16(subgroupAdd(x)));
  o[k + 1u] = int(float16BitsToUint16(subgroupInclusiveAdd(x)));
  o[k + 2u] = int(float16BitsToUint16(subgroupClusteredMul(x, 4u)));
  o[k + 3u] = int(float16BitsToUint16(subgroupMin(x)));
  o[k + 4u] = int(subgroupAdd(y));
  o[k + 5u] = int(subgroupMin(y));
  o[k + 6u] = int(subgroupExclusiveMax(y));
  o[k + 7u] = int(subgroupExclusiveMin(z));
  o[k + 8u] = int(subgroupMul(uint16_t(y)));
  o[k + 9u] = int(subgroupShuffle(z, 31u - l));
  o[k + 10u] = int(float16BitsToUint16(subgroupBroadcast(x, 5u)));
  o[k + 11u] = int(float16BitsToUint16(subgroupQuadSwapHorizontal(x)));
  o[k + 12u] = int(subgroupShuffleXor(y, 3u));
  o[k + 13u] = int(subgroupInclusiveAdd(uint8_t(z)));
  o[k + 14u] = int(min3(y, int16_t(z), int16_t(-7))) * 65536 + int(max3(uint8_t(z), uint8_t(y), uint8_t(100)));
  o[k + 15u] = int(float16BitsToUint16(mid3(x, -x, float16_t(0.75))));
  o[k + 17u] = int(subgroupAllEqual(x)) + 2 * int(subgroupAllEqual(h[5])) + 4 * int(subgroupAllEqual(uint8_t(b[3])));
  o[k + 18u] = int(subgroupShuffleUp(z, 1u)) * 65536 + int(float16BitsToUint16(subgroupQuadBroadcast(x, 2u)));
  // Some lanes inactive: the lane-order fold, rounded per step too.
  if (l % 3u != 0u) o[k + 16u] = int(float16BitsToUint16(subgroupAdd(x))) + int(subgroupMax(z)) * 65536;
}
)");
  ASSERT_FALSE(s.code.empty());
  std::mt19937 rng(31);
  std::vector<uint16_t> h(32), sv(32);
  std::vector<uint8_t> bv(32);
  // Halves in [-4, 4) with random low bits, so sums and products round.
  for (auto& v : h) v = ref_half((static_cast<double>(rng() % 65536) / 8192.0) - 4.0);
  for (auto& v : sv) v = static_cast<uint16_t>(rng());
  for (auto& v : bv) v = static_cast<uint8_t>(rng());
  Job r;
  r.buffers = {pack16(h), pack16(sv), words_of(bv), std::vector<uint32_t>(32 * 19)};
  ASSERT_OK(execute(s, r));
  // References in the translation's order (SPIR-V leaves it open): the
  // butterfly for reductions (lane l combines with l ^ d, d = 1, 2, 4, ...),
  // Hillis-Steele for scans (lane l >= d takes x[l - d] op x[l]).
  auto butterfly = [](std::vector<uint16_t> v, uint32_t cluster, auto op) {
    for (uint32_t d = 1; d < cluster; d *= 2) {
      std::vector<uint16_t> n(32);
      for (uint32_t l = 0; l < 32; ++l) n[l] = op(v[l], v[l ^ d]);
      v = n;
    }
    return v;
  };
  auto scan = [](std::vector<uint16_t> v, auto op) {
    for (uint32_t d = 1; d < 32; d *= 2) {
      std::vector<uint16_t> n = v;
      for (uint32_t l = d; l < 32; ++l) n[l] = op(v[l - d], v[l]);
      v = n;
    }
    return v;
  };
  auto sum = butterfly(h, 32, hadd), prefix = scan(h, hadd), prod4 = butterfly(h, 4, hmul);
  double hmin = 1e9;
  int32_t ssum = 0, smin = 0x7FFF;
  uint16_t umul = 1;
  for (uint32_t l = 0; l < 32; ++l) {
    hmin = std::min(hmin, ref_double(h[l]));
    ssum += int16_t(sv[l]);
    smin = std::min<int32_t>(smin, int16_t(sv[l]));
    umul = static_cast<uint16_t>(uint32_t{umul} * sv[l]);  // in 32 bits: uint16 * uint16 promotes to int
  }
  for (uint32_t l = 0; l < 32; ++l) {
    const int32_t* o = reinterpret_cast<const int32_t*>(&r.buffers[3][l * 19]);
    SCOPED_TRACE(l);
    EXPECT_EQ(o[0], sum[l]);
    EXPECT_EQ(o[1], prefix[l]);
    EXPECT_EQ(o[2], prod4[l]);
    EXPECT_EQ(o[3], ref_half(hmin));
    EXPECT_EQ(o[4], int16_t(ssum));
    EXPECT_EQ(o[5], smin);
    int32_t emax = -32768, emin8 = 127, incl8 = 0;
    for (uint32_t m = 0; m < l; ++m) emax = std::max<int32_t>(emax, int16_t(sv[m]));
    for (uint32_t m = 0; m < l; ++m) emin8 = std::min<int32_t>(emin8, int8_t(bv[m]));
    for (uint32_t m = 0; m <= l; ++m) incl8 += bv[m];
    EXPECT_EQ(o[6], emax);
    EXPECT_EQ(o[7], emin8);
    EXPECT_EQ(o[8], umul);
    EXPECT_EQ(o[9], int8_t(bv[31 - l]));
    EXPECT_EQ(o[10], h[5]);
    EXPECT_EQ(o[11], h[l ^ 1]);
    EXPECT_EQ(o[12], int16_t(sv[l ^ 3]));
    EXPECT_EQ(o[13], uint8_t(incl8));
    int32_t mn = std::min({int32_t(int16_t(sv[l])), int32_t(int8_t(bv[l])), -7});
    int32_t mx = std::max({int32_t(bv[l]), int32_t(uint8_t(sv[l])), 100});
    EXPECT_EQ(o[14], mn * 65536 + mx);
    double a = ref_double(h[l]), c = 0.75, mid = std::max(std::min(std::max(a, -a), c), std::min(a, -a));
    EXPECT_EQ(o[15], ref_half(mid));
    EXPECT_EQ(o[17], 6);
    if (l > 0) {
      EXPECT_EQ(o[18], int8_t(bv[l - 1]) * 65536 + h[(l & ~3u) | 2]);
    }
    if (l % 3 == 0) {
      EXPECT_EQ(o[16], 0);
      continue;
    }
    uint16_t lane_sum = 0;  // +0, then lanes 1, 2, 4, 5, ... in order
    int32_t max8 = -128;
    for (uint32_t m = 0; m < 32; ++m)
      if (m % 3 != 0) {
        lane_sum = hadd(lane_sum, h[m]);
        max8 = std::max<int32_t>(max8, int8_t(bv[m]));
      }
    EXPECT_EQ(o[16], lane_sum + max8 * 65536);
  }
}

TEST(SmallTypesLanes, HalfDerivativesAreRefusedBySpirvValidation) {
  // glslang emits OpDPdx on halves; SPIR-V's validator (Vulkan) requires a
  // 32-bit result: a clear error, never a wrong value.
  auto s = compile(R"(#version 450
#extension GL_EXT_shader_explicit_arithmetic_types : require
#extension GL_NV_compute_shader_derivatives : require
layout(local_size_x = 8, local_size_y = 4) in;
layout(derivative_group_quadsNV) in;
layout(std430, set = 0, binding = 0) buffer H { float16_t h[32]; };
void main() { uint l = gl_LocalInvocationIndex; h[l] = dFdxFine(h[l]); }
)");
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.error().message().find("width must be 32 bits"), std::string::npos) << s.error().message();
}

TEST(SmallTypesMatrices, F16MatrixArithmeticAndLayouts) {
  // std430: f16mat3 columns 8 bytes apart (padding at 6, 14, 22), array
  // stride 24; row-major f16mat2x3 rows of 2 halves (MatrixStride 4),
  // stride 12; row-major f16mat3x2 rows of 3 halves (MatrixStride 8).
  Shader s = must_compile(R"(#version 450
#extension GL_EXT_shader_explicit_arithmetic_types : require
layout(local_size_x = 32) in;
layout(std430, set = 0, binding = 0) buffer A { f16mat3 a[]; };
layout(std430, set = 0, binding = 1) buffer R { layout(row_major) f16mat2x3 r[]; };
layout(std430, set = 0, binding = 2) buffer V { f16vec3 v[]; };
layout(std430, set = 0, binding = 3) buffer O { f16mat3 om[]; };
layout(std430, set = 0, binding = 4) buffer F { float16_t f[]; };
layout(std430, set = 0, binding = 5) buffer T { layout(row_major) f16mat3x2 rt[]; };
layout(push_constant) uniform P { f16mat2 pm; } p;
shared f16mat3 sm[32];
void main() {
  uint i = gl_LocalInvocationIndex;
  f16mat3 m = a[i];
  sm[i] = m;
  barrier();
  om[i] = m * sm[31u - i];
  f16vec3 x = v[i];
  f16vec3 mv = m * x, vm = x * m, rv = r[i] * x.xy;
  f16vec2 pv = p.pm * x.yz;
  f16mat2x3 op = outerProduct(x, x.zy);
  f16mat3 ms = m * x.x;
  for (int k = 0; k < 3; ++k) { f[i * 24u + uint(k)] = mv[k]; f[i * 24u + 3u + uint(k)] = vm[k]; f[i * 24u + 6u + uint(k)] = rv[k]; }
  f[i * 24u + 9u] = pv.x; f[i * 24u + 10u] = pv.y;
  for (int c = 0; c < 2; ++c) for (int k = 0; k < 3; ++k) f[i * 24u + 11u + uint(c * 3 + k)] = op[c][k];
  for (int k = 0; k < 3; ++k) f[i * 24u + 17u + uint(k)] = ms[k][(k + 1) % 3];
  f[i * 24u + 20u] = r[i][1][2];
  rt[i] = transpose(r[i]);
}
)");
  ASSERT_FALSE(s.code.empty());
  const uint32_t n = 32;
  std::mt19937 rng(41);
  auto rand_half = [&] { return ref_half(static_cast<double>(rng() % 40001) / 10000.0 - 2.0); };
  std::vector<uint8_t> ab(n * 24, 0x77), rb(n * 12), vb(n * 8, 0x55), pc(8);
  for (uint32_t i = 0; i < n; ++i) {
    for (int c = 0; c < 3; ++c)
      for (int k = 0; k < 3; ++k) { uint16_t h = rand_half(); std::memcpy(&ab[i * 24 + c * 8 + k * 2], &h, 2); }
    for (int k = 0; k < 6; ++k) { uint16_t h = rand_half(); std::memcpy(&rb[i * 12 + k * 2], &h, 2); }
    for (int k = 0; k < 3; ++k) { uint16_t h = rand_half(); std::memcpy(&vb[i * 8 + k * 2], &h, 2); }
  }
  for (int k = 0; k < 4; ++k) { uint16_t h = rand_half(); std::memcpy(&pc[k * 2], &h, 2); }
  Job r;
  r.buffers = {words_of(ab), words_of(rb), words_of(vb), std::vector<uint32_t>(n * 6, 0xEEEEEEEEu),
               std::vector<uint32_t>(n * 12), std::vector<uint32_t>(n * 4, 0xDDDDDDDDu)};
  r.push = words_of(pc);
  ASSERT_OK(execute(s, r));
  auto om = bytes_of(r.buffers[3]), rt = bytes_of(r.buffers[5]);
  // Column c, row k of each input (half bits).
  auto A = [&](uint32_t i, int c, int k) { return u16(&ab[i * 24 + c * 8 + k * 2]); };
  auto Rm = [&](uint32_t i, int c, int k) { return u16(&rb[i * 12 + k * 4 + c * 2]); };  // row-major 2 cols x 3 rows
  auto V = [&](uint32_t i, int k) { return u16(&vb[i * 8 + k * 2]); };
  auto P = [&](int c, int k) { return u16(&pc[c * 4 + k * 2]); };
  // dot as the translation orders it: x0 y0, then + x_j y_j, every product
  // and sum rounded to half.
  auto dot = [](const std::vector<uint16_t>& x, const std::vector<uint16_t>& y) {
    uint16_t acc = hmul(x[0], y[0]);
    for (size_t j = 1; j < x.size(); ++j) acc = hadd(acc, hmul(x[j], y[j]));
    return acc;
  };
  for (uint32_t i = 0; i < n; ++i) {
    SCOPED_TRACE(i);
    const uint32_t o = 31 - i;
    for (int c = 0; c < 3; ++c) {
      for (int k = 0; k < 3; ++k) {
        uint16_t want = dot({A(i, 0, k), A(i, 1, k), A(i, 2, k)}, {A(o, c, 0), A(o, c, 1), A(o, c, 2)});
        EXPECT_EQ(u16(&om[i * 24 + c * 8 + k * 2]), want) << "m * sm column " << c << " row " << k;
      }
      EXPECT_EQ(u16(&om[i * 24 + c * 8 + 6]), 0xEEEE) << "padding after column " << c;
    }
    std::vector<uint16_t> f(24);
    for (int k = 0; k < 24; ++k) f[k] = at16(r.buffers[4], i * 24 + k);
    for (int k = 0; k < 3; ++k) {
      EXPECT_EQ(f[k], dot({A(i, 0, k), A(i, 1, k), A(i, 2, k)}, {V(i, 0), V(i, 1), V(i, 2)})) << "m * x " << k;
      EXPECT_EQ(f[3 + k], dot({V(i, 0), V(i, 1), V(i, 2)}, {A(i, k, 0), A(i, k, 1), A(i, k, 2)})) << "x * m " << k;
      EXPECT_EQ(f[6 + k], dot({Rm(i, 0, k), Rm(i, 1, k)}, {V(i, 0), V(i, 1)})) << "r * x.xy " << k;
    }
    for (int k = 0; k < 2; ++k) EXPECT_EQ(f[9 + k], dot({P(0, k), P(1, k)}, {V(i, 1), V(i, 2)})) << "pm * x.yz " << k;
    for (int c = 0; c < 2; ++c)
      for (int k = 0; k < 3; ++k) EXPECT_EQ(f[11 + c * 3 + k], hmul(V(i, k), V(i, 2 - c))) << "outerProduct";
    for (int k = 0; k < 3; ++k) EXPECT_EQ(f[17 + k], hmul(A(i, k, (k + 1) % 3), V(i, 0))) << "m * x.x";
    EXPECT_EQ(f[20], Rm(i, 1, 2));
    // transpose(r) as a row-major f16mat3x2: row k (of 2) holds r's column k.
    for (int k = 0; k < 2; ++k) {
      for (int c = 0; c < 3; ++c) EXPECT_EQ(u16(&rt[i * 16 + k * 8 + c * 2]), Rm(i, k, c)) << "transpose row " << k;
      EXPECT_EQ(u16(&rt[i * 16 + k * 8 + 6]), 0xDDDD) << "padding";
    }
  }
}

TEST(SmallTypesMatrices, LocalPushAndStd140F16Matrices) {
  // Local f16mat2 array and columns picked at run time; push constant
  // f16mat2x3 (std430: columns 8 bytes apart) indexed at run time; std140
  // f16mat2 in a UBO (MatrixStride 16) copied whole into a std430 struct.
  Shader s = must_compile(R"(#version 450
#extension GL_EXT_shader_explicit_arithmetic_types : require
layout(local_size_x = 32) in;
struct M { float16_t t; f16mat2 m; };
layout(push_constant) uniform P { f16mat2x3 pm; } p;
layout(std140, set = 0, binding = 0) uniform U { M u; };
layout(std430, set = 0, binding = 1) buffer O { M o[]; };
layout(std430, set = 0, binding = 2) buffer F { float16_t f[]; };
void main() {
  uint i = gl_LocalInvocationIndex;
  f16mat2 loc[4];
  for (int k = 0; k < 4; ++k) loc[k] = f16mat2(float16_t(i), float16_t(k), float16_t(i + 1u), float16_t(0.5) * float16_t(k));
  uint j = i & 3u, c = (i >> 2) & 1u;
  loc[j][c] = loc[j][c] * float16_t(3.0);
  f16vec2 col = loc[3u - j][1u - c];
  f[i * 8u + 0u] = loc[j][c].x; f[i * 8u + 1u] = loc[j][c].y;
  f[i * 8u + 2u] = col.x; f[i * 8u + 3u] = col.y;
  f16vec3 pc = p.pm[c];
  f[i * 8u + 4u] = pc.x; f[i * 8u + 5u] = pc.y; f[i * 8u + 6u] = pc.z;
  f[i * 8u + 7u] = p.pm[1u - c][i % 3u];
  o[i] = u;
}
)");
  ASSERT_FALSE(s.code.empty());
  std::vector<uint8_t> pc(16), ub(48, 0);
  for (int k = 0; k < 6; ++k) {
    uint16_t h = ref_half(0.25 * (k + 1) - 1.0);
    std::memcpy(&pc[(k / 3) * 8 + (k % 3) * 2], &h, 2);
  }
  // std140 M: t at 0, m at 16 with columns 16 bytes apart.
  const uint16_t t = ref_half(-2.5), mv[4] = {ref_half(1.5), ref_half(-3.0), ref_half(0.125), ref_half(7.0)};
  std::memcpy(&ub[0], &t, 2);
  for (int k = 0; k < 4; ++k) std::memcpy(&ub[16 + (k / 2) * 16 + (k % 2) * 2], &mv[k], 2);
  Job r;
  r.push = words_of(pc);
  r.buffers.resize(3);
  for (size_t k = 0; k < 3; ++k) {
    uint32_t binding = s.abi.resources[k].binding;
    r.buffers[k] = binding == 0 ? words_of(ub) : binding == 1 ? std::vector<uint32_t>(32 * 3, 0xEEEEEEEEu) : std::vector<uint32_t>(32 * 4);
  }
  ASSERT_OK(execute(s, r));
  size_t ob = 0, fb = 0;
  for (size_t k = 0; k < 3; ++k) {
    if (s.abi.resources[k].binding == 1) ob = k;
    if (s.abi.resources[k].binding == 2) fb = k;
  }
  auto o = bytes_of(r.buffers[ob]);
  for (uint32_t i = 0; i < 32; ++i) {
    SCOPED_TRACE(i);
    uint16_t loc[4][2][2];
    for (uint32_t k = 0; k < 4; ++k) {
      loc[k][0][0] = ref_half(i);
      loc[k][0][1] = ref_half(k);
      loc[k][1][0] = ref_half(i + 1);
      loc[k][1][1] = hmul(ref_half(0.5), ref_half(k));
    }
    uint32_t j = i & 3, c = (i >> 2) & 1;
    for (int r2 = 0; r2 < 2; ++r2) loc[j][c][r2] = hmul(loc[j][c][r2], ref_half(3.0));
    EXPECT_EQ(at16(r.buffers[fb], i * 8 + 0), loc[j][c][0]);
    EXPECT_EQ(at16(r.buffers[fb], i * 8 + 1), loc[j][c][1]);
    EXPECT_EQ(at16(r.buffers[fb], i * 8 + 2), loc[3 - j][1 - c][0]);
    EXPECT_EQ(at16(r.buffers[fb], i * 8 + 3), loc[3 - j][1 - c][1]);
    for (int k = 0; k < 3; ++k) EXPECT_EQ(at16(r.buffers[fb], i * 8 + 4 + k), u16(&pc[c * 8 + k * 2]));
    EXPECT_EQ(at16(r.buffers[fb], i * 8 + 7), u16(&pc[(1 - c) * 8 + (i % 3) * 2]));
    // std430 M: t at 0, m at 4 (columns 4 bytes apart), size 12.
    const uint8_t* e = &o[i * 12];
    EXPECT_EQ(u16(e), t);
    EXPECT_EQ(u16(e + 2), 0xEEEE) << "padding";
    for (int k = 0; k < 4; ++k) EXPECT_EQ(u16(e + 4 + k * 2), mv[k]);
  }
}

}  // namespace
}  // namespace agx::compiler::test
