// The [test] command state on the in-process device: buffers, uniforms laid
// out by a compiled shader's ABI, textures, framebuffer probes.
#include <gtest/gtest.h>

#include <cstring>

#include "runtime/session.h"

namespace agx::runtime {
namespace {

Command cmd(std::string_view line) {
  auto b = parse_command(line, 1);
  EXPECT_TRUE(b.ok()) << line << ": " << (b.ok() ? "" : b.error().message());
  return Command{1, std::string(line), b.ok() ? std::move(b).value() : CommandBody{CmdClear{}}};
}

struct SessionTest : ::testing::Test {
  std::unique_ptr<Device> device = std::move(Device::open_in_process()).value();
  compiler::Shader shader;
};

TEST(Rgbw, Quadrants) {
  auto px = rgbw_rgba8(4, 2);
  auto at = [&](int x, int y) { return std::array<int, 4>{px[(y * 4 + x) * 4], px[(y * 4 + x) * 4 + 1], px[(y * 4 + x) * 4 + 2], px[(y * 4 + x) * 4 + 3]}; };
  EXPECT_EQ(at(0, 0), (std::array<int, 4>{255, 0, 0, 255}));
  EXPECT_EQ(at(3, 0), (std::array<int, 4>{0, 255, 0, 255}));
  EXPECT_EQ(at(1, 1), (std::array<int, 4>{0, 0, 255, 255}));
  EXPECT_EQ(at(2, 1), (std::array<int, 4>{255, 255, 255, 255}));
  // one row: h/2 == 0, so the row is the "top" half: blue then white
  auto row = rgbw_rgba8(5, 1);
  EXPECT_EQ(row[2], 255);
  EXPECT_EQ(row[4 * 4 + 1], 255);
}

TEST(Probe, ToleranceAndComparisons) {
  std::array<float, 4> tol{0.01f, 0.01f, 0.01f, 0.01f};
  EXPECT_TRUE(probe_matches({0, 1, 0, 0.5f}, {0, 1, 0, 1}, tol, 3));
  EXPECT_FALSE(probe_matches({0, 1, 0, 0.5f}, {0, 1, 0, 1}, tol, 4));
  EXPECT_FALSE(probe_matches({0.02f, 1, 0, 1}, {0, 1, 0, 1}, tol, 3));
  EXPECT_TRUE(probe_value(ProbeType::int32, uint32_t(-4), uint32_t(-4), Compare::eq));
  EXPECT_TRUE(probe_value(ProbeType::int32, uint32_t(-5), uint32_t(-4), Compare::lt));
  EXPECT_FALSE(probe_value(ProbeType::uint32, uint32_t(-5), uint32_t(-4), Compare::gt));
  uint32_t one = 0x3f800000;
  EXPECT_TRUE(probe_value(ProbeType::float32, one, one, Compare::eq));
}

TEST_F(SessionTest, SsboSubdataAndProbes) {
  Session s(*device, shader);
  ASSERT_TRUE(s.run(cmd("ssbo 1 16")).ok());
  ASSERT_TRUE(s.run(cmd("ssbo 1 subdata int 4 -4")).ok());
  EXPECT_TRUE(s.run(cmd("probe ssbo int 1 4 == -4")).ok());
  EXPECT_TRUE(s.run(cmd("probe ssbo uint 1 0 == 0")).ok());
  auto bad = s.run(cmd("probe ssbo int 1 4 == 3"));
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message().find("SSBO 1 at 4"), std::string::npos) << bad.error().message();
  EXPECT_FALSE(s.run(cmd("probe ssbo uint 1 16 == 0")).ok());     // past the end
  EXPECT_FALSE(s.run(cmd("ssbo 2 subdata int 0 1")).ok());        // no ssbo 2
  EXPECT_FALSE(s.run(cmd("ssbo 1 subdata int 14 1")).ok());       // overruns
}

TEST_F(SessionTest, AtomicCounters) {
  Session s(*device, shader);
  ASSERT_TRUE(s.run(cmd("atomic counters 2")).ok());
  EXPECT_TRUE(s.run(cmd("probe atomic counter 1 == 0")).ok());
  ASSERT_TRUE(s.run(cmd("atomic counter buffer 3 2")).ok());
  ASSERT_TRUE(s.run(cmd("atomic counter 3 1 7")).ok());
  EXPECT_TRUE(s.run(cmd("probe atomic counter buffer 3 4 == 7")).ok());
  EXPECT_FALSE(s.run(cmd("probe atomic counter buffer 3 8 == 7")).ok());
}

TEST_F(SessionTest, TextureFramebufferAndClear) {
  Session s(*device, shader);
  ASSERT_TRUE(s.run(cmd("clear color 0.0 0.0 1.0 0.0")).ok());
  ASSERT_TRUE(s.run(cmd("clear")).ok());  // the window
  EXPECT_TRUE(s.run(cmd("probe all rgba 0.0 0.0 1.0 0.0")).ok());
  ASSERT_TRUE(s.run(cmd("texture rgbw 0 (4, 2) GL_RGBA8")).ok());
  ASSERT_TRUE(s.run(cmd("image texture 0 GL_RGBA8")).ok());
  ASSERT_TRUE(s.run(cmd("fb tex 2d 0")).ok());
  EXPECT_TRUE(s.run(cmd("probe rgb 0 0 1.0 0.0 0.0")).ok());
  EXPECT_TRUE(s.run(cmd("probe rgba 3 1 1.0 1.0 1.0 1.0")).ok());
  auto bad = s.run(cmd("probe rgb 0 0 0.0 1.0 0.0 1.0"));
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message().find("observed 1 0 0"), std::string::npos) << bad.error().message();
  EXPECT_FALSE(s.run(cmd("probe rgb 4 0 1.0 0.0 0.0")).ok());  // outside
  EXPECT_FALSE(s.run(cmd("fb tex 2d 5")).ok());
}

TEST_F(SessionTest, UniformsFollowTheAbi) {
  shader.abi.push_constants_uniform = 6;
  shader.abi.loose_uniforms = {{"arg0", 0, 6, 4}, {"v", 1, 8, 12}};
  Session s(*device, shader);
  EXPECT_TRUE(s.run(cmd("uniform float arg0 -1.5")).ok());
  EXPECT_TRUE(s.run(cmd("uniform vec3 v 1 2 3")).ok());
  EXPECT_FALSE(s.run(cmd("uniform vec4 arg0 1 2 3 4")).ok());  // too big
  EXPECT_FALSE(s.run(cmd("uniform float missing 1")).ok());
  EXPECT_TRUE(s.run(cmd("uniform int tex 0")).ok());  // a unit
}

TEST_F(SessionTest, SpirvUniformsByLocation) {
  // uint arr[4] at locations 2..5 (one per element), as SPIR-V files set them.
  shader.abi.push_constants_uniform = 6;
  shader.abi.loose_uniforms = {{"", 2, 6, 16}};
  Session s(*device, shader);
  EXPECT_TRUE(s.run(cmd("uniform uint 2 5")).ok());
  EXPECT_TRUE(s.run(cmd("uniform uint 5 7")).ok());   // the last element
  EXPECT_FALSE(s.run(cmd("uniform uint 6 1")).ok());  // past the array
  EXPECT_FALSE(s.run(cmd("uniform uint 1 1")).ok());  // before it
}

TEST_F(SessionTest, DispatchNamesWhatIsMissing) {
  shader.abi.resources = {{compiler::Resource::Kind::storage_buffer, 0, 0, 0, "SSBO"}};
  Session s(*device, shader);
  auto st = s.run(cmd("compute 1 1 1"));
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.error().message().find("binding 0"), std::string::npos) << st.error().message();
}

}  // namespace
}  // namespace agx::runtime
