// Float atomics (GL_EXT_shader_atomic_float / _float2): compare-exchange
// loops run on the usc emulator with many invocations on one word; results
// checked against sums and min/max computed here.
#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>
#include <vector>

#include "compiler/tests/run_helpers.h"

namespace agx::compiler::test {
namespace AGX_UNITY_ID {

uint32_t bits(float f) { return std::bit_cast<uint32_t>(f); }
float value(uint32_t u) { return std::bit_cast<float>(u); }

TEST(FloatAtomic, BufferAddFromManyInvocations) {
  // Integer-valued floats: every order of the additions gives the same sum.
  Shader s = must_compile(R"(#version 450
#extension GL_EXT_shader_atomic_float : require
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) buffer O { float ones; float sum; float nan_word; float old[]; };
void main() {
  uint i = gl_GlobalInvocationID.x;
  old[i] = atomicAdd(ones, 1.0);
  atomicAdd(sum, float(i % 7u) - 2.0);
  atomicAdd(nan_word, 1.0);
})");
  ASSERT_FALSE(s.code.empty());
  constexpr uint32_t kThreads = 256;
  Job r;
  r.buffers = {std::vector<uint32_t>(3 + kThreads)};
  r.buffers[0][1] = bits(0.5f);
  r.buffers[0][2] = 0x7FC00000u;  // a NaN in memory: the loop still ends
  r.groups = {kThreads / 64, 1, 1};
  ASSERT_OK(execute(s, r));
  const auto& o = r.buffers[0];
  EXPECT_EQ(value(o[0]), float(kThreads));
  float sum = 0.5f;
  for (uint32_t i = 0; i < kThreads; ++i) sum += float(i % 7) - 2.0f;
  EXPECT_EQ(value(o[1]), sum);
  EXPECT_TRUE(std::isnan(value(o[2])));
  // Each invocation saw a different count: the olds are 0 .. kThreads-1.
  std::vector<float> olds;
  for (uint32_t i = 0; i < kThreads; ++i) olds.push_back(value(o[3 + i]));
  std::sort(olds.begin(), olds.end());
  for (uint32_t i = 0; i < kThreads; ++i) EXPECT_EQ(olds[i], float(i)) << i;
}

TEST(FloatAtomic, SharedAddMinMaxAndExchange) {
  Shader s = must_compile(R"(#version 450
#extension GL_EXT_shader_atomic_float : require
#extension GL_EXT_shader_atomic_float2 : require
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) buffer O { float total; float lo; float hi; float last; float old[]; };
shared float sum, mn, mx, x;
void main() {
  uint i = gl_LocalInvocationIndex;
  if (i == 0u) { sum = 0.0; mn = 1000.0; mx = -1000.0; x = -1.0; }
  barrier();
  atomicAdd(sum, 0.5);
  float v = float(int(i) - 20) * 1.5;
  atomicMin(mn, i % 3u == 0u ? uintBitsToFloat(0x7FC00000u) : v);
  atomicMax(mx, i % 5u == 0u ? uintBitsToFloat(0x7FC00000u) : v);
  old[i] = atomicExchange(x, float(i));
  barrier();
  if (i == 0u) { total = sum; lo = mn; hi = mx; last = x; }
})");
  ASSERT_FALSE(s.code.empty());
  Job r;
  r.buffers = {std::vector<uint32_t>(4 + 64)};
  ASSERT_OK(execute(s, r));
  const auto& o = r.buffers[0];
  EXPECT_EQ(value(o[0]), 32.0f);
  // NaN data loses to the number in memory.
  float lo = 1000.0f, hi = -1000.0f;
  for (int i = 0; i < 64; ++i) {
    float v = float(i - 20) * 1.5f;
    if (i % 3) lo = std::min(lo, v);
    if (i % 5) hi = std::max(hi, v);
  }
  EXPECT_EQ(value(o[1]), lo);
  EXPECT_EQ(value(o[2]), hi);
  // Exchanges chain: the olds and the last value are -1, 0 .. 63 once each.
  std::vector<float> seen = {value(o[3])};
  for (uint32_t i = 0; i < 64; ++i) seen.push_back(value(o[4 + i]));
  std::sort(seen.begin(), seen.end());
  for (uint32_t i = 0; i < seen.size(); ++i) EXPECT_EQ(seen[i], float(int(i) - 1)) << i;
}

// min/max with the NaN and signed-zero cases, one word per invocation.
TEST(FloatAtomic, MinMaxNanAndSignedZero) {
  Shader s = must_compile(R"(#version 450
#extension GL_EXT_shader_atomic_float2 : require
layout(local_size_x = 16) in;
layout(set = 0, binding = 0) buffer D { float data[]; };
layout(set = 0, binding = 1) buffer M { float m[]; };
layout(set = 0, binding = 2) buffer N { float n[]; };
layout(set = 0, binding = 3) buffer R { float old[]; };
void main() {
  uint i = gl_LocalInvocationIndex;
  old[2u * i] = atomicMin(m[i], data[i]);
  old[2u * i + 1u] = atomicMax(n[i], data[i]);
})");
  ASSERT_FALSE(s.code.empty());
  const float nan = std::numeric_limits<float>::quiet_NaN(), inf = std::numeric_limits<float>::infinity();
  const std::vector<std::pair<float, float>> cases = {
      {1.0f, 2.0f}, {2.0f, 1.0f}, {nan, 3.0f}, {3.0f, nan}, {nan, nan}, {-0.0f, 0.0f}, {0.0f, -0.0f},
      {-0.0f, -0.0f}, {0.0f, 0.0f}, {inf, -inf}, {-5.0f, -6.0f}, {-inf, nan}, {1e30f, -1e30f}, {7.0f, 7.0f},
      {-2.5f, 0.0f}, {0.0f, -2.5f}};
  Job r;
  r.buffers.resize(4);
  for (auto [mem, data] : cases) {
    r.buffers[0].push_back(bits(data));
    r.buffers[1].push_back(bits(mem));
    r.buffers[2].push_back(bits(mem));
  }
  r.buffers[3].resize(2 * cases.size());
  ASSERT_OK(execute(s, r));
  for (size_t i = 0; i < cases.size(); ++i) {
    auto [mem, data] = cases[i];
    float lo, hi;
    if (std::isnan(mem) || std::isnan(data)) {
      lo = hi = std::isnan(mem) ? data : mem;  // the number wins; NaN only from two NaNs
    } else if (mem == 0.0f && data == 0.0f) {
      lo = std::signbit(mem) || std::signbit(data) ? -0.0f : 0.0f;
      hi = std::signbit(mem) && std::signbit(data) ? -0.0f : 0.0f;
    } else {
      lo = std::min(mem, data);
      hi = std::max(mem, data);
    }
    SCOPED_TRACE(testing::Message() << "mem " << mem << " data " << data);
    if (std::isnan(lo)) {
      EXPECT_TRUE(std::isnan(value(r.buffers[1][i])));
      EXPECT_TRUE(std::isnan(value(r.buffers[2][i])));
    } else {
      EXPECT_EQ(r.buffers[1][i], bits(lo));
      EXPECT_EQ(r.buffers[2][i], bits(hi));
    }
    EXPECT_EQ(r.buffers[3][2 * i], bits(mem));  // the old word, bit for bit
    EXPECT_EQ(r.buffers[3][2 * i + 1], bits(mem));
  }
}

TEST(FloatAtomic, OnlyThirtyTwoBitFloats) {
  // A double atomic add is named as unsupported, not miscompiled.
  auto s = compile(R"(#version 450
#extension GL_EXT_shader_atomic_float : require
layout(local_size_x = 1) in;
layout(set = 0, binding = 0) buffer O { double d; };
void main() { atomicAdd(d, 1.0lf); })");
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.error().message().find("float atomic"), std::string::npos) << s.error().message();
}

// r32f texels take the same compare-exchange loop as buffer words (run end
// to end by the runtime's image tests).
TEST(FloatAtomic, ImageTexelsCompile) {
  auto s = compile(R"(#version 450
#extension GL_EXT_shader_atomic_float : require
layout(local_size_x = 1) in;
layout(set = 0, binding = 0, r32f) uniform image2D f;
void main() { imageAtomicAdd(f, ivec2(0), 1.0); imageAtomicExchange(f, ivec2(1), 2.0); })");
  ASSERT_TRUE(s.ok()) << s.error().message();
  EXPECT_NE(s->abi.images[0].atomic_uniform, UINT32_MAX);
}

}  // namespace
}  // namespace agx::compiler::test
