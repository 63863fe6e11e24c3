// What the type of a varying asks of its interpolation (shared by the
// vertex outputs and the fragment inputs).
#pragma once

#include <cstdint>

#include "compiler/spirv_module.h"

namespace agx::compiler::detail {

// "integer" or "64-bit" when a varying of type `t` has such scalars
// (GLSL 4.60 section 4.3.4: it must be flat), nullptr otherwise; structure
// members, array elements and matrix columns included.
const char* flat_only_kind(const spirv::Module& m, uint32_t t);

}  // namespace agx::compiler::detail
