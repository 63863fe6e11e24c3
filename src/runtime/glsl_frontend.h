// The runtime's shader front end: GLSL to OpenGL SPIR-V (glslang, implicit
// locations and bindings mapped automatically) and SPIR-V assembly text
// (piglit's [compute shader spirv]) to words (SPIRV-Tools).
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "util/result.h"

namespace agx::runtime {

Result<std::vector<uint32_t>> glsl_to_opengl_spirv(std::string_view source, std::string_view name);

// spirv-as text; lines starting with '#' are dropped first, as piglit does.
Result<std::vector<uint32_t>> assemble_spirv(std::string_view text);

}  // namespace agx::runtime
