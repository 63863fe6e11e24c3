// Bad input gives an Error naming where and what was expected; nothing reads
// past the buffer (the sanitizer build checks that too).
#include <gtest/gtest.h>

#include "isa/isa.h"
#include "util/hex.h"

namespace agx::isa {
namespace AGX_UNITY_ID {

std::string decode_error(std::string_view hex, uint64_t pc = 0) {
  auto bytes = parse_hex(hex);
  auto in = decode(*bytes, pc);
  return in.ok() ? "ok" : in.error().message();
}

std::string asm_error(std::string_view text) {
  auto e = assemble(text);
  return e.ok() ? "ok" : e.error().message();
}

TEST(Errors, TruncatedBytesNameThePcAndTheLength) {
  EXPECT_EQ(decode_error("0e05420204", 0x40),
            "truncated instruction at pc 0x40: iadd needs 8 bytes, have 5");
  EXPECT_EQ(decode_error("62"), "truncated instruction at pc 0x0: expected at least 2 bytes, have 1");
  EXPECT_EQ(decode_error(""), "truncated instruction at pc 0x0: expected at least 2 bytes, have 0");
}

TEST(Errors, UnknownEncoding) {
  // 0x0000 matches nothing of 2 bytes: jmp_incomplete needs 4.
  EXPECT_NE(decode_error("0000").find("truncated"), std::string::npos);
  EXPECT_EQ(decode_error("ff00"), "unknown instruction at pc 0x0: no encoding matches 00ff");
}

TEST(Errors, OddRegisterWhereAPairIsRequired) {
  // device_load with base field A = 5 (odd) in a register pair.
  auto ok = assemble("device_load 0, i32, xy, r0_r1, r2_r3, 0, signed, lsl 1");
  ASSERT_TRUE(ok.ok());
  auto bytes = std::vector<uint8_t>(ok->bytes.begin(), ok->bytes.begin() + ok->length_B);
  bytes[2] |= 1;  // A low bit (bit 16)
  auto in = decode(bytes, 0x20);
  ASSERT_FALSE(in.ok());
  EXPECT_EQ(in.error().message(), "pc 0x20: device_load operand A: a 64-bit base needs an even index");
}

TEST(Errors, RegistersPastTheFile) {
  // simd_matrix_fmadd32's paired destination r127 would need r128.
  auto e = encode_fields(Opcode::simd_matrix_fmadd32,
                         std::vector<std::pair<std::string_view, uint32_t>>{{"D", 254}, {"Dt", 2}});
  ASSERT_TRUE(e.ok());
  auto in = decode(e->span());
  ASSERT_FALSE(in.ok());
  EXPECT_NE(in.error().message().find("past the register file"), std::string::npos);
}

TEST(Errors, OutOfRangeFieldsOnEncode) {
  auto e = encode_fields(Opcode::wait, std::vector<std::pair<std::string_view, uint32_t>>{{"i", 2}});
  ASSERT_FALSE(e.ok());
  EXPECT_EQ(e.error().message(), "wait: field i = 2 does not fit in 1 bits");
  auto n = encode_fields(Opcode::wait, std::vector<std::pair<std::string_view, uint32_t>>{{"x", 0}});
  EXPECT_EQ(n.error().message(), "wait: no field named 'x'");
}

TEST(Errors, MalformedAssemblyNamesTheColumn) {
  EXPECT_EQ(asm_error("frob r0"), "column 1: unknown mnemonic 'frob'");
  EXPECT_EQ(asm_error(""), "column 1: expected an instruction");
  EXPECT_EQ(asm_error("mov_imm r1l, zz"),
            "column 14: expected an integer for operand imm16, got 'zz'");
  EXPECT_EQ(asm_error("iadd r1, r1, 300"),
            "column 14: expected an 8-bit immediate (0-255) for operand B, got '300'");
  EXPECT_EQ(asm_error("wait 0, 1"), "column 9: unexpected operand '1'");
  EXPECT_EQ(asm_error("jmp_exec_any banana"),
            "column 14: expected a branch target (pc+N, pc-N or 0x...) for operand off, got 'banana'");
  auto p = assemble_program("stop; frob");
  EXPECT_EQ(p.error().message(), "instruction 2 (line 1): column 7: unknown mnemonic 'frob'");
}

TEST(Errors, InconsistentOperandsAreRefused) {
  // A two-register tuple where the mask says four.
  auto m = asm_error("device_load 0, i32, xyzw, r0_r1, u2_u3, 0, signed, lsl 1");
  EXPECT_NE(m.find("operands do not fit together"), std::string::npos) << m;
  // The message quotes the user's own text, not another instruction.
  EXPECT_NE(m.find("'device_load 0, i32, xyzw, r0_r1, u2_u3, 0, signed, lsl 1'"), std::string::npos) << m;
  auto p = assemble_program("stop\n  device_load 0, i32, xyzw, r0_r1, u2_u3, 0, signed, lsl 1");
  ASSERT_FALSE(p.ok());
  EXPECT_EQ(p.error().message().rfind("instruction 2 (line 2): column 3: 'device_load", 0), 0u) << p.error().message();
}

TEST(Errors, RegistersPastTheFileAreNamed) {
  EXPECT_EQ(asm_error("fadd32 r128, r1, r2"),
            "column 8: register 'r128' does not exist: the register file is r0-r127 (r0l-r127h)");
  EXPECT_EQ(asm_error("fadd32 r1, u256, r2"),
            "column 12: register 'u256' does not exist: the uniform file is u0-u255 (u0l-u255h)");
  EXPECT_EQ(asm_error("fadd32 r1, r128, r2"),
            "column 12: register 'r128' does not exist: the register file is r0-r127 (r0l-r127h)");
}

TEST(Errors, EchoedTextIsEscapedAndCut) {
  EXPECT_EQ(asm_error("fr\x1b[2Job r0"), "column 1: unknown mnemonic 'fr\\x1b[2Job'");
  EXPECT_EQ(asm_error(std::string_view("wait 0, a\0b", 11)), "column 9: unexpected operand 'a\\x00b'");
  const std::string long_name(300, 'q');
  EXPECT_EQ(asm_error(long_name), "column 1: unknown mnemonic '" + std::string(48, 'q') + "...'");
}

}  // namespace
}  // namespace agx::isa
