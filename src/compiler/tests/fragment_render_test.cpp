// Fragment shaders compiled, linked with their epilog and drawn by the
// software GPU's fragment half (src/gpu/tests/pdm_fixture.h): the CF
// bindings come from the shader's FragmentAbi through
// varyings::separable_bindings, the blend constant from a Uniform word at
// u2..u5; pixels are checked against references computed here.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "fragment_render.h"

namespace agx::compiler {
namespace AGX_UNITY_ID {

namespace cs = agx::cmdstream;
using gpu::test::f2u;

using test::FragmentRender;

// A triangle with an interpolated colour, a discard on gl_FragCoord.x and
// a depth write: the GLSL -> compile -> link -> draw path.
TEST_F(FragmentRender, TriangleWithColourDiscardFragCoordAndDepth) {
  target_of("R8G8B8A8_UNORM", 32, 32);
  clear_and_store(0, 0, 0, 1);
  cs::ZlsControl c{};
  c.z_store = true;
  c.z_format = cs::ZlsFormat::k32F;
  zls(c, 1.0f, 0);
  FragmentEpilogKey key;
  key.write_depth = true;
  const Shader s = linked(R"(#version 450
layout(location = 0) in vec4 colour;
layout(location = 0) out vec4 o;
void main() {
  if (gl_FragCoord.x < 8.0) discard;
  o = colour;
  gl_FragDepth = gl_FragCoord.y / 64.0;
})", key);
  ASSERT_FALSE(s.code.empty());
  EXPECT_TRUE(s.abi.fragment.discards && s.abi.fragment.writes_depth && s.abi.fragment.reads_frag_coord);
  varyings::Interface iface;
  iface.varyings.push_back({"colour", 4, 32, varyings::Interp::smooth});
  iface.fragcoord_z = true;
  gpu::PppWords w = open_words();
  w.front.disable_depth_write = w.back.disable_depth_write = false;
  const uint32_t st = draw_shader(s, iface, w);
  // A rectangle: red on the left edge, blue on the right (x in 0..32).
  rect(st, 0, 0, 32, 32, 0.5, true, [](double x, double) {
    return std::vector<float>{float(1 - x / 32), 0.0f, float(x / 32), 1.0f};
  });
  auto r = run();
  ASSERT_TRUE(r.ok()) << r.error().message();
  for (int y = 0; y < 32; ++y)
    for (int x = 0; x < 32; ++x) {
      const auto p = pixel(x, y);
      if (x < 8) {
        ASSERT_EQ(p, (std::array<uint8_t, 4>{0, 0, 0, 255})) << x << "," << y;
        ASSERT_EQ(depth_at(x, y), 1.0f) << x << "," << y;
        continue;
      }
      const double t = (x + 0.5) / 32;
      ASSERT_NEAR(p[0], (1 - t) * 255, 1.0) << x << "," << y;
      ASSERT_EQ(p[1], 0);
      ASSERT_NEAR(p[2], t * 255, 1.0) << x << "," << y;
      ASSERT_EQ(p[3], 255);
      ASSERT_FLOAT_EQ(depth_at(x, y), float((y + 0.5) / 64.0)) << x << "," << y;
    }
}

// Alpha-to-coverage at one sample: alpha below 0.5 covers nothing.
TEST_F(FragmentRender, AlphaToCoverage) {
  target_of("R8G8B8A8_UNORM", 16, 16);
  clear_and_store(0, 0, 0, 1);
  FragmentEpilogKey key;
  key.alpha_to_coverage = true;
  auto shader = [&](const char* alpha) {
    return linked(std::string("#version 450\nlayout(location = 0) out vec4 o;\nvoid main() { o = vec4(1.0, 1.0, 1.0, ") +
                      alpha + "); }\n",
                  key);
  };
  rect(draw_shader(shader("0.3"), {}), 0, 0, 8, 16, 0.5);
  rect(draw_shader(shader("0.7"), {}), 8, 0, 16, 16, 0.5);
  auto r = run();
  ASSERT_TRUE(r.ok()) << r.error().message();
  EXPECT_EQ(pixel(3, 5), (std::array<uint8_t, 4>{0, 0, 0, 255}));
  EXPECT_EQ(pixel(12, 5), (std::array<uint8_t, 4>{255, 255, 255, 178}));
}

// Every blend factor (as the source factor, then as the destination
// factor) and every equation, on RGBA8 over a cleared destination.
struct BlendCase {
  BlendFactor f;
  const char* name;
};
constexpr std::array<float, 4> kSrc{0.8f, 0.4f, 0.2f, 0.6f}, kSrc1{0.3f, 0.9f, 0.5f, 0.25f};
constexpr std::array<float, 4> kDst{0.2f, 0.6f, 1.0f, 0.4f}, kConst{0.5f, 0.25f, 0.75f, 0.1f};

float q8(float v) { return std::round(std::clamp(v, 0.0f, 1.0f) * 255.0f) / 255.0f; }

float factor_ref(BlendFactor f, unsigned c, const std::array<float, 4>& s, const std::array<float, 4>& d) {
  switch (f) {
    case BlendFactor::zero: return 0;
    case BlendFactor::one: return 1;
    case BlendFactor::src_color: return s[c];
    case BlendFactor::one_minus_src_color: return 1 - s[c];
    case BlendFactor::src_alpha: return s[3];
    case BlendFactor::one_minus_src_alpha: return 1 - s[3];
    case BlendFactor::dst_color: return d[c];
    case BlendFactor::one_minus_dst_color: return 1 - d[c];
    case BlendFactor::dst_alpha: return d[3];
    case BlendFactor::one_minus_dst_alpha: return 1 - d[3];
    case BlendFactor::constant_color: return kConst[c];
    case BlendFactor::one_minus_constant_color: return 1 - kConst[c];
    case BlendFactor::constant_alpha: return kConst[3];
    case BlendFactor::one_minus_constant_alpha: return 1 - kConst[3];
    case BlendFactor::src_alpha_saturate: return c == 3 ? 1 : std::min(s[3], 1 - d[3]);
    case BlendFactor::src1_color: return kSrc1[c];
    case BlendFactor::one_minus_src1_color: return 1 - kSrc1[c];
    case BlendFactor::src1_alpha: return kSrc1[3];
    case BlendFactor::one_minus_src1_alpha: return 1 - kSrc1[3];
  }
  return 0;
}

std::array<float, 4> blend_ref(const BlendState& b) {
  std::array<float, 4> d, out;
  for (unsigned c = 0; c < 4; ++c) d[c] = q8(kDst[c]);
  for (unsigned c = 0; c < 4; ++c) {
    const BlendOp op = c == 3 ? b.alpha : b.rgb;
    const float s = kSrc[c];
    const float sf = factor_ref(c == 3 ? b.src_alpha : b.src_rgb, c, kSrc, d);
    const float df = factor_ref(c == 3 ? b.dst_alpha : b.dst_rgb, c, kSrc, d);
    out[c] = op == BlendOp::add              ? s * sf + d[c] * df
             : op == BlendOp::subtract       ? s * sf - d[c] * df
             : op == BlendOp::reverse_subtract ? d[c] * df - s * sf
             : op == BlendOp::min            ? std::min(s, d[c])
                                             : std::max(s, d[c]);
  }
  return out;
}

std::string constant_shader(bool dual) {
  std::string s = "#version 450\nlayout(location = 0, index = 0) out vec4 o;\n";
  if (dual) s += "layout(location = 0, index = 1) out vec4 o1;\n";
  s += "void main() { o = vec4(0.8, 0.4, 0.2, 0.6);";
  if (dual) s += " o1 = vec4(0.3, 0.9, 0.5, 0.25);";
  return s + " }\n";
}

TEST_F(FragmentRender, EveryBlendFactorAndEquation) {
  target_of("R8G8B8A8_UNORM", 16, 16);
  std::vector<BlendState> cases;
  for (int f = 0; f <= int(BlendFactor::one_minus_src1_alpha); ++f) {
    BlendState a;
    a.enable = true;
    a.src_rgb = a.src_alpha = BlendFactor(f);
    a.dst_rgb = a.dst_alpha = BlendFactor::zero;
    cases.push_back(a);
    BlendState b = a;
    b.src_rgb = b.src_alpha = BlendFactor::zero;
    b.dst_rgb = b.dst_alpha = BlendFactor(f);
    cases.push_back(b);
  }
  for (BlendOp op : {BlendOp::add, BlendOp::subtract, BlendOp::reverse_subtract, BlendOp::min, BlendOp::max}) {
    BlendState b;
    b.enable = true;
    b.src_rgb = BlendFactor::src_alpha;
    b.dst_rgb = BlendFactor::one_minus_src_alpha;
    b.src_alpha = BlendFactor::one;
    b.dst_alpha = BlendFactor::one;
    b.rgb = op;
    b.alpha = op == BlendOp::add ? BlendOp::reverse_subtract : op;
    cases.push_back(b);
  }
  for (const BlendState& b : cases) {
    SCOPED_TRACE(testing::Message() << "src " << int(b.src_rgb) << " dst " << int(b.dst_rgb) << " op " << int(b.rgb));
    scene = gpu::Scene{};
    clear_and_store(kDst[0], kDst[1], kDst[2], kDst[3]);
    FragmentEpilogKey key;
    key.targets[0].blend = b;
    bool dual = false;
    for (BlendFactor f : {b.src_rgb, b.dst_rgb})
      dual |= f >= BlendFactor::src1_color;
    const Shader s = linked(constant_shader(dual), key);
    ASSERT_FALSE(s.code.empty());
    rect(draw_shader(s, {}, open_words(), kConst), 0, 0, 16, 16, 0.5);
    auto r = run();
    ASSERT_TRUE(r.ok()) << r.error().message();
    const auto want = blend_ref(b);
    const auto p = pixel(5, 7);
    for (unsigned c = 0; c < 4; ++c) ASSERT_NEAR(p[c], q8(want[c]) * 255, 1.0) << "component " << c;
  }
}

}  // namespace
}  // namespace agx::compiler

namespace agx::compiler {
namespace AGX_UNITY_ID {

// One tilebuffer format class: the render target, the shader's output, the
// epilog state and the raw bytes the image must hold at every pixel.
struct FormatCase {
  const char* format;
  const char* tile_format;  // image_write_block's / st_tile's F for bg and eot
  const char* output;       // the shader's `out` declaration type
  const char* value;        // what it writes
  std::string clear;        // the background's moves into r0.. (bits)
  unsigned clear_mask;      // bg's st_tile mask
  EpilogTarget target;
  bool logic_xor = false;
  std::vector<uint8_t> want;  // the pixel's bytes
};
std::string regs(std::initializer_list<uint32_t> v) {
  std::string s;
  unsigned i = 0;
  for (uint32_t x : v) s += "mov_imm r" + std::to_string(i++) + ", " + std::to_string(x) + ", 0b0\n";
  return s;
}

BlendState alpha_blend() {
  BlendState b;
  b.enable = true;
  b.src_rgb = b.src_alpha = BlendFactor::src_alpha;
  b.dst_rgb = b.dst_alpha = BlendFactor::one_minus_src_alpha;
  return b;
}

std::vector<FormatCase> format_cases() {
  const uint32_t one = 0x3F800000, half = 0x3F000000, zero = 0;
  std::vector<FormatCase> c;
  // u8norm, no blending: the colour converted.
  c.push_back({"R8G8B8A8_UNORM", "u8norm", "vec4", "vec4(1.0, 0.5, 0.0, 1.0)", regs({zero, zero, zero, zero}), 0xF, {}, false, {255, 128, 0, 255}});
  // u8norm, alpha blending over 0.5 grey: 0.25 * 1.0 + 0.75 * 0.5.
  c.push_back({"R8G8B8A8_UNORM", "u8norm", "vec4", "vec4(1.0, 0.0, 0.5, 0.25)", regs({half, half, half, half}), 0xF, {0xF, alpha_blend()}, false,
               {160, 96, 128, 112}});
  // A write mask st_tile can do itself (x and z only).
  c.push_back({"R8G8B8A8_UNORM", "u8norm", "vec4", "vec4(1.0)", regs({half, half, half, half}), 0xF, {0x5, {}}, false, {255, 128, 255, 128}});
  // A logic op (xor) on unorm8: 0xFF ^ 0x80.
  c.push_back({"R8G8B8A8_UNORM", "u8norm", "vec4", "vec4(1.0, 0.0, 1.0, 0.0)", regs({half, half, half, half}), 0xF, {}, true, {127, 128, 127, 128}});
  // f16: half floats.
  c.push_back({"R16G16B16A16_FLOAT", "f16", "vec4", "vec4(0.5, -2.0, 0.25, 1.0)", regs({zero, zero, zero, zero}), 0xF, {}, false,
               {0x00, 0x38, 0x00, 0xC0, 0x00, 0x34, 0x00, 0x3C}});
  // f16 blending (the destination read back from half bits): 0.5 * 0.5 + 0.5 * 1.0.
  c.push_back({"R16G16B16A16_FLOAT", "f16", "vec4", "vec4(0.5, 0.5, 0.5, 0.5)", regs({0x3C00, 0x3C00, 0x3C00, 0x3C00}), 0xF,
               {0xF, alpha_blend()}, false, {0x00, 0x3A, 0x00, 0x3A, 0x00, 0x3A, 0x00, 0x3A}});
  // A 32-bit integer target: blending is skipped; then xor.
  c.push_back({"R32_UINT", "i32", "uvec4", "uvec4(0x12345678u, 0u, 0u, 0u)", regs({7}), 0x1, {0xF, alpha_blend()}, false,
               {0x78, 0x56, 0x34, 0x12}});
  c.push_back({"R32_UINT", "i32", "uvec4", "uvec4(0x12345678u, 0u, 0u, 0u)", regs({7}), 0x1, {}, true, {0x7F, 0x56, 0x34, 0x12}});
  // 8-bit integers.
  c.push_back({"R8G8B8A8_UINT", "i8", "uvec4", "uvec4(1u, 2u, 250u, 7u)", regs({zero, zero, zero, zero}), 0xF, {}, false, {1, 2, 250, 7}});
  // s8norm, two components.
  c.push_back({"R8G8_SNORM", "s8norm", "vec4", "vec4(-1.0, 0.5, 0.0, 1.0)", regs({zero, zero}), 0x3, {}, false, {0x81, 64}});
  // u16norm.
  c.push_back({"R16_UNORM", "u16norm", "vec4", "vec4(0.5, 0.0, 0.0, 1.0)", regs({zero}), 0x1, {}, false, {0x00, 0x80}});
  // rgb10a2 (packed): whole, then with a write mask through ld_tile.
  c.push_back({"R10G10B10A2_UNORM", "rgb10a2", "vec4", "vec4(1.0, 0.0, 0.5, 1.0)", regs({zero, zero, zero, zero}), 0xF, {}, false, {0xFF, 0x03, 0x00, 0xE0}});
  c.push_back({"R10G10B10A2_UNORM", "rgb10a2", "vec4", "vec4(1.0, 1.0, 0.0, 0.0)", regs({zero, zero, half, one}), 0xF, {0x1, {}}, false,
               {0xFF, 0x03, 0x00, 0xE0}});
  return c;
}

class FragmentFormats : public FragmentRender, public testing::WithParamInterface<size_t> {};

TEST_P(FragmentFormats, EpilogStoresTheFormat) {
  const FormatCase fc = format_cases()[GetParam()];
  SCOPED_TRACE(fc.format);
  target_of(fc.format, 16, 16);
  static const char* kMasks[] = {"", "x", "y", "xy", "z", "xz", "yz", "xyz", "w", "xw", "yw", "xyw", "zw", "xzw", "yzw", "xyzw"};
  const unsigned regs = unsigned(std::popcount(fc.clear_mask));
  std::string tuple;
  for (unsigned i = 0; i < regs; ++i) tuple += (i ? "_r" : "r") + std::to_string(i);
  render.bg = tile_program(fc.clear + "st_tile " + tuple + ", " + fc.tile_format + ", 0, " + kMasks[fc.clear_mask] +
                               ", 0, 255, 0\n",
                           false);
  render.eot = tile_program(std::string("get_sr r4, sr2\nmov_imm r3l, 0\nimage_write_block r3l, r4_r5, 0, ts0, tex_2d, rte, ") +
                                fc.tile_format + ", 0, 9, 1\n",
                            true);
  FragmentEpilogKey key;
  tilebuffer::RenderTargets rts{};
  rts[0] = *format::find_format(fc.format);
  auto l = tilebuffer::build_layout(rts, 1);
  ASSERT_TRUE(l.ok());
  key.layout = *l;
  key.targets[0] = fc.target;
  key.logic_op_enable = fc.logic_xor;
  key.logic_op = LogicOp::xor_;
  const Shader s = linked(std::string("#version 450\nlayout(location = 0) out ") + fc.output + " o;\nvoid main() { o = " +
                              fc.value + "; }\n",
                          key);
  ASSERT_FALSE(s.code.empty());
  rect(draw_shader(s, {}), 0, 0, 16, 16, 0.5);
  auto r = run();
  ASSERT_TRUE(r.ok()) << r.error().message();
  for (int y : {0, 9})
    for (int x : {0, 13}) {
      auto at = layout::element_address_B(target.layout, uint32_t(x), uint32_t(y), 0, 0, 0);
      ASSERT_TRUE(at.ok());
      std::vector<uint8_t> got(fc.want.size());
      GpuFault f;
      ASSERT_TRUE(mem.read(kTarget + *at, got.data(), got.size(), GpuUnit::host, &f));
      for (size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(got[i], fc.want[i], 1) << "byte " << i << " at " << x << "," << y;
    }
}

INSTANTIATE_TEST_SUITE_P(Classes, FragmentFormats, testing::Range<size_t>(0, format_cases().size()));

TEST(FragmentEpilog, DefaultLayoutIsTheTilebufferUnits) {
  tilebuffer::RenderTargets rts{};
  rts[0] = format::Format::R8G8B8A8_UNORM;
  auto l = tilebuffer::build_layout(rts, 1);
  ASSERT_TRUE(l.ok());
  const tilebuffer::Layout d = FragmentEpilogKey::default_layout();
  EXPECT_EQ(d.formats, l->formats);
  EXPECT_EQ(d.offset_B, l->offset_B);
  EXPECT_EQ(d.sample_size_B, l->sample_size_B);
  EXPECT_EQ(d.samples, l->samples);
  EXPECT_EQ(d.tile, l->tile);
}

TEST(FragmentEpilog, RefusesWhatItCannotStore) {
  FragmentEpilogKey key;
  tilebuffer::RenderTargets rts{};
  rts[0] = format::Format::R32G32B32A32_FLOAT;
  auto l = tilebuffer::build_layout(rts, 1);
  ASSERT_TRUE(l.ok());
  key.layout = *l;
  key.logic_op_enable = true;
  auto e = compile_fragment_epilog(key);
  ASSERT_FALSE(e.ok());
  EXPECT_NE(e.error().message().find("logic op on render target 0"), std::string::npos) << e.error().message();
  Shader not_linked;
  not_linked.code = {0x88, 0x00};
  not_linked.code.insert(not_linked.code.begin(), {0x7e, 0x31, 0x50, 0x0a, 0x80, 0x00});  // mov, then stop
  auto ok = link_fragment(not_linked, not_linked);
  EXPECT_TRUE(ok.ok());
  Shader no_stop;
  no_stop.code = {0x7e, 0x31, 0x50, 0x0a, 0x80, 0x00};
  auto bad = link_fragment(no_stop, not_linked);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message().find("does not end in stop"), std::string::npos);
}

}  // namespace
}  // namespace agx::compiler
