// Instructions Mesa's compiler emits for compute kernels that the emulator
// used to stop on or mis-run (issue 11): stack_adjust (applegpu decodes it
// as a stack_store with an empty mask), get_sr sr57/sr59
// (total_active_threads_in_quad/_subgroup), the coherent device_load /
// device_store forms (applegpu's device_load.TODO / device_store.TODO), and
// a device_load with an empty component mask. Expected values come from
// Mesa's encodings (bminor/mesa-mesa src/asahi/compiler agx_pack.c,
// agx_opcodes.py, agx_compile.c), worked out by hand below.
#include <bit>

#include "helpers.h"
#include "util/bits.h"
#include "util/hex.h"

namespace agx::usc::test {
namespace AGX_UNITY_ID {

using isa::Opcode;

std::vector<uint8_t> hex(const char* h) {
  auto b = parse_hex(h);
  EXPECT_TRUE(b.ok());
  return b.ok() ? *b : std::vector<uint8_t>{};
}

// Mesa's stack_adjust as packed by agx_pack.c for STACK_SIZE 0x2c words: the
// row's constant b5, bits 16 and 24; i1 = 1 (bit 26), i2 = 2 (bits 36-38),
// bit 47 (long form); STACK_SIZE bits 0-3 at 20, 4-7 at 32, 8-15 at 56.
constexpr const char* kStackAdjust44 = "b500c1052280" "0000";

TEST(MesaCompute, StackAdjustDisassemblesAsApplegpuButAllocatesTheFrame) {
  // The disassembly stays applegpu's (a stack_store with an empty mask).
  auto in = isa::decode(hex(kStackAdjust44), 0);
  ASSERT_TRUE(in.ok());
  EXPECT_EQ(in->op, Opcode::stack_store);
  EXPECT_TRUE(isa::matches_row(Opcode::todo_stack_adjust, hex(kStackAdjust44)));
  // It allocates 44 words = 176 bytes of each thread's scratch; afterwards
  // a spill inside the frame works and one past it faults (it was a no-op:
  // both used to succeed, and the frame was never checked).
  Core c = random_core(3);
  Memories mem;
  mem.stack_size_B = 1024;
  auto st_in = enc(Opcode::stack_store, {{"F", 2}, {"mask", 1}, {"Rt", 1}, {"R", 60}, {"Ot", 1}, {"O", 172}});
  auto st_out = enc(Opcode::stack_store, {{"F", 2}, {"mask", 1}, {"Rt", 1}, {"R", 60}, {"Ot", 1}, {"O", 176}});
  ASSERT_TRUE(run_code(cat({hex(kStackAdjust44), st_in}), c, mem).ok());
  EXPECT_EQ(c.stack_frame_B, 176u);
  Core d = random_core(3);
  Status s = run_code(cat({hex(kStackAdjust44), st_out}), d, mem);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().kind(), ErrorKind::fault);
  EXPECT_NE(s.error().message().find("frame stack_adjust allocated"), std::string::npos) << s.error().message();
}

TEST(MesaCompute, StackAdjustBeyondTheScratchFaults) {
  Core c = random_core(4);
  Memories mem;
  mem.stack_size_B = 128;  // less than the 176 bytes asked for
  Status s = run_code(hex(kStackAdjust44), c, mem);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().kind(), ErrorKind::fault);
  EXPECT_NE(s.error().message().find("176 bytes exceeds the 128 bytes of scratch"), std::string::npos)
      << s.error().message();
}

TEST(MesaCompute, GetSrTotalActiveThreads) {
  // get_sr r5, sr59 and get_sr r6, sr57: the count of active lanes in the
  // group and in the lane's quad (Mesa total_active_threads_in_subgroup /
  // _in_quad); both used to stop the emulator as unknown registers.
  Core c = make_core();
  c.exec = 0x8000F0F3u;  // 11 lanes; quads of 2, 0, 4, 0, ..., 1
  auto code = cat({enc(Opcode::get_sr, {{"Dt", 2}, {"D", 10}, {"SR", 59}}),
                   enc(Opcode::get_sr, {{"Dt", 2}, {"D", 12}, {"SR", 57}})});
  ASSERT_TRUE(run_code(code, c).ok());
  for (unsigned l = 0; l < kLanes; ++l) {
    if (!on(c, l)) continue;
    EXPECT_EQ(c.r[5][l], 11u) << l;
    uint32_t quad = std::popcount(0x8000F0F3u & (0xFu << (l & ~3u)));
    EXPECT_EQ(c.r[6][l], quad) << l;
  }
}

// device_load i32 r20, base u0_u1, index r12 (unsigned), with Mesa's coherent
// bits (u4 = 7: bits 44-46) as applegpu's device_load.TODO row decodes them.
std::vector<uint8_t> coherent_load() {
  return enc(Opcode::device_load_todo, {{"F", 2}, {"mask", 1}, {"Rt", 1}, {"R", 40}, {"At", 1}, {"A", 0},
                                        {"Ot", 0}, {"O", 24}, {"Ou", 1}, {"u1", 1}, {"u3", 0}, {"u4", 7}, {"u5", 0}});
}

TEST(MesaCompute, CoherentDeviceLoadAndStoreRun) {
  RegionMemory mem;
  std::vector<uint8_t> bytes(256);
  for (size_t i = 0; i < bytes.size(); ++i) bytes[i] = uint8_t(i * 3);
  ASSERT_TRUE(mem.map(0x100000, bytes).ok());
  Memories m;
  m.device = &mem;
  Core c = make_core();
  c.u[0] = 0x100000;
  c.u[1] = 0;
  for (unsigned l = 0; l < kLanes; ++l) c.r[12][l] = l;
  auto store = enc(Opcode::device_store_todo, {{"F", 2}, {"mask", 1}, {"Rt", 1}, {"R", 40}, {"At", 1}, {"A", 0},
                                               {"Ot", 0}, {"O", 24}, {"Ou", 1}, {"u1", 1}, {"u3", 0}, {"u4", 3},
                                               {"u5", 0}, {"u6", 0}});
  auto add = enc(Opcode::iadd, {{"Dt", 2}, {"D", 40}, {"At", 0b1001}, {"A", 40}, {"Bt", 0}, {"B", 1}});
  ASSERT_TRUE(run_code(cat({coherent_load(), enc(Opcode::wait, {}), add, store}), c, m).ok());
  const auto& out = mem.regions().begin()->second;
  for (unsigned l = 0; l < kLanes; ++l) {
    uint32_t was = load_le<uint32_t>(bytes.data() + 4 * l);
    EXPECT_EQ(load_le<uint32_t>(out.data() + 4 * l), was + 1) << l;
  }
}

TEST(MesaCompute, OtherDeviceLoadTodoFormsStayUnsupported) {
  auto other = enc(Opcode::device_load_todo, {{"F", 2}, {"mask", 1}, {"Rt", 1}, {"R", 40}, {"At", 1}, {"A", 0},
                                              {"Ot", 0}, {"O", 24}, {"Ou", 1}, {"u1", 0}, {"u3", 1}, {"u4", 5},
                                              {"u5", 0}});
  Core c = make_core();
  Status s = run_code(other, c);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().kind(), ErrorKind::unsupported);
  EXPECT_NE(s.error().message().find("only Mesa's coherent form"), std::string::npos) << s.error().message();
}

TEST(MesaCompute, EmptyMaskDeviceLoadLoadsNothingAndChecksNoFormat) {
  // Format 9 is undefined and the base is unmapped: with an empty mask
  // applegpu's exec reads nothing, so neither matters (both used to fail).
  Core c = random_core(9);
  Core before = c;
  auto ld = enc(Opcode::device_load, {{"F", 9}, {"mask", 0}, {"Rt", 1}, {"R", 40}, {"At", 1}, {"A", 0},
                                      {"Ot", 0}, {"O", 24}, {"Ou", 1}});
  ASSERT_TRUE(run_code(ld, c).ok());
  EXPECT_EQ(c.r, before.r);
}

}  // namespace
}  // namespace agx::usc::test
