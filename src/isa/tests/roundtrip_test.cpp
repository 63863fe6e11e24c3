// Random round trips of every table row: fields -> encode -> decode gives the
// same row and fields; disassemble -> assemble -> disassemble is stable.
#include <gtest/gtest.h>

#include <random>
#include <set>

#include "isa/isa.h"

namespace agx::isa {
namespace AGX_UNITY_ID {

// Rows applegpu can never match because an earlier row takes every one of
// their encodings (isa-facts.md marks them unreachable).
const std::set<std::string_view> kUnreachable = {"stack_get_ptr", "todo_stack_adjust",
                                                 "todo_stack_adjust2", "todo_unk51"};

Instr random_fields(Opcode op, std::mt19937_64& rng) {
  Instr in;
  in.op = op;
  auto names = field_names(op);
  in.field_count = static_cast<uint8_t>(names.size());
  for (size_t i = 0; i < names.size(); ++i) {
    unsigned w = field_width(op, i);
    uint64_t v = rng();
    // Small values are common in real code; draw them often.
    if (rng() % 3 == 0) v &= 3;
    in.fields[i] = static_cast<uint32_t>(w >= 32 ? v : v & ((uint64_t{1} << w) - 1));
  }
  return in;
}


TEST(RoundTrip, EveryRowEncodesDecodesAndReassembles) {
  std::mt19937_64 rng(1234);
  for (size_t r = 0; r < kOpcodeCount; ++r) {
    auto op = static_cast<Opcode>(r);
    int decoded = 0;
    for (int iter = 0; iter < 400; ++iter) {
      Instr in = random_fields(op, rng);
      auto names = field_names(op);
      auto enc = encode(in);
      if (!enc) continue;
      auto dec = decode(enc->span(), 0x100);
      if (!dec) continue;  // applegpu asserts on this operand combination
      ++decoded;
      ASSERT_EQ(dec->op, op) << op_info(op).id;
      for (size_t i = 0; i < names.size(); ++i)
        ASSERT_EQ(dec->fields[i], in.fields[i]) << op_info(op).id << " field " << names[i];
      auto again = encode(*dec);
      ASSERT_TRUE(again.ok());
      ASSERT_EQ(again->length_B, enc->length_B);
      ASSERT_TRUE(std::equal(enc->bytes.begin(), enc->bytes.begin() + enc->length_B, again->bytes.begin()));
      std::string text = disassemble(*dec, 0x100);
      auto re = assemble(text, 0x100);
      ASSERT_TRUE(re.ok()) << op_info(op).id << ": '" << text << "': " << re.error().message();
      auto redec = decode(re->span(), 0x100);
      ASSERT_TRUE(redec.ok());
      ASSERT_EQ(disassemble(*redec, 0x100), text) << op_info(op).id;
    }
    if (!kUnreachable.count(op_info(op).id)) {
      EXPECT_GT(decoded, 0) << op_info(op).id;
    }
  }
}

}  // namespace
}  // namespace agx::isa

namespace agx::isa {
namespace AGX_UNITY_ID {

// Random bytes: whatever decodes re-encodes to exactly its bytes (unknown
// bits included) and decodes again to an equal Instr.
TEST(RoundTrip, RandomBytesReencodeExactly) {
  std::mt19937_64 rng(99);
  int decoded = 0;
  for (int iter = 0; iter < 200000; ++iter) {
    std::array<uint8_t, kMaxLength_B> b;
    for (auto& x : b) x = static_cast<uint8_t>(rng());
    // Make short forms common: clear the high bytes half of the time.
    if (rng() & 1) std::fill(b.begin() + 2 + 2 * (rng() % 5), b.end(), 0);
    auto in = decode(b, 0x10);
    if (!in) continue;
    ++decoded;
    auto enc = encode(*in);
    ASSERT_TRUE(enc.ok()) << op_info(in->op).id << ": " << enc.error().message();
    ASSERT_EQ(enc->length_B, in->length_B);
    ASSERT_TRUE(std::equal(b.begin(), b.begin() + in->length_B, enc->bytes.begin())) << op_info(in->op).id;
    auto again = decode(enc->span(), 0x10);
    if (!again) continue;  // matched only thanks to bytes past the instruction
    if (again->op == in->op) {
      EXPECT_TRUE(*again == *in) << op_info(in->op).id;
    }
  }
  EXPECT_GT(decoded, 50000);
}

}  // namespace
}  // namespace agx::isa
