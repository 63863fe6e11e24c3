// A piglit .shader_test file of one compute shader, for the runtime's image
// and uniform tests, and the check that it passes (with the runner's reason
// when it does not).
#pragma once

#include <gtest/gtest.h>

#include <string>

#include "shadertest/runner.h"

namespace agx::shadertest::test {

// [require] GLSL >= `glsl`, [compute shader] `shader` (its own #version, or
// the one the requirement gives), [test] `commands`.
inline std::string compute_file(const std::string& shader, const std::string& commands, const char* glsl = "4.30") {
  return fmt::format("[require]\nGLSL >= {}\n[compute shader]\n{}\n[test]\n{}", glsl, shader, commands);
}

inline ::testing::AssertionResult passes(const std::string& file) {
  Verdict v = run_shader_test(file);
  if (v.outcome == Outcome::pass) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << v.detail;
}

}  // namespace agx::shadertest::test
