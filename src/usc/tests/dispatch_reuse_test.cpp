// dispatch reuses its SIMD groups' cores across threadgroups (a fresh Core
// per group cost a 50 KB allocation and clear each): every group must still
// start with zeroed registers, whatever the group before it left.
#include "helpers.h"
#include "util/bits.h"

namespace agx::usc::test {
namespace AGX_UNITY_ID {

using isa::Opcode;

TEST(DispatchReuse, EveryThreadgroupStartsWithZeroedRegisters) {
  // r3 += 1; r2 = threadgroup_position_in_grid.x; store r3 at
  // [u0_u1 + r2 * 4]: each threadgroup writes 1 (2, 3, ... if a reused core
  // kept r3).
  auto code = cat({enc(Opcode::iadd, {{"Dt", 2}, {"D", 6}, {"At", 0b1001}, {"A", 6}, {"Bt", 0}, {"B", 1}}),
                   enc(Opcode::get_sr, {{"Dt", 2}, {"D", 4}, {"SR", 0}}),
                   enc(Opcode::device_store, {{"F", 2}, {"mask", 1}, {"Rt", 1}, {"R", 6}, {"At", 1}, {"A", 0},
                                              {"Ot", 0}, {"O", 4}, {"Ou", 1}})});
  auto p = compile(code, 0);
  ASSERT_TRUE(p.ok());
  EXPECT_GE(p->register_count(), 4u);
  RegionMemory mem;
  ASSERT_TRUE(mem.map(0x10000, std::vector<uint8_t>(4 * 8)).ok());
  Dispatch d;
  d.threadgroups = {8, 1, 1};
  d.threads_per_threadgroup = {64, 1, 1};  // two SIMD groups each
  d.uniforms[0] = 0x10000;
  ASSERT_TRUE(dispatch(*p, d, mem, RunOptions{}).ok());
  const auto& out = mem.regions().at(0x10000);
  for (unsigned g = 0; g < 8; ++g) EXPECT_EQ(load_le<uint32_t>(out.data() + 4 * g), 1u) << g;
}

}  // namespace
}  // namespace agx::usc::test
