// The 8-bit float immediate code for a 32-bit float bit pattern, if one
// gives exactly that value (isa::float_immediate).
#pragma once

#include <cstdint>
#include <optional>

namespace agx::compiler {
std::optional<uint8_t> float_immediate_code(uint32_t bits);
}
