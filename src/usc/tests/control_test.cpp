// Control flow: the r0l execution-mask stack (applegpu if/else/while/pop
// exec semantics), divergent and nested ifs, loops with divergent exits,
// calls and returns, stop, trap and the step limit. Expected values come from
// plain C++ evaluations of the same programs.
#include "helpers.h"

namespace agx::usc::test {
namespace AGX_UNITY_ID {

using isa::Opcode;

std::vector<uint8_t> lane_to(unsigned reg) {  // rREG = thread_index_in_simdgroup
  return enc(Opcode::get_sr, {{"Dt", 2}, {"D", reg * 2}, {"SR", 52}});
}
std::vector<uint8_t> mov(unsigned reg, uint32_t v) {
  return enc(Opcode::mov_imm32, {{"Dt", 2}, {"D", reg * 2}, {"imm32", v}});
}
// if_icmp/else_icmp/while_icmp r0l, cc, rA, imm/rB, n.
std::vector<uint8_t> cmp_mask(Opcode op, uint32_t cc, unsigned ra, uint32_t b, bool b_imm, uint32_t n) {
  return enc(op, {{"cc", cc & 7}, {"ccn", cc >> 3}, {"At", 0b1001}, {"A", ra * 2},
                  {"Bt", b_imm ? 0u : 0b1001u}, {"B", b_imm ? b : b * 2}, {"n", n}});
}
std::vector<uint8_t> else_all(uint32_t n) {  // else with an always-true compare (0 == 0)
  return enc(Opcode::else_icmp, {{"cc", 0}, {"At", 0}, {"A", 0}, {"Bt", 0}, {"B", 0}, {"n", n}});
}
std::vector<uint8_t> pop(uint32_t n) { return enc(Opcode::pop_exec, {{"n", n}}); }
std::vector<uint8_t> stop() { return enc(Opcode::stop, {}); }

// A state whose inactive lanes are consistent with the stack: r0l = 1.
Core stacked_core(uint32_t exec) {
  Core c = make_core();
  c.exec = exec;
  for (unsigned l = 0; l < kLanes; ++l) c.r[0][l] = on(c, l) ? 0 : 1;
  return c;
}

TEST(Control, NestedDivergentIfElse) {
  // if (lane < 16) { if (lane & 1 == 0) r3 = 2 else r3 = 3 } else { r3 = 4 }
  auto and1 = enc(Opcode::bitop, {{"tt3", 1}, {"Dt", 2}, {"D", 8}, {"At", 0b1001}, {"A", 4}, {"Bt", 0}, {"B", 1}});
  auto code = cat({lane_to(2), and1,
                   cmp_mask(Opcode::if_icmp, 1, 2, 16, true, 1),  // lane < 16
                   cmp_mask(Opcode::if_icmp, 0, 4, 0, true, 1),   // (lane & 1) == 0
                   mov(3, 2), else_all(1), mov(3, 3), pop(1),
                   else_all(1), mov(3, 4), pop(1)});
  uint32_t exec = 0xF0F0FF7Eu;
  Core c = stacked_core(exec);
  for (unsigned l = 0; l < kLanes; ++l) c.r[3][l] = 99;
  ASSERT_TRUE(run_code(code, c).ok());
  EXPECT_EQ(c.exec, exec);
  for (unsigned l = 0; l < kLanes; ++l) {
    uint32_t want = !(exec >> l & 1) ? 99 : l < 16 ? ((l & 1) == 0 ? 2 : 3) : 4;
    EXPECT_EQ(c.r[3][l], want) << l;
    EXPECT_EQ(c.r0l(l), on(c, l) ? 0 : 1) << l;
  }
}

TEST(Control, IfCountsNestingInInactiveLanes) {
  // applegpu IfICmp: inactive lanes (r0l != 0) get r0l += n; pop subtracts.
  Core c = stacked_core(0x0000FFFFu);
  for (unsigned l = 16; l < kLanes; ++l) c.r[0][l] = 0xABCD0000u | 3;  // r0h untouched
  ASSERT_TRUE(run_code(cmp_mask(Opcode::if_icmp, 0, 0, 0, true, 2), c).ok());
  for (unsigned l = 16; l < kLanes; ++l) EXPECT_EQ(c.r[0][l], 0xABCD0005u);
  ASSERT_TRUE(run_code(pop(3), c).ok());
  for (unsigned l = 16; l < kLanes; ++l) EXPECT_EQ(c.r0l(l), 2);
  for (unsigned l = 0; l < 16; ++l) EXPECT_EQ(c.r0l(l), 0);
  EXPECT_EQ(c.exec, 0x0000FFFFu);
}

TEST(Control, LoopWithDivergentExit) {
  // r3 = 0; push; do { r3 += 1 } while (r3 < lane); pop.
  auto inc = enc(Opcode::iadd, {{"Dt", 2}, {"D", 6}, {"At", 0b1001}, {"A", 6}, {"Bt", 0}, {"B", 1}});
  auto push = enc(Opcode::if_fcmp, {{"cc", 0}, {"At", 0}, {"A", 0}, {"Bt", 0}, {"B", 0}, {"n", 2}});
  auto head = cat({lane_to(5), mov(3, 0), push});
  auto body = cat({inc, cmp_mask(Opcode::while_icmp, 1, 3, 5, false, 2)});
  int64_t back = -static_cast<int64_t>(body.size());
  auto jmp = enc(Opcode::jmp_exec_any, {{"off", static_cast<uint32_t>(back)}});
  auto code = cat({head, body, jmp, pop(2)});
  uint32_t exec = 0x7FFFFFF5u;
  Core c = stacked_core(exec);
  ASSERT_TRUE(run_code(code, c).ok());
  EXPECT_EQ(c.exec, exec);
  for (unsigned l = 0; l < kLanes; ++l)
    if (exec >> l & 1) {
      EXPECT_EQ(c.r[3][l], std::max(1u, l)) << l;
    }
}

TEST(Control, JmpExecNoneSkipsWhenNoLaneActive) {
  // if (lane > 100) { r3 = 1 } with jmp_exec_none over the body.
  auto body = mov(3, 1);
  auto code = cat({lane_to(2), cmp_mask(Opcode::if_icmp, 2, 2, 100, true, 1),
                   enc(Opcode::jmp_exec_none, {{"off", 6 + static_cast<uint32_t>(body.size())}}), body, pop(1)});
  Core c = stacked_core(0xFFFFFFFFu);
  RunOptions opt;
  std::vector<TraceEntry> trace;
  opt.trace = &trace;
  auto p = compile(code, 0);
  ASSERT_TRUE(p.ok());
  ASSERT_TRUE(run(*p, c, {}, opt).ok());
  EXPECT_EQ(trace.size(), 4u);  // get_sr, if, jmp, pop: the mov was skipped
  EXPECT_EQ(c.exec, 0xFFFFFFFFu);
  EXPECT_EQ(c.r[3][0], 0u);
}

TEST(Control, CallAndReturnThroughR1) {
  auto tail = cat({mov(3, 7), stop()});
  auto func = cat({mov(4, 9), enc(Opcode::ret, {{"reg32", 1}})});
  auto call = enc(Opcode::call, {{"off", static_cast<uint32_t>(6 + tail.size())}});
  Core c = make_core();
  ASSERT_TRUE(run_code(cat({call, tail, func}), c).ok());
  for (unsigned l = 0; l < kLanes; ++l) {
    EXPECT_EQ(c.r[1][l], 6u);
    EXPECT_EQ(c.r[3][l], 7u);
    EXPECT_EQ(c.r[4][l], 9u);
  }
}

TEST(Control, StuckLoopEndsAtStepLimit) {
  Core c = make_core();
  Status st = run_code(enc(Opcode::jmp_exec_any, {{"off", 0}}), c, {}, 5000);
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.error().kind(), ErrorKind::limit);
  EXPECT_NE(st.error().message().find("step limit of 5000"), std::string::npos);
}

TEST(Control, StopEndsAndTrapReports) {
  Core c = make_core();
  ASSERT_TRUE(run_code(cat({stop(), mov(3, 1)}), c).ok());
  EXPECT_EQ(c.r[3][0], 0u);
  Status st = run_code(enc(Opcode::trap, {}), c);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.error().message().find("pc 0x0: trap"), std::string::npos) << st.error().message();
}

TEST(Control, UnsupportedInstructionNamesItself) {
  Core c = make_core();
  Status st = run_code(enc(Opcode::texture_sample, {}), c);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.error().message().find("not supported by the emulator: texture_sample"), std::string::npos)
      << st.error().message();
}

}  // namespace
}  // namespace agx::usc::test
