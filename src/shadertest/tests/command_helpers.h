// One [test] line parsed into a Command (line 1), for tests that run
// commands on a Session directly; a line that does not parse fails the test
// and gives a harmless `clear`. And a test data file's text.
#pragma once

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>
#include <string_view>

#include "shadertest/session.h"

namespace agx::shadertest::test {

inline Command cmd(std::string_view line) {
  auto b = parse_command(line, 1);
  EXPECT_TRUE(b.ok()) << line << ": " << (b.ok() ? "" : b.error().message());
  return Command{1, std::string(line), b.ok() ? std::move(b).value() : CommandBody{CmdClear{}}};
}

// The whole file (empty when it cannot be read); test data paths are
// relative to the unit's folder, where the tests run.
inline std::string read_file(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

}  // namespace agx::shadertest::test
