// The rows taken from Mesa (ld_tile, st_tile, ldcf; applegpu has them as
// TODO) and the graphics rows Mesa's compiler emits, against encodings from
// Mesa's own disassembler tests (tests/data/mesa_vectors.tsv: bytes and
// Mesa's text from bminor/mesa-mesa src/asahi/isa/test/cases.txt, beside
// our text); and random round trips of the new rows.
#include <gtest/gtest.h>

#include <random>

#include "isa/isa.h"
#include "isa/tests/data_file.h"
#include "util/hex.h"

namespace agx::isa {
namespace AGX_UNITY_ID {

Instr decoded(std::string_view hex) {
  auto bytes = parse_hex(hex);
  EXPECT_TRUE(bytes.ok()) << hex;
  auto in = decode(*bytes);
  EXPECT_TRUE(in.ok()) << hex << ": " << (in.ok() ? "" : in.error().message());
  return in.ok() ? *in : Instr{};
}

const Operand& named(const Instr& in, std::string_view name) {
  return in.operands[static_cast<size_t>(operand_index(in.op, name))];
}

TEST(Mesa, VectorsDecodeToOurTextAndAssembleBack) {
  auto rows = testing::read_rows("tests/data/mesa_vectors.tsv");
  ASSERT_EQ(rows.size(), 33u);
  for (const auto& r : rows) {
    ASSERT_EQ(r.size(), 3u) << r[0];
    Instr in = decoded(r[0]);
    EXPECT_EQ(in.length_B * 2, r[0].size()) << r[0];
    EXPECT_EQ(disassemble(in, std::nullopt), r[1]) << r[0] << " (Mesa: " << r[2] << ")";
    auto again = assemble(r[1]);
    ASSERT_TRUE(again.ok()) << r[1] << ": " << again.error().message();
    auto re = decode(again->span());
    ASSERT_TRUE(re.ok());
    EXPECT_EQ(disassemble(*re, std::nullopt), r[1]);
    EXPECT_EQ(re->op, in.op);
  }
}

TEST(Mesa, TileOperandsAsMesaPacksThem) {
  // Mesa: st_tile r4_r5_r6_r7, r9l_r9h, 1, 0, explicit_coords, u8norm, xyzw
  Instr st = decoded("09111204f8048000");
  EXPECT_EQ(st.op, Opcode::st_tile);
  const Operand& data = named(st, "R");
  EXPECT_EQ(data.kind, OperandKind::kReg32);
  EXPECT_EQ(data.index, 4u);
  EXPECT_EQ(data.count, 4u);
  const Operand& coords = named(st, "C");
  EXPECT_EQ(coords.kind, OperandKind::kReg16);
  EXPECT_EQ(coords.index, 18u);  // r9l
  EXPECT_EQ(coords.count, 2u);
  EXPECT_EQ(*st.field("Ct"), 1u);
  EXPECT_EQ(*st.field("u0"), 1u);  // explicit_coords
  EXPECT_EQ(named(st, "S").kind, OperandKind::kImm);
  EXPECT_EQ(named(st, "S").value, 1);
  EXPECT_EQ(*st.field("O"), 0u);
  EXPECT_EQ(*st.field("F"), 4u);  // u8norm
  EXPECT_EQ(*st.field("mask"), 15u);

  // Mesa: ld_tile r0l_r0h_r1l_r1h, 0, 255, 0, u8norm, xyzw (bit 35 set, as
  // Mesa always packs ld_tile).
  Instr ld = decoded("49000004f8fc0003");
  EXPECT_EQ(ld.op, Opcode::ld_tile);
  EXPECT_EQ(named(ld, "R").kind, OperandKind::kReg16);
  EXPECT_EQ(named(ld, "R").count, 4u);
  EXPECT_EQ(named(ld, "C").kind, OperandKind::kImm);
  EXPECT_EQ(named(ld, "S").value, 255);
  EXPECT_EQ(*ld.field("u0"), 1u);
}

TEST(Mesa, LdcfLoadsOneCoefficientRegister) {
  // Mesa: ldcf r4_r5_r6, cf3 (count 1: three 32-bit values).
  Instr in = decoded("a191034000000000");
  EXPECT_EQ(in.op, Opcode::ldcf);
  EXPECT_EQ(op_info(in.op).mnemonic, "ldcf");
  EXPECT_EQ(*in.field("count"), 1u);
  EXPECT_EQ(named(in, "D").kind, OperandKind::kReg32);
  EXPECT_EQ(named(in, "D").index, 4u);
  EXPECT_EQ(named(in, "D").count, 3u);
  EXPECT_EQ(named(in, "I").kind, OperandKind::kCoefficient);
  EXPECT_EQ(named(in, "I").index, 3u);
}

TEST(Mesa, TileCoordinatesAssembleFromARegisterPairOrAnImmediate) {
  auto pair = assemble("st_tile r4_r5_r6_r7, u8norm, 1, xyzw, 0, 1, r9l_r9h");
  ASSERT_TRUE(pair.ok()) << pair.error().message();
  auto in = decode(pair->span());
  ASSERT_TRUE(in.ok());
  EXPECT_EQ(*in->field("Ct"), 1u);
  EXPECT_EQ(*in->field("C"), 18u);
  auto bad = assemble("st_tile r4_r5_r6_r7, u8norm, 1, xyzw, 0, 1, r9l_r10l");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message().find("an 8-bit immediate or an r16 pair (x, y) for operand C"),
            std::string::npos)
      << bad.error().message();
}

// encode -> decode gives the same fields; text -> assemble -> the same text.
TEST(Mesa, NewRowsRoundTripWithRandomFields) {
  std::mt19937_64 rng(2026);
  for (Opcode op : {Opcode::ld_tile, Opcode::st_tile, Opcode::ldcf}) {
    auto names = field_names(op);
    int decoded_count = 0, register_coords = 0;
    for (int iter = 0; iter < 2000; ++iter) {
      Instr in;
      in.op = op;
      in.field_count = static_cast<uint8_t>(names.size());
      for (size_t i = 0; i < names.size(); ++i) {
        uint64_t v = rng();
        if (rng() % 3 == 0) v &= 3;
        in.fields[i] = static_cast<uint32_t>(v & ((uint64_t{1} << field_width(op, i)) - 1));
      }
      auto enc = encode(in);
      ASSERT_TRUE(enc.ok()) << enc.error().message();
      auto dec = decode(enc->span());
      if (!dec) continue;  // e.g. a sample mask type applegpu leaves undefined
      ++decoded_count;
      ASSERT_EQ(dec->op, op);
      for (size_t i = 0; i < names.size(); ++i) ASSERT_EQ(dec->fields[i], in.fields[i]) << names[i];
      if (in.field("Ct") == 1u) ++register_coords;
      std::string text = disassemble(*dec, std::nullopt);
      auto re = assemble(text);
      ASSERT_TRUE(re.ok()) << text << ": " << re.error().message();
      auto redec = decode(re->span());
      ASSERT_TRUE(redec.ok());
      ASSERT_EQ(disassemble(*redec, std::nullopt), text);
    }
    EXPECT_GT(decoded_count, 500) << op_info(op).id;
    if (op != Opcode::ldcf) {
      EXPECT_GT(register_coords, 100) << op_info(op).id;
    }
  }
}

}  // namespace
}  // namespace agx::isa
