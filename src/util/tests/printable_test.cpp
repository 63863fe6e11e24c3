#include "util/printable.h"

#include <gtest/gtest.h>

namespace agx {
namespace AGX_UNITY_ID {

TEST(Printable, EscapesControlBytesAndCutsLongText) {
  EXPECT_EQ(printable("r1"), "r1");
  EXPECT_EQ(printable(std::string_view("a\0b", 3)), "a\\x00b");
  EXPECT_EQ(printable("\x1b[31mred"), "\\x1b[31mred");
  EXPECT_EQ(printable("tab\there\nnext\\"), "tab\\there\\nnext\\\\");
  EXPECT_EQ(printable("\xc3\xa9"), "\\xc3\\xa9");
  EXPECT_EQ(printable(std::string(100, 'x'), 8), "xxxxxxxx...");
  EXPECT_EQ(printable(std::string(8, 'x'), 8), "xxxxxxxx");
}

}  // namespace
}  // namespace agx
