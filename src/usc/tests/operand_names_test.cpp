// Regression test for issue 11's "a wrong operand name silently reads 0":
// the emulator reads fields and operands by applegpu's name. A name that no
// row of the isa table has no longer compiles (usc/names.h); a name the
// decoded row lacks is an error ("<row> has no field X"). Every row is
// compiled and run here from random encodings, so any executor that asks a
// row for a name it does not have shows up as that error.
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "isa/isa.h"
#include "usc/usc.h"

namespace agx::usc {
namespace AGX_UNITY_ID {

TEST(OperandNames, EveryRowHasTheNamesItsExecutorReads) {
  std::vector<uint8_t> code = isa::random_stream(20000, 11);
  auto prog = compile(code, 0);
  ASSERT_TRUE(prog.ok());
  std::set<std::string> rows_seen;
  RegionMemory mem;
  ASSERT_TRUE(mem.map(0, std::vector<uint8_t>(1 << 16)).ok());
  Memories m;
  m.device = &mem;
  RunOptions opt;
  for (size_t i = 0; i < prog->size(); ++i) {
    const isa::Instr& in = prog->instr(i);
    rows_seen.insert(std::string(isa::op_info(in.op).id));
    Core core = make_core();
    core.pc = in.pc;
    auto r = run(*prog, core, m, opt, 1);
    if (r.ok()) continue;
    const std::string& msg = r.error().message();
    EXPECT_EQ(msg.find(" has no field "), std::string::npos) << msg;
    EXPECT_EQ(msg.find(" has no operand "), std::string::npos) << msg;
  }
  // The stream covers the table, so every executor was asked.
  EXPECT_GT(rows_seen.size(), 150u);
}

}  // namespace
}  // namespace agx::usc
