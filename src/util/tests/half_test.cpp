#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <limits>

#include "util/half.h"

namespace agx {
namespace AGX_UNITY_ID {

TEST(Half, KnownEncodings) {
  EXPECT_EQ(float_to_half(1.0f), 0x3C00);
  EXPECT_EQ(float_to_half(-2.0f), 0xC000);
  EXPECT_EQ(float_to_half(65504.0f), 0x7BFF);
  EXPECT_EQ(float_to_half(65520.0f), 0x7C00);  // halfway to 2^16 rounds to inf (RNE)
  EXPECT_EQ(float_to_half(65520.0f, Rounding::toward_zero), 0x7BFF);
  EXPECT_EQ(float_to_half(std::ldexp(1.0f, -24)), 0x0001);  // smallest subnormal
  EXPECT_EQ(float_to_half(std::ldexp(1.0f, -25)), 0x0000);  // tie to even: 0
  EXPECT_EQ(float_to_half(std::ldexp(3.0f, -26)), 0x0001);  // 0.75 ulp rounds up
  EXPECT_EQ(float_to_half(std::ldexp(1.0f, -14)), 0x0400);  // smallest normal
  EXPECT_EQ(float_to_half(-0.0f), 0x8000);
  EXPECT_EQ(float_to_half(std::numeric_limits<float>::infinity()), 0x7C00);
  EXPECT_TRUE(half_is_nan(float_to_half(std::nanf(""))));
}

TEST(Half, TiesRoundToEven) {
  // 1 + 2^-11 is halfway between 1.0 and the next half; even mantissa wins.
  EXPECT_EQ(double_to_half(1.0 + std::ldexp(1.0, -11)), 0x3C00);
  EXPECT_EQ(double_to_half(1.0 + 3 * std::ldexp(1.0, -11)), 0x3C02);
  EXPECT_EQ(double_to_half(1.0 + std::ldexp(1.0, -11), Rounding::toward_pos), 0x3C01);
  EXPECT_EQ(double_to_half(-1.0 - std::ldexp(1.0, -11), Rounding::toward_neg), 0xBC01);
  EXPECT_EQ(double_to_half(-1.0 - std::ldexp(1.0, -11), Rounding::toward_pos), 0xBC00);
}

TEST(Half, EveryHalfRoundTripsExactly) {
  for (uint32_t h = 0; h < 0x10000; ++h) {
    if (half_is_nan(static_cast<uint16_t>(h))) continue;
    EXPECT_EQ(float_to_half(half_to_float(static_cast<uint16_t>(h))), h) << std::hex << h;
  }
}

TEST(Half, DoubleToFloatDirectedRounding) {
  double d = 1.0 + std::ldexp(1.0, -30);
  EXPECT_EQ(double_to_float(d, Rounding::toward_zero), 1.0f);
  EXPECT_EQ(double_to_float(d, Rounding::toward_pos), std::nextafter(1.0f, 2.0f));
  EXPECT_EQ(double_to_float(-d, Rounding::toward_neg), -std::nextafter(1.0f, 2.0f));
  EXPECT_EQ(double_to_float(1e39, Rounding::toward_zero), std::numeric_limits<float>::max());
  EXPECT_TRUE(std::isinf(double_to_float(1e39, Rounding::toward_pos)));
}

}  // namespace
}  // namespace agx
