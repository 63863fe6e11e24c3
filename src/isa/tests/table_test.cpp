// The table itself: every applegpu descriptor is a row, each row's constant
// bits decode as that row (or a row before it: first match wins), float
// immediates and special registers print as applegpu prints them.
#include <gtest/gtest.h>

#include "isa/disasm.h"
#include "isa/fields.h"
#include "isa/isa.h"
#include "isa/tests/data_file.h"

namespace agx::isa {
namespace AGX_UNITY_ID {

TEST(Table, HasEveryApplegpuDescriptor) {
  // applegpu-descriptors.json: "descriptors": 161, and TODO.ld/st_tile is
  // two rows (ld_tile, st_tile from Mesa's AGX2.xml).
  EXPECT_EQ(kOpcodeCount, 162u);
  EXPECT_EQ(op_info(Opcode::mov_imm16).mnemonic, "mov_imm");
  EXPECT_EQ(op_info(Opcode::mov_imm32).long_B, 8);
  EXPECT_EQ(op_info(Opcode::device_load).length_bit, 47);
  EXPECT_TRUE(op_info(Opcode::iadd).executes);
  EXPECT_FALSE(op_info(Opcode::convert).executes);
}

TEST(Table, FieldLookupByName) {
  EXPECT_GE(field_index(Opcode::iadd, "N"), 0);
  EXPECT_EQ(field_index(Opcode::iadd, "nope"), -1);
  EXPECT_EQ(field_width(Opcode::iadd, static_cast<size_t>(field_index(Opcode::iadd, "s"))), 3u);
  EXPECT_EQ(field_width(Opcode::iadd, 99), 0u);
}

// find_field_id: field_id's lookup without the failure, usable with the
// parameters of constexpr functions; kMaxFields for a missing name.
constexpr size_t lookup(Opcode op, std::string_view name) { return find_field_id(op, name); }
TEST(Table, FindFieldIdAgreesWithFieldIdAndMissesWithKMaxFields) {
  static_assert(lookup(Opcode::iadd, "N") == field_id(Opcode::iadd, "N"));
  static_assert(lookup(Opcode::texture_load, "lod") == field_id(Opcode::texture_load, "lod"));
  static_assert(lookup(Opcode::iadd, "no_such_field") == kMaxFields);
  static_assert(lookup(Opcode::stop, "D") == kMaxFields);
  for (size_t i = 0; i < kOpcodeCount; ++i) {
    const auto op = static_cast<Opcode>(i);
    const auto names = field_names(op);
    for (size_t k = 0; k < names.size(); ++k) EXPECT_EQ(find_field_id(op, names[k]), k) << op_info(op).id;
  }
}

// field_id is the same index as field_index, computed at compile time (a
// name the row lacks does not compile); every row's every field agrees.
TEST(Table, CompileTimeFieldIdsMatchTheLookup) {
  static_assert(field_id(Opcode::texture_sample, "compare") == 0);
  static_assert(field_id(Opcode::texture_sample, "n") != field_id(Opcode::texture_sample, "Cs"));
  constexpr size_t kLod = field_id(Opcode::texture_load, "lod");
  EXPECT_EQ(static_cast<int>(kLod), field_index(Opcode::texture_load, "lod"));
  EXPECT_EQ(static_cast<int>(field_id(Opcode::image_write_block, "F")), field_index(Opcode::image_write_block, "F"));
  EXPECT_EQ(static_cast<int>(field_id(Opcode::iadd, "s")), field_index(Opcode::iadd, "s"));
  // field_id counts a row's fields in kFieldNames order: that position is
  // the field's index for every field of the table.
  std::vector<int> position(kOpcodeCount, 0);
  size_t rows = 0;
  for (const detail::FieldName& f : detail::kFieldNames) {
    EXPECT_EQ(field_index(f.op, f.name), position[static_cast<size_t>(f.op)]++) << op_info(f.op).id << " " << f.name;
    ++rows;
  }
  EXPECT_EQ(rows, 991u);  // the AGX_ISA_FIELD rows of table.inc
}

// applegpu TEX_SIZES, once: coordinates and extra halves per dimension.
TEST(Table, TexSizes) {
  EXPECT_EQ(kTexSizes.size(), kTexDimCount);
  EXPECT_EQ(tex_size(0)->count, 1);
  EXPECT_EQ(tex_size(1)->extra, 1);
  EXPECT_EQ(tex_size(5)->count, 3);  // 3d
  EXPECT_EQ(tex_size(8)->count, 2);  // 2d_ms_array: sample and layer
  EXPECT_EQ(tex_size(8)->extra, 2);
  EXPECT_FALSE(tex_size(9).has_value());
}

TEST(Table, ConstantBitsDecodeAsTheRowOrAnEarlierOne) {
  int own = 0;
  for (size_t i = 0; i < kOpcodeCount; ++i) {
    auto op = static_cast<Opcode>(i);
    std::vector<std::pair<std::string_view, uint32_t>> none;
    auto enc = encode_fields(op, none);
    if (!enc) {
      // The all-zero fields form is taken by an earlier row.
      EXPECT_NE(enc.error().message().find("encode as"), std::string::npos) << op_info(op).id;
      continue;
    }
    auto found = identify(enc->span());
    ASSERT_TRUE(found.ok()) << op_info(op).id;
    EXPECT_EQ(*found, op);
    ++own;
  }
  EXPECT_GT(own, 120);
}

TEST(Table, FloatImmediatesPrintLikePythonRepr) {
  auto rows = testing::read_rows("tests/data/float_immediates.txt");
  ASSERT_EQ(rows.size(), 256u);
  for (unsigned code = 0; code < 256; ++code) {
    auto enc = encode_fields(Opcode::fadd32, std::vector<std::pair<std::string_view, uint32_t>>{
                                                 {"A", code}, {"B", 1}, {"Bt", 1}});
    ASSERT_TRUE(enc.ok());
    auto in = decode(enc->span());
    ASSERT_TRUE(in.ok());
    EXPECT_EQ(in->operands[1].kind, OperandKind::kFloatImm);
    EXPECT_EQ(in->operands[1].value, code);
    EXPECT_EQ(operand_text(*in, 1), rows[code][0]) << code;
  }
}

TEST(Table, SpecialRegisterNames) {
  // applegpu SR_NAMES; 124 has two entries and the later one wins.
  EXPECT_EQ(detail::special_register_name(80), "thread_position_in_grid.x");
  EXPECT_EQ(detail::special_register_name(124), "input_sample_mask");
  EXPECT_EQ(detail::special_register_name(20), "core_index");
  EXPECT_EQ(detail::special_register_name(3), "");
}

}  // namespace
}  // namespace agx::isa

namespace agx::isa {
namespace AGX_UNITY_ID {

TEST(Table, OperandIndexByApplegpuName) {
  // applegpu.py device_load: g, F, mask, R, A, O, Ou, s (text order).
  EXPECT_EQ(operand_index(Opcode::device_load, "R"), 3);
  EXPECT_EQ(operand_index(Opcode::device_load, "A"), 4);
  EXPECT_EQ(operand_index(Opcode::iadd, "D"), 0);
  EXPECT_EQ(operand_index(Opcode::iadd, "nope"), -1);
  auto in = decode(std::vector<uint8_t>{0x0e, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00});
  ASSERT_TRUE(in.ok());
  EXPECT_EQ(in->operands[static_cast<size_t>(operand_index(Opcode::iadd, "shift"))].kind, OperandKind::kShift);
}

TEST(Table, FloatImmediateValues) {
  // applegpu.py FloatSrcDesc: e = 0 gives m/64, else (16+m) * 2^(e-7).
  EXPECT_EQ(float_immediate(0x00), 0.0);
  EXPECT_EQ(float_immediate(0x01), 1.0 / 64);
  EXPECT_EQ(float_immediate(0x30), 1.0);
  EXPECT_EQ(float_immediate(0x70), 16.0);
  EXPECT_EQ(float_immediate(0x7F), 31.0);
  EXPECT_EQ(float_immediate(0xB0), -1.0);
  EXPECT_EQ(float_immediate(0x10), 0.25);
}

}  // namespace
}  // namespace agx::isa
