// The vertex prolog: every vertex format fetched and converted on the
// software GPU's vertex half and checked against the format rules (Vulkan
// "Fixed-Point Data Conversions", the 16-bit and unsigned 10/11-bit float
// encodings), instancing with divisors, robustness clamping, the key's
// errors, and a GLSL shader linked with its prolog end to end.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstring>
#include <map>
#include <sstream>

#include "compiler/compiler.h"
#include "compiler/tests/vertex_prolog_ref.h"
#include "compiler/vertex_prolog.h"

namespace agx::compiler {
namespace AGX_UNITY_ID {

using namespace test;

TEST(VertexFormat, NamesRoundTrip) {
  EXPECT_EQ(vertex_formats().size(), 109u);
  for (const VertexFormat& f : vertex_formats()) {
    auto p = parse_vertex_format(vertex_format_name(f));
    ASSERT_TRUE(p.ok()) << vertex_format_name(f);
    EXPECT_TRUE(*p == f) << vertex_format_name(f);
  }
  EXPECT_EQ(vertex_format_name({Type::unorm, Layout::plain, 8, 4, true}), "B8G8R8A8_UNORM");
  EXPECT_EQ(vertex_format_name({Type::snorm, Layout::a2b10g10r10, 32, 4, true}), "A2R10G10B10_SNORM_PACK32");
  EXPECT_EQ(vertex_format_name({Type::sfloat, Layout::plain, 16, 3, false}), "R16G16B16_SFLOAT");
  auto d = parse_vertex_format("R64G64_SFLOAT");
  ASSERT_TRUE(d.ok()) << d.error().message();
  EXPECT_TRUE(*d == (VertexFormat{Type::sfloat, Layout::plain, 64, 2, false}));
  EXPECT_EQ(d->element_bytes(), 4u);  // loaded as words
  EXPECT_EQ(d->words(), 4u);
  auto u = parse_vertex_format("R8_SFLOAT");
  ASSERT_FALSE(u.ok());
  EXPECT_NE(u.error().message().find("unknown vertex format 'R8_SFLOAT'"), std::string::npos);
}

TEST(VertexProlog, UdivMagicDividesEveryNumerator) {
  const uint32_t ns[] = {0, 1, 2, 5, 6, 7, 100, 65535, 65536, 0x7FFFFFFF, 0x80000000, 0xFFFFFFFE, 0xFFFFFFFF};
  for (uint32_t d = 3; d < 2000; ++d) {
    if (std::has_single_bit(d)) continue;
    const UdivMagic m = udiv_magic(d);
    for (uint32_t n : ns) {
      const uint32_t t = static_cast<uint32_t>((uint64_t{n} * m.multiplier) >> 32);
      ASSERT_EQ((t + ((n - t) >> 1)) >> m.shift, n / d) << n << " / " << d;
    }
  }
}

TEST(VertexProlog, KeyErrors) {
  auto error = [](VertexPrologAttribute a) {
    VertexPrologKey k;
    k.attributes = {a};
    auto p = compile_vertex_prolog(k);
    EXPECT_FALSE(p.ok());
    return p.ok() ? std::string() : p.error().message();
  };
  VertexPrologAttribute a;
  a.format = {Type::uint, Layout::plain, 16, 2, false};
  a.type = BaseType::uint_;
  a.stride = 5;
  EXPECT_NE(error(a).find("stride 5 is not a multiple of R16G16_UINT's 2-byte element"), std::string::npos);
  a.format.layout = Layout::a2b10g10r10;
  a.format.bits = 32;
  a.format.components = 4;
  a.stride = 6;
  EXPECT_NE(error(a).find("stride 6 is not a multiple of A2B10G10R10_UINT_PACK32's 4-byte element"), std::string::npos);
  a.format = {Type::uint, Layout::plain, 16, 2, false};
  a.stride = 4;
  a.type = BaseType::float_;
  EXPECT_NE(error(a).find("format R16G16_UINT does not give the shader's float values"), std::string::npos);
  a.type = BaseType::uint_;
  a.location = 16;
  EXPECT_NE(error(a).find("attribute location 16"), std::string::npos);
  a.location = 0;
  a.format.bits = 12;
  EXPECT_NE(error(a).find("not a vertex format"), std::string::npos);
  VertexPrologKey k;
  a.format.bits = 16;
  k.attributes = {a, a};
  auto p = compile_vertex_prolog(k);
  ASSERT_FALSE(p.ok());
  EXPECT_NE(p.error().message().find("location 0 given twice"), std::string::npos);
  // Uniforms past u255, and locations past the shader's (their address
  // pair and clamp would be other uniforms of the ABI's layout).
  a.location = 3;
  k.attributes = {a};
  k.address_uniform = 250;
  p = compile_vertex_prolog(k);
  ASSERT_FALSE(p.ok());
  EXPECT_NE(p.error().message().find("location 3: its base address uniform u257 is past u255"), std::string::npos)
      << p.error().message();
  k.address_uniform = 0;
  k.clamp_uniform = 253;
  p = compile_vertex_prolog(k);
  ASSERT_FALSE(p.ok());
  EXPECT_NE(p.error().message().find("its clamp uniform u256"), std::string::npos) << p.error().message();
  k.clamp_uniform = 0;
  k.base_instance_uniform = 300;
  p = compile_vertex_prolog(k);
  ASSERT_FALSE(p.ok());
  EXPECT_NE(p.error().message().find("its base instance uniform u300"), std::string::npos) << p.error().message();
  const Shader& two = attribute_reader({{0, BaseType::float_}, {1, BaseType::uint_}});  // n = 2
  set_prolog_uniforms(k, two.abi.vertex);
  p = compile_vertex_prolog(k);
  ASSERT_FALSE(p.ok());
  EXPECT_NE(p.error().message().find("location 3 is past the main shader's attribute uniforms (2 locations: clamps "
                                     "from u4, base instance u7)"),
            std::string::npos)
      << p.error().message();
  a.location = 1;
  k.attributes = {a};
  EXPECT_TRUE(compile_vertex_prolog(k).ok());
}

class PrologFormat : public PrologRun, public ::testing::WithParamInterface<VertexFormat> {};

TEST_P(PrologFormat, ConvertsAsTheFormatRulesSay) {
  const VertexFormat f = GetParam();
  const Shader& main = reader(base_type(f));
  ASSERT_FALSE(main.code.empty());
  const uint32_t bytes = f.layout == Layout::plain ? f.components * f.bits / 8u : 4u;
  const uint32_t stride = (bytes + 4 + f.element_bytes() - 1) / f.element_bytes() * f.element_bytes();
  constexpr uint32_t kCount = 4;
  std::vector<uint8_t> buf(stride * kCount);
  uint32_t x = 0x9E3779B9u * (static_cast<uint32_t>(f.bits) + 7 * f.components + 131 * static_cast<uint32_t>(f.type));
  for (uint8_t& b : buf) b = static_cast<uint8_t>((x = x * 1664525u + 1013904223u) >> 24);
  // Element 0: 0x80 bytes (negative fields of signed formats); 1: zero.
  std::fill_n(buf.begin(), bytes, 0x80);
  std::fill_n(buf.begin() + stride, bytes, 0x00);
  finite(f, buf.data(), buf.size());
  VertexPrologAttribute a;
  a.location = 2;
  a.format = f;
  a.stride = stride;
  a.type = base_type(f);
  // First vertex 3: vertex IDs 3..6 read elements 3..6 of a buffer that
  // starts with 3 unused elements.
  std::vector<uint8_t> mem(3 * stride, 0xEE);
  mem.insert(mem.end(), buf.begin(), buf.end());
  ASSERT_TRUE(draw(main, {a}, {mem}, {3 + kCount - 1}, kCount, 1, 0, 3)) << message;
  ASSERT_EQ(scene.vertices.size(), kCount);
  const VertexAbi& v = main.abi.vertex;
  const unsigned o = v.layout.find_varying(0)->index, ids = v.layout.find_varying(1)->index;
  for (size_t k = 0; k < kCount; ++k) {
    const uint32_t element = out(k, ids) - 3;
    ASSERT_LT(element, kCount);
    const auto want = expected(f, buf.data() + element * stride);
    for (unsigned c = 0; c < 4; ++c) {
      const uint32_t got = out(k, o + c);
      if (alu_normalized(f) && c < (f.layout == Layout::plain ? f.components : 4u)) {
        EXPECT_LE(std::abs(int64_t{got} - int64_t{want[c]}), 1)
            << "element " << element << " component " << c << ": " << gpu::test::as_float(got) << " vs "
            << gpu::test::as_float(want[c]);
      } else {
        EXPECT_EQ(got, want[c]) << "element " << element << " component " << c << std::hex << ": 0x" << got
                                << " vs 0x" << want[c];
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(All, PrologFormat, ::testing::ValuesIn(word_formats()),
                         [](const ::testing::TestParamInfo<VertexFormat>& i) { return vertex_format_name(i.param); });

// Per-instance attributes: element = instance / divisor + base instance
// (divisor 1, a power of two, others through udiv_magic), and divisor 0
// (every instance reads element `base instance`), next to a per-vertex one.
TEST_F(PrologRun, InstanceDivisors) {
  const Shader& main = reader(BaseType::uint_);
  constexpr uint32_t kBaseInstance = 2, kInstances = 23;
  std::vector<uint32_t> words(64);
  for (uint32_t i = 0; i < words.size(); ++i) words[i] = 1000 + i;
  std::vector<uint8_t> buf(4 * words.size());
  std::memcpy(buf.data(), words.data(), buf.size());
  const VertexFormat r32{Type::uint, Layout::plain, 32, 1, false};
  for (uint32_t d : {0u, 1u, 3u, 4u, 7u, 10u}) {
    VertexPrologAttribute a;
    a.location = 2;
    a.format = r32;
    a.stride = 4;
    a.per_instance = true;
    a.divisor = d;
    a.type = BaseType::uint_;
    ASSERT_TRUE(draw(main, {a}, {buf}, {63}, 2, kInstances, kBaseInstance)) << message;
    ASSERT_EQ(scene.vertices.size(), 2 * kInstances);
    const unsigned o = main.abi.vertex.layout.find_varying(0)->index, ids = main.abi.vertex.layout.find_varying(1)->index;
    for (size_t k = 0; k < scene.vertices.size(); ++k) {
      const uint32_t instance = out(k, ids + 1) - kBaseInstance;  // gl_InstanceIndex counts from the base
      const uint32_t element = d == 0 ? kBaseInstance : instance / d + kBaseInstance;
      EXPECT_EQ(out(k, o), 1000 + element) << "divisor " << d << " instance " << instance;
      EXPECT_EQ(out(k, o + 3), 1u);
    }
  }
}

// Robustness (bminor/mesa-mesa src/asahi/lib/agx_nir_lower_vbo.c checks
// the element index against the clamp uniform, the last valid element):
// an index past it reads the last valid element, per vertex and per
// instance.
TEST_F(PrologRun, IndexPastTheClampReadsTheLastElement) {
  const Shader& main = reader(BaseType::int_);
  std::vector<uint8_t> buf(16 * 4);
  for (size_t i = 0; i < buf.size(); ++i) buf[i] = static_cast<uint8_t>(i);
  VertexPrologAttribute a;
  a.location = 2;
  a.format = {Type::sint, Layout::plain, 8, 2, false};
  a.stride = 4;
  a.type = BaseType::int_;
  ASSERT_TRUE(draw(main, {a}, {buf}, {2}, 6)) << message;
  ASSERT_EQ(scene.vertices.size(), 6u);
  const unsigned o = main.abi.vertex.layout.find_varying(0)->index, ids = main.abi.vertex.layout.find_varying(1)->index;
  for (size_t k = 0; k < 6; ++k) {
    const uint32_t element = std::min<uint32_t>(out(k, ids), 2);
    EXPECT_EQ(out(k, o), 4 * element);
    EXPECT_EQ(out(k, o + 1), 4 * element + 1);
    EXPECT_EQ(out(k, o + 2), 0u);
    EXPECT_EQ(out(k, o + 3), 1u);
  }
  a.per_instance = true;
  ASSERT_TRUE(draw(main, {a}, {buf}, {1}, 1, 4)) << message;
  ASSERT_EQ(scene.vertices.size(), 4u);
  for (size_t k = 0; k < 4; ++k) EXPECT_EQ(out(k, o), 4 * std::min<uint32_t>(out(k, ids + 1), 1));
}

// A GLSL shader with three attributes (a float position, normalized
// colour bytes in BGRA order, a per-instance integer offset) linked with
// its prolog: the prolog's registers stay within the linked count and the
// main shader's code follows it unchanged.
TEST_F(PrologRun, GlslShaderLinkedWithItsProlog) {
  auto s = compile_vs(R"(#version 450
layout(location = 0) in vec3 pos;
layout(location = 1) in vec4 colour;
layout(location = 3) in ivec2 offset;
layout(location = 0) out vec4 c;
layout(location = 1) out vec3 p;
void main() {
  gl_Position = vec4(0.0, 0.0, 0.5, 1.0);
  p = vec3(pos.xy + vec2(offset), pos.z);
  c = colour.bgra * 2.0;
})");
  ASSERT_TRUE(s.ok()) << s.error().message();
  const float pos[] = {0.5f, -0.25f, 0.75f, 1.5f, 2.5f, 0.125f};
  std::vector<uint8_t> pbuf(sizeof pos), cbuf = {0, 51, 102, 255, 255, 0, 0, 51};
  std::memcpy(pbuf.data(), pos, sizeof pos);
  const int16_t offs[] = {10, -20, 30, -40};
  std::vector<uint8_t> obuf(sizeof offs);
  std::memcpy(obuf.data(), offs, sizeof offs);
  VertexPrologAttribute p, c, o;
  p.location = 0;
  p.format = {Type::sfloat, Layout::plain, 32, 3, false};
  p.stride = 12;
  c.location = 1;
  c.format = {Type::unorm, Layout::plain, 8, 4, true};
  c.stride = 4;
  o.location = 3;
  o.format = {Type::sint, Layout::plain, 16, 2, false};
  o.stride = 4;
  o.per_instance = true;
  o.type = BaseType::int_;
  VertexPrologKey key;
  key.attributes = {p, c, o};
  set_prolog_uniforms(key, s->abi.vertex);
  auto prolog = compile_vertex_prolog(key);
  ASSERT_TRUE(prolog.ok()) << prolog.error().message();
  EXPECT_EQ(prolog->gprs, 2 * (attribute_register(3, 3) + 1));
  auto linked = link_vertex(*prolog, *s);
  ASSERT_TRUE(linked.ok()) << linked.error().message();
  EXPECT_EQ(linked->code.size(), prolog->code.size() + s->code.size());
  EXPECT_TRUE(std::equal(s->code.begin(), s->code.end(), linked->code.begin() + prolog->code.size()));
  EXPECT_EQ(linked->stats.gprs, std::max(prolog->gprs, s->stats.gprs));
  EXPECT_EQ(linked->stats.bytes, linked->code.size());
  EXPECT_GT(prolog->instructions, 3 * 3u);  // per attribute at least clamp, load, conversion or fill
  EXPECT_EQ(linked->stats.instructions, s->stats.instructions + prolog->instructions);
  std::istringstream lines(disassemble(prolog->code));
  uint32_t count = 0;
  for (std::string line; std::getline(lines, line);) count += !line.empty();
  EXPECT_EQ(count, prolog->instructions);
  EXPECT_EQ(linked->preamble, s->preamble);
  ASSERT_TRUE(draw(*s, {p, c, o}, {pbuf, cbuf, obuf}, {1, 1, 1}, 2, 2)) << message;
  ASSERT_EQ(scene.vertices.size(), 4u);
  // The interface entry of each location (VertexAbi::output_locations).
  const VertexAbi& v = s->abi.vertex;
  auto slot = [&](uint32_t location) { return output_slot(v, location); };
  const unsigned cv = slot(0), pv = slot(1);
  for (size_t k = 0; k < 4; ++k) {
    // Which vertex and instance: p.z tells the vertex, p.x the instance.
    const float z = outf(k, pv + 2);
    const size_t vtx = z == 0.75f ? 0 : 1;
    ASSERT_EQ(z, pos[3 * vtx + 2]);
    const size_t inst = outf(k, pv) == pos[3 * vtx] + 10 ? 0 : 1;
    EXPECT_FLOAT_EQ(outf(k, pv), pos[3 * vtx] + offs[2 * inst]);
    EXPECT_FLOAT_EQ(outf(k, pv + 1), pos[3 * vtx + 1] + offs[2 * inst + 1]);
    // Memory B, G, R, A: colour = (R, G, B, A), c = colour.bgra * 2.
    const uint8_t* m = cbuf.data() + 4 * vtx;
    EXPECT_FLOAT_EQ(outf(k, cv), 2.0f * m[0] / 255.0f);
    EXPECT_FLOAT_EQ(outf(k, cv + 1), 2.0f * m[1] / 255.0f);
    EXPECT_FLOAT_EQ(outf(k, cv + 2), 2.0f * m[2] / 255.0f);
    EXPECT_FLOAT_EQ(outf(k, cv + 3), 2.0f * m[3] / 255.0f);
  }
}

}  // namespace
}  // namespace agx::compiler
