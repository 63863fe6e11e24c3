// The JSON state of `agx emu`: parsing, printing and clear errors.
#include "helpers.h"

namespace agx::usc::test {
namespace AGX_UNITY_ID {

std::string lanes(uint32_t base) {
  std::string s = "[";
  for (unsigned l = 0; l < kLanes; ++l) s += std::to_string(base + l) + (l + 1 < kLanes ? "," : "]");
  return s;
}

TEST(Json, ParsesEveryKey) {
  std::string text = R"({"exec": 5, "pc": 0, "r": {"r5": )" + lanes(100) + R"(}, "u": {"u3": 7},
      "sr": {"sr60": )" + lanes(0) + R"(}, "mem": {"0x0000000000001000": "0102ff"}})";
  auto st = parse_state(text);
  ASSERT_TRUE(st.ok()) << st.error().message();
  EXPECT_EQ(st->core.exec, 5u);
  EXPECT_EQ(st->core.r[5][31], 131u);
  EXPECT_EQ(st->core.u[3], 7u);
  EXPECT_TRUE(st->core.sr_known[60]);
  uint8_t b[3];
  GpuFault f;
  ASSERT_TRUE(st->memory.read(0x1000, b, 3, GpuUnit::host, &f));
  EXPECT_EQ(b[2], 0xFF);
  EXPECT_FALSE(st->memory.read(0x1002, b, 2, GpuUnit::host, &f));
  EXPECT_EQ(f.va, 0x1003u);
}

TEST(Json, PrintsListedAndWrittenRegistersInOrder) {
  auto st = parse_state(R"({"r": {"r10": )" + lanes(0) + R"(, "r2": )" + lanes(1) + "}}");
  ASSERT_TRUE(st.ok());
  st->core.written[7] = true;
  std::string out = format_state(*st, true);
  EXPECT_EQ(out.find("{\"exec\":4294967295,\"r\":{\"r2\":[1,2,"), 0u) << out;
  EXPECT_NE(format_state(*st, false).find("\"pc\": 0,"), std::string::npos);
  EXPECT_LT(out.find("\"r7\""), out.find("\"r10\""));
  EXPECT_EQ(out.find("\"u\""), std::string::npos);
}

TEST(Json, ErrorsNameWhatIsWrong) {
  auto bad = [](const std::string& t) { auto s = parse_state(t); return s.ok() ? std::string() : s.error().message(); };
  EXPECT_NE(bad(R"({"r": {"r128": []}})").find("r0..r127"), std::string::npos);
  EXPECT_NE(bad(R"({"r": {"r1": [1,2]}})").find("list of 32"), std::string::npos);
  EXPECT_NE(bad(R"({"exec": -1})").find("exec: expected an unsigned"), std::string::npos);
  EXPECT_NE(bad(R"({"exec": 4294967296})").find("32 bits"), std::string::npos);
  EXPECT_NE(bad(R"({"mem": {"0x10": "00"}})").find("16 hex digits"), std::string::npos);
  EXPECT_NE(bad(R"({"mem": {"0x0000000000000010": "0g"}})").find("mem[0x0000000000000010]"), std::string::npos);
  EXPECT_NE(bad(R"({"foo": 1})").find("unknown key \"foo\""), std::string::npos);
  EXPECT_NE(bad("{").find("state JSON"), std::string::npos);
  EXPECT_NE(bad(R"({"mem": {"0x0000000000000010": "0000", "0x0000000000000011": "00"}})").find("overlap"),
            std::string::npos);
}

}  // namespace
}  // namespace agx::usc::test
