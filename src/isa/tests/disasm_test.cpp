// Disassembly text against (hex, text) pairs held in tests/data (see the
// headers of those files for where they come from).
#include <gtest/gtest.h>

#include "isa/isa.h"
#include "isa/tests/data_file.h"
#include "util/hex.h"

namespace agx::isa {
namespace AGX_UNITY_ID {

TEST(Disasm, VectorsOfEveryInstruction) {
  auto rows = testing::read_rows("tests/data/disasm_vectors.tsv");
  ASSERT_GT(rows.size(), 600u);
  // Mesa's encodings (HEX, OURS, MESA) count too: ld_tile's are there.
  auto mesa = testing::read_rows("tests/data/mesa_vectors.tsv");
  ASSERT_GT(mesa.size(), 30u);
  rows.insert(rows.end(), mesa.begin(), mesa.end());
  std::vector<bool> seen(kOpcodeCount);
  for (const auto& r : rows) {
    ASSERT_GE(r.size(), 2u);
    auto bytes = parse_hex(r[0]);
    ASSERT_TRUE(bytes.ok()) << r[0];
    auto in = decode(*bytes);
    ASSERT_TRUE(in.ok()) << r[0] << ": " << in.error().message();
    EXPECT_EQ(in->length_B, bytes->size()) << r[0];
    EXPECT_EQ(disassemble(*in, std::nullopt), r[1]) << r[0];
    seen[static_cast<size_t>(in->op)] = true;
  }
  std::string missing;
  for (size_t i = 0; i < kOpcodeCount; ++i)
    if (!seen[i]) missing += std::string(op_info(static_cast<Opcode>(i)).id) + " ";
  // Only rows that an earlier row always shadows (isa-facts.md) lack vectors.
  EXPECT_EQ(missing, "stack_get_ptr todo_stack_adjust todo_unk51 todo_stack_adjust2 ");
}

TEST(Disasm, ApplegpuReadmeListing) {
  auto rows = testing::read_rows("tests/data/readme_listing.tsv");
  ASSERT_EQ(rows.size(), 10u);
  for (const auto& r : rows) {
    auto bytes = parse_hex(r[1]);
    ASSERT_TRUE(bytes.ok());
    uint64_t pc = std::stoull(r[0], nullptr, 16);
    auto in = decode(*bytes, pc);
    ASSERT_TRUE(in.ok()) << in.error().message();
    EXPECT_EQ(disassemble(*in, pc), r[2]);
  }
}

TEST(Disasm, BranchTargetsAbsoluteAndRelative) {
  // jmp_exec_any: 16-bit constant 0xC000, then a 32-bit signed offset.
  auto back = parse_hex("00c099ffffff");
  auto in = decode(*back, 0);
  ASSERT_TRUE(in.ok());
  EXPECT_EQ(in->operands[0].kind, OperandKind::kBranchOffset);
  EXPECT_EQ(in->operands[0].value, -0x67);
  EXPECT_EQ(disassemble(*in, 0), "jmp_exec_any     0x-67");  // Python "0x%X" % -0x67
  EXPECT_EQ(disassemble(*in, 0x100), "jmp_exec_any     0x99");
  EXPECT_EQ(disassemble(*in, std::nullopt), "jmp_exec_any     pc-103");
}

TEST(Disasm, AliasesAndDroppedOperands) {
  struct Case {
    const char* hex;
    const char* text;
  } cases[] = {
      {"8800", "stop             "},  // no operands: padding and one space remain
      {"421000000000", "push_exec        r0l, 2"},
      {"420000000000", "update_exec      r0l"},
      {"7e0142064000", "not              r0, r1"},
      {"7e0142328000", "and              r0, r1, 3"},
      {"72091004", "get_sr           r2, sr80 (thread_position_in_grid.x)"},
      {"0e05420204000000", "iadd             r1, r1, r0l"},  // lsl 0 dropped
  };
  for (const auto& c : cases) {
    auto in = decode(*parse_hex(c.hex));
    ASSERT_TRUE(in.ok()) << c.hex;
    EXPECT_EQ(disassemble(*in, std::nullopt), c.text) << c.hex;
  }
}

TEST(Disasm, DecodedOperandsForTheEmulator) {
  // iadd.sat r1_r2.cache, r0h.discard, r73h.cache.sx, lsl 1
  auto in = decode(*parse_hex("ce07c130c9020000"));
  ASSERT_TRUE(in.ok());
  EXPECT_EQ(in->op, Opcode::iadd);
  EXPECT_EQ(*in->field("S"), 1u);
  const Operand& d = in->operands[0];
  EXPECT_EQ(d.kind, OperandKind::kReg64);
  EXPECT_EQ(d.index, 1);
  EXPECT_EQ(d.flags, kFlagCache);
  const Operand& b = in->operands[2];
  EXPECT_EQ(b.kind, OperandKind::kReg16);
  EXPECT_EQ(b.index, 147);
  EXPECT_EQ(b.flags, kFlagCache | kFlagSx);
  EXPECT_EQ(in->operands[3].kind, OperandKind::kShift);
  EXPECT_EQ(in->operands[3].value, 1);
  EXPECT_EQ(disassemble(*in, std::nullopt),
            "iadd.sat         r1_r2.cache, r0h.discard, r73h.cache.sx, lsl 1");
}

}  // namespace
}  // namespace agx::isa

namespace agx::isa {
namespace AGX_UNITY_ID {

TEST(Disasm, DecodeIntoReusesAnInstrWithoutStaleOperands) {
  Instr reused;
  // texture_sample (16 operands), then wait (1 operand).
  ASSERT_TRUE(decode_into(*parse_hex("31041dbc26986246"), 0, reused).ok());
  EXPECT_EQ(reused.operand_count, 16);
  ASSERT_TRUE(decode_into(*parse_hex("3800"), 8, reused).ok());
  auto fresh = decode(*parse_hex("3800"), 8);
  ASSERT_TRUE(fresh.ok());
  EXPECT_TRUE(reused == *fresh);
}

}  // namespace
}  // namespace agx::isa
