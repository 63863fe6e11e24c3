// Kernels with scratch end to end (agx shader-test's path): the compiler's
// stack frame (local arrays, spill slots) reaches the software GPU through
// the Registers word's spill size bucket and the command's helper program.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include "shadertest/runner.h"

namespace agx::shadertest {
namespace AGX_UNITY_ID {

std::string file(const std::string& shader, const std::string& commands) {
  return fmt::format("[require]\nGLSL >= 4.30\n[compute shader]\n#version 430\n{}\n[test]\n{}", shader, commands);
}

// 2,000 words of local array per thread (8,000 bytes: bucket 9, 8 KiB),
// far beyond the usc unit's default 1 KiB, in 4 threadgroups of 64.
TEST(Scratch, LargeLocalArrayRunsOnTheGpu) {
  const std::string shader =
      "layout(local_size_x = 64) in;\n"
      "layout(binding = 0, std430) buffer B { uint o[]; };\n"
      "void main() {\n"
      "  uint t = gl_GlobalInvocationID.x;\n"
      "  uint a[2000];\n"
      "  for (uint i = 0u; i < 2000u; ++i) a[i] = i * 3u + t;\n"
      "  for (uint i = 1u; i < 2000u; ++i) a[i] += a[i - 1u] & 7u;\n"
      "  o[t] = a[(t * 37u) % 2000u] + a[1999];\n"
      "}\n";
  // The reference: each thread's prefix over its own array.
  std::string probes;
  for (uint32_t t = 0; t < 256; t += 51) {
    uint32_t a[2000];
    for (uint32_t i = 0; i < 2000; ++i) a[i] = i * 3 + t;
    for (uint32_t i = 1; i < 2000; ++i) a[i] += a[i - 1] & 7;
    probes += fmt::format("probe ssbo uint 0 {} == {}\n", t * 4, a[(t * 37) % 2000] + a[1999]);
  }
  auto v = run_shader_test(file(shader, "ssbo 0 1024\ncompute 4 1 1\n" + probes));
  EXPECT_EQ(v.outcome, Outcome::pass) << v.detail;
  // A wrong expectation fails: the probes are checked.
  v = run_shader_test(file(shader, "ssbo 0 1024\ncompute 4 1 1\nprobe ssbo uint 0 0 == 1\n"));
  EXPECT_EQ(v.outcome, Outcome::fail) << v.detail;
}

// A frame beyond the compiler's 16 KiB is a compile error naming it.
TEST(Scratch, TooLargeAFrameFailsWithTheLimit) {
  auto v = run_shader_test(file("layout(local_size_x = 1) in;\nlayout(binding = 0, std430) buffer B { uint o[]; };\n"
                                "void main() { uint a[5000]; for (uint i = 0u; i < 5000u; ++i) a[i] = i;\n"
                                "  o[0] = a[o[1]]; }\n",
                                "ssbo 0 16\ncompute 1 1 1\n"));
  EXPECT_EQ(v.outcome, Outcome::fail);
  EXPECT_NE(v.detail.find("at most 16384"), std::string::npos) << v.detail;
}

}  // namespace
}  // namespace agx::shadertest
