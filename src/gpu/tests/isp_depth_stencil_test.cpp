// The ISP's per-sample tests (cmdbuf.xml "ZS Func", "Stencil Op", "Fragment
// face", "Fragment stencil"; docs/gpu.md, "The ISP"): every function and
// operation, masks, the reference, two-sided stencil, 16-bit depth and the
// depth bias.
#include <gtest/gtest.h>

#include <cmath>

#include "gpu/isp/isp.h"

namespace agx::gpu {
namespace AGX_UNITY_ID {

namespace cs = cmdstream;

TEST(IspDepthStencil, EveryCompareFunction) {
  struct Row { cs::ZsFunc f; bool lt, eq, gt; };
  const Row rows[] = {{cs::ZsFunc::kNever, false, false, false},  {cs::ZsFunc::kLess, true, false, false},
                      {cs::ZsFunc::kEqual, false, true, false},   {cs::ZsFunc::kLequal, true, true, false},
                      {cs::ZsFunc::kGreater, false, false, true}, {cs::ZsFunc::kNotEqual, true, false, true},
                      {cs::ZsFunc::kGequal, false, true, true},   {cs::ZsFunc::kAlways, true, true, true}};
  for (const Row& r : rows) {
    EXPECT_EQ(compare(r.f, 0.25, 0.5), r.lt) << int(r.f);
    EXPECT_EQ(compare(r.f, 0.5, 0.5), r.eq) << int(r.f);
    EXPECT_EQ(compare(r.f, 0.75, 0.5), r.gt) << int(r.f);
  }
}

TEST(IspDepthStencil, EveryStencilOperation) {
  EXPECT_EQ(stencil_op(cs::StencilOp::kKeep, 7, 3), 7);
  EXPECT_EQ(stencil_op(cs::StencilOp::kZero, 7, 3), 0);
  EXPECT_EQ(stencil_op(cs::StencilOp::kReplace, 7, 3), 3);
  EXPECT_EQ(stencil_op(cs::StencilOp::kIncrSat, 0xFF, 3), 0xFF);
  EXPECT_EQ(stencil_op(cs::StencilOp::kIncrSat, 7, 3), 8);
  EXPECT_EQ(stencil_op(cs::StencilOp::kDecrSat, 0, 3), 0);
  EXPECT_EQ(stencil_op(cs::StencilOp::kDecrSat, 7, 3), 6);
  EXPECT_EQ(stencil_op(cs::StencilOp::kInvert, 0x0F, 3), 0xF0);
  EXPECT_EQ(stencil_op(cs::StencilOp::kIncrWrap, 0xFF, 3), 0);
  EXPECT_EQ(stencil_op(cs::StencilOp::kDecrWrap, 0, 3), 0xFF);
}

TEST(IspDepthStencil, StencilMasksReferenceAndTheOrderOfTests) {
  FaceTest t;
  t.stencil = true;
  t.stencil_func = cs::ZsFunc::kEqual;
  t.reference = 0x35;
  t.read_mask = 0x0F;  // compares 0x5 with the stored low nibble
  t.write_mask = 0xF0;
  t.stencil_fail = cs::StencilOp::kInvert;
  t.depth_fail = cs::StencilOp::kZero;
  t.depth_pass = cs::StencilOp::kReplace;
  t.depth_func = cs::ZsFunc::kLess;
  t.depth_write = true;
  float z = 0.5f;
  uint8_t s = 0xA5;  // low nibble 5: stencil passes
  EXPECT_TRUE(depth_stencil_test(t, DepthFormat::f32, 0.25, z, s));
  EXPECT_EQ(z, 0.25f);
  EXPECT_EQ(s, 0x35);  // replace, high nibble only: 0x3 | 0x5
  EXPECT_FALSE(depth_stencil_test(t, DepthFormat::f32, 0.75, z, s));
  EXPECT_EQ(z, 0.25f);
  EXPECT_EQ(s, 0x05);  // depth fail: zero the high nibble
  s = 0xA4;            // stencil fails: invert the high nibble, depth untouched
  EXPECT_FALSE(depth_stencil_test(t, DepthFormat::f32, 0.0, z, s));
  EXPECT_EQ(s, 0x54);
  EXPECT_EQ(z, 0.25f);
  t.depth_write = false;
  s = 0x05;
  EXPECT_TRUE(depth_stencil_test(t, DepthFormat::f32, 0.125, z, s));
  EXPECT_EQ(z, 0.25f);  // Disable depth write
}

TEST(IspDepthStencil, FaceWordsAndTwoSidedStencil) {
  PppWords w;
  w.front.depth_function = cs::ZsFunc::kLess;
  w.front.stencil_reference = 1;
  w.back.depth_function = cs::ZsFunc::kGreater;
  w.back.disable_depth_write = true;
  w.back.stencil_reference = 2;
  w.front_stencil.compare = cs::ZsFunc::kEqual;
  w.back_stencil.compare = cs::ZsFunc::kNotEqual;
  w.fragment_control.stencil_test_enable = true;
  FaceTest back = face_test(w, false);
  EXPECT_EQ(back.depth_func, cs::ZsFunc::kGreater);
  EXPECT_FALSE(back.depth_write);
  EXPECT_EQ(back.stencil_func, cs::ZsFunc::kEqual);  // one-sided: the front stencil
  EXPECT_EQ(back.reference, 1);
  w.fragment_control.two_sided_stencil = true;
  back = face_test(w, false);
  EXPECT_EQ(back.stencil_func, cs::ZsFunc::kNotEqual);
  EXPECT_EQ(back.reference, 2);
  const FaceTest front = face_test(w, true);
  EXPECT_EQ(front.depth_func, cs::ZsFunc::kLess);
  EXPECT_TRUE(front.depth_write);
  EXPECT_TRUE(front.stencil);
}

TEST(IspDepthStencil, SixteenBitDepthComparesQuantizedValues) {
  EXPECT_EQ(quantize_depth(0.5, DepthFormat::unorm16), 32768.0 / 65535.0);
  EXPECT_EQ(quantize_depth(2.0, DepthFormat::unorm16), 1.0);
  FaceTest t;
  t.depth_func = cs::ZsFunc::kEqual;
  float z = float(quantize_depth(0.5, DepthFormat::unorm16));
  uint8_t s = 0;
  EXPECT_TRUE(depth_stencil_test(t, DepthFormat::unorm16, 0.5 + 1e-6, z, s));
  EXPECT_FALSE(depth_stencil_test(t, DepthFormat::f32, 0.5 + 1e-6, z, s));
}

TEST(IspDepthStencil, DepthBiasUnitsSlopeAndClamp) {
  Scene s;
  for (auto p : {std::array<double, 3>{0, 0, 0.5}, {8, 0, 0.5}, {0, 8, 0.75}})
    s.vertices.push_back({{p[0], p[1], p[2], 1.0}, 0});
  ScenePrimitive p;
  p.vertices = {0, 1, 2};
  auto r = setup_primitive(s, p);
  ASSERT_TRUE(r.ok());
  cs::DepthBias b{};
  b.depth_bias = 2;
  EXPECT_DOUBLE_EQ(depth_bias(b, *r, true), 2.0 / 65536);
  EXPECT_DOUBLE_EQ(depth_bias(b, *r, false), 2 * std::ldexp(1.0, -24));  // max z 0.75: exponent -1
  b.slope_scale = 4;
  EXPECT_DOUBLE_EQ(depth_bias(b, *r, true), 2.0 / 65536 + 4 * (0.25 / 8));
  b.clamp = 0.1f;
  EXPECT_DOUBLE_EQ(depth_bias(b, *r, true), double(0.1f));
}

}  // namespace
}  // namespace agx::gpu
