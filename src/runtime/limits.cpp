#include "runtime/limits.h"

#include "compiler/compiler.h"
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
    // Every binding point reaches each graphics stage (bind_resources);
    // the counters the GLSL front ends declare (glslang's resources).
    {"GL_MAX_VERTEX_ATOMIC_COUNTER_BUFFERS", 8},
    {"GL_MAX_FRAGMENT_ATOMIC_COUNTER_BUFFERS", 8},
    {"GL_MAX_VERTEX_ATOMIC_COUNTERS", 64},
    {"GL_MAX_FRAGMENT_ATOMIC_COUNTERS", 64},
    {"GL_MAX_COMBINED_TEXTURE_IMAGE_UNITS", 32},                            // `texture ... UNIT`: 0..31
    {"GL_MAX_IMAGE_UNITS", 32},                                             // `image texture UNIT`: 0..31
    // The graphics stages: attribute locations 0-15 (compiler
    // kMaxVertexAttributes, Mesa's AGX_MAX_ATTRIBS), vertex outputs and
    // fragment inputs at locations 0-15 of 4 components each (the
    // compiler refuses locations past 15); a pipeline program loads at
    // most 256 uniforms (graphics_pipeline.cpp), of which the fragment
    // ABI reserves u0-u7 and the vertex prolog's up to u51 (16 attributes:
    // 3 x 16 + 3, rounded up to even). No program binary formats.
    {"GL_MAX_VERTEX_OUTPUT_COMPONENTS", 4 * compiler::kMaxVertexAttributes},
    {"GL_MAX_FRAGMENT_UNIFORM_COMPONENTS", 256 - compiler::FragmentAbi::kFirstShaderUniform},
    {"GL_MAX_VERTEX_UNIFORM_COMPONENTS", 256 - 52},
    {"GL_MAX_VERTEX_ATTRIBS", compiler::kMaxVertexAttributes},
    {"GL_MAX_VARYING_COMPONENTS", 4 * compiler::kMaxVertexAttributes},
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
