// Subgroup forms valid SPIR-V allows that once were refused: 64-bit
// integer multiply reductions and scans (reduce, inclusive, exclusive,
// clustered; signed and unsigned), and allEqual on vectors (uint, float,
// bool and 64-bit components), on divergent SIMD groups (a random half of
// the lanes active), against a C++ model over the active lanes.
#include <cstring>
#include <random>

#include "compiler/tests/run_helpers.h"

namespace agx::compiler::test {
namespace AGX_UNITY_ID {

constexpr uint32_t kThreads = 128, kOuts64 = 5, kVotes = 5;

TEST(SubgroupGaps, Int64MulAndVectorVotes) {
  Shader s = must_compile(R"(#version 450
#extension GL_ARB_gpu_shader_int64 : require
#extension GL_EXT_shader_subgroup_extended_types_int64 : require
#extension GL_KHR_shader_subgroup_arithmetic : require
#extension GL_KHR_shader_subgroup_clustered : require
#extension GL_KHR_shader_subgroup_vote : require
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) buffer A { uint a[]; };
layout(set = 0, binding = 1) buffer S { uint sel[]; };
layout(set = 0, binding = 2) buffer O { uint64_t o[]; };
layout(set = 0, binding = 3) buffer V { uint v[]; };
void main() {
  uint i = gl_GlobalInvocationID.x;
  if (sel[i] != 0u) {
    uint64_t x = uint64_t(a[i]) * 0x100000001ul + 3ul;
    int64_t y = -int64_t(a[i] % 7u) - 1l;
    o[i * 5u + 0u] = subgroupMul(x);
    o[i * 5u + 1u] = subgroupInclusiveMul(x);
    o[i * 5u + 2u] = subgroupExclusiveMul(x);
    o[i * 5u + 3u] = subgroupClusteredMul(x, 4u);
    o[i * 5u + 4u] = uint64_t(subgroupInclusiveMul(y));
    v[i * 5u + 0u] = subgroupAllEqual(uvec2(a[i] / 1000u, 7u)) ? 1u : 2u;
    v[i * 5u + 1u] = subgroupAllEqual(uvec3(5u, a[i] % 3u, sel[i] % 2u)) ? 1u : 2u;
    v[i * 5u + 2u] = subgroupAllEqual(vec2(float(a[i] % 5u) * 0.5, 1.0)) ? 1u : 2u;
    v[i * 5u + 3u] = subgroupAllEqual(bvec2(a[i] > 500u, a[i] < 20u)) ? 1u : 2u;
    v[i * 5u + 4u] = subgroupAllEqual(u64vec2(1ul, x)) ? 1u : 2u;
  }
})");
  ASSERT_FALSE(s.code.empty());
  std::mt19937 rng(5);
  std::vector<uint32_t> a(kThreads), sel(kThreads);
  for (uint32_t i = 0; i < kThreads; ++i) {
    uint32_t g = i / 32;
    // SIMD groups 0 and 2 hold one value (the votes hold), 1 and 3 mixed.
    a[i] = g % 2 == 0 ? 600 + g : rng() % 1000;
    sel[i] = rng() % 2 ? 1 + rng() % 9 : 0;
  }
  sel[32 + 5] = 2;  // every group has active lanes
  Job r;
  r.buffers = {a, sel, std::vector<uint32_t>(kThreads * kOuts64 * 2, 0xdeadbeefu), std::vector<uint32_t>(kThreads * kVotes)};
  r.groups = {kThreads / 64, 1, 1};
  ASSERT_OK(execute(s, r));
  auto x_of = [&](uint32_t i) { return uint64_t(a[i]) * 0x100000001ull + 3; };
  auto y_of = [&](uint32_t i) { return uint64_t(-int64_t(a[i] % 7) - 1); };
  for (uint32_t i = 0; i < kThreads; ++i) {
    uint32_t base = i & ~31u;
    auto o = [&](uint32_t k) {
      uint64_t v;
      std::memcpy(&v, &r.buffers[2][(i * kOuts64 + k) * 2], 8);
      return v;
    };
    if (!sel[i]) {
      EXPECT_EQ(o(0), 0xdeadbeefdeadbeefull) << i;
      EXPECT_EQ(r.buffers[3][i * kVotes], 0u) << i;
      continue;
    }
    uint64_t red = 1, inc = 1, exc = 1, clu = 1, yinc = 1;
    bool eq[kVotes] = {true, true, true, true, true};
    uint32_t first = 0;
    for (uint32_t j = base; j < base + 32; ++j) {
      if (!sel[j]) continue;
      if (!first) first = j + 1;
      uint32_t f = first - 1;
      red *= x_of(j);
      if (j <= i) inc *= x_of(j), yinc *= y_of(j);
      if (j < i) exc *= x_of(j);
      if ((j & ~3u) == (i & ~3u)) clu *= x_of(j);
      eq[0] = eq[0] && a[j] / 1000 == a[f] / 1000;
      eq[1] = eq[1] && a[j] % 3 == a[f] % 3 && sel[j] % 2 == sel[f] % 2;
      eq[2] = eq[2] && a[j] % 5 == a[f] % 5;
      eq[3] = eq[3] && (a[j] > 500) == (a[f] > 500) && (a[j] < 20) == (a[f] < 20);
      eq[4] = eq[4] && x_of(j) == x_of(f);
    }
    EXPECT_EQ(o(0), red) << i;
    EXPECT_EQ(o(1), inc) << i;
    EXPECT_EQ(o(2), exc) << i;
    EXPECT_EQ(o(3), clu) << i;
    EXPECT_EQ(o(4), yinc) << i;
    for (uint32_t k = 0; k < kVotes; ++k) EXPECT_EQ(r.buffers[3][i * kVotes + k], eq[k] ? 1u : 2u) << i << " vote " << k;
  }
}

}  // namespace
}  // namespace agx::compiler::test
