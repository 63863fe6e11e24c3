#include <gtest/gtest.h>

#include "util/result.h"

namespace agx {
namespace AGX_UNITY_ID {

Result<int> half_of(int v) {
  if (v % 2) return Error::invalid_argument("{} is odd", v);
  return v / 2;
}

Result<int> quarter_of(int v) {
  AGX_TRY(int h, half_of(v));
  AGX_TRY(int q, half_of(h));
  return q;
}

TEST(Result, PropagatesErrorsWithContext) {
  EXPECT_EQ(*quarter_of(8), 2);
  auto r = quarter_of(6);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().kind(), ErrorKind::invalid_argument);
  Error e = std::move(r).error().context("row 3");
  EXPECT_EQ(e.message(), "row 3: 3 is odd");
}

TEST(Result, StatusCarriesOnlySuccessOrError) {
  Status ok;
  EXPECT_TRUE(ok.ok());
  Status bad = Error::not_found("vm {}", 7);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().message(), "vm 7");
}

}  // namespace
}  // namespace agx
