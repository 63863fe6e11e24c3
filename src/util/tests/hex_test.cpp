#include <gtest/gtest.h>

#include "util/hex.h"

namespace agx {
namespace AGX_UNITY_ID {

TEST(Hex, RoundTrip) {
  auto r = parse_hex("0x62 00 0a FF");
  ASSERT_TRUE(r.ok()) << r.error().message();
  EXPECT_EQ(to_hex(*r), "62000aff");
}

TEST(Hex, ErrorsNameTheColumn) {
  auto bad = parse_hex("12g4");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message().find("column 3"), std::string::npos) << bad.error().message();
  auto odd = parse_hex("123");
  ASSERT_FALSE(odd.ok());
  EXPECT_NE(odd.error().message().find("odd number"), std::string::npos);
}

}  // namespace
}  // namespace agx
