// The assembler: applegpu's text (and its aliases) back to bytes; every
// vector's text assembles to an encoding that prints the same text.
#include <gtest/gtest.h>

#include "isa/isa.h"
#include "isa/tests/data_file.h"
#include "util/hex.h"

namespace agx::isa {
namespace AGX_UNITY_ID {

std::string asm_hex(std::string_view text, uint64_t pc = 0) {
  auto e = assemble(text, pc);
  if (!e) return "error: " + e.error().message();
  return to_hex(e->span());
}

TEST(Asm, EveryVectorTextAssemblesToTheSameText) {
  auto rows = testing::read_rows("tests/data/disasm_vectors.tsv");
  for (const auto& r : rows) {
    auto e = assemble(r[1], 0);
    ASSERT_TRUE(e.ok()) << r[1] << ": " << e.error().message();
    auto in = decode(e->span());
    ASSERT_TRUE(in.ok());
    EXPECT_EQ(disassemble(*in, std::nullopt), r[1]);
  }
}

TEST(Asm, KnownEncodings) {
  EXPECT_EQ(asm_hex("mov_imm r1l, 0"), "62040000");
  EXPECT_EQ(asm_hex("fmul32 r1.cache, r2.discard, 0.5"), "9a85c4020200");
  EXPECT_EQ(asm_hex("device_load 0, i32, xy, r0_r1, u2_u3, 0, signed, lsl 1"), "0501040d00c43200");
  EXPECT_EQ(asm_hex("stop"), "8800");
  EXPECT_EQ(asm_hex("wait 0"), "3800");
}

TEST(Asm, AliasesAndSuffixes) {
  EXPECT_EQ(asm_hex("push_exec r0l, 2"), "421000000000");
  EXPECT_EQ(asm_hex("update_exec r0l"), "420000000000");
  EXPECT_EQ(asm_hex("not r0, r1"), "7e0142064000");
  EXPECT_EQ(asm_hex("and r0, r1, 3"), "7e0142328000");
  // .sat and isub come from the S and N fields.
  auto in = decode(assemble("isub.sat r0, r1.sx, 2")->span());
  EXPECT_EQ(*in->field("S"), 1u);
  EXPECT_EQ(*in->field("N"), 1u);
}

TEST(Asm, BranchTargetsRelativeOrAbsolute) {
  EXPECT_EQ(asm_hex("jmp_exec_any pc+16"), "00c010000000");
  EXPECT_EQ(asm_hex("jmp_exec_any 0x110", 0x100), "00c010000000");
  EXPECT_EQ(asm_hex("jmp_exec_any 0x-67"), "00c099ffffff");
  EXPECT_EQ(asm_hex("jmp_exec_any pc-103"), "00c099ffffff");
}

TEST(Asm, ProgramsLayOutPcs) {
  auto bytes = assemble_program("mov_imm r1l, 0 ; jmp_exec_any 0x0\nstop");
  ASSERT_TRUE(bytes.ok()) << bytes.error().message();
  // The jump sits at pc 4 and goes back to 0: offset -4.
  EXPECT_EQ(to_hex(*bytes), "6204000000c0fcffffff8800");
}

TEST(Asm, SpacingIsFree) {
  EXPECT_EQ(asm_hex("  iadd   r1 ,r1,   r0l  "), asm_hex("iadd r1, r1, r0l"));
}

}  // namespace
}  // namespace agx::isa
