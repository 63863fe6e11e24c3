// The compiler's preamble through the runtime: the launch carries a USC
// Preshader word with the preamble's code, and the CDM executor runs it
// once per launch, before the threadgroups, which read what it stored.
#include <gtest/gtest.h>

#include "gpu/gpu.h"
#include "kmd/kmd.h"
#include "shadertest/session.h"
#include "command_helpers.h"

namespace agx::shadertest {
namespace AGX_UNITY_ID {

using test::cmd;

TEST(Preshader, RunsOncePerLaunchBeforeTheShader) {
  kmd::Device kdev;
  auto exec = std::make_shared<gpu::CdmExecutor>();
  kdev.set_executor(exec);
  auto dev = runtime::Device::open(runtime::in_process_transport(kdev));
  ASSERT_TRUE(dev.ok()) << dev.error().message();
  compiler::Options o;
  o.env = compiler::TargetEnv::opengl;
  auto shader = compiler::compile_glsl(R"(#version 450
layout(local_size_x = 64) in;
layout(location = 0) uniform float a;
layout(location = 1) uniform uint n;
layout(std430, binding = 0) buffer O { float o[]; };
void main() {
  uint i = gl_GlobalInvocationID.x;
  o[i] = float(i) * (sqrt(a) * 3.0 + 1.0) + float(n / 3u);
}
)", o);
  ASSERT_TRUE(shader.ok()) << shader.error().message();
  ASSERT_FALSE(shader->preamble.empty());
  Session s(**dev, *shader);
  for (auto c : {"ssbo 0 512", "uniform float a 4.0", "uniform uint n 10", "compute 2 1 1"})
    ASSERT_TRUE(s.run(cmd(c)).ok()) << c;
  EXPECT_EQ(exec->stats().launches, 1u);
  EXPECT_EQ(exec->stats().preshader_runs, 1u);
  // float(i) * 7 + 3: the main shader read the preamble's uniforms.
  for (int i : {0, 1, 63, 64, 127})
    EXPECT_TRUE(s.run(cmd(fmt::format("probe ssbo float 0 {} == {}", 4 * i, 7 * i + 3))).ok());
  // A second launch with new uniforms runs the preamble again.
  for (auto c : {"uniform float a 9.0", "uniform uint n 30", "compute 2 1 1"}) ASSERT_TRUE(s.run(cmd(c)).ok()) << c;
  EXPECT_EQ(exec->stats().launches, 2u);
  EXPECT_EQ(exec->stats().preshader_runs, 2u);
  for (int i : {0, 5, 127})
    EXPECT_TRUE(s.run(cmd(fmt::format("probe ssbo float 0 {} == {}", 4 * i, 10 * i + 10))).ok());
  EXPECT_TRUE(s.failures().empty()) << (s.failures().empty() ? "" : s.failures()[0]);
}

}  // namespace
}  // namespace agx::shadertest
