// The IFACE JSON parser and the report behind `agx varyings`.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "varyings/varyings.h"

namespace agx::varyings {
namespace AGX_UNITY_ID {

constexpr const char* kIface = R"({"varyings": [
  {"name": "uv", "components": 2, "bits": 32, "interp": "smooth"},
  {"name": "id", "components": 1, "bits": 32, "interp": "flat"},
  {"name": "tint", "components": 3, "bits": 16, "interp": "linear"}],
  "point_size": true, "layer_viewport": false, "clip_distances": 2})";

TEST(Report, ParsesTheIssueFormat) {
  auto i = parse_interface_json(kIface);
  ASSERT_TRUE(i.ok()) << i.error().message();
  ASSERT_EQ(i->varyings.size(), 3u);
  EXPECT_EQ(i->varyings[2].name, "tint");
  EXPECT_EQ(i->varyings[2].bits, 16u);
  EXPECT_EQ(i->varyings[2].interp, Interp::linear);
  EXPECT_TRUE(i->point_size);
  EXPECT_EQ(i->clip_distances, 2u);
}

TEST(Report, JsonListsOutputsSlotsBindingsAndWords) {
  auto r = make_report(*parse_interface_json(kIface));
  ASSERT_TRUE(r.ok()) << r.error().message();
  auto j = nlohmann::json::parse(report_json(*r));
  // position 0..3, uv 4..5, id 6, tint pairs 7..8, point size 9, clips 10, 11.
  const std::pair<const char*, unsigned> want[] = {{"position", 0}, {"uv", 4}, {"id", 6},
      {"tint", 7}, {"point_size", 9}, {"clip_distance_0", 10}, {"clip_distance_1", 11}};
  ASSERT_EQ(j["vertex_outputs"].size(), std::size(want));
  for (size_t k = 0; k < std::size(want); ++k) {
    EXPECT_EQ(j["vertex_outputs"][k]["name"], want[k].first);
    EXPECT_EQ(j["vertex_outputs"][k]["index"], want[k].second);
  }
  EXPECT_EQ(j["vertex_outputs"][3]["words"], 2);
  EXPECT_EQ(j["output_count"], 12);
  EXPECT_EQ(j["slots"].size(), 6u);  // W, uv.x, uv.y, id, tint.xy, tint.z
  EXPECT_EQ(j["slots"][4]["name"], "tint.xy");
  EXPECT_EQ(j["cf_bindings"].size(), 4u);
  EXPECT_EQ(j["packed"]["output_select"], "0x00050003");
  EXPECT_EQ(j["packed"]["cf_binding_header"], "0x00000704");  // 4 32-bit slots, 7 registers
  EXPECT_EQ(j["packed"]["cf_bindings"][0], "0x0000000c");
}

TEST(Report, TextShowsTheSameWords) {
  auto r = make_report(*parse_interface_json(kIface));
  ASSERT_TRUE(r.ok());
  std::string t = report_text(*r);
  EXPECT_NE(t.find("vertex outputs: 12 words"), std::string::npos) << t;
  EXPECT_NE(t.find("Output Select       0x00050003"), std::string::npos) << t;
  EXPECT_NE(t.find("tint.xy  (vertex output 7)"), std::string::npos) << t;
}

void expect_parse_error(const char* text, std::string_view what) {
  auto r = parse_interface_json(text);
  ASSERT_FALSE(r.ok()) << text;
  EXPECT_NE(r.error().message().find(what), std::string::npos) << r.error().message();
}

TEST(Report, BadJsonIsAClearError) {
  expect_parse_error("{", "not valid JSON");
  expect_parse_error("[]", "expected a JSON object");
  expect_parse_error("{}", "IFACE.varyings: expected a list");
  expect_parse_error(R"({"varyings": [], "pointsize": true})", "unknown key 'pointsize'");
  expect_parse_error(R"({"varyings": [{"name": "a"}]})", "missing \"components\"");
  expect_parse_error(R"({"varyings": [{"name": "a", "components": 9}]})",
                     "IFACE.varyings[0].components: expected an integer 0..4, got 9");
  expect_parse_error(R"({"varyings": [{"name": "a", "components": 2, "bits": 8}]})",
                     "expected 32 or 16, got 8");
  expect_parse_error(R"({"varyings": [{"name": "a", "components": 2, "interp": "noperspective"}]})",
                     "got \"noperspective\"");
  expect_parse_error(R"({"varyings": [], "clip_distances": 17})", "expected an integer 0..16");
  expect_parse_error(R"({"varyings": [], "point_size": 1})", "expected true or false");
}

}  // namespace
}  // namespace agx::varyings
