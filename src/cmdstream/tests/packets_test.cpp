// The varyings structs of cmdbuf.xml: words computed by hand from the XML's
// bit positions (bminor/mesa-mesa src/asahi/genxml/cmdbuf.xml), and round
// trips of every struct with random values.
#include <gtest/gtest.h>

#include <random>

#include "cmdstream/cmdstream.h"

namespace agx::cmdstream {
namespace {

uint32_t pack1(const StructDesc& s, const Values& v) {
  auto r = pack(s, v);
  EXPECT_TRUE(r.ok()) << r.error().message();
  return r.ok() ? (*r)[0] : 0xDEADBEEF;
}

TEST(Packets, CfBindingHeader) {
  // Number of 32-bit slots 0:0 (8 bits), coefficient registers 0:8 (8 bits).
  EXPECT_EQ(pack1(kCfBindingHeader, {3, 9}), 0x0903u);
}

TEST(Packets, CfBinding) {
  // Components-1 at 0 (2), shade model at 2 (3), source at 5 (3),
  // base slot at 8 (8), base coefficient register at 16 (8).
  EXPECT_EQ(pack1(kCfBinding, {4, 7, 0, 2, 1}), 0x0001021Fu);  // vec4 perspective
  EXPECT_EQ(pack1(kCfBinding, {1, 3, 0, 0, 0}), 0x0000000Cu);  // W: linear slot 0
  EXPECT_EQ(pack1(kCfBinding, {1, 3, 1, 1, 1}), 0x0001012Cu);  // fragcoord Z
  EXPECT_EQ(pack1(kCfBinding, {2, 6, 5, 0, 5}), 0x000500B9u);  // barycentrics, flat v1
}

TEST(Packets, ShadeModelAndSourceValuesAreTheXmls) {
  EXPECT_EQ(enum_name(kShadeModelValues, 0), "Flat vertex 0");
  EXPECT_EQ(enum_name(kShadeModelValues, 2), "Flat vertex 2");
  EXPECT_EQ(enum_name(kShadeModelValues, 3), "Linear");
  EXPECT_EQ(enum_name(kShadeModelValues, 6), "Flat vertex 1");
  EXPECT_EQ(enum_name(kShadeModelValues, 7), "Perspective");
  EXPECT_EQ(enum_name(kCoefficientSourceValues, 5), "Barycentric coord");
  EXPECT_TRUE(enum_name(kCoefficientSourceValues, 4).empty());
}

TEST(Packets, VaryingCounts) {
  EXPECT_EQ(pack1(kVaryingCounts, {5, 2, 1}), 0x00010205u);
}

TEST(Packets, OutputSelect) {
  Values v(kOutputSelect.fields.size(), 0);
  v[kClipDistancePlane0 + 0] = v[kClipDistancePlane0 + 1] = 1;
  v[kVaryings] = v[kPointSize] = v[kFragCoordZ] = 1;
  EXPECT_EQ(pack1(kOutputSelect, v), 0x00250003u);
  v.assign(v.size(), 0);
  v[kViewportTarget] = v[kRenderTarget] = v[kBarycentricCoordinates] = 1;
  EXPECT_EQ(pack1(kOutputSelect, v), 0x00580000u);
}

TEST(Packets, VdmVertexOutputs) {
  EXPECT_EQ(pack1(kVdmVertexOutputs, {12, 12}), 0x0C0Cu);
}

TEST(Packets, ComponentsAreOneToFour) {
  auto zero = pack(kCfBinding, Values{0, 7, 0, 0, 0});
  ASSERT_FALSE(zero.ok());
  EXPECT_NE(zero.error().message().find("CF binding: field 'Components'"), std::string::npos)
      << zero.error().message();
  EXPECT_FALSE(pack(kCfBinding, Values{5, 7, 0, 0, 0}).ok());
  auto model = pack(kCfBinding, Values{1, 4, 0, 0, 0});
  ASSERT_FALSE(model.ok());
  EXPECT_NE(model.error().message().find("'Shade model'"), std::string::npos);
}

uint64_t random_value(const FieldDesc& f, std::mt19937_64& rng) {
  if (f.type == FieldType::enumeration) return f.values[rng() % f.values.size()].value;
  uint64_t raw = rng() & ((f.size >= 64) ? ~uint64_t{0} : ((uint64_t{1} << f.size) - 1));
  if (f.modifier == Modifier::minus_one) return raw + 1;
  return raw;
}

TEST(Packets, EveryStructRoundTrips) {
  std::mt19937_64 rng(2026);
  for (const StructDesc* s : kVaryingStructs) {
    for (int iter = 0; iter < 500; ++iter) {
      Values v;
      for (const FieldDesc& f : s->fields) v.push_back(random_value(f, rng));
      auto words = pack(*s, v);
      ASSERT_TRUE(words.ok()) << words.error().message();
      auto back = unpack(*s, *words);
      ASSERT_TRUE(back.ok()) << back.error().message();
      ASSERT_EQ(*back, v) << s->name;
      auto again = pack(*s, *back);
      ASSERT_TRUE(again.ok());
      ASSERT_EQ(*again, *words) << s->name;
    }
  }
}

TEST(Packets, StrayBitsAreReported) {
  uint32_t w = 0x00020000;  // bit 17 of Output Select is in no field
  auto r = unpack(kOutputSelect, std::span<const uint32_t>(&w, 1));
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message().find("Output Select"), std::string::npos);
}

}  // namespace
}  // namespace agx::cmdstream
