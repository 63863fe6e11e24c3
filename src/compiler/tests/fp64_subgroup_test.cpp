// Subgroup operations and votes on doubles and 64-bit integers: lane moves
// (broadcast, xor shuffle), allEqual comparing both 32-bit halves, and
// double min / max / add reductions and scans as the lane-order fold of
// the fp64 sequences, against a C++ model of the active lanes, bit for
// bit. Two SIMD groups: every lane active, then only some.
#include <bit>
#include <cmath>
#include <random>

#include "compiler/tests/buffer_words.h"
#include "compiler/tests/run_helpers.h"

namespace agx::compiler::test {
namespace AGX_UNITY_ID {

uint64_t bits(double d) { return std::bit_cast<uint64_t>(d); }
double dbl(uint64_t b) { return std::bit_cast<double>(b); }

TEST(Fp64Subgroup, LaneMovesVotesAndReductions) {
  Shader s = must_compile(R"(#version 450
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_vote : require
#extension GL_KHR_shader_subgroup_ballot : require
#extension GL_KHR_shader_subgroup_shuffle : require
#extension GL_KHR_shader_subgroup_arithmetic : require
#extension GL_ARB_gpu_shader_int64 : require
#extension GL_EXT_shader_subgroup_extended_types_int64 : require
layout(local_size_x = 64) in;
layout(std430, binding = 0) buffer X { double x[]; };
layout(std430, binding = 1) buffer S { uint sel[]; };
layout(std430, binding = 2) buffer O { double o[]; };
layout(std430, binding = 3) buffer E { uint e[]; };
void main() {
  uint i = gl_LocalInvocationIndex;
  double v = x[i];
  if (sel[i] != 0u) {
    o[i * 5u] = subgroupBroadcast(v, 7u);
    o[i * 5u + 1u] = subgroupShuffleXor(v, 1u);
    o[i * 5u + 2u] = subgroupMin(v);
    o[i * 5u + 3u] = subgroupInclusiveMax(v);
    o[i * 5u + 4u] = subgroupAdd(v);
    double first = x[i & ~31u];                                  // the same in every lane of a group
    double low = packDouble2x32(uvec2(i, 0x3ff00000u));         // halves differ in the low word only
    int64_t high = int64_t(i & 1u) << 32;                        // ... in the high word only
    e[i] = uint(subgroupAllEqual(v)) | uint(subgroupAllEqual(first)) << 1 | uint(subgroupAllEqual(low)) << 2 |
           uint(subgroupAllEqual(high)) << 3 | uint(subgroupAllEqual(int64_t(sel[i] != 0u))) << 4;
  }
})");
  ASSERT_FALSE(s.code.empty());
  std::mt19937_64 rng(3);
  std::vector<double> x(64);
  for (double& d : x) d = dbl((rng() & 0x800FFFFFFFFFFFFFull) | uint64_t(1023 - 20 + rng() % 40) << 52);
  x[3] = -0.0;
  x[4] = 0.0;
  x[40] = x[41] = -INFINITY;
  for (int pattern = 0; pattern < 2; ++pattern) {
    std::vector<uint32_t> sel(64);
    for (uint32_t i = 0; i < 64; ++i) sel[i] = pattern == 0 || i % 32 == 7 || (i % 3 != 0 && i % 5 != 1);
    std::vector<uint64_t> xb;
    for (double d : x) xb.push_back(bits(d));
    Job r;
    r.buffers = {words(xb), sel, std::vector<uint32_t>(64 * 5 * 2, 0xdeadbeefu), std::vector<uint32_t>(64, 0xdeadbeefu)};
    ASSERT_OK(execute(s, r));
    for (uint32_t i = 0; i < 64; ++i) {
      SCOPED_TRACE(testing::Message() << "pattern " << pattern << " invocation " << i);
      const uint32_t g = i & ~31u;
      if (!sel[i]) {
        EXPECT_EQ(r.buffers[3][i], 0xdeadbeefu);
        continue;
      }
      double mn = HUGE_VAL, mx = -HUGE_VAL, sum = -0.0;
      bool all_v = true, all_low = true, all_high = true;
      for (uint32_t l = g; l < g + 32; ++l) {
        if (!sel[l]) continue;
        mn = x[l] < mn ? x[l] : mn;
        if (l <= i) mx = mx < x[l] ? x[l] : mx;
        sum = sum + x[l];
        all_v &= bits(x[l]) == bits(x[i]);
        all_low &= l == i;
        all_high &= (l & 1) == (i & 1);
      }
      const auto& o = r.buffers[2];
      EXPECT_EQ(at(o, i * 5), bits(x[g + 7]));
      if (sel[i ^ 1]) {  // an inactive partner is undefined
        EXPECT_EQ(at(o, i * 5 + 1), bits(x[i ^ 1]));
      }
      EXPECT_EQ(at(o, i * 5 + 2), bits(mn));
      EXPECT_EQ(at(o, i * 5 + 3), bits(mx));
      EXPECT_EQ(at(o, i * 5 + 4), bits(sum));
      EXPECT_EQ(r.buffers[3][i], uint32_t(all_v) | 1u << 1 | uint32_t(all_low) << 2 | uint32_t(all_high) << 3 | 1u << 4);
    }
  }
}

}  // namespace
}  // namespace agx::compiler::test
