// The .shader_test parser over real piglit files (tests/data/piglit, copied
// from Debian 12's piglit package) and over hand-written bad input.
#include <gtest/gtest.h>

#include <cstring>

#include "shadertest/shader_test.h"
#include "command_helpers.h"

namespace agx::shadertest {
namespace AGX_UNITY_ID {

ShaderTest parse_file(const std::string& name) {
  auto t = parse_shader_test(test::read_file("tests/data/piglit/" + name));
  EXPECT_TRUE(t.ok()) << name << ": " << (t.ok() ? "" : t.error().message());
  return t.ok() ? std::move(t).value() : ShaderTest{};
}

template <typename T>
const T& body(const ShaderTest& t, size_t i) {
  return std::get<T>(t.commands.at(i).body);
}

TEST(ShaderTest, BuiltInFunctionFile) {
  ShaderTest t = parse_file("cs-abs-float.shader_test");
  ASSERT_EQ(t.require.versions.size(), 1u);
  EXPECT_EQ(t.require.versions[0].api, Api::glsl);
  EXPECT_EQ(t.require.versions[0].num, 430u);
  EXPECT_EQ(t.require.versions[0].cmp, Compare::ge);
  ASSERT_EQ(t.shaders.size(), 1u);
  EXPECT_EQ(t.shaders[0].kind, ShaderKind::compute_glsl);
  EXPECT_EQ(t.shaders[0].first_line, 5u);
  EXPECT_NE(t.shaders[0].text.find("imageStore(tex, coord, tmp_color);"), std::string::npos);
  // clear color, clear, uniform int tex 0, texture rgbw, image texture, fb tex 2d, ...
  ASSERT_GE(t.commands.size(), 12u);
  EXPECT_EQ(body<CmdClearColor>(t, 0).rgba[2], 1.0f);
  std::get<CmdClear>(t.commands[1].body);
  const auto& tex = body<CmdUniform>(t, 2);
  EXPECT_EQ(tex.name, "tex");
  EXPECT_EQ(tex.type.scalar, Scalar::int32);
  const auto& rgbw = body<CmdTextureRgbw>(t, 3);
  EXPECT_EQ(rgbw.width_px, 5u);
  EXPECT_EQ(rgbw.height_px, 1u);
  EXPECT_EQ(rgbw.format, "GL_RGBA8");
  EXPECT_EQ(body<CmdImageTexture>(t, 4).format, "GL_RGBA8");
  EXPECT_EQ(body<CmdFbTex2d>(t, 5).units, std::vector<int>{0});
  const auto& arg0 = body<CmdUniform>(t, 6);
  float f;
  std::memcpy(&f, arg0.data.data(), 4);
  EXPECT_EQ(f, -1.5f);
  EXPECT_EQ(t.commands[6].line, 27u);
  const auto& probe = body<CmdProbeRgba>(t, 10);
  EXPECT_FALSE(probe.alpha);
  EXPECT_EQ(probe.x, 0);
  EXPECT_EQ(probe.rgba[1], 1.0f);
}

TEST(ShaderTest, SsboAndAtomicCounters) {
  ShaderTest t = parse_file("basic-ssbo.shader_test");
  EXPECT_EQ(t.require.extensions.size(), 3u);
  EXPECT_EQ(*t.require.glsl_num(), 330u);
  EXPECT_EQ(body<CmdAtomicCounters>(t, 0).count, 1u);
  EXPECT_EQ(body<CmdSsbo>(t, 1).size_B, 1024u);
  const auto& mode = body<CmdUniform>(t, 2);
  EXPECT_EQ(mode.type.scalar, Scalar::uint32);
  EXPECT_EQ(body<CmdCompute>(t, 3).x, 1u);
  const auto& p = body<CmdProbeAtomicCounter>(t, 4);
  EXPECT_EQ(p.index, 0u);
  EXPECT_EQ(p.value, 0u);
  EXPECT_EQ(body<CmdProbeAtomicCounter>(t, t.commands.size() - 1).value, 512u);
}

TEST(ShaderTest, TexParameterAndGroupSize) {
  ShaderTest b = parse_file("border-color.shader_test");
  EXPECT_EQ(body<CmdTextureRgbw>(b, 0).format, "GL_RGBA");
  EXPECT_EQ(body<CmdTexParameter>(b, 3).values.size(), 4u);
  ShaderTest g = parse_file("basic-local-size.shader_test");
  const auto& c = body<CmdComputeGroupSize>(g, 1);
  EXPECT_EQ(c.local, (std::array<uint32_t, 3>{8, 4, 2}));
  EXPECT_EQ(c.groups, (std::array<uint32_t, 3>{1, 1, 1}));
}

TEST(ShaderTest, SpirvSection) {
  ShaderTest t = parse_file("atomic-uint-cs.shader_test");
  EXPECT_EQ(t.require.spirv, Requirements::Spirv::yes);
  ASSERT_GE(t.shaders.size(), 2u);
  EXPECT_EQ(t.shaders[0].kind, ShaderKind::compute_spirv);
  EXPECT_NE(t.shaders[0].text.find("OpCapability AtomicStorage"), std::string::npos);
  EXPECT_EQ(t.shaders[1].kind, ShaderKind::compute_glsl);
}

TEST(ShaderTest, NumberSyntax) {
  // "0x" gives exact bits, other integers follow strtol base 0 (octal too).
  EXPECT_EQ(*parse_scalar("0x3f800000", Scalar::float32), 0x3f800000u);
  EXPECT_EQ(*parse_scalar("1.0", Scalar::float32), 0x3f800000u);
  EXPECT_EQ(*parse_scalar("010", Scalar::int32), 8u);
  EXPECT_EQ(*parse_scalar("-1", Scalar::int32), 0xffffffffu);
  EXPECT_EQ(*parse_scalar("0xffffffff", Scalar::int32), 0xffffffffu);
  EXPECT_EQ(*parse_scalar("-1", Scalar::uint32), 0xffffffffu);
  EXPECT_EQ(*parse_scalar("-9223372036854775808", Scalar::int64), 0x8000000000000000ull);
  EXPECT_EQ(*parse_scalar("18446744073709551615", Scalar::uint64), ~0ull);
  EXPECT_EQ(*parse_scalar("0x4000000000000000", Scalar::float64), 0x4000000000000000ull);
  EXPECT_EQ(*parse_scalar("4227922944u", Scalar::uint32), 4227922944u);  // GLSL's suffix, as strtoul reads it
  EXPECT_EQ(*parse_scalar("0U", Scalar::uint64), 0u);
  EXPECT_FALSE(parse_scalar("1u", Scalar::int32).ok());
  EXPECT_FALSE(parse_scalar("1uu", Scalar::uint32).ok());
  EXPECT_FALSE(parse_scalar("4294967296", Scalar::uint32).ok());
  EXPECT_FALSE(parse_scalar("1.5", Scalar::int32).ok());
  EXPECT_FALSE(parse_scalar("", Scalar::float32).ok());
}

TEST(ShaderTest, Types) {
  auto m = parse_glsl_type("mat2x3");
  ASSERT_TRUE(m.ok());
  EXPECT_EQ(m->columns, 2u);
  EXPECT_EQ(m->rows, 3u);
  EXPECT_EQ(m->size_B(), 24u);
  EXPECT_EQ(parse_glsl_type("u64vec3")->size_B(), 24u);
  EXPECT_EQ(parse_glsl_type("dmat4")->size_B(), 128u);
  EXPECT_TRUE(parse_glsl_type("image2D")->opaque);
  EXPECT_FALSE(parse_glsl_type("vec5").ok());
  EXPECT_FALSE(parse_glsl_type("mat5").ok());
  auto v = parse_values(*parse_glsl_type("ivec2"), "1 2 3");
  ASSERT_FALSE(v.ok());
  EXPECT_NE(v.error().message().find("takes 2 values, got 3"), std::string::npos);
}

TEST(ShaderTest, ErrorsNameTheLine) {
  auto t = parse_shader_test("[require]\nGLSL >= 4.30\n\n[compute shader]\nvoid main() {}\n[test]\n"
                             "compute 1 1 1\nfrobnicate 3\n");
  ASSERT_FALSE(t.ok());
  EXPECT_NE(t.error().message().find("line 8"), std::string::npos) << t.error().message();
  EXPECT_NE(t.error().message().find("unknown command 'frobnicate'"), std::string::npos);

  auto u = parse_shader_test("[require]\nGLSL >= 4.30\n[compute shader]\n[test]\nuniform vec2 v 1\n");
  ASSERT_FALSE(u.ok());
  EXPECT_NE(u.error().message().find("line 5"), std::string::npos) << u.error().message();

  auto s = parse_shader_test("[require]\nGLSL >= 4\n");
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.error().message().find("line 2"), std::string::npos) << s.error().message();

  EXPECT_FALSE(parse_shader_test("[require]\n[bogus]\n").ok());
  EXPECT_FALSE(parse_shader_test("[require]\nGLSL >= 4.30\n").ok());  // no shader
  // piglit ignores text before the first section
  EXPECT_FALSE(parse_shader_test("hello\n[require]\n").ok());  // (but a file needs a shader)
  EXPECT_FALSE(parse_command("probe ssbo uint 40 0 == 1", 1).ok());  // index 0..31
  EXPECT_FALSE(parse_command("texture rgbw 0 (4)", 1).ok());
  EXPECT_FALSE(parse_command("probe rgb 1 2 0.5", 1).ok());
  EXPECT_FALSE(parse_command("compute 1 1", 1).ok());
  EXPECT_FALSE(parse_command("ssbo 0 subdata vec2 0 1 2", 1).ok());
}

TEST(ShaderTest, BlockCommands) {
  struct Case {
    const char* line;
    BlockField field;
    int value;
  };
  const Case cases[] = {{"ubo array index 1", BlockField::array_index, 1},
                        {"block array index 2", BlockField::array_index, 2},
                        {"block binding 3", BlockField::binding, 3},
                        {"block offset 16", BlockField::offset, 16},
                        {"block matrix stride 32", BlockField::matrix_stride, 32},
                        {"block row major 1", BlockField::row_major, 1}};
  for (const auto& c : cases) {
    auto b = parse_command(c.line, 1);
    ASSERT_TRUE(b.ok()) << c.line << ": " << b.error().message();
    const auto& cmd = std::get<CmdBlockIndex>(*b);
    EXPECT_EQ(cmd.field, c.field) << c.line;
    EXPECT_EQ(cmd.value, c.value) << c.line;
  }
  EXPECT_FALSE(parse_command("block size 3", 1).ok());
  EXPECT_FALSE(parse_command("block binding x", 1).ok());
  EXPECT_FALSE(parse_command("ubo index 1", 1).ok());
}

TEST(ShaderTest, FbForms) {
  auto f = [](std::string_view line) {
    auto b = parse_command(line, 1);
    EXPECT_TRUE(b.ok()) << line << ": " << (b.ok() ? "" : b.error().message());
    return b.ok() ? std::get<CmdFbTex2d>(*b) : CmdFbTex2d{};
  };
  auto both = f("fb tex 2d 0 -1 2");
  EXPECT_EQ(both.target, CmdFbTex2d::Target::both);
  EXPECT_EQ(both.units, (std::vector<int>{0, -1, 2}));
  EXPECT_EQ(f("fb read tex 2d 3").target, CmdFbTex2d::Target::read);
  auto draw = f("fb draw winsys");
  EXPECT_EQ(draw.target, CmdFbTex2d::Target::draw);
  EXPECT_TRUE(draw.winsys);
  EXPECT_TRUE(f("fb winsys").winsys);
  EXPECT_FALSE(parse_command("fb tex 2d", 1).ok());
  EXPECT_FALSE(parse_command("fb tex 2d 32", 1).ok());
  // Layered attachments are graphics commands now (a compute session refuses
  // them by name); a form missing an operand is still an error.
  auto slice = parse_command("fb tex slice 2D 0 0 0", 1);
  ASSERT_TRUE(slice.ok());
  EXPECT_TRUE(std::holds_alternative<CmdGraphics>(*slice));
  EXPECT_FALSE(parse_command("fb tex slice 2D 0 0", 1).ok());
  EXPECT_FALSE(parse_command("fb winsys 1", 1).ok());
}

TEST(ShaderTest, RequireLines) {
  auto t = parse_shader_test(
      "[require]\nGLSL >= 4.30\nINT GL_MAX_COMPUTE_SHARED_MEMORY_SIZE >= 0x8000\nGL_MAX_VERTEX_ATTRIBS > 3\n"
      "GL_ARB_foo some words\nSIZE 32 16\ndepthbuffer\nSEPARABLE PROGRAM ENABLED\nignore_missing_uniforms\n"
      "SPIRV NO\nrlimit 4096\nwhatever else\n[compute shader]\n");
  ASSERT_TRUE(t.ok()) << t.error().message();
  const Requirements& r = t->require;
  ASSERT_EQ(r.limits.size(), 2u);
  EXPECT_TRUE(r.limits[0].int_query);
  EXPECT_EQ(r.limits[0].name, "GL_MAX_COMPUTE_SHARED_MEMORY_SIZE");
  EXPECT_EQ(r.limits[0].cmp, Compare::ge);
  EXPECT_EQ(r.limits[0].value, 32768);
  EXPECT_FALSE(r.limits[1].int_query);
  EXPECT_EQ(r.limits[1].cmp, Compare::gt);
  EXPECT_EQ(r.limits[1].value, 3);
  EXPECT_EQ(r.extensions, std::vector<std::string>{"GL_ARB_foo"});  // as shader_runner: the first word
  EXPECT_EQ(r.window_px, (std::array<uint32_t, 2>{32, 16}));
  EXPECT_TRUE(r.depthbuffer && r.separable_program && r.ignore_missing_uniforms && r.spirv_never);
  EXPECT_FALSE(r.sso);
  EXPECT_EQ(r.other, std::vector<std::string>{"rlimit 4096"});  // other lines are ignored, as shader_runner does
  // What shader_runner fails on.
  EXPECT_FALSE(parse_shader_test("[require]\nGLSL > 4.30\n[compute shader]\n").ok());
  EXPECT_FALSE(parse_shader_test("[require]\nSPIRV MAYBE\n[compute shader]\n").ok());
  EXPECT_FALSE(parse_shader_test("[require]\nSSO ENABLED\nSEPARABLE PROGRAM ENABLED\n[compute shader]\n").ok());
  EXPECT_FALSE(parse_shader_test("[require]\nINT GL_MAX_X >=\n[compute shader]\n").ok());
  EXPECT_FALSE(parse_shader_test("[require]\nSIZE 0 16\n[compute shader]\n").ok());
}

TEST(ShaderTest, CommandForms) {
  auto a = parse_command("probe atomic counter buffer 1 4 == 7", 1);
  ASSERT_TRUE(a.ok()) << a.error().message();
  EXPECT_TRUE(std::get<CmdProbeAtomicCounter>(*a).by_buffer);
  auto s = parse_command("probe ssbo int 2 8 != -3", 1);
  ASSERT_TRUE(s.ok()) << s.error().message();
  EXPECT_EQ(std::get<CmdProbeSsbo>(*s).cmp, Compare::ne);
  EXPECT_EQ(uint32_t(std::get<CmdProbeSsbo>(*s).bits), uint32_t(-3));
  auto d = parse_command("ssbo 2 subdata int   4    -4", 1);
  ASSERT_TRUE(d.ok()) << d.error().message();
  EXPECT_EQ(std::get<CmdSsboSubdata>(*d).offset_B, 4u);
  auto i = parse_command("texture integer 1 (2,2) (2,0) GL_R32I", 1);
  ASSERT_TRUE(i.ok()) << i.error().message();
  EXPECT_EQ(std::get<CmdTextureInteger>(*i).format, "GL_R32I");
  auto r = parse_command("resident image texture 2 GL_RGBA8", 1);
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(std::get<CmdImageTexture>(*r).resident);
  EXPECT_TRUE(parse_command("memory barrier GL_SHADER_STORAGE_BARRIER_BIT", 1).ok());
  EXPECT_TRUE(parse_command("verify program_query GL_ACTIVE_UNIFORMS 8", 1).ok());
  EXPECT_TRUE(parse_command("uniform handle dst 2", 1).ok());
  EXPECT_TRUE(parse_command("probe all rgba 0.5 0.5 0.5 0.5", 1).ok());
  EXPECT_TRUE(parse_command("ubo array index 1", 1).ok());
  EXPECT_TRUE(parse_command("link error", 1).ok());
}

}  // namespace
}  // namespace agx::shadertest
