// Every table: well-formed, found by name, and random round trips of every
// struct through the generic and the typed paths.
#include <gtest/gtest.h>

#include <set>

#include "cmdstream/cmdstream.h"
#include "cmdstream/tests/random_fields.h"
#include "util/hex.h"

namespace agx::cmdstream {
namespace AGX_UNITY_ID {

using testing::random_bytes;
using testing::random_value;

TEST(Tables, EveryStructOfTheXml) {
  // cmdbuf.xml at 691aa581 has 84 <struct> elements and 37 <enum>s.
  EXPECT_EQ(std::size(kAllStructs), 84u);
  EXPECT_EQ(std::size(kAllEnums), 37u);
  std::set<std::string_view> names;
  for (const StructDesc* s : kAllStructs) {
    EXPECT_TRUE(names.insert(s->name).second) << s->name;
    EXPECT_EQ(find_struct(s->name), s);
    std::set<std::string_view> fields, members;
    for (const FieldDesc& f : s->fields) {
      EXPECT_TRUE(fields.insert(f.name).second) << s->name << ": " << f.name;
      EXPECT_TRUE(members.insert(f.member).second) << s->name << ": " << f.member;
    }
  }
  for (const EnumDesc* e : kAllEnums) EXPECT_EQ(find_enum(e->name), e);
}

TEST(Tables, DefaultsPackToExactBitsOnly) {
  for (const StructDesc* s : kAllStructs) {
    Values v(s->fields.size());
    for (size_t i = 0; i < v.size(); ++i) v[i] = default_value(s->fields[i]);
    auto b = pack(*s, v);
    ASSERT_TRUE(b.ok()) << b.error().message();
    Values back(v.size());
    ASSERT_TRUE(unpack_into(*s, *b, back).ok());
    for (size_t i = 0; i < v.size(); ++i) {
      if (s->fields[i].exact) continue;
      // A field overlapping an exact one reads its bits; none do in the XML.
      EXPECT_EQ(back[i], v[i]) << s->name << ": " << s->fields[i].name;
    }
  }
}

// Bytes -> values -> bytes gives back every bit some field covers.
TEST(Tables, RandomBytesRoundTripEveryStruct) {
  std::mt19937_64 rng(1);
  for (const StructDesc* s : kAllStructs) {
    std::vector<uint8_t> covered = covered_bits(*s);
    for (int n = 0; n < 300; ++n) {
      std::vector<uint8_t> bytes = random_bytes(*s, rng);
      auto u = unpack(*s, bytes);
      ASSERT_TRUE(u.ok());
      EXPECT_TRUE(u->exact_mismatches.empty()) << s->name;
      auto back = pack(*s, u->values);
      ASSERT_TRUE(back.ok()) << s->name << ": " << back.error().message();
      for (size_t i = 0; i < bytes.size(); ++i) {
        ASSERT_EQ((*back)[i], bytes[i] & covered[i]) << s->name << " byte " << i << " of " << to_hex(bytes);
        ASSERT_EQ(u->unknown_bits[i], bytes[i] & ~covered[i]);
      }
    }
  }
}

// Values -> bytes -> values, one field at a time (the others at their
// defaults, so overlapping readings do not mix).
TEST(Tables, RandomValueOfEachFieldRoundTrips) {
  std::mt19937_64 rng(2);
  for (const StructDesc* s : kAllStructs) {
    for (size_t i = 0; i < s->fields.size(); ++i) {
      const FieldDesc& f = s->fields[i];
      for (int n = 0; n < 50; ++n) {
        Values v(s->fields.size());
        for (size_t j = 0; j < v.size(); ++j) v[j] = default_value(s->fields[j]);
        v[i] = random_value(f, rng);
        auto b = pack(*s, v);
        ASSERT_TRUE(b.ok()) << b.error().message();
        Values back(v.size());
        ASSERT_TRUE(unpack_into(*s, *b, back).ok());
        ASSERT_EQ(back[i], v[i]) << s->name << ": " << f.name;
      }
    }
  }
}

// The typed structs read and write what the tables do. The checks are one
// function over type-erased operations: only the small adapters below are
// instantiated per struct (84 instantiations of the checks themselves made
// this file the slowest of the build).
struct TypedOps {
  const StructDesc* desc;
  size_t size_B;
  std::string_view name;
  Result<Values> (*unpack_values)(std::span<const uint8_t> bytes);  // unpack<T>, to_values
  Values (*values_round_trip)(std::span<const uint64_t> values);   // from_values<T>, to_values
  Result<std::vector<uint8_t>> (*repack)(std::span<const uint8_t> bytes);  // unpack<T>, pack
};

template <class T>
TypedOps typed_ops() {
  TypedOps ops{&desc_of<T>(), T::kSize_B, T::kName, nullptr, nullptr, nullptr};
  ops.unpack_values = [](std::span<const uint8_t> bytes) -> Result<Values> {
    AGX_TRY(T t, unpack<T>(bytes));
    return to_values(t);
  };
  ops.values_round_trip = [](std::span<const uint64_t> values) { return to_values(from_values<T>(values)); };
  ops.repack = [](std::span<const uint8_t> bytes) -> Result<std::vector<uint8_t>> {
    AGX_TRY(T t, unpack<T>(bytes));
    return pack(t);
  };
  return ops;
}

void typed_matches_generic(const TypedOps& ops, std::mt19937_64& rng) {
  const StructDesc& d = *ops.desc;
  for (int n = 0; n < 200; ++n) {
    std::vector<uint8_t> bytes = random_bytes(d, rng);
    auto generic = unpack(d, bytes);
    auto typed = ops.unpack_values(bytes);
    ASSERT_TRUE(generic.ok() && typed.ok());
    const Values& tv = *typed;
    ASSERT_EQ(tv.size(), generic->values.size());
    for (size_t i = 0; i < tv.size(); ++i) {
      ASSERT_EQ(tv[i], generic->values[i]) << d.name << ": " << d.fields[i].name;
    }
    EXPECT_EQ(ops.values_round_trip(generic->values), tv);
    auto tb = ops.repack(bytes);
    auto gb = pack(d, generic->values);
    ASSERT_TRUE(tb.ok() && gb.ok());
    EXPECT_EQ(*tb, *gb) << d.name;
    EXPECT_EQ(tb->size(), ops.size_B);
  }
  EXPECT_EQ(ops.name, d.name);
}

TEST(Tables, TypedMatchesGenericEveryStruct) {
  std::mt19937_64 rng(3);
  const TypedOps every[] = {
#define AGX_STRUCT(Id, name, size_B) typed_ops<Id>(),
#include "cmdstream/tables/each_struct.inc"
  };
  EXPECT_EQ(std::size(every), std::size(kAllStructs));
  for (const TypedOps& ops : every) typed_matches_generic(ops, rng);
}

TEST(Tables, JsonRoundTripEveryStruct) {
  std::mt19937_64 rng(4);
  for (const StructDesc* s : kAllStructs) {
    for (int n = 0; n < 30; ++n) {
      auto u = *unpack(*s, random_bytes(*s, rng));
      nlohmann::ordered_json j = nlohmann::ordered_json::parse(fields_to_json(*s, u.values).dump());
      auto v = values_from_json(*s, j);
      ASSERT_TRUE(v.ok()) << v.error().message();
      for (size_t i = 0; i < v->size(); ++i) {
        if (std::isnan(from_bits((*v)[i])) && s->fields[i].type != FieldType::uint) continue;
        ASSERT_EQ((*v)[i], u.values[i]) << s->name << ": " << s->fields[i].name << " " << j.dump();
      }
    }
  }
}

TEST(Tables, JsonErrorsNameStructAndField) {
  auto j = nlohmann::ordered_json::parse(R"({"Mode": "Sideways"})");
  auto v = values_from_json(kCdmLaunchWord0, j);
  ASSERT_FALSE(v.ok());
  EXPECT_EQ(v.error().message(),
            "CDM Launch Word 0: field 'Mode': 'Sideways' is not a value of enum 'CDM Mode'");
  v = values_from_json(kCdmLaunchWord0, nlohmann::ordered_json::parse(R"({"Colour": 1})"));
  EXPECT_EQ(v.error().message(), "CDM Launch Word 0: no field named 'Colour'");
  v = values_from_json(kTexture, nlohmann::ordered_json::parse(R"({"Width": -3})"));
  EXPECT_EQ(v.error().message(), "Texture: field 'Width': -3 is negative");
  v = values_from_json(kTexture, nlohmann::ordered_json::parse(R"({"sRGB": "yes"})"));
  EXPECT_EQ(v.error().message(), "Texture: field 'sRGB': expected true or false, got \"yes\"");
}

}  // namespace
}  // namespace agx::cmdstream
