// The GL implementation limits the stack reports, by GL name: what a
// .shader_test's [require] section compares against ("INT GL_X >= N",
// "GL_MAX_VERTEX_ATTRIBS >= N") and what a dispatch is checked against.
// Values are what the runtime enforces (encoder, parser ranges), or the
// stage's absence (a compute-only stack has no vertex attributes).
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string_view>

namespace agx::runtime {

// glGetIntegerv(name), or nothing for a name the stack does not report.
std::optional<int64_t> gl_integer_limit(std::string_view name);

// The non-indexed names shader_runner reads itself at start-up and compares
// without "INT" (tests/shaders/shader_runner.c getint_limits): the value and
// shader_runner's description ("vertex attribs"), or nothing.
struct ShaderRunnerLimit {
  int64_t value = 0;
  std::string_view description;
};
std::optional<ShaderRunnerLimit> shader_runner_limit(std::string_view name);

// Indexed limits (glGetIntegeri_v) a dispatch is checked against.
constexpr std::array<uint32_t, 3> kMaxComputeWorkGroupCount{65535, 65535, 65535};
constexpr std::array<uint32_t, 3> kMaxComputeWorkGroupSize{1024, 1024, 64};
// GL_ARB_compute_variable_group_size's GL_MAX_COMPUTE_VARIABLE_GROUP_SIZE_ARB.
constexpr std::array<uint32_t, 3> kMaxComputeVariableGroupSize{1024, 1024, 64};

}  // namespace agx::runtime
