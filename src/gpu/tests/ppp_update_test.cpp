// PPP updates: words in the order of cmdstream's table into the PPP words
// in force; bad headers, bad words and wrong sizes fault naming the word.
#include "gpu/tests/vdm_fixture.h"

namespace agx::gpu::test {
namespace AGX_UNITY_ID {

TEST(PppUpdate, WordsLandInOrderAndLaterUpdatesKeepTheRest) {
  PppRecord r;
  r.header.fragment_control = r.header.fragment_front_face = r.header.viewport = r.header.cull = true;
  r.header.fragment_shader = true;
  r.header.viewport_count = 2;
  cs::FragmentControl fc;
  fc.scissor_enable = true;
  cs::FragmentFace face;
  face.line_width = 0x1F;
  cs::Cull cull;
  cull.cull_back = true;
  cs::FragmentShaderWord1 f1;
  f1.pipeline = 0x1240;
  r.add(fc).add(face).add(cs::ViewportControl{}).add(viewport(1, 2, 3, 4)).add(viewport(5, 6, 7, 8)).add(cull);
  r.add(cs::FragmentShaderWord0{}).add(f1).add(cs::FragmentShaderWord2{}).add(cs::FragmentShaderWord3{});
  PppWords w;
  ASSERT_TRUE(apply_ppp_update(r.bytes(), 0x1000, w).ok());
  EXPECT_TRUE(w.fragment_control.scissor_enable);
  EXPECT_EQ(w.front.line_width, 0x1Fu);
  ASSERT_EQ(w.viewports.size(), 2u);
  EXPECT_EQ(w.viewports[1].translate_x, 5.0f);
  EXPECT_TRUE(w.cull.cull_back);
  EXPECT_EQ(w.fragment_shader_1.pipeline, 0x1240u);
  // present: Fragment control (0), front face (2), Viewport (11), Cull
  // (21), Fragment shader (23); the Viewport count is not a word.
  EXPECT_EQ(w.present, (1u << 0) | (1u << 2) | (1u << 11) | (1u << 21) | (1u << 23));
  // A second update with one viewport and the back face only.
  PppRecord r2;
  r2.header.fragment_back_face = r2.header.viewport = true;
  r2.header.viewport_count = 1;
  r2.add(face).add(cs::ViewportControl{}).add(viewport(9, 9, 9, 9));
  ASSERT_TRUE(apply_ppp_update(r2.bytes(), 0x2000, w).ok());
  EXPECT_EQ(w.viewports.size(), 1u);
  EXPECT_EQ(w.viewports[0].translate_x, 9.0f);
  EXPECT_TRUE(w.fragment_control.scissor_enable);  // kept
  EXPECT_EQ(w.back.line_width, 0x1Fu);
  EXPECT_EQ(w.present & (1u << 5), 1u << 5);
}

TEST(PppUpdate, BadUpdatesNameTheWordAndChangeNothing) {
  PppWords w;
  w.cull.cull_front = true;
  auto expect_error = [&](const std::vector<uint8_t>& bytes, const std::string& want) {
    PppWords before = w;
    Status st = apply_ppp_update(bytes, 0x4000, w);
    ASSERT_FALSE(st.ok()) << want;
    EXPECT_NE(st.error().message().find(want), std::string::npos) << st.error().message();
    EXPECT_EQ(w.cull.cull_front, before.cull.cull_front);
    EXPECT_EQ(w.present, before.present);
  };
  // Header bit 9 is no word.
  std::vector<uint8_t> b;
  push_u32(b, 1u << 9);
  expect_error(b, "PPP update at 0x4000: PPP Header at offset 0: PPP Header: bits 0x02 of byte 1");
  // A Cull word with bit 3 set (no field covers it).
  PppRecord r;
  r.header.cull = true;
  auto bytes = r.bytes();
  push_u32(bytes, 1u << 3 | 1u);
  expect_error(bytes, "Cull at offset 4: Cull: bits 0x08 of byte 0");
  // Viewport control must be all zero.
  PppRecord v;
  v.header.viewport = true;
  v.header.viewport_count = 1;
  auto vb = v.bytes();
  push_u32(vb, 1);
  v.add(viewport(0, 1, 0, 1));
  vb.insert(vb.end(), v.words.begin(), v.words.end());
  expect_error(vb, "Viewport control at offset 4");
  // Too short for its words, and longer than them.
  PppRecord s;
  s.header.cull = s.header.cull_2 = true;
  s.add(cs::Cull{});
  expect_error(s.bytes(), "Cull 2 at offset 8 runs past the update's 8 bytes");
  PppRecord l;
  l.header.cull = true;
  l.add(cs::Cull{}).add(cs::Cull{});
  expect_error(l.bytes(), "the header's words take 8 bytes, the update has 12");
  // Fragment control's Unk 1 must be set (an exact field).
  PppRecord f;
  f.header.fragment_control = true;
  auto fb = f.bytes();
  push_u32(fb, 0);
  expect_error(fb, "Fragment control at offset 4: Fragment control: Unk 1 is 0x0, not 0x1");
}

}  // namespace
}  // namespace agx::gpu::test
