// place() runs for every SIMD group of a dispatch, so it steps positions
// lane by lane instead of dividing per lane and axis (6 divisions x 32 lanes
// per group made it the cost of a large compute dispatch). The stepped
// positions must equal the division formula for every threadgroup shape,
// including widths that do not divide 32, zero sizes and edge groups.
#include <gtest/gtest.h>

#include <array>

#include "usc/usc.h"

namespace agx::usc {
namespace AGX_UNITY_ID {

TEST(PlacementStep, EqualsTheDivisionFormulaForEveryShape) {
  const std::array<std::array<uint32_t, 3>, 9> shapes = {{{32, 1, 1}, {7, 3, 5}, {1, 1, 64}, {3, 1, 1}, {5, 0, 1},
                                                          {0, 4, 2}, {1024, 1, 1}, {6, 6, 6}, {13, 2, 1}}};
  for (const auto& tpg : shapes) {
    for (uint32_t g = 0; g < 4; ++g) {
      Placement p{{3, 2, 1}, tpg, g};
      p.dispatch_threads_per_threadgroup = {tpg[0] + 1, tpg[1] + 2, tpg[2] + 3};
      Core c;
      place(c, p);
      for (unsigned l = 0; l < kLanes; ++l) {
        uint32_t idx = g * kLanes + l;
        uint32_t x = tpg[0] ? idx % tpg[0] : 0, rest = tpg[0] ? idx / tpg[0] : 0;
        uint32_t y = tpg[1] ? rest % tpg[1] : 0, z = tpg[1] ? rest / tpg[1] : 0;
        ASSERT_EQ(c.sr[48][l], x) << tpg[0] << "x" << tpg[1] << " group " << g << " lane " << l;
        ASSERT_EQ(c.sr[49][l], y) << tpg[0] << "x" << tpg[1] << " group " << g << " lane " << l;
        ASSERT_EQ(c.sr[50][l], z) << tpg[0] << "x" << tpg[1] << " group " << g << " lane " << l;
        EXPECT_EQ(c.sr[80][l], 3 * (tpg[0] + 1) + x);
        EXPECT_EQ(c.sr[81][l], 2 * (tpg[1] + 2) + y);
        EXPECT_EQ(c.sr[82][l], 1 * (tpg[2] + 3) + z);
        EXPECT_EQ(c.sr[51][l], idx);
        EXPECT_EQ(c.sr[52][l], l);
        EXPECT_EQ(c.sr[53][l], g);
      }
      for (unsigned n : {0u, 1u, 2u, 4u, 5u, 6u, 8u, 9u, 10u, 48u, 49u, 50u, 51u, 52u, 53u, 62u, 80u, 81u, 82u})
        EXPECT_TRUE(c.sr_known[n]) << n;
    }
  }
}

}  // namespace
}  // namespace agx::usc
