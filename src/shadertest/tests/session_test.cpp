// The [test] command state on the in-process device: buffers, uniforms laid
// out by a compiled shader's ABI, textures, framebuffer probes.
#include <gtest/gtest.h>

#include <cstring>

#include "shadertest/loose_uniforms.h"
#include "shadertest/session.h"
#include "command_helpers.h"

namespace agx::shadertest {
namespace AGX_UNITY_ID {

using test::cmd;

struct SessionTest : ::testing::Test {
  std::unique_ptr<runtime::Device> device = std::move(runtime::Device::open_in_process()).value();
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
  EXPECT_TRUE(s.failures().empty());
  // A mismatch is recorded as shader_runner prints it, and the session goes on.
  ASSERT_TRUE(s.run(cmd("probe ssbo int 1 4 == 3")).ok());
  ASSERT_EQ(s.failures().size(), 1u);
  EXPECT_EQ(s.failures()[0],
            "SSBO 4 test failed: Reference == Observed\n  Reference: 3\n  Observed:  -4\nTest failure on line 1");
  ASSERT_TRUE(s.run(cmd("probe ssbo uint 1 16 == 0")).ok());  // past the end: GL cannot map it
  ASSERT_EQ(s.failures().size(), 2u);
  EXPECT_EQ(s.failures()[1], "Couldn't map ssbo to verify expected value.\nTest failure on line 1");
  ASSERT_TRUE(s.run(cmd("ssbo 1 subdata float 8 0.5")).ok());
  ASSERT_TRUE(s.run(cmd("probe ssbo float 1 8 > 0.75")).ok());
  ASSERT_EQ(s.failures().size(), 3u);
  EXPECT_EQ(s.failures()[2],
            "SSBO 8 test failed: Reference > Observed\n  Reference: 0.75\n  Observed:  0.5\nTest failure on line 1");
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
  EXPECT_TRUE(s.failures().empty());
  ASSERT_TRUE(s.run(cmd("probe atomic counter buffer 3 4 == 8")).ok());
  ASSERT_TRUE(s.run(cmd("probe atomic counter 0 != 0")).ok());
  ASSERT_TRUE(s.run(cmd("probe atomic counter buffer 3 8 == 7")).ok());  // past the buffer
  ASSERT_EQ(s.failures().size(), 3u);
  EXPECT_EQ(s.failures()[0],
            "Atomic counter (binding = 3, offset = 4) test failed: Reference == Observed\n  Reference: 8\n"
            "  Observed:  7\nTest failure on line 1");
  EXPECT_EQ(s.failures()[1],
            "Atomic counter 0 test failed: Reference != Observed\n  Reference: 0\n  Observed:  0\nTest failure on "
            "line 1");
  EXPECT_EQ(s.failures()[2], "Couldn't map atomic counter to verify expected value.\nTest failure on line 1");
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
  EXPECT_TRUE(s.failures().empty());
  ASSERT_TRUE(s.run(cmd("probe rgb 0 0 0.0 1.0 0.0 1.0")).ok());  // recorded, not an error
  ASSERT_TRUE(s.run(cmd("probe all rgba 1.0 0.0 0.0 1.0")).ok());  // (0,0) is red, (2,0) green
  ASSERT_EQ(s.failures().size(), 2u);
  EXPECT_EQ(s.failures()[0],
            "Probe color at (0,0)\n  Expected: 0.000000 1.000000 0.000000\n  Observed: 1.000000 0.000000 0.000000\n"
            "Test failure on line 1");
  // probe all is piglit_probe_rect_rgba: on an 8-bit framebuffer it compares
  // and prints bytes (piglit-util-gl.c probe_rect_ubyte).
  EXPECT_EQ(s.failures()[1],
            "Probe color at (2,0)\n  Expected: 255 0 0 255\n  Observed: 0 255 0 255\nTest failure on line 1");
  EXPECT_FALSE(s.run(cmd("probe rgb 4 0 1.0 0.0 0.0")).ok());  // outside
  EXPECT_FALSE(s.run(cmd("fb tex 2d 5")).ok());
}

TEST_F(SessionTest, UniformsFollowTheAbi) {
  shader.abi.push_constants_uniform = 6;
  shader.abi.loose_uniforms = {{"arg0", 0, 6, 4, {}}, {"v", 1, 8, 12, {}}};
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
  shader.abi.loose_uniforms = {{"", 2, 6, 16, {4}}};
  Session s(*device, shader);
  EXPECT_TRUE(s.run(cmd("uniform uint 2 5")).ok());
  EXPECT_TRUE(s.run(cmd("uniform uint 5 7")).ok());   // the last element
  EXPECT_FALSE(s.run(cmd("uniform uint 6 1")).ok());  // past the array
  EXPECT_FALSE(s.run(cmd("uniform uint 1 1")).ok());  // before it
}

// NAME[i][j] at the compiler's array strides; locations count the
// innermost elements.
TEST(LooseUniforms, ElementsAtTheAbiStrides) {
  const std::vector<compiler::LooseUniform> u = {{"s", 0, 6, 4, {}}, {"a", 1, 7, 96, {48, 16}}};
  auto at = [&](std::string_view name, size_t bytes) -> int64_t {
    auto t = find_loose_uniform(u, name, bytes);
    if (!t.ok()) return -2;
    return *t ? int64_t((*t)->offset_B) + 1000 * ((*t)->uniform == &u[1]) : -1;
  };
  EXPECT_EQ(at("s", 4), 0);
  EXPECT_EQ(at("a", 96), 1000);
  EXPECT_EQ(at("a[1]", 48), 1048);
  EXPECT_EQ(at("a[1][2]", 12), 1080);
  EXPECT_EQ(at("b[1]", 4), -1);     // no such uniform
  EXPECT_EQ(at("a[2]", 4), -2);     // past the end
  EXPECT_EQ(at("a[1][3]", 16), -2);
  EXPECT_EQ(at("a[0][0][0]", 4), -2);  // two levels
  EXPECT_EQ(at("a[x]", 4), -2);
  EXPECT_EQ(at("a[1", 4), -2);
  auto loc = [&](uint32_t l, size_t bytes) -> int64_t {
    auto t = find_loose_location(u, l, bytes);
    return t ? int64_t(t->offset_B) + 1000 * (t->uniform == &u[1]) : -1;
  };
  EXPECT_EQ(loc(0, 4), 0);
  EXPECT_EQ(loc(1, 12), 1000);
  EXPECT_EQ(loc(4, 12), 1048);  // a[1][0]
  EXPECT_EQ(loc(6, 12), 1080);
  EXPECT_EQ(loc(7, 12), -1);
}

TEST_F(SessionTest, VerifyProgramQuery) {
  Session s(*device, shader);
  auto unknown = s.run(cmd("verify program_query GL_ACTIVE_UNIFORMS 2"));
  ASSERT_FALSE(unknown.ok());  // no resources given: unsupported, not a pass
  EXPECT_EQ(unknown.error().kind(), ErrorKind::unsupported);
  s.set_program_resources_error("SPIR-V: no module header");
  unknown = s.run(cmd("verify program_query GL_ACTIVE_UNIFORMS 2"));
  ASSERT_FALSE(unknown.ok());
  EXPECT_NE(unknown.error().message().find("no module header"), std::string::npos) << unknown.error().message();
  s.set_program_resources(runtime::ProgramResources{9, 6});
  EXPECT_TRUE(s.run(cmd("verify program_query GL_ACTIVE_UNIFORMS 9")).ok());
  EXPECT_TRUE(s.run(cmd("verify program_query GL_ACTIVE_ATOMIC_COUNTER_BUFFERS 6")).ok());
  auto wrong = s.run(cmd("verify program_query GL_ACTIVE_UNIFORMS 8"));
  ASSERT_FALSE(wrong.ok());
  EXPECT_EQ(wrong.error().message(), "glGetProgramiv(GL_ACTIVE_UNIFORMS): expected 8, got 9");
  EXPECT_FALSE(s.run(cmd("verify program_query GL_PROGRAM_BINARY_LENGTH 0")).ok());
  EXPECT_FALSE(s.run(cmd("verify program_query GL_ACTIVE_UNIFORMS nine")).ok());
}

TEST_F(SessionTest, DispatchNamesWhatIsMissing) {
  shader.abi.resources = {{compiler::Resource::Kind::storage_buffer, 0, 0, 0, "SSBO"}};
  Session s(*device, shader);
  auto st = s.run(cmd("compute 1 1 1"));
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.error().message().find("binding 0"), std::string::npos) << st.error().message();
}

TEST_F(SessionTest, DrawAndReadFramebuffers) {
  Session s(*device, shader);
  ASSERT_TRUE(s.run(cmd("texture rgbw 0 (4, 4)")).ok());
  ASSERT_TRUE(s.run(cmd("texture rgbw 1 (4, 4)")).ok());
  // Draw to both textures, read the window: the clear lands on the textures.
  ASSERT_TRUE(s.run(cmd("fb draw tex 2d 0 -1 1")).ok());
  ASSERT_TRUE(s.run(cmd("clear color 0 0 1 1")).ok());
  ASSERT_TRUE(s.run(cmd("clear")).ok());
  ASSERT_TRUE(s.run(cmd("probe all rgba 0 0 0 0")).ok());  // the window was never cleared
  ASSERT_TRUE(s.run(cmd("fb read tex 2d 1")).ok());
  ASSERT_TRUE(s.run(cmd("probe all rgba 0 0 1 1")).ok());
  ASSERT_TRUE(s.run(cmd("fb tex 2d 0")).ok());
  ASSERT_TRUE(s.run(cmd("probe all rgba 0 0 1 1")).ok());
  // Back to the window for both: the clear now lands there.
  ASSERT_TRUE(s.run(cmd("fb winsys")).ok());
  ASSERT_TRUE(s.run(cmd("clear color 1 0 0 1")).ok());
  ASSERT_TRUE(s.run(cmd("clear")).ok());
  ASSERT_TRUE(s.run(cmd("probe rgba 249 249 1 0 0 1")).ok());
  EXPECT_TRUE(s.failures().empty()) << s.failures().front();
  EXPECT_FALSE(s.run(cmd("fb tex 2d 0 5")).ok());  // no texture 5
  ASSERT_TRUE(s.run(cmd("fb read tex 2d -1")).ok());
  EXPECT_FALSE(s.run(cmd("probe rgb 0 0 0 0 0")).ok());  // no attachment 0 to read
}

TEST_F(SessionTest, BlockStateAndMiptree) {
  Session s(*device, shader);
  EXPECT_EQ(s.block_data().binding, -1);
  ASSERT_TRUE(s.run(cmd("block binding 2")).ok());
  ASSERT_TRUE(s.run(cmd("block offset 16")).ok());
  ASSERT_TRUE(s.run(cmd("ubo array index 1")).ok());
  ASSERT_TRUE(s.run(cmd("block matrix stride 16")).ok());
  ASSERT_TRUE(s.run(cmd("block row major 1")).ok());
  EXPECT_EQ(s.block_data().binding, 2);
  EXPECT_EQ(s.block_data().offset, 16);
  EXPECT_EQ(s.block_data().array_index, 1);
  EXPECT_EQ(s.block_data().matrix_stride, 16);
  EXPECT_EQ(s.block_data().row_major, 1);
  // piglit's miptree: 8x8, 4 levels of red, green, blue, white; as a
  // framebuffer level 0 reads red everywhere.
  ASSERT_TRUE(s.run(cmd("texture miptree 1")).ok());
  ASSERT_TRUE(s.run(cmd("fb tex 2d 1")).ok());
  ASSERT_TRUE(s.run(cmd("probe all rgba 1 0 0 1")).ok());
  ASSERT_TRUE(s.run(cmd("probe rgb 7 7 1 0 0")).ok());
  EXPECT_FALSE(s.run(cmd("probe rgb 8 0 1 0 0")).ok());  // outside 8x8
  EXPECT_TRUE(s.failures().empty()) << s.failures().front();
}

TEST_F(SessionTest, GroupSizeDispatchesFollowGl) {
  Session fixed(*device, shader);
  auto st = fixed.run(cmd("compute group size 1 1 1 2 2 2"));
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.error().message().find("GL_INVALID_OPERATION"), std::string::npos) << st.error().message();
  st = fixed.run(cmd("compute 65536 1 1"));
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.error().message().find("GL_INVALID_VALUE"), std::string::npos) << st.error().message();

  // A variable-size program: each size asks for its shader; `compute` is refused.
  Session variable(*device, shader);
  std::vector<std::array<uint32_t, 3>> asked;
  variable.set_variable_group_size([&](std::array<uint32_t, 3> local) -> Result<std::shared_ptr<const compiler::Shader>> {
    asked.push_back(local);
    return Error::unsupported("no shader in this test");
  });
  st = variable.run(cmd("compute 1 1 1"));
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.error().message().find("GL_INVALID_OPERATION"), std::string::npos) << st.error().message();
  st = variable.run(cmd("compute group size 2 1 1 8 4 2"));
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.error().message().find("no shader in this test"), std::string::npos) << st.error().message();
  EXPECT_NE(st.error().message().find("local size 8x4x2"), std::string::npos) << st.error().message();
  ASSERT_EQ(asked.size(), 1u);
  EXPECT_EQ(asked[0], (std::array<uint32_t, 3>{8, 4, 2}));
  EXPECT_FALSE(variable.run(cmd("compute group size 1 1 1 0 1 1")).ok());     // size 0
  EXPECT_FALSE(variable.run(cmd("compute group size 1 1 1 1 1 65")).ok());    // z above 64
  EXPECT_FALSE(variable.run(cmd("compute group size 1 1 1 64 32 1")).ok());   // 2048 invocations
  EXPECT_EQ(asked.size(), 1u);
}

}  // namespace
}  // namespace agx::shadertest
