// The VDM stream: links, calls and returns, barriers, draw states and
// their preshader, and faults that name the block.
#include <fstream>
#include <iterator>

#include "gpu/tests/vdm_fixture.h"

namespace agx::gpu::test {
namespace AGX_UNITY_ID {

using P = cs::Primitive;

class VdmStream : public VertexTest {
 public:
  void SetUp() override {
    VertexTest::SetUp();
    table = positions({{-0.5f, -0.5f, 0.5f, 1}, {0.5f, -0.5f, 0.5f, 1}, {-0.5f, 0.5f, 0.5f, 1}});
  }
  // The standard shader and PPP words.
  std::vector<uint8_t> prologue() {
    std::vector<uint8_t> s;
    vdm_state(s, standard_shader(table), 6);
    ppp_state(s, standard_ppp());
    return s;
  }
  void link(std::vector<uint8_t>& s, GpuVa target, bool call) {
    cs::VdmStreamLink l;
    l.target_hi = target >> 32;
    l.target_lo = static_cast<uint32_t>(target);
    l.with_return = call;
    push(s, l);
  }
  GpuVa table = 0;
};

TEST_F(VdmStream, CallsReturnAndLinksJump) {
  // Sub-stream: a draw, then a Barrier with Returns.
  std::vector<uint8_t> sub;
  draw(sub, P::kTriangles, 3);
  cs::VdmBarrier ret;
  ret.returns = true;
  push(sub, ret);
  const GpuVa sub_va = put(sub);
  // Tail reached by a plain link: a draw and Terminate.
  std::vector<uint8_t> tail;
  draw(tail, P::kPoints, 2);
  terminate(tail);
  const GpuVa tail_va = put(tail);
  std::vector<uint8_t> s = prologue();
  link(s, sub_va, true);
  push(s, cs::VdmBarrier{});
  link(s, sub_va, true);
  link(s, tail_va, false);
  ASSERT_TRUE(run(s)) << message;
  ASSERT_EQ(scene.primitives.size(), 4u);  // two triangles, two points
  EXPECT_EQ(scene.primitives[2].kind, PrimitiveKind::point);
  EXPECT_EQ(pipeline->stats().barriers, 3u);
  EXPECT_EQ(scene.states.size(), 1u);  // no state block between the draws
}

TEST_F(VdmStream, EachDrawStateRunsItsPreshaderOnce) {
  // The preshader writes 7 to u4; the shader stores u4 as output word 4.
  auto pre = isa::assemble_program("mov_imm r2, 7, 0b0\nuniform_store 2, i16, xy, 0, r2l_r2h, 8\nstop");
  ASSERT_TRUE(pre.ok()) << pre.error().message();
  const GpuVa pre_va = put(*pre);
  const uint32_t vs = shader(
      "iadd r7, r5, r5\niadd r7, r7, r7\niadd r7, r7, r7\n"
      "device_load 0, i32, x, r8, u0_u1, r7, unsigned\niadd r7, r7, 1\n"
      "device_load 0, i32, x, r9, u0_u1, r7, unsigned\niadd r7, r7, 1\n"
      "device_load 0, i32, x, r10, u0_u1, r7, unsigned\niadd r7, r7, 1\n"
      "device_load 0, i32, x, r11, u0_u1, r7, unsigned\nwait 0\niadd r12, u4, 0",
      {st_var(8, 0), st_var(9, 1), st_var(10, 2), st_var(11, 3), st_var(12, 4), st_var(6, 5, true)}, table, 32,
      pre_va);
  std::vector<uint8_t> s;
  vdm_state(s, vs, 6);
  ppp_state(s, standard_ppp());
  draw(s, P::kTriangles, 3);
  draw(s, P::kTriangles, 3);
  ppp_state(s, standard_ppp());  // a new draw state
  draw(s, P::kTriangles, 3);
  terminate(s);
  ASSERT_TRUE(run(s)) << message;
  EXPECT_EQ(pipeline->stats().preshader_runs, 2u);
  EXPECT_EQ(scene.states.size(), 2u);
  ASSERT_EQ(scene.primitives.size(), 3u);
  EXPECT_EQ(vid(scene.primitives[2].vertices[0]), 7u);  // word 4: u4 as the preshader left it
  EXPECT_EQ(scene.primitives[2].state, 1u);
}

struct FaultCase {
  const char* name;
  std::function<void(VdmStream&, std::vector<uint8_t>&)> body;
  const char* reason;
  GpuUnit unit;
};

TEST_F(VdmStream, FaultsNameTheBlock) {
  const FaultCase cases[] = {
      {"tessellation",
       [](VdmStream&, std::vector<uint8_t>& s) {
         cs::VdmState h;
         h.tessellation_present = true;
         push(s, h);
       },
       "Tessellation word: tessellation is not supported", GpuUnit::vdm},
      {"tessellate block", [](VdmStream&, std::vector<uint8_t>& s) { push(s, cs::VdmTessellate{}); },
       "VDM Tessellate at 0x", GpuUnit::vdm},
      {"barrier bits",
       [](VdmStream&, std::vector<uint8_t>& s) { push_u32(s, 1u << 29 | 1u << 0); },
       "VDM Barrier at 0x", GpuUnit::vdm},
      {"unmapped index buffer",
       [](VdmStream& t, std::vector<uint8_t>& s) {
         t.indexed(s, P::kTriangles, 0x20'0000'0000, cs::IndexSize::kU16, 3, 8);
       },
       "unmapped", GpuUnit::vdm},
      {"no count",
       [](VdmStream&, std::vector<uint8_t>& s) {
         cs::IndexList h;
         h.instance_count_present = true;
         push(s, h);
         push_u32(s, 1);
       },
       "an Index List with neither a Count word nor an Indirect buffer", GpuUnit::vdm},
      {"unknown word",
       [](VdmStream&, std::vector<uint8_t>& s) {
         cs::IndexList h;
         h.unk_1_present = true;
         push(s, h);
       },
       "Unk 1 present: what that word holds is not public", GpuUnit::vdm},
      {"index size",
       [](VdmStream& t, std::vector<uint8_t>& s) {
         t.indexed(s, P::kTriangles, kBase, static_cast<cs::IndexSize>(5), 3, 8);
       },
       "Index size 5 names no size", GpuUnit::vdm},
      {"unmapped PPP update",
       [](VdmStream&, std::vector<uint8_t>& s) {
         cs::PppState p;
         p.pointer_hi = 0x20;
         p.size_words = 2;
         push(s, p);
       },
       "unmapped", GpuUnit::ppp},
      {"return without call",
       [](VdmStream&, std::vector<uint8_t>& s) {
         cs::VdmBarrier b;
         b.returns = true;
         push(s, b);
       },
       "with no call to return to", GpuUnit::vdm},
  };
  for (const FaultCase& c : cases) {
    std::vector<uint8_t> s = prologue();
    c.body(*this, s);
    terminate(s);
    ASSERT_FALSE(run(s)) << c.name;
    EXPECT_NE(message.find(c.reason), std::string::npos) << c.name << ": " << message;
    EXPECT_EQ(fault.reason, message) << c.name;
    EXPECT_EQ(fault.unit, c.unit) << c.name << ": " << to_string(fault.unit);
  }
  EXPECT_EQ(pipeline->stats().faults, std::size(cases));
}

TEST_F(VdmStream, ShaderFaultsNameTheDraw) {
  // st_var beyond the 6 output words; a draw before any vertex shader.
  const uint32_t bad = shader("mov_imm r7, 0, 0b0", {st_var(5, 9, true)}, table);
  std::vector<uint8_t> s;
  vdm_state(s, bad, 6);
  ppp_state(s, standard_ppp());
  draw(s, P::kPoints, 1);
  terminate(s);
  ASSERT_FALSE(run(s));
  EXPECT_NE(message.find("vertex output 9, beyond the draw's 6 output words"), std::string::npos) << message;
  EXPECT_NE(message.find("Index List at 0x"), std::string::npos) << message;
  EXPECT_EQ(fault.unit, GpuUnit::usc);
  std::vector<uint8_t> none;
  ppp_state(none, standard_ppp());
  draw(none, P::kPoints, 1);
  terminate(none);
  ASSERT_FALSE(run(none));
  EXPECT_NE(message.find("a draw with no vertex shader"), std::string::npos) << message;
  // Output words that disagree with the PPP words: 7 outputs, 6 described.
  std::vector<uint8_t> count;
  vdm_state(count, standard_shader(table), 7);
  ppp_state(count, standard_ppp());
  draw(count, P::kPoints, 1);
  terminate(count);
  ASSERT_FALSE(run(count));
  EXPECT_NE(message.find("the Vertex Outputs count is 7"), std::string::npos) << message;
  EXPECT_EQ(fault.unit, GpuUnit::ppp);
}

// The fuzz target's seed (fuzz/corpus/gpu_vdm_fuzz/points.bin, mapped at
// 0x10000 as the target maps it) draws three points with raw vertex IDs as
// positions: the seed reaches the primitive stage.
TEST(VdmFuzzSeed, DrawsThreePoints) {
  std::ifstream f("../../fuzz/corpus/gpu_vdm_fuzz/points.bin", std::ios::binary);
  std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  ASSERT_EQ(bytes.size(), 0x520u);
  bytes.resize(4096, 0);
  usc::RegionMemory memory;
  ASSERT_TRUE(memory.map(0x10000, std::move(bytes)).ok());
  drm_asahi_cmd_render render{};
  render.vdm_ctrl_stream_base = 0x10000;
  kmd::FirmwareCommand cmd;
  cmd.render = &render;
  cmd.memory = &memory;
  cmd.usc_exec_base = 0x10000;
  VertexOptions o;
  o.threads = 1;
  VertexPipeline pipeline(o);
  Scene scene;
  GpuFault fault;
  Status st = pipeline.run(cmd, scene, &fault);
  ASSERT_TRUE(st.ok()) << st.error().message();
  EXPECT_EQ(pipeline.stats().primitives_in, 3u);
  EXPECT_EQ(pipeline.stats().vertices_shaded, 3u);
}

}  // namespace
}  // namespace agx::gpu::test
