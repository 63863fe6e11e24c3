#include "runtime/limits.h"

#include "runtime/encoder.h"

namespace agx::runtime {

namespace {

struct Limit {
  std::string_view name;
  int64_t value;
};

// GL 4.6 names (Khronos gl.xml); values from what the runtime enforces.
constexpr Limit kLimits[] = {
    {"GL_MAX_COMPUTE_WORK_GROUP_INVOCATIONS", kMaxThreadsPerThreadgroup},  // encode_launch
    {"GL_MAX_COMPUTE_VARIABLE_GROUP_INVOCATIONS_ARB", kMaxThreadsPerThreadgroup},
    {"GL_MAX_COMPUTE_SHARED_MEMORY_SIZE", kMaxThreadgroupMemory_B},        // encode_launch
    {"GL_MAX_SHADER_STORAGE_BUFFER_BINDINGS", 32},                          // `ssbo N`: 0..31
    {"GL_MAX_ATOMIC_COUNTER_BUFFER_BINDINGS", 8},                           // `atomic counter buffer B`: 0..7
    {"GL_MAX_COMBINED_TEXTURE_IMAGE_UNITS", 32},                            // `texture ... UNIT`: 0..31
    {"GL_MAX_IMAGE_UNITS", 32},                                             // `image texture UNIT`: 0..31
    // A compute-only stack: no vertex, fragment or geometry stage, no
    // program binary formats.
    {"GL_MAX_VERTEX_OUTPUT_COMPONENTS", 0},
    {"GL_MAX_FRAGMENT_UNIFORM_COMPONENTS", 0},
    {"GL_MAX_VERTEX_UNIFORM_COMPONENTS", 0},
    {"GL_MAX_VERTEX_ATTRIBS", 0},
    {"GL_MAX_VARYING_COMPONENTS", 0},
    {"GL_NUM_PROGRAM_BINARY_FORMATS", 0},
};

// shader_runner.c getint_limits: the names it compares without "INT".
struct RunnerName {
  std::string_view name, description;
};
constexpr RunnerName kRunnerNames[] = {
    {"GL_MAX_VERTEX_OUTPUT_COMPONENTS", "vertex output components"},
    {"GL_MAX_FRAGMENT_UNIFORM_COMPONENTS", "fragment uniform components"},
    {"GL_MAX_VERTEX_UNIFORM_COMPONENTS", "vertex uniform components"},
    {"GL_MAX_VERTEX_ATTRIBS", "vertex attribs"},
    {"GL_MAX_VARYING_COMPONENTS", "varying components"},
    {"GL_NUM_PROGRAM_BINARY_FORMATS", "num program binary formats"},
};

}  // namespace

std::optional<int64_t> gl_integer_limit(std::string_view name) {
  for (const auto& l : kLimits)
    if (l.name == name) return l.value;
  return std::nullopt;
}

std::optional<ShaderRunnerLimit> shader_runner_limit(std::string_view name) {
  for (const auto& r : kRunnerNames)
    if (r.name == name) return ShaderRunnerLimit{*gl_integer_limit(name), r.description};
  return std::nullopt;
}

}  // namespace agx::runtime
