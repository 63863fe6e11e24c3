// Child-process isolation: a crash or hang in one file gives CRASH for that
// file only; verdicts come back in order, with their details.
#include <gtest/gtest.h>

#include <csignal>
#include <cstdio>
#include <fstream>
#include <thread>

#include "shadertest/isolated.h"

namespace agx::shadertest {
namespace AGX_UNITY_ID {

std::string temp_file(const std::string& name, const std::string& text) {
  std::string path = ::testing::TempDir() + "/" + name;
  std::ofstream(path) << text;
  return path;
}

TEST(Isolated, CrashAndTimeoutStayInTheirChild) {
  std::vector<std::string> paths = {temp_file("a", "pass"), temp_file("b", "segv"), temp_file("c", "hang"),
                                    temp_file("d", "fail"), "/nonexistent/e"};
  IsolationOptions o;
  o.jobs = 3;
  o.timeout_s = 1;
  unsigned done = 0;
  auto results = run_isolated(
      paths, o,
      [](const std::string& text, const std::string&) -> Verdict {
        if (text == "segv") std::raise(SIGSEGV);
        if (text == "hang") std::this_thread::sleep_for(std::chrono::seconds(30));
        if (text == "fail") return {Outcome::fail, "line 3: probe\nsecond line"};
        return {Outcome::pass, ""};
      },
      [&](const FileResult&) { ++done; });
  ASSERT_EQ(results.size(), 5u);
  EXPECT_EQ(done, 5u);
  EXPECT_EQ(results[0].verdict.outcome, Outcome::pass);
  EXPECT_EQ(results[1].verdict.outcome, Outcome::crash);
  // SIGSEGV (11), or SIGABRT (6) where AddressSanitizer's handler catches
  // the fault first and aborts.
  EXPECT_TRUE(results[1].verdict.detail.find("signal 11") != std::string::npos ||
              results[1].verdict.detail.find("signal 6") != std::string::npos)
      << results[1].verdict.detail;
  EXPECT_EQ(results[2].verdict.outcome, Outcome::crash);
  EXPECT_NE(results[2].verdict.detail.find("timed out"), std::string::npos) << results[2].verdict.detail;
  EXPECT_EQ(results[3].verdict.outcome, Outcome::fail);
  EXPECT_EQ(results[3].verdict.detail, "line 3: probe\nsecond line");
  EXPECT_EQ(results[4].verdict.outcome, Outcome::fail);
  EXPECT_NE(results[4].verdict.detail.find("cannot read"), std::string::npos);
  for (const auto& r : results) EXPECT_GE(r.ms, 0.0);
}

}  // namespace
}  // namespace agx::shadertest
