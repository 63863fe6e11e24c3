// Placement of a SIMD group in a dispatch: the special registers of an edge
// threadgroup smaller than the dispatch's threadgroup size.
#include <gtest/gtest.h>

#include "usc/usc.h"

namespace agx::usc {
namespace AGX_UNITY_ID {

TEST(Placement, FullThreadgroupUsesItsOwnSize) {
  Core c;
  place(c, Placement{{2, 1, 0}, {8, 4, 1}, 0});
  EXPECT_EQ(c.sr[4][0], 8u);
  EXPECT_EQ(c.sr[8][0], 8u);
  // lane 9: x = 1, y = 1 in an 8x4 threadgroup at (2,1).
  EXPECT_EQ(c.sr[48][9], 1u);
  EXPECT_EQ(c.sr[49][9], 1u);
  EXPECT_EQ(c.sr[80][9], 2u * 8 + 1);
  EXPECT_EQ(c.sr[81][9], 1u * 4 + 1);
}

TEST(Placement, EdgeThreadgroupStepsByTheDispatchSize) {
  // A 100-thread grid in threadgroups of 64: the second one has 36 threads.
  Core c;
  Placement p{{1, 0, 0}, {36, 1, 1}, 1};
  p.dispatch_threads_per_threadgroup = {64, 1, 1};
  place(c, p);
  EXPECT_EQ(c.sr[4][0], 36u);  // threads_per_threadgroup: this one
  EXPECT_EQ(c.sr[8][0], 64u);  // dispatch_threads_per_threadgroup
  EXPECT_EQ(c.sr[51][3], 35u);  // thread index 32 + 3
  EXPECT_EQ(c.sr[48][3], 35u);
  EXPECT_EQ(c.sr[80][3], 64u + 35);  // thread_position_in_grid.x
}

}  // namespace
}  // namespace agx::usc

namespace agx::usc {
namespace AGX_UNITY_ID {

// if / pop_exec in a SIMD group with 8 threads: the 24 missing lanes stay
// off when pop_exec restores the lanes whose nesting counter is 0.
TEST(Placement, PopExecNeverActivatesLanesWithoutAThread) {
  auto code = isa::assemble_program("if_icmp r0l, ult, r1, 100, 1\npop_exec r0l, 1\nstop");
  ASSERT_TRUE(code);
  auto program = compile(*code, 0);
  ASSERT_TRUE(program);
  Core c = make_core();
  c.exec = c.present = 0xFFu;
  Memories mem;
  ASSERT_TRUE(run(*program, c, mem, RunOptions{}).ok());
  EXPECT_EQ(c.exec, 0xFFu);
}

}  // namespace
}  // namespace agx::usc
