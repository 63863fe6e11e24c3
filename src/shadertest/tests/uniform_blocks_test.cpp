// Uniform block members: std140 offsets, array and matrix strides read from
// the SPIR-V, `uniform TYPE NAME VALUES` writing the block's buffer, and the
// shader reading them back.
#include <gtest/gtest.h>

#include "compute_file.h"
#include "runtime/glsl_frontend.h"
#include "shadertest/runner.h"
#include "runtime/uniform_blocks.h"

namespace agx::shadertest {
namespace AGX_UNITY_ID {

const char* kShader =
    "#version 430\n"
    "layout(local_size_x = 1) in;\n"
    "layout(std140) uniform Params {\n"
    "  float f;\n"        // 0
    "  vec3 v;\n"         // 16
    "  int a[3];\n"       // 32, stride 16
    "  mat3 m;\n"         // 80, columns 16 apart
    "  layout(row_major) mat2x3 r;\n"  // 128: 3 rows of 2, 16 apart
    "  uvec2 u;\n"        // 176
    "} p;\n"
    "layout(std140) uniform Other { ivec4 k; };\n"
    "layout(std430, binding = 0) buffer Out { float o[]; };\n"
    "void main() {\n"
    "  o[0] = p.f; o[1] = p.v.x; o[2] = p.v.z;\n"
    "  o[3] = float(p.a[0]); o[4] = float(p.a[2]);\n"
    "  o[5] = p.m[0][0]; o[6] = p.m[1][2]; o[7] = p.m[2][1];\n"
    "  o[8] = p.r[0][1]; o[9] = p.r[1][2];\n"
    "  o[10] = float(p.u.y); o[11] = float(k.w);\n"
    "}\n";

// The uniform blocks of GLSL sources compiled for OpenGL, block i bound
// at binding i.
Result<std::vector<runtime::UniformBlock>> blocks_of(std::span<const std::string> sources) {
  AGX_TRY(auto spirv, runtime::glsl_to_opengl_spirv(sources, "s"));
  AGX_TRY(auto bound, runtime::bind_uniform_blocks_by_index(spirv));
  return runtime::uniform_blocks(bound);
}

// An array of blocks is one block per element ("A[0]", "A[1]", GL's
// names), at consecutive binding points, each element its own block index.
TEST(UniformBlocks, ArraysOfBlocksAreOneBlockPerElement) {
  const std::string sources[] = {
      "#version 430\nlayout(local_size_x = 1) in;\n"
      "layout(std140) uniform A { vec4 x; } a[2];\n"
      "layout(std140) uniform B { ivec4 k; };\n"
      "layout(std430, binding = 0) buffer Out { float o[]; };\n"
      "void main() { o[0] = a[0].x.x + a[1].x.y + float(k.x); }\n"};
  auto blocks = blocks_of(sources);
  ASSERT_TRUE(blocks.ok()) << blocks.error().message();
  ASSERT_EQ(blocks->size(), 3u);
  EXPECT_EQ((*blocks)[0].name, "A[0]");
  EXPECT_EQ((*blocks)[0].binding, 0u);
  EXPECT_EQ((*blocks)[1].name, "A[1]");
  EXPECT_EQ((*blocks)[1].binding, 1u);
  EXPECT_EQ((*blocks)[1].size_B, 16u);
  EXPECT_EQ((*blocks)[2].name, "B");
  EXPECT_EQ((*blocks)[2].binding, 2u);
}

TEST(UniformBlocks, Std140OffsetsFromTheModule) {
  const std::string sources[] = {kShader};
  auto blocks = blocks_of(sources);
  ASSERT_TRUE(blocks.ok()) << blocks.error().message();
  ASSERT_EQ(blocks->size(), 2u);
  EXPECT_EQ((*blocks)[0].binding, 0u);  // block i at binding i (shader_runner's setup_ubos)
  EXPECT_EQ((*blocks)[1].binding, 1u);
  EXPECT_EQ((*blocks)[0].size_B, 192u);
  // std140 (GL 4.6 section 7.6.2.2), worked out by hand.
  struct Want {
    const char* name;
    uint32_t offset_B, array_stride_B, matrix_stride_B;
    bool row_major;
  };
  const Want want[] = {{"Params.f", 0, 0, 0, false},  {"Params.v", 16, 0, 0, false},
                       {"Params.a", 32, 16, 0, false}, {"Params.m", 80, 0, 16, false},
                       {"Params.r", 128, 0, 16, true}, {"Params.u", 176, 0, 0, false}};
  for (const Want& w : want) {
    auto at = runtime::find_block_member(*blocks, w.name);
    ASSERT_TRUE(at.ok()) << w.name << ": " << at.error().message();
    EXPECT_EQ(at->offset_B, w.offset_B) << w.name;
    EXPECT_EQ(at->member->array_stride_B, w.array_stride_B) << w.name;
    EXPECT_EQ(at->member->matrix_stride_B, w.matrix_stride_B) << w.name;
    EXPECT_EQ(at->member->row_major, w.row_major) << w.name;
  }
  EXPECT_EQ(runtime::find_block_member(*blocks, "Params.a[2]")->offset_B, 64u);
  EXPECT_FALSE(runtime::find_block_member(*blocks, "Params.a[3]").ok());
  EXPECT_EQ(runtime::find_block_member(*blocks, "k")->offset_B, 0u);  // no instance name: no prefix
  EXPECT_EQ(runtime::find_block_member(*blocks, "nope").error().kind(), ErrorKind::not_found);
}

TEST(UniformBlocks, MemberWritesReachTheShader) {
  const std::string commands =
      "uniform float Params.f 1.5\n"
      "uniform vec3 Params.v 2 3 4\n"
      "uniform int Params.a[0] 7\n"
      "uniform int Params.a[2] -9\n"
      "uniform mat3 Params.m 1 2 3 4 5 6 7 8 9\n"       // columns (1 2 3) (4 5 6) (7 8 9)
      "uniform mat2x3 Params.r 10 11 12 13 14 15\n"      // columns (10 11 12) (13 14 15)
      "uniform uvec2 Params.u 5 6\n"
      "uniform ivec4 k 1 2 3 44\n"
      "ssbo 0 48\ncompute 1 1 1\n";
  std::string probes;
  const float want[] = {1.5f, 2, 4, 7, -9, 1, 6, 8, 11, 15, 6, 44};
  for (int i = 0; i < 12; ++i) probes += fmt::format("probe ssbo float 0 {} == {}\n", 4 * i, want[i]);
  const std::string file = test::compute_file(kShader, commands + probes);
  EXPECT_TRUE(test::passes(file));
  // A wrong expectation fails.
  auto bad = file;
  bad.replace(bad.find("probe ssbo float 0 28 == 8"), 26, "probe ssbo float 0 28 == 7");
  EXPECT_EQ(run_shader_test(bad).outcome, Outcome::fail);
  // `ubo array index 1` of a block that is not an array names the block.
  auto v = run_shader_test(test::compute_file(kShader, "ubo array index 1\nuniform float Params.f 1.0\n"));
  EXPECT_EQ(v.outcome, Outcome::fail);
  EXPECT_NE(v.detail.find("block Params has no such element"), std::string::npos) << v.detail;
}

}  // namespace
}  // namespace agx::shadertest
