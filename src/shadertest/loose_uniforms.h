// Where `uniform TYPE NAME VALUES` goes in a shader's loose uniforms, by the
// compiler's one loose uniform layout (compiler::LooseUniform,
// docs/compiler.md "Compute ABI"): NAME, an array element NAME[i] (or
// NAME[i][j] ...) at the sum of i x array_strides_B[0] and so on, or a
// location number (SPIR-V files: an array's element i at the array's
// location + i, ARB_gl_spirv's one location per element).
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "compiler/compiler.h"
#include "util/result.h"

namespace agx::shadertest {

struct LooseTarget {
  const compiler::LooseUniform* uniform = nullptr;
  uint32_t offset_B = 0;  // from the uniform's first byte
};

// The loose uniform NAME names and the byte its `data_B` bytes start at;
// nullopt when no loose uniform has the name; an error for a malformed
// index, an index past the array or data past the uniform's end.
Result<std::optional<LooseTarget>> find_loose_uniform(const std::vector<compiler::LooseUniform>& uniforms,
                                                      std::string_view name, size_t data_B);

// The loose uniform at `location` (or an element of an array that starts
// below it); nullopt when none holds `data_B` bytes there.
std::optional<LooseTarget> find_loose_location(const std::vector<compiler::LooseUniform>& uniforms,
                                               uint32_t location, size_t data_B);

}  // namespace agx::shadertest
