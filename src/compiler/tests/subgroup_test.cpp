// Subgroup operations (GL_KHR_shader_subgroup_*) run on the usc emulator
// against a C++ model of the SPIR-V rules: the subgroup is the 32-lane
// SIMD group, only active invocations contribute, reading an inactive
// invocation is undefined (not checked). Each kernel runs with every lane
// active (the log-step path), with only odd lanes, a random half, a single
// lane, and with workgroups of 80 and 44 (their last SIMD groups have 16
// and 12 lanes: all of those active is the log-step path too).
#include <algorithm>
#include <bit>
#include <functional>
#include <optional>
#include <random>

#include <fmt/format.h>

#include "compiler/tests/run_helpers.h"
#include "compiler/tests/mutation_rounds.h"

namespace agx::compiler::test {
namespace AGX_UNITY_ID {

constexpr uint32_t kSentinel = 0xdeadbeefu;

// One SIMD group as the model sees it.
struct Group {
  uint32_t x[32] = {};
  uint32_t sel[32] = {};
  uint32_t active = 0;       // lanes that run the body
  uint32_t id = 0;           // gl_SubgroupID
  uint32_t num = 0;          // gl_NumSubgroups
  bool on(uint32_t l) const { return l < 32 && (active >> l & 1); }
};
using Model = std::function<std::optional<uint32_t>(const Group&, uint32_t lane, uint32_t out)>;

enum class Pattern { all, odd, random, one };

// Runs `body` (writes o[i * outs + j], x = a[i], s = sel[i]) for lanes with
// sel[i] != 0, checks every active lane's outputs the model defines, and
// that inactive lanes wrote nothing.
void run_subgroup(const std::string& body, uint32_t outs, const Model& model, const std::string& decls = "") {
  for (uint32_t size : {64u, 80u, 44u}) {
    std::string src = R"(#version 450
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_vote : require
#extension GL_KHR_shader_subgroup_ballot : require
#extension GL_KHR_shader_subgroup_shuffle : require
#extension GL_KHR_shader_subgroup_shuffle_relative : require
#extension GL_KHR_shader_subgroup_arithmetic : require
#extension GL_KHR_shader_subgroup_clustered : require
#extension GL_KHR_shader_subgroup_quad : require
layout(local_size_x = )" + std::to_string(size) + R"() in;
layout(set = 0, binding = 0) buffer A { uint a[]; };
layout(set = 0, binding = 1) buffer S { uint sel[]; };
layout(set = 0, binding = 2) buffer O { uint o[]; };
)" + decls + R"(
void main() {
  uint i = gl_GlobalInvocationID.x;
  uint x = a[i];
  uint s = sel[i];
  if (s != 0u) {
)" + body + R"(
  }
}
)";
    Shader sh = must_compile(src);
    ASSERT_FALSE(sh.code.empty());
    std::vector<Pattern> patterns = size == 64 ? std::vector<Pattern>{Pattern::all, Pattern::odd, Pattern::random, Pattern::one}
                                               : std::vector<Pattern>{Pattern::all, Pattern::random};
    std::mt19937 rng(size);
    for (Pattern pat : patterns) {
      const uint32_t groups = 2, total = size * groups;
      std::vector<uint32_t> a(total), sel(total);
      for (uint32_t i = 0; i < total; ++i) {
        a[i] = rng() % 1000;
        uint32_t l = i % size;
        bool on = pat == Pattern::all || (pat == Pattern::odd && l % 2) || (pat == Pattern::random && rng() % 2) ||
                  (pat == Pattern::one && l % 32 == 7);
        sel[i] = on ? 1 + rng() % 40 : 0;
      }
      Job r;
      r.groups = {groups, 1, 1};
      r.buffers = {a, sel, std::vector<uint32_t>(total * outs, kSentinel)};
      ASSERT_OK(execute(sh, r));
      for (uint32_t wg = 0; wg < groups; ++wg) {
        for (uint32_t sg = 0; sg * 32 < size; ++sg) {
          Group g;
          g.id = sg;
          g.num = (size + 31) / 32;
          for (uint32_t l = 0; l < 32 && sg * 32 + l < size; ++l) {
            uint32_t i = wg * size + sg * 32 + l;
            g.x[l] = a[i];
            g.sel[l] = sel[i];
            if (sel[i]) g.active |= 1u << l;
          }
          for (uint32_t l = 0; l < 32 && sg * 32 + l < size; ++l) {
            uint32_t i = wg * size + sg * 32 + l;
            for (uint32_t j = 0; j < outs; ++j) {
              uint32_t got = r.buffers[2][i * outs + j];
              if (!g.on(l)) {
                EXPECT_EQ(got, kSentinel) << "inactive lane " << i << " output " << j;
                continue;
              }
              auto want = model(g, l, j);
              if (want) {
                EXPECT_EQ(got, *want) << "size " << size << " pattern " << int(pat) << " lane " << i << " output " << j;
              }
            }
          }
        }
      }
      if (::testing::Test::HasFailure()) return;
    }
  }
}

uint32_t lowest(uint32_t m) { return m ? std::countr_zero(m) : 0xffffffffu; }
uint32_t highest(uint32_t m) { return m ? 31 - std::countl_zero(m) : 0xffffffffu; }
uint32_t lt_mask(uint32_t l) { return (1u << l) - 1; }
uint32_t le_mask(uint32_t l) { return l == 31 ? 0xffffffffu : (2u << l) - 1; }

TEST(Subgroup, BuiltinsAndBallots) {
  const std::string body = R"(
    uint k = 0u;
    o[i * 20u + 0u] = gl_SubgroupSize;
    o[i * 20u + 1u] = gl_SubgroupInvocationID;
    o[i * 20u + 2u] = gl_NumSubgroups;
    o[i * 20u + 3u] = gl_SubgroupID;
    o[i * 20u + 4u] = gl_SubgroupEqMask.x | gl_SubgroupEqMask.y;
    o[i * 20u + 5u] = gl_SubgroupGeMask.x | gl_SubgroupGeMask.z;
    o[i * 20u + 6u] = gl_SubgroupGtMask.x | gl_SubgroupGtMask.w;
    o[i * 20u + 7u] = gl_SubgroupLeMask.x;
    o[i * 20u + 8u] = gl_SubgroupLtMask.x;
    o[i * 20u + 9u] = uint(subgroupElect());
    uvec4 b = subgroupBallot((x & 1u) != 0u);
    o[i * 20u + 10u] = b.x;
    o[i * 20u + 11u] = b.y | b.z | b.w;
    o[i * 20u + 12u] = uint(subgroupInverseBallot(uvec4(s * 0x9E3779B9u, 0u, 0u, 0u)));
    o[i * 20u + 13u] = uint(subgroupBallotBitExtract(uvec4(x * 0x9E3779B9u, 0u, 0u, 0u), s % 32u));
    o[i * 20u + 14u] = subgroupBallotBitCount(b);
    o[i * 20u + 15u] = subgroupBallotInclusiveBitCount(b);
    o[i * 20u + 16u] = subgroupBallotExclusiveBitCount(b);
    o[i * 20u + 17u] = subgroupBallotFindLSB(b);
    o[i * 20u + 18u] = subgroupBallotFindMSB(b);
    o[i * 20u + 19u] = uint(subgroupAll(x < 900u)) | uint(subgroupAny(x > 990u)) << 1 |
                       uint(subgroupAllEqual(min(s, 1u) * 77u)) << 2 | uint(subgroupAllEqual(x)) << 3;
)";
  run_subgroup(body, 20, [](const Group& g, uint32_t l, uint32_t j) -> std::optional<uint32_t> {
    uint32_t ballot = 0;
    bool all = true, any = false, x_equal = true;
    for (uint32_t k = 0; k < 32; ++k) {
      if (!g.on(k)) continue;
      x_equal &= g.x[k] == g.x[lowest(g.active)];
      if (g.x[k] & 1) ballot |= 1u << k;
      all &= g.x[k] < 900;
      any |= g.x[k] > 990;
    }
    switch (j) {
      case 0: return 32;
      case 1: return l;
      case 2: return g.num;
      case 3: return g.id;
      case 4: return 1u << l;
      case 5: return 0xffffffffu << l;
      case 6: return l == 31 ? 0 : 0xfffffffeu << l;
      case 7: return le_mask(l);
      case 8: return lt_mask(l);
      case 9: return l == lowest(g.active) ? 1 : 0;
      case 10: return ballot;
      case 11: return 0;
      case 12: return (g.sel[l] * 0x9E3779B9u) >> l & 1;
      case 13: return (g.x[l] * 0x9E3779B9u) >> (g.sel[l] % 32) & 1;
      case 14: return std::popcount(ballot);
      case 15: return std::popcount(ballot & le_mask(l));
      case 16: return std::popcount(ballot & lt_mask(l));
      case 17: return lowest(ballot);
      case 18: return highest(ballot);
      case 19: return uint32_t(all) | uint32_t(any) << 1 | 1u << 2 | uint32_t(x_equal) << 3;
    }
    return std::nullopt;
  });
}

TEST(Subgroup, BroadcastsAndShuffles) {
  const std::string body = R"(
    o[i * 14u + 0u] = subgroupBroadcast(x, 5u);
    o[i * 14u + 1u] = subgroupBroadcastFirst(x);
    o[i * 14u + 2u] = subgroupShuffle(x, s % 32u);
    o[i * 14u + 3u] = subgroupShuffleXor(x, 3u);
    o[i * 14u + 4u] = subgroupShuffleUp(x, 2u);
    o[i * 14u + 5u] = subgroupShuffleDown(x, 5u);
    o[i * 14u + 6u] = subgroupShuffleXor(x, s % 32u);
    o[i * 14u + 7u] = subgroupShuffleUp(x, s % 4u);
    o[i * 14u + 8u] = subgroupQuadBroadcast(x, 2u);
    o[i * 14u + 9u] = subgroupQuadSwapHorizontal(x);
    o[i * 14u + 10u] = subgroupQuadSwapVertical(x);
    o[i * 14u + 11u] = subgroupQuadSwapDiagonal(x);
    o[i * 14u + 12u] = floatBitsToUint(subgroupBroadcastFirst(vec2(float(x), -float(x))).y);
    o[i * 14u + 13u] = uint(subgroupShuffleXor(x > 500u, 1u));
)";
  run_subgroup(body, 14, [](const Group& g, uint32_t l, uint32_t j) -> std::optional<uint32_t> {
    auto read = [&](int64_t t) -> std::optional<uint32_t> {
      if (t < 0 || t >= 32 || !g.on(static_cast<uint32_t>(t))) return std::nullopt;  // undefined
      return g.x[t];
    };
    uint32_t s = g.sel[l];
    switch (j) {
      case 0: return read(5);
      case 1: return read(lowest(g.active));
      case 2: return read(s % 32);
      case 3: return read(l ^ 3);
      case 4: return read(int64_t{l} - 2);
      case 5: return read(l + 5);
      case 6: return read(l ^ (s % 32));
      case 7: return read(int64_t{l} - s % 4);
      case 8: return read((l & ~3u) | 2);
      case 9: return read(l ^ 1);
      case 10: return read(l ^ 2);
      case 11: return read(l ^ 3);
      case 12: return std::bit_cast<uint32_t>(-float(g.x[lowest(g.active)]));
      case 13: {
        auto v = read(l ^ 1);
        if (!v) return std::nullopt;
        return *v > 500 ? 1 : 0;
      }
    }
    return std::nullopt;
  });
}

// op over the active lanes k of l's group for which in(k) holds, in lane
// order from `init`.
template <typename T, typename F>
T fold(const Group& g, std::function<bool(uint32_t)> in, T init, std::function<T(uint32_t)> val, F op) {
  T acc = init;
  for (uint32_t k = 0; k < 32; ++k)
    if (g.on(k) && in(k)) acc = op(acc, val(k));
  return acc;
}

TEST(Subgroup, IntegerReductionsAndScans) {
  // Every operation as reduce, inclusive and exclusive scan.
  const char* ops[] = {"Add", "Mul", "Min", "Max", "And", "Or", "Xor"};
  std::string body = "    int v = int(x) - 500; uint u = x * 2654435761u;\n";
  uint32_t j = 0;
  for (const char* op : ops) {
    for (const char* form : {"", "Inclusive", "Exclusive"}) {
      body += fmt::format("    o[i * 27u + {}u] = uint(subgroup{}{}(v));\n", j++, form, op);
    }
  }
  for (const char* op : {"Min", "Max"})
    for (const char* form : {"", "Inclusive", "Exclusive"}) body += fmt::format("    o[i * 27u + {}u] = subgroup{}{}(u);\n", j++, form, op);
  ASSERT_EQ(j, 27u);
  run_subgroup(body, 27, [](const Group& g, uint32_t l, uint32_t out) -> std::optional<uint32_t> {
    uint32_t op = out / 3, form = out % 3;
    std::function<bool(uint32_t)> in = [&](uint32_t k) { return form == 0 || (form == 1 ? k <= l : k < l); };
    if (op < 7) {
      std::function<uint32_t(uint32_t)> v = [&](uint32_t k) { return g.x[k] - 500; };  // int as two's complement
      auto s = [](uint32_t a) { return static_cast<int32_t>(a); };
      switch (op) {
        case 0: return fold<uint32_t>(g, in, 0u, v, [](uint32_t a, uint32_t b) { return a + b; });
        case 1: return fold<uint32_t>(g, in, 1u, v, [](uint32_t a, uint32_t b) { return a * b; });
        case 2: return fold<uint32_t>(g, in, 0x7fffffffu, v, [&](uint32_t a, uint32_t b) { return s(b) < s(a) ? b : a; });
        case 3: return fold<uint32_t>(g, in, 0x80000000u, v, [&](uint32_t a, uint32_t b) { return s(b) > s(a) ? b : a; });
        case 4: return fold<uint32_t>(g, in, 0xffffffffu, v, [](uint32_t a, uint32_t b) { return a & b; });
        case 5: return fold<uint32_t>(g, in, 0u, v, [](uint32_t a, uint32_t b) { return a | b; });
        case 6: return fold<uint32_t>(g, in, 0u, v, [](uint32_t a, uint32_t b) { return a ^ b; });
      }
    }
    std::function<uint32_t(uint32_t)> u = [&](uint32_t k) { return g.x[k] * 2654435761u; };
    if (op == 7) return fold<uint32_t>(g, in, 0xffffffffu, u, [](uint32_t a, uint32_t b) { return std::min(a, b); });
    return fold<uint32_t>(g, in, 0u, u, [](uint32_t a, uint32_t b) { return std::max(a, b); });
  });
}

TEST(Subgroup, FloatReductionsAndScans) {
  // Integer-valued sums and power-of-two products are exact in any order.
  std::string body = "    float f = float(int(x % 17u) - 8); float p = (x % 4u == 0u) ? 0.5 : (x % 4u == 1u) ? -1.0 : (x % 4u == 2u) ? 2.0 : 1.0;\n";
  uint32_t j = 0;
  for (const char* op : {"Add", "Mul", "Min", "Max"})
    for (const char* form : {"", "Inclusive", "Exclusive"})
      body += fmt::format("    o[i * 12u + {}u] = floatBitsToUint(subgroup{}{}({}));\n", j++, form, op, op[1] == 'u' ? "p" : "f");
  run_subgroup(body, 12, [](const Group& g, uint32_t l, uint32_t out) -> std::optional<uint32_t> {
    uint32_t op = out / 3, form = out % 3;
    std::function<bool(uint32_t)> in = [&](uint32_t k) { return form == 0 || (form == 1 ? k <= l : k < l); };
    std::function<float(uint32_t)> f = [&](uint32_t k) { return float(int(g.x[k] % 17) - 8); };
    std::function<float(uint32_t)> p = [&](uint32_t k) {
      uint32_t m = g.x[k] % 4;
      return m == 0 ? 0.5f : m == 1 ? -1.0f : m == 2 ? 2.0f : 1.0f;
    };
    float r = 0;
    switch (op) {
      case 0: r = fold<float>(g, in, 0.0f, f, [](float a, float b) { return a + b; }); break;
      case 1: r = fold<float>(g, in, 1.0f, p, [](float a, float b) { return a * b; }); break;
      case 2: r = fold<float>(g, in, INFINITY, f, [](float a, float b) { return std::min(a, b); }); break;
      case 3: r = fold<float>(g, in, -INFINITY, f, [](float a, float b) { return std::max(a, b); }); break;
    }
    return std::bit_cast<uint32_t>(r);
  });
}

TEST(Subgroup, ClusteredAndBooleanReductions) {
  const std::string body = R"(
    int v = int(x) - 500;
    o[i * 10u + 0u] = uint(subgroupClusteredAdd(v, 4u));
    o[i * 10u + 1u] = uint(subgroupClusteredMax(v, 8u));
    o[i * 10u + 2u] = subgroupClusteredOr(x, 2u);
    o[i * 10u + 3u] = floatBitsToUint(subgroupClusteredAdd(float(x % 9u), 16u));
    o[i * 10u + 4u] = uint(subgroupClusteredMin(v, 32u));
    o[i * 10u + 5u] = uint(subgroupClusteredMul(v, 1u));
    o[i * 10u + 6u] = uint(subgroupAnd(x > 100u));
    o[i * 10u + 7u] = uint(subgroupOr(x > 900u));
    o[i * 10u + 8u] = uint(subgroupXor((x & 1u) != 0u));
    o[i * 10u + 9u] = uint(subgroupInclusiveXor((x & 1u) != 0u)) | uint(subgroupExclusiveAnd(x > 100u)) << 1;
)";
  run_subgroup(body, 10, [](const Group& g, uint32_t l, uint32_t out) -> std::optional<uint32_t> {
    auto cluster = [&](uint32_t c) -> std::function<bool(uint32_t)> { return [=](uint32_t k) { return k / c == l / c; }; };
    std::function<uint32_t(uint32_t)> v = [&](uint32_t k) { return g.x[k] - 500; };
    auto s = [](uint32_t a) { return static_cast<int32_t>(a); };
    auto pred = [&](std::function<bool(uint32_t)> in, std::function<bool(uint32_t)> p, int kind) {
      bool acc = kind == 0;
      for (uint32_t k = 0; k < 32; ++k)
        if (g.on(k) && in(k)) acc = kind == 0 ? acc && p(k) : kind == 1 ? acc || p(k) : acc != p(k);
      return uint32_t(acc);
    };
    std::function<bool(uint32_t)> all = [](uint32_t) { return true; };
    std::function<bool(uint32_t)> gt100 = [&](uint32_t k) { return g.x[k] > 100; };
    std::function<bool(uint32_t)> odd = [&](uint32_t k) { return (g.x[k] & 1) != 0; };
    switch (out) {
      case 0: return fold<uint32_t>(g, cluster(4), 0u, v, [](uint32_t a, uint32_t b) { return a + b; });
      case 1: return fold<uint32_t>(g, cluster(8), 0x80000000u, v, [&](uint32_t a, uint32_t b) { return s(b) > s(a) ? b : a; });
      case 2: {
        std::function<uint32_t(uint32_t)> xs = [&](uint32_t k) { return g.x[k]; };
        return fold<uint32_t>(g, cluster(2), 0u, xs, [](uint32_t a, uint32_t b) { return a | b; });
      }
      case 3: {
        std::function<float(uint32_t)> f = [&](uint32_t k) { return float(g.x[k] % 9); };
        return std::bit_cast<uint32_t>(fold<float>(g, cluster(16), 0.0f, f, [](float a, float b) { return a + b; }));
      }
      case 4: return fold<uint32_t>(g, cluster(32), 0x7fffffffu, v, [&](uint32_t a, uint32_t b) { return s(b) < s(a) ? b : a; });
      case 5: return v(l);
      case 6: return pred(all, gt100, 0);
      case 7: return pred(all, [&](uint32_t k) { return g.x[k] > 900; }, 1);
      case 8: return pred(all, odd, 2);
      case 9: return pred([&](uint32_t k) { return k <= l; }, odd, 2) | pred([&](uint32_t k) { return k < l; }, gt100, 0) << 1;
    }
    return std::nullopt;
  });
}

// simd_shuffle ORs the low two bits of B over each quad, inactive lanes
// included: an index computed under divergence is not trusted as B, since
// inactive lanes keep whatever their register held. Here registers hold
// values with low bits 1 and 2 in every lane before the branch; a
// broadcast of the first active lane and allEqual inside it stay exact.
TEST(Subgroup, ComputedIndicesIgnoreStaleRegistersOfInactiveLanes) {
  Shader sh = must_compile(R"(#version 450
#extension GL_KHR_shader_subgroup_ballot : require
#extension GL_KHR_shader_subgroup_vote : require
layout(local_size_x = 32) in;
layout(set = 0, binding = 0) buffer A { uint a[]; };
layout(set = 0, binding = 1) buffer O { uint o[]; };
void main() {
  uint i = gl_LocalInvocationIndex;
  uint x = a[i];
  uint j0 = x * 4u + 1u, j1 = x * 8u + 2u, j2 = x * 4u + 3u, j3 = x * 16u + 1u;
  o[64u + i] = j0 ^ j1 ^ j2 ^ j3;
  if (x % 5u == 2u) {
    o[i] = subgroupBroadcastFirst(x * 3u);
  }
  if (x % 5u == 2u) o[32u + i] = uint(subgroupAllEqual(x % 5u));
}
)");
  ASSERT_FALSE(sh.code.empty());
  std::vector<uint32_t> a(32);
  for (uint32_t i = 0; i < 32; ++i) a[i] = i % 3 == 0 ? 5 * i + 2 : 5 * i + 3;  // lanes 0, 3, 6, ... active
  Job r;
  r.buffers = {a, std::vector<uint32_t>(96, kSentinel)};
  ASSERT_OK(execute(sh, r));
  for (uint32_t i = 0; i < 32; ++i) {
    if (i % 3) continue;
    EXPECT_EQ(r.buffers[1][i], a[0] * 3) << i;
    EXPECT_EQ(r.buffers[1][32 + i], 1u) << i;
  }
}

// GL_ARB_shader_ballot (OpenGL): glslang emits OpSubgroupBallotKHR /
// ReadInvocationKHR / FirstInvocationKHR and 64-bit masks from the uvec4
// built-ins; lanes with i % 3 == 1 skip the branch.
TEST(Subgroup, ArbShaderBallot) {
  auto s = compile(R"(#version 450
#extension GL_ARB_shader_ballot : require
#extension GL_ARB_gpu_shader_int64 : require
layout(local_size_x = 64) in;
layout(std430, binding = 0) buffer O { uint o[]; };
void main() {
  uint i = gl_LocalInvocationIndex;
  if (i % 3u != 1u) {
    uint64_t b = ballotARB((i & 1u) != 0u);
    o[i * 8u + 0u] = uint(b);
    o[i * 8u + 1u] = uint(b >> 32);
    o[i * 8u + 2u] = readInvocationARB(i * 5u, 3u);
    o[i * 8u + 3u] = readFirstInvocationARB(i + 7u);
    o[i * 8u + 4u] = gl_SubGroupSizeARB;
    o[i * 8u + 5u] = gl_SubGroupInvocationARB;
    o[i * 8u + 6u] = uint(gl_SubGroupEqMaskARB) | uint(gl_SubGroupEqMaskARB >> 32);
    o[i * 8u + 7u] = uint(gl_SubGroupLtMaskARB) ^ uint(gl_SubGroupGeMaskARB >> 32);
  }
}
)", TargetEnv::opengl);
  ASSERT_TRUE(s.ok()) << s.error().message();
  Job r;
  r.buffers = {std::vector<uint32_t>(64 * 8, kSentinel)};
  ASSERT_OK(execute(*s, r));
  for (uint32_t i = 0; i < 64; ++i) {
    uint32_t l = i % 32, base = i - l;
    const uint32_t* o = &r.buffers[0][i * 8];
    if (i % 3 == 1) {
      for (uint32_t j = 0; j < 8; ++j) EXPECT_EQ(o[j], kSentinel);
      continue;
    }
    uint32_t ballot = 0, first = 32;
    for (uint32_t k = 0; k < 32; ++k) {
      if ((base + k) % 3 == 1) continue;
      if ((base + k) & 1) ballot |= 1u << k;
      first = std::min(first, k);
    }
    EXPECT_EQ(o[0], ballot) << i;
    EXPECT_EQ(o[1], 0u);
    if ((base + 3) % 3 != 1) {  // lane 3 active
      EXPECT_EQ(o[2], (base + 3) * 5) << i;
    }
    EXPECT_EQ(o[3], base + first + 7) << i;
    EXPECT_EQ(o[4], 32u);
    EXPECT_EQ(o[5], l);
    EXPECT_EQ(o[6], 1u << l);
    EXPECT_EQ(o[7], lt_mask(l)) << i;
  }
}

// Subgroup and whole-struct SPIR-V mutated (bit flips, replaced and
// dropped words, as robustness_test.cpp does): a Shader or an Error.
TEST(Subgroup, MutatedSubgroupAndStructModulesGiveShadersOrErrors) {
  static const char* kSources[] = {
      R"(#version 450
#extension GL_KHR_shader_subgroup_ballot : require
#extension GL_KHR_shader_subgroup_shuffle : require
#extension GL_KHR_shader_subgroup_arithmetic : require
#extension GL_KHR_shader_subgroup_clustered : require
#extension GL_KHR_shader_subgroup_quad : require
layout(local_size_x = 48) in;
layout(set = 0, binding = 0) buffer O { uint o[]; };
void main() {
  uint i = gl_LocalInvocationIndex;
  uint x = o[i];
  if ((x & 1u) != 0u) {
    uvec4 b = subgroupBallot(x > 7u);
    o[i] = subgroupInclusiveAdd(x) + subgroupBallotExclusiveBitCount(b) + uint(subgroupElect()) +
           subgroupShuffle(x, x % 32u) + subgroupClusteredMax(x, 4u) + subgroupQuadBroadcast(x, 1u) +
           gl_SubgroupLtMask.x + floatBitsToUint(subgroupExclusiveMul(float(x))) + uint(subgroupXor(x > 3u));
  }
}
)",
      R"(#version 450
layout(local_size_x = 2) in;
struct Inner { uvec2 u; float f; };
struct S { vec3 a; float b; mat2x3 m; int c[3]; Inner inner[2]; };
layout(std140, binding = 0) uniform In { S s[2]; };
layout(std430, row_major, binding = 1) buffer Out { S o[4]; uint arr[5]; uint arr2[5]; };
shared S sh[2];
void main() {
  uint i = gl_LocalInvocationIndex;
  o[i] = s[i];
  sh[i] = s[1u - i];
  barrier();
  o[2u + i] = sh[i];
  arr2 = arr;
}
)"};
  std::mt19937 rng(4242);
  size_t errors = 0;
  for (const char* src : kSources) {
    Options o;
    o.file_name = "test.comp";
    auto words = glsl_to_spirv(src, o);
    ASSERT_TRUE(words.ok()) << words.error().message();
    auto opt = optimize_spirv(*words, o);
    ASSERT_TRUE(opt.ok()) << opt.error().message();
    ASSERT_TRUE(compile_spirv(*opt, o).ok());
    errors += mutation_rounds(*opt, o, 60, rng).errors;
  }
  EXPECT_GT(errors, 0u);
}

// 64-bit integers (GL_EXT_shader_subgroup_extended_types_int64): lane
// moves and bitwise reductions run on each 32-bit half, add/min/max fold
// the pairs in lane order (carries across the halves); multiply names
// what is missing. Lane 3 of every quad is inactive.
TEST(Subgroup, SixtyFourBitIntegers) {
  auto s = compile(R"(#version 450
#extension GL_KHR_shader_subgroup_shuffle : require
#extension GL_KHR_shader_subgroup_arithmetic : require
#extension GL_KHR_shader_subgroup_ballot : require
#extension GL_KHR_shader_subgroup_clustered : require
#extension GL_EXT_shader_subgroup_extended_types_int64 : require
#extension GL_ARB_gpu_shader_int64 : require
layout(local_size_x = 32) in;
layout(set = 0, binding = 0) buffer A { uint64_t a[]; };
layout(set = 0, binding = 1) buffer O { uint64_t o[]; };
void main() {
  uint i = gl_LocalInvocationIndex;
  uint64_t x = a[i];
  if (i % 4u != 3u) {
    o[i * 4u + 0u] = subgroupShuffleXor(x, 1u);
    o[i * 4u + 1u] = subgroupOr(x);
    o[i * 4u + 2u] = subgroupInclusiveXor(x);
    o[i * 4u + 3u] = subgroupBroadcast(x, 9u);
    o[128u + i * 4u + 0u] = subgroupAdd(x);
    o[128u + i * 4u + 1u] = subgroupExclusiveAdd(x);
    o[128u + i * 4u + 2u] = uint64_t(subgroupInclusiveMin(int64_t(x)));
    o[128u + i * 4u + 3u] = subgroupClusteredMax(x, 8u);
  }
}
)");
  ASSERT_TRUE(s.ok()) << s.error().message();
  std::vector<uint32_t> a(64);
  std::mt19937 rng(64);
  for (auto& v : a) v = rng();
  Job r;
  r.buffers = {a, std::vector<uint32_t>(2 * 32 * 4 * 2, kSentinel)};
  ASSERT_OK(execute(*s, r));
  auto x = [&](uint32_t l) { return uint64_t{a[2 * l]} | uint64_t{a[2 * l + 1]} << 32; };
  auto got = [&](uint32_t l, uint32_t j) {
    return uint64_t{r.buffers[1][(l * 4 + j) * 2]} | uint64_t{r.buffers[1][(l * 4 + j) * 2 + 1]} << 32;
  };
  uint64_t all_or = 0;
  for (uint32_t l = 0; l < 32; ++l)
    if (l % 4 != 3) all_or |= x(l);
  uint64_t prefix = 0, sum = 0, before = 0;
  int64_t smallest = INT64_MAX;
  for (uint32_t l = 0; l < 32; ++l)
    if (l % 4 != 3) sum += x(l);
  for (uint32_t l = 0; l < 32; ++l) {
    if (l % 4 != 3) {
      uint64_t cmax = 0;
      for (uint32_t k = l & ~7u; k < (l & ~7u) + 8; ++k)
        if (k % 4 != 3) cmax = std::max(cmax, x(k));
      smallest = std::min(smallest, static_cast<int64_t>(x(l)));
      EXPECT_EQ(got(32 + l, 0), sum) << l;
      EXPECT_EQ(got(32 + l, 1), before) << l;
      EXPECT_EQ(got(32 + l, 2), static_cast<uint64_t>(smallest)) << l;
      EXPECT_EQ(got(32 + l, 3), cmax) << l;
      before += x(l);
    }
    if (l % 4 == 3) {
      EXPECT_EQ(r.buffers[1][l * 8], kSentinel);
      continue;
    }
    prefix ^= x(l);
    if ((l ^ 1) % 4 != 3) {
      EXPECT_EQ(got(l, 0), x(l ^ 1)) << l;
    }
    EXPECT_EQ(got(l, 1), all_or) << l;
    EXPECT_EQ(got(l, 2), prefix) << l;
    EXPECT_EQ(got(l, 3), x(9)) << l;
  }
  auto add = compile(R"(#version 450
#extension GL_KHR_shader_subgroup_arithmetic : require
#extension GL_EXT_shader_subgroup_extended_types_int64 : require
#extension GL_ARB_gpu_shader_int64 : require
layout(local_size_x = 32) in;
layout(set = 0, binding = 0) buffer O { uint64_t o[]; };
void main() { o[gl_LocalInvocationIndex] = subgroupMul(o[gl_LocalInvocationIndex]); }
)");
  ASSERT_TRUE(add.ok()) << add.error().message();  // run in subgroup_gaps_test.cpp
}

}  // namespace
}  // namespace agx::compiler::test
