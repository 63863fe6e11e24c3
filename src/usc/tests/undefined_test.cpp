// Undefined encodings (a select or source operand of undefined type, an
// undefined condition code) fail only when an active lane evaluates them,
// as applegpu's exec does; the state is untouched when they fail.
#include <gtest/gtest.h>

#include "helpers.h"

namespace agx::usc::test {
namespace AGX_UNITY_ID {

using isa::Opcode;

constexpr uint32_t kR16 = 0b0001;  // At/Bt: 16-bit register, no hint
constexpr uint32_t kSelR16 = 0b001;
constexpr uint32_t kSelUndefined = 0b000;
constexpr uint32_t kIntUeq = 0, kIntUndefined = 3;

// icmpsel ueq, r10l, r2l, r3l, X, r5l with X of undefined type.
std::vector<uint8_t> icmpsel_undefined_x() {
  return enc(Opcode::icmpsel, {{"cc", kIntUeq}, {"Dt", 0}, {"D", 20}, {"At", kR16}, {"A", 4}, {"Bt", kR16}, {"B", 6},
                               {"Xt", kSelUndefined}, {"X", 7}, {"Yt", kSelR16}, {"Y", 10}});
}

TEST(Undefined, SelectOperandUnusedByEveryActiveLaneRuns) {
  Core c = random_core(1);
  c.exec = 0x0000FFFFu;
  for (unsigned l = 0; l < kLanes; ++l) {
    c.r[2][l] = l;                                 // r2l = lane
    c.r[3][l] = on(c, l) ? 1000 + l : l;           // equal only in inactive lanes
  }
  Core before = c;
  ASSERT_TRUE(run_code(icmpsel_undefined_x(), c).ok());
  for (unsigned l = 0; l < kLanes; ++l) {
    uint32_t want = on(before, l) ? (before.r[10][l] & 0xFFFF0000u) | (before.r[5][l] & 0xFFFF) : before.r[10][l];
    EXPECT_EQ(c.r[10][l], want) << "lane " << l;
  }
}

TEST(Undefined, SelectOperandUsedByAnActiveLaneFailsAndKeepsState) {
  Core c = random_core(2);
  c.exec = 0x0000FFFFu;
  for (unsigned l = 0; l < kLanes; ++l) {
    c.r[2][l] = l;
    c.r[3][l] = l == 7 ? 7 : 1000 + l;  // lane 7 (active) selects X
  }
  Core before = c;
  Status st = run_code(icmpsel_undefined_x(), c);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.error().message().find("pc 0x0: icmpsel"), std::string::npos) << st.error().message();
  EXPECT_NE(st.error().message().find("undefined select operand type"), std::string::npos) << st.error().message();
  EXPECT_EQ(c.r, before.r);
  EXPECT_EQ(c.exec, before.exec);
}

// else_icmp r0l, <cc 3>, r2l, r3l, n=1: only lanes with r0l == 1 compare.
std::vector<uint8_t> else_undefined_cc() {
  return enc(Opcode::else_icmp, {{"cc", kIntUndefined}, {"At", kR16}, {"A", 4}, {"Bt", kR16}, {"B", 6}, {"n", 1}});
}

TEST(Undefined, ConditionNoLaneComparesRuns) {
  Core c = random_core(3);
  for (unsigned l = 0; l < kLanes; ++l) c.r[0][l] = (c.r[0][l] & 0xFFFF0000u) | (l % 3 == 0 ? 0 : 2 + l % 3);
  Core before = c;
  ASSERT_TRUE(run_code(else_undefined_cc(), c).ok());
  for (unsigned l = 0; l < kLanes; ++l) {
    uint32_t r0l = before.r[0][l] & 0xFFFF;
    uint32_t want = r0l == 0 ? 1 : r0l;  // else: 0 -> n, others (not 1) kept
    EXPECT_EQ(c.r[0][l] & 0xFFFF, want) << "lane " << l;
    EXPECT_EQ(on(c, l), want == 0) << "lane " << l;
  }
}

TEST(Undefined, ConditionComparedByAnInactiveLaneFails) {
  Core c = random_core(4);
  for (unsigned l = 0; l < kLanes; ++l) c.r[0][l] &= 0xFFFF0000u;
  c.r[0][9] |= 1;  // lane 9 waits for the else: it compares (active or not)
  c.exec &= ~(1u << 9);
  Core before = c;
  Status st = run_code(else_undefined_cc(), c);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.error().message().find("integer condition 3 is undefined"), std::string::npos) << st.error().message();
  EXPECT_EQ(c.r, before.r);
}

TEST(Undefined, BallotComparesActiveLanesOnly) {
  auto code = enc(Opcode::icmp_ballot, {{"cc", kIntUndefined}, {"Dt", 2}, {"D", 20}, {"At", kR16}, {"A", 4},
                                        {"Bt", kR16}, {"B", 6}});
  Core c = random_core(5);
  c.exec = 0;
  Core before = c;
  ASSERT_TRUE(run_code(code, c).ok());
  EXPECT_EQ(c.r, before.r);
  c.exec = 1;
  EXPECT_FALSE(run_code(code, c).ok());
}

}  // namespace
}  // namespace agx::usc::test
