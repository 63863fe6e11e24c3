// The runtime's shader front end: GLSL to OpenGL SPIR-V (glslang, implicit
// locations and bindings mapped automatically) and SPIR-V assembly text
// (piglit's [compute shader spirv]) to words (SPIRV-Tools).
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "util/result.h"

namespace agx::runtime {

// One program from one or more compute compilation units (GL links several
// shader objects of a stage); a program without a local size is a link error.
Result<std::vector<uint32_t>> glsl_to_opengl_spirv(std::span<const std::string> sources, std::string_view name);

// spirv-as text; lines starting with '#' are dropped first, as piglit does.
Result<std::vector<uint32_t>> assemble_spirv(std::string_view text);

}  // namespace agx::runtime
