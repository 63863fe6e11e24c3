// The [test] commands of vertex/fragment files: every command kind of the
// installed corpus (tests/data/graphics_command_kinds.txt) parses to its
// kind, the typed values of each form, errors that name the line, the
// sections and [vertex data].
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "shadertest/census.h"
#include "shadertest/shader_test.h"

namespace agx::shadertest {
namespace AGX_UNITY_ID {

GraphicsCommand graphics(std::string_view line) {
  auto c = parse_command(line, 1);
  EXPECT_TRUE(c.ok()) << line << ": " << (c.ok() ? "" : c.error().message());
  if (!c.ok() || !std::holds_alternative<CmdGraphics>(*c)) {
    ADD_FAILURE() << line << " is not a graphics command";
    return CmdClearDepth{};
  }
  return std::get<CmdGraphics>(*c).command;
}

std::string error_of(std::string_view line) {
  auto c = parse_command(line, 7);
  EXPECT_FALSE(c.ok()) << line;
  return c.ok() ? "" : c.error().message();
}

TEST(GraphicsCommands, EveryCorpusKindParsesToItsKind) {
  std::ifstream f("tests/data/graphics_command_kinds.txt");
  ASSERT_TRUE(f) << "tests/data/graphics_command_kinds.txt";
  std::string line;
  size_t kinds = 0;
  while (std::getline(f, line)) {
    if (line.empty() || line[0] == '#') continue;
    size_t bar = line.find(" | ");
    ASSERT_NE(bar, std::string::npos) << line;
    std::string kind = line.substr(0, bar), example = line.substr(bar + 3);
    auto c = parse_command(example, 1);
    ASSERT_TRUE(c.ok()) << example << ": " << c.error().message();
    EXPECT_EQ(command_kind(*c), kind) << example;
    ++kinds;
  }
  EXPECT_EQ(kinds, 86u);
}

TEST(GraphicsCommands, DrawRectForms) {
  auto d = std::get<CmdDrawRect>(graphics("draw rect -1 -1 2 2"));
  EXPECT_EQ(d.rect, (std::array<float, 4>{-1, -1, 2, 2}));
  EXPECT_FALSE(d.ortho || d.patch || d.tex || d.instanced);
  d = std::get<CmdDrawRect>(graphics("draw rect ortho patch 10 20 30 40"));
  EXPECT_TRUE(d.ortho && d.patch);
  EXPECT_EQ(d.rect[3], 40);
  d = std::get<CmdDrawRect>(graphics("draw rect tex 0 0 1 1 0 0 2 2"));
  EXPECT_TRUE(d.tex);
  EXPECT_EQ(d.tex_rect[2], 2);
  d = std::get<CmdDrawRect>(graphics("draw instanced rect ortho 3 10 10 10 10"));
  EXPECT_TRUE(d.instanced && d.ortho);
  EXPECT_EQ(d.instances, 3u);
  EXPECT_NE(error_of("draw rect 1 2 3").find("draw rect [ortho] [patch] X Y W H"), std::string::npos);
  EXPECT_NE(error_of("draw instanced rect patch 3 1 1 1 1").find("draw instanced rect"), std::string::npos);
  EXPECT_NE(error_of("draw rect 1 2 3 x").find("line 7"), std::string::npos);
}

TEST(GraphicsCommands, DrawArraysForms) {
  auto d = std::get<CmdDrawArrays>(graphics("draw arrays GL_TRIANGLE_FAN 2 4"));
  EXPECT_EQ(d.kind, CmdDrawArrays::Kind::arrays);
  EXPECT_EQ(d.mode, "GL_TRIANGLE_FAN");
  EXPECT_EQ(d.first[0], 2);
  EXPECT_EQ(d.count[0], 4);
  d = std::get<CmdDrawArrays>(graphics("draw arrays instanced GL_POINTS 0 3 5"));
  EXPECT_EQ(d.instances, 5u);
  d = std::get<CmdDrawArrays>(graphics("draw arrays instanced base GL_POINTS 0 3 5 7"));
  EXPECT_EQ(d.kind, CmdDrawArrays::Kind::instanced_base);
  EXPECT_EQ(d.base_instance, 7u);
  d = std::get<CmdDrawArrays>(graphics("multidraw arrays GL_LINES 2 0 4 2 2"));
  EXPECT_EQ(d.first, (std::vector<int32_t>{0, 4}));
  EXPECT_EQ(d.count, (std::vector<int32_t>{2, 2}));
  EXPECT_NE(error_of("draw arrays GL_TRIANGLE 0 3").find("not a GL primitive mode"), std::string::npos);
  EXPECT_NE(error_of("multidraw arrays GL_LINES 2 0 4 2").find("Bad argument count"), std::string::npos);
}

TEST(GraphicsCommands, Probes) {
  auto p = std::get<CmdProbeRegion>(graphics("relative probe rgba (0.75, 0.25) (0, 1, 0, 0)"));
  EXPECT_TRUE(p.relative && p.alpha && !p.rect);
  EXPECT_EQ(p.where[0], 0.75f);
  EXPECT_EQ(p.rgba, (std::array<float, 4>{0, 1, 0, 0}));
  p = std::get<CmdProbeRegion>(graphics("relative probe rect rgb (0.5, 0.0, 0.5, 0.5) (1.0, 0.0, 0.0)"));
  EXPECT_TRUE(p.rect && !p.alpha);
  EXPECT_EQ(p.rgba[3], 1.0f);
  p = std::get<CmdProbeRegion>(graphics("probe rect rgba (0, 0, 4, 4) (0.0, 1.0, 0.0, 1.0)"));
  EXPECT_FALSE(p.relative);
  EXPECT_EQ(p.where[2], 4.0f);
  p = std::get<CmdProbeRegion>(graphics("relative probe rect rgba int (0, 0, 1, 1) (1, -2, 3, 4)"));
  EXPECT_TRUE(p.integer);
  EXPECT_EQ(p.rgba_int[1], -2);
  auto d = std::get<CmdProbeDepth>(graphics("probe depth 125 125 0.625"));
  EXPECT_EQ(d.x, 125);
  EXPECT_EQ(d.depth, 0.625f);
  // probe rgb / all stay the compute parser's commands.
  EXPECT_TRUE(std::holds_alternative<CmdProbeRgba>(*parse_command("probe rgb 1 1 0 0 0", 1)));
  p = std::get<CmdProbeRegion>(graphics("relative probe rgb (0.0, 0.0) (1.0, 0.5, 1.0, 1.0)"));  // sscanf: 4th ignored
  EXPECT_EQ(p.rgba, (std::array<float, 4>{1.0f, 0.5f, 1.0f, 1.0f}));
  p = std::get<CmdProbeRegion>(graphics("relative probe rgb (0.0, 0.0) (1.0, 0.5, 1.0, 0.0)"));
  EXPECT_EQ(p.rgba[3], 1.0f);
  EXPECT_NE(error_of("relative probe rgb (0.5) (1, 0, 0)").find("2 coordinates and 3 channels"), std::string::npos);
  EXPECT_NE(error_of("probe rect rgb (0, 0, 1.5, 1) (1, 0, 0)").find("not an integer"), std::string::npos);
}

TEST(GraphicsCommands, StateAndFixedFunction) {
  auto s = std::get<CmdGlState>(graphics("enable GL_DEPTH_TEST"));
  EXPECT_EQ(s.kind, CmdGlState::Kind::enable);
  EXPECT_EQ(s.args, (std::vector<std::string>{"GL_DEPTH_TEST"}));
  s = std::get<CmdGlState>(graphics("polygon mode GL_FRONT_AND_BACK GL_LINE"));
  EXPECT_EQ(s.args.size(), 2u);
  s = std::get<CmdGlState>(graphics("fb draw tex slice 2DArray 0 0 1"));
  EXPECT_EQ(s.kind, CmdGlState::Kind::fb_tex_slice);
  EXPECT_EQ(s.args.front(), "draw");
  auto f = std::get<CmdFixedFunction>(graphics("ortho"));
  EXPECT_TRUE(f.values.empty());
  f = std::get<CmdFixedFunction>(graphics("ortho 0 1 0 1"));
  EXPECT_EQ(f.values.size(), 4u);
  f = std::get<CmdFixedFunction>(graphics("clip plane 3 0 -1 0 0.5"));
  EXPECT_EQ(f.index, 3);
  EXPECT_EQ(f.values[3], 0.5);
  auto t = std::get<CmdTexturePattern>(graphics("texture checkerboard 1 0 (32, 32) (0.5, 0, 0, 0) (0, 1, 0, 0)"));
  EXPECT_EQ(t.colors.size(), 2u);
  EXPECT_EQ(t.colors[1][1], 1.0f);
  EXPECT_FLOAT_EQ(std::get<CmdClearDepth>(graphics("clear depth 0.25")).depth, 0.25f);
  EXPECT_NE(error_of("enable DEPTH_TEST").find("GL_CAPABILITY"), std::string::npos);
  EXPECT_NE(error_of("provoking vertex middle").find("first|last"), std::string::npos);
  EXPECT_NE(error_of("clip plane 9 0 0 0 0").find("out of range"), std::string::npos);
  EXPECT_NE(error_of("blit color bilinear").find("FB blit command not understood"), std::string::npos);
}

TEST(GraphicsSections, VertexFragmentAndVertexData) {
  auto t = parse_shader_test(
      "[require]\nGLSL >= 1.10\n[vertex shader passthrough]\n[fragment shader]\nvoid main() {}\n"
      "[vertex data]\npiglit_vertex/float/2  c/float/vec3  m/float/2/1 i/int/1\n# a comment\n"
      "-1 -1  0 0 1  5 6 -3\n 1 -1  1 0 0  7 8 4\n[test]\ndraw arrays GL_LINES 0 2\n");
  ASSERT_TRUE(t.ok()) << t.error().message();
  EXPECT_TRUE(t->has_stage(ShaderKind::vertex_passthrough));
  EXPECT_TRUE(t->has_stage(ShaderKind::fragment_glsl));
  EXPECT_EQ(t->shaders[1].text, "void main() {}\n");
  ASSERT_TRUE(t->vertex_data);
  const VertexData& d = *t->vertex_data;
  ASSERT_EQ(d.columns.size(), 4u);
  EXPECT_EQ(d.columns[1].components, 3u);
  EXPECT_EQ(d.columns[2].matrix_column, 1);
  EXPECT_EQ(d.columns[3].type, VertexDataType::int_);
  EXPECT_EQ(d.rows, 2u);
  EXPECT_EQ(d.stride(), 8u);
  EXPECT_EQ(d.values[7], -3);
  EXPECT_EQ(d.packed().size(), 2u * (7 * 4 + 4));
  auto bad = [](std::string_view data) {
    auto r = parse_shader_test(std::string("[vertex shader]\n[vertex data]\n") + std::string(data));
    EXPECT_FALSE(r.ok()) << data;
    return r.ok() ? "" : r.error().message();
  };
  EXPECT_NE(bad("p/float/2\n1 2 3\n").find("line 4: a vertex data row of 3 values, the header names 2"),
            std::string::npos);
  EXPECT_NE(bad("p/half/2\n").find("type 'half'"), std::string::npos);
  EXPECT_NE(bad("p/float/mat4\n").find("MATRIX_COLUMN"), std::string::npos);
  EXPECT_NE(bad("p/float/5\n").find("5 components"), std::string::npos);
  EXPECT_NE(bad("p/float\n").find("NAME/TYPE/COUNT"), std::string::npos);
  EXPECT_NE(bad("p[]/int/1\n").find("is not NAME or NAME[INDEX]"), std::string::npos);
  EXPECT_NE(bad("v[1/int/1\n").find("is not NAME or NAME[INDEX]"), std::string::npos);
  EXPECT_NE(bad("v[x]/int/1\n").find("array index 'x'"), std::string::npos);
}

// Array inputs' elements: NAME[INDEX], with a matrix type's column count.
TEST(GraphicsSections, VertexDataArrayElements) {
  auto t = parse_shader_test(
      "[vertex shader]\n[vertex data]\nv[1]/int/ivec4 m[2]/double/dmat3x2/2 p/float/2\n1 2 3 4 5 6 7 8\n");
  ASSERT_TRUE(t.ok()) << t.error().message();
  const VertexData& d = *t->vertex_data;
  ASSERT_EQ(d.columns.size(), 3u);
  EXPECT_EQ(d.columns[0].name, "v");
  EXPECT_EQ(d.columns[0].array_index, 1u);
  EXPECT_EQ(d.columns[0].matrix_columns, 1u);
  EXPECT_EQ(d.columns[1].name, "m");
  EXPECT_EQ(d.columns[1].array_index, 2u);
  EXPECT_EQ(d.columns[1].matrix_columns, 3u);
  EXPECT_EQ(d.columns[1].matrix_column, 2);
  EXPECT_EQ(d.columns[1].components, 2u);
  EXPECT_EQ(d.columns[2].array_index, 0u);
}

TEST(GraphicsCensus, CountsKindsAndNamesFailures) {
  Census c;
  c.add("a.shader_test", "[require]\nGLSL >= 1.10\n[vertex shader]\nvoid main() {}\n[test]\ndraw rect -1 -1 2 2\n"
                         "probe all rgba 0 1 0 1\ndraw rect -1 -1 1 1\n");
  c.add("b.shader_test", "[vertex shader]\n[test]\ndraw rect 1 2\n");
  c.add("g.shader_test", "[geometry shader]\n[vertex shader]\n");
  c.add("c.shader_test", "[compute shader]\n");
  EXPECT_EQ(c.vertex_fragment_files, 2u);
  EXPECT_EQ(c.parsed, 1u);
  EXPECT_EQ(c.geometry_tessellation_files, 1u);
  EXPECT_EQ(c.other_files, 1u);
  EXPECT_EQ(c.commands["draw rect"], 2u);
  EXPECT_EQ(c.commands["probe all rgba"], 1u);
  EXPECT_EQ(c.sections["vertex shader"], 2u);
  ASSERT_EQ(c.failures.size(), 1u);
  EXPECT_NE(c.failures[0].find("b.shader_test: line 3: 'draw rect 1 2'"), std::string::npos) << c.failures[0];
}

}  // namespace
}  // namespace agx::shadertest
