#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "kmd/plan.h"

namespace agx::kmd {
namespace AGX_UNITY_ID {

std::string slurp(const char* path) {
  std::ifstream f(path);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

// Collapses runs of spaces, as the seed's text does with the table.
std::string collapse(const std::string& table) {
  std::string out;
  bool space = false;
  for (char c : table) {
    if (c == ' ') {
      space = true;
      continue;
    }
    if (space && c != '\n' && !out.empty() && out.back() != '\n') out += ' ';
    space = false;
    out += c;
  }
  return out;
}

TEST(Plan, SeedExamplePrintsTheSeedTable) {
  auto plan = parse_plan(slurp("tests/data/seed_example.plan"));
  ASSERT_TRUE(plan) << plan.error().message();
  ASSERT_EQ(plan->size(), 6u);
  std::string table = format_table(firmware_view(*plan));
  EXPECT_EQ(table, slurp("tests/data/seed_example.table"));
  // The seed's own lines (whitespace collapsed, as the seed prints them).
  EXPECT_EQ(collapse(table), slurp("tests/data/seed_example.seed_lines"));
}

TEST(Plan, JsonView) {
  auto plan = parse_plan("R1 barrier=[__, C0]\nC1\n");
  ASSERT_TRUE(plan);
  EXPECT_EQ(format_json(firmware_view(*plan)),
            "{\"compute\": [\"RUN C1\"], \"vertex\": [\"WAIT C0\", \"RUN R1v\"], "
            "\"fragment\": [\"WAIT R1v\", \"RUN R1f\"]}\n");
}

TEST(Plan, ComputeBarriersWaitInTheComputeQueue) {
  auto plan = parse_plan("#0 R1\n#1 C1 barrier=[R1, C0]\n");
  ASSERT_TRUE(plan);
  auto view = firmware_view(*plan);
  EXPECT_EQ(view.compute, (std::vector<std::string>{"WAIT R1f", "WAIT C0", "RUN C1"}));
}

TEST(Plan, RejectsFutureBoundary) {
  auto plan = parse_plan("R1 barrier=[R1, __]\n");
  ASSERT_FALSE(plan);
  EXPECT_NE(plan.error().message().find("future boundary"), std::string::npos);
}

TEST(Plan, ErrorsNameTheLine) {
  auto plan = parse_plan("R1\n\nC2\n");
  ASSERT_FALSE(plan);
  EXPECT_NE(plan.error().message().find("line 3"), std::string::npos) << plan.error().message();
  EXPECT_FALSE(parse_plan("#1 R1\n"));            // wrong index prefix
  EXPECT_FALSE(parse_plan("R1 barrier=[R0]\n"));  // one entry
  EXPECT_FALSE(parse_plan("R1 barrier=[C0, C0]\n"));
  EXPECT_FALSE(parse_plan("X1\n"));
  EXPECT_FALSE(parse_plan("R1 wait=[__, __]\n"));
  EXPECT_FALSE(parse_plan("# nothing\n"));         // no commands
}

TEST(Plan, AtMost64Commands) {
  std::string text;
  for (int i = 1; i <= 65; i++) text += "C" + std::to_string(i) + "\n";
  EXPECT_FALSE(parse_plan(text));
  text.resize(text.rfind("C65"));
  EXPECT_TRUE(parse_plan(text));
}

TEST(Plan, LogicalTimelineRespectsBarriers) {
  auto plan = parse_plan(slurp("tests/data/seed_example.plan"));
  ASSERT_TRUE(plan);
  auto events = logical_timeline(*plan);
  auto find = [&](const std::string& text) {
    for (auto& e : events)
      if (e.text == text) return e;
    ADD_FAILURE() << text;
    return FirmwareEvent{};
  };
  EXPECT_GE(find("RUN R2v").start_ns, find("RUN C2").end_ns);    // barrier C2
  EXPECT_GE(find("RUN R2v").start_ns, find("RUN R1f").end_ns);   // barrier R1
  EXPECT_GE(find("RUN R4v").start_ns, find("RUN R3f").end_ns);   // barrier R3
  EXPECT_LT(find("RUN R3v").start_ns, find("RUN R2f").end_ns);   // R3's vertex runs ahead
  std::string json = chrome_trace_json(events);
  EXPECT_NE(json.find("\"traceEvents\""), std::string::npos);
  EXPECT_NE(json.find("\"name\": \"R3v\""), std::string::npos);
}

}  // namespace
}  // namespace agx::kmd
