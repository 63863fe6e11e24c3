// The engine on a synthetic table that uses every type and modifier, with
// fields straddling word boundaries and a 64-bit field.
#include <gtest/gtest.h>

#include <random>

#include "cmdstream/field_table.h"

namespace agx::cmdstream {
namespace {

constexpr EnumValue kColours[] = {{"Red", 1}, {"Green", 2}, {"Blue", 5}};
constexpr FieldDesc kTestFields[] = {
    {"Flag", 0, 1, FieldType::boolean},
    {"Count", 1, 5, FieldType::uint, Modifier::minus_one},
    {"Colour", 6, 3, FieldType::enumeration, Modifier::none, 0, kColours},
    {"Offset", 9, 7, FieldType::sint},
    {"Tile", 16, 3, FieldType::uint, Modifier::log2},
    {"Straddle", 28, 8, FieldType::hex},
    {"Scale", 36 + 28, 32, FieldType::float32},
    {"Buffer", 96, 36, FieldType::address, Modifier::shr, 4},
    {"Wide", 160, 64, FieldType::hex},
};
constexpr StructDesc kTest{"Test struct", 7, kTestFields};
static_assert(table_is_valid(kTest));

constexpr FieldDesc kOutside[] = {{"Past end", 30, 4, FieldType::uint}};
static_assert(!table_is_valid(StructDesc{"Bad", 1, kOutside}));
constexpr FieldDesc kBadEnum[] = {{"E", 0, 1, FieldType::enumeration, Modifier::none, 0, kColours}};
static_assert(!table_is_valid(StructDesc{"Bad", 1, kBadEnum}));

Values sample() {
  return {1, 32, 5, uint64_t(int64_t(-64)), 128, 0xA5, to_bits(-1.5f), 0xFF'FFFF'FFF0, ~uint64_t{0}};
}

TEST(FieldTable, PacksBitsWhereTheTableSays) {
  auto words = pack(kTest, sample());
  ASSERT_TRUE(words.ok()) << words.error().message();
  ASSERT_EQ(words->size(), 7u);
  // Flag 1 | (32-1)<<1 | 5<<6 | (-64 & 0x7f)<<9 | log2(128)=7<<16 | 0x5<<28
  EXPECT_EQ((*words)[0], 0x1u | 31u << 1 | 5u << 6 | 0x40u << 9 | 7u << 16 | 0x5u << 28);
  EXPECT_EQ((*words)[1] & 0xF, 0xAu);                      // high nibble of Straddle
  EXPECT_EQ(get_raw(*words, 64, 32), to_bits(-1.5f));      // Scale
  EXPECT_EQ((*words)[3], 0xFFFFFFFFu);                     // Buffer >> 4, low 32 bits
  EXPECT_EQ((*words)[4] & 0xF, 0xFu);                      // Buffer bits 32..35
  EXPECT_EQ((*words)[5], 0xFFFFFFFFu);
  EXPECT_EQ((*words)[6], 0xFFFFFFFFu);
}

TEST(FieldTable, UnpackInvertsPack) {
  auto words = pack(kTest, sample());
  ASSERT_TRUE(words.ok());
  auto back = unpack(kTest, *words);
  ASSERT_TRUE(back.ok()) << back.error().message();
  EXPECT_EQ(*back, sample());
}

TEST(FieldTable, RandomRoundTrips) {
  std::mt19937_64 rng(6);
  for (int iter = 0; iter < 2000; ++iter) {
    Values v(kTest.fields.size());
    v[0] = rng() & 1;
    v[1] = 1 + rng() % 32;
    v[2] = kColours[rng() % 3].value;
    v[3] = uint64_t(int64_t(rng() % 128) - 64);
    v[4] = uint64_t{1} << (rng() % 8);
    v[5] = rng() & 0xFF;
    v[6] = to_bits(float(int64_t(rng() % 100000) - 50000) / 64.0f);
    v[7] = (rng() & 0xF'FFFF'FFFF) << 4;
    v[8] = rng();
    auto words = pack(kTest, v);
    ASSERT_TRUE(words.ok()) << words.error().message();
    auto back = unpack(kTest, *words);
    ASSERT_TRUE(back.ok()) << back.error().message();
    ASSERT_EQ(*back, v) << "iteration " << iter;
  }
}

void expect_error(size_t field, uint64_t value, std::string_view what) {
  Values v = sample();
  v[field] = value;
  auto r = pack(kTest, v);
  ASSERT_FALSE(r.ok()) << "field " << field << " value " << value;
  const std::string& m = r.error().message();
  EXPECT_NE(m.find("Test struct"), std::string::npos) << m;
  EXPECT_NE(m.find(std::string(kTestFields[field].name)), std::string::npos) << m;
  EXPECT_NE(m.find(what), std::string::npos) << m;
}

TEST(FieldTable, OutOfRangeNamesStructAndField) {
  expect_error(0, 2, "not a boolean");
  expect_error(1, 0, "value - 1");
  expect_error(1, 33, "does not fit");
  expect_error(2, 3, "not a value of the enum");
  expect_error(3, 64, "does not fit");
  expect_error(3, uint64_t(int64_t(-65)), "does not fit");
  expect_error(4, 12, "not a power of two");
  expect_error(4, 256, "does not fit");
  expect_error(5, 0x100, "does not fit");
  expect_error(7, 0x18, "not a multiple of 16");
  expect_error(7, uint64_t{1} << 40, "does not fit");
}

TEST(FieldTable, UnpackRejectsBadInput) {
  auto words = *pack(kTest, sample());
  auto short_input = unpack(kTest, std::span<const uint32_t>(words).first(3));
  ASSERT_FALSE(short_input.ok());
  EXPECT_NE(short_input.error().message().find("3 words"), std::string::npos);

  auto enum_bad = words;
  put_raw(enum_bad, 6, 3, 3);  // no colour has value 3
  auto e = unpack(kTest, enum_bad);
  ASSERT_FALSE(e.ok());
  EXPECT_NE(e.error().message().find("'Colour' holds 3"), std::string::npos) << e.error().message();

  auto stray = words;
  stray[0] |= 1u << 20;  // bits 19..27 belong to no field
  auto s = unpack(kTest, stray);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.error().message().find("0x00100000"), std::string::npos) << s.error().message();
}

TEST(FieldTable, PrintsEveryField) {
  std::string text = print(kTest, sample(), 2);
  EXPECT_NE(text.find("  Flag: true\n"), std::string::npos) << text;
  EXPECT_NE(text.find("  Count: 32\n"), std::string::npos);
  EXPECT_NE(text.find("  Colour: Blue\n"), std::string::npos);
  EXPECT_NE(text.find("  Offset: -64\n"), std::string::npos);
  EXPECT_NE(text.find("  Scale: -1.5\n"), std::string::npos);
  EXPECT_NE(text.find("  Buffer: 0xfffffffff0\n"), std::string::npos);
  EXPECT_NE(text.find("  Wide: 0xffffffffffffffff\n"), std::string::npos);
}

TEST(FieldTable, WrongValueCountIsAnError) {
  Values v = sample();
  v.pop_back();
  auto r = pack(kTest, v);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message().find("8 values given for 9 fields"), std::string::npos);
}

}  // namespace
}  // namespace agx::cmdstream
