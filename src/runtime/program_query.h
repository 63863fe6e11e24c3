// What glGetProgramiv answers about a linked compute program, read from its
// SPIR-V module: the counts piglit's `verify program_query NAME VALUE`
// compares (tests/shaders/shader_runner.c verify_program_query).
#pragma once

#include <cstdint>
#include <span>
#include <string_view>

#include "util/result.h"

namespace agx::runtime {

struct ProgramResources {
  // GL_ACTIVE_UNIFORMS: GL 4.6 section 7.3.1.1's enumeration of the active
  // default-block uniforms (opaque types and atomic counters included) and
  // uniform block members. An array of arrays or of structures counts each
  // element; the innermost array of a basic type counts once.
  uint32_t active_uniforms = 0;
  // GL_ACTIVE_ATOMIC_COUNTER_BUFFERS: the distinct bindings of the active
  // atomic counters.
  uint32_t active_atomic_counter_buffers = 0;
};

// A variable is active when a function of the module uses it (static use,
// GLSL 4.60 section 4.3.9's rule; glslang emits only what the program uses).
// Errors name the word offset of a malformed module.
Result<ProgramResources> program_resources(std::span<const uint32_t> spirv);

// glGetProgramiv(`name`) for the names above; an unsupported error names
// any other.
Result<int64_t> program_query(const ProgramResources& resources, std::string_view name);

}  // namespace agx::runtime
