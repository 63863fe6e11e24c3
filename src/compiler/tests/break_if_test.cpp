// Conditional breaks and continues fused into cmpsel + pop_exec
// (opt_break_if.cpp), run on the emulator against the same loops in C++:
// divergent exits with exit values, inverted and float conditions (NaN
// takes the inverted side), continues and nested loops. (A break nested
// too deep for cmpsel's 8-bit immediate is packed the unfused way:
// passes_test.cpp, the translator cannot nest that deep.)
#include <cmath>
#include <limits>

#include "compiler/tests/buffer_words.h"
#include "compiler/tests/run_helpers.h"

namespace agx::compiler::test {
namespace AGX_UNITY_ID {

size_t count_of(const std::string& disasm, const std::string& mnemonic) {
  size_t n = 0;
  for (size_t at = disasm.find(mnemonic); at != std::string::npos; at = disasm.find(mnemonic, at + 1)) ++n;
  return n;
}

TEST(BreakIf, DivergentExitsContinuesAndFloatConditions) {
  Shader s = must_compile(R"(#version 450
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) buffer A { uint a[]; };
layout(set = 0, binding = 1) buffer F { float f[]; };
layout(set = 0, binding = 2) buffer O { uint o[]; };
void main() {
  uint id = gl_GlobalInvocationID.x;
  uint limit = a[id] % 40u, acc = 0u, i;
  for (i = 0u; i < limit; ++i) {
    if (((i + id) % 5u) == 0u) continue;
    acc += i * (id + 1u);
    if (acc > 700u) break;
  }
  o[id * 4u + 0u] = acc;
  o[id * 4u + 1u] = i;
  // A float exit test: NaN never compares less, so !(x < 8.0) breaks on it.
  float x = f[id];
  uint steps = 0u;
  while (true) {
    if (!(x < 8.0)) break;
    x = abs(x) * 1.5 + 0.25;
    ++steps;
  }
  o[id * 4u + 2u] = steps;
  // Nested loops: the inner break leaves only the inner loop.
  uint found = 0u;
  for (uint r = 0u; r < 6u; ++r) {
    for (uint c = 0u; c < 6u; ++c) {
      if (r * c == (id % 17u)) { found += r * 8u + c; break; }
    }
  }
  o[id * 4u + 3u] = found;
})");
  ASSERT_FALSE(s.code.empty());
  // The loop tests were fused: cmpsel in the loop with continues (two
  // levels), a while of one level in the others (the float test and the
  // outer of the nested loops; the inner one's exit copies write a
  // variable its body reads, so they stay); no loop without a continue
  // has an end-of-loop while, so the only whiles without operands are
  // the continue loop's two.
  const std::string text = disassemble(s.code);
  EXPECT_GE(count_of(text, "icmpsel") + count_of(text, "fcmpsel"), 2u) << text;
  EXPECT_GE(count_of(text, "while_fcmp"), 1u) << text;
  EXPECT_GE(count_of(text, "while_icmp"), 3u) << text;
  EXPECT_EQ(count_of(text, "ueq, 0, 0, 2"), 2u) << text;
  EXPECT_EQ(count_of(text, "push_exec        r0l, 1"), 3u) << text;

  const uint32_t n = 128;
  Job r;
  std::vector<uint32_t> floats(n);
  for (uint32_t k = 0; k < n; ++k) floats[k] = fbits(float(k % 13) - 3.0f);
  floats[5] = fbits(std::numeric_limits<float>::quiet_NaN());
  r.buffers = {random_words(n, 11), floats, std::vector<uint32_t>(n * 4)};
  r.groups = {2, 1, 1};
  const auto a = r.buffers[0];
  ASSERT_OK(execute(s, r));
  for (uint32_t id = 0; id < n; ++id) {
    uint32_t limit = a[id] % 40u, acc = 0, i;
    for (i = 0; i < limit; ++i) {
      if ((i + id) % 5u == 0) continue;
      acc += i * (id + 1);
      if (acc > 700u) break;
    }
    EXPECT_EQ(r.buffers[2][id * 4 + 0], acc) << id;
    EXPECT_EQ(r.buffers[2][id * 4 + 1], i) << id;
    // Exact in float either way (fused or not): a few bits per step.
    float x = bitsf(floats[id]);
    uint32_t steps = 0;
    while (x < 8.0f) {
      x = std::fabs(x) * 1.5f + 0.25f;
      ++steps;
    }
    EXPECT_EQ(r.buffers[2][id * 4 + 2], steps) << id;
    uint32_t found = 0;
    for (uint32_t row = 0; row < 6; ++row)
      for (uint32_t c = 0; c < 6; ++c)
        if (row * c == id % 17u) {
          found += row * 8 + c;
          break;
        }
    EXPECT_EQ(r.buffers[2][id * 4 + 3], found) << id;
  }
}

}  // namespace
}  // namespace agx::compiler::test
