// The 8-bit float immediate code for a 32-bit float bit pattern, if one
// gives exactly that value (isa::float_immediate).
#pragma once

#include <cstdint>
#include <cstddef>
#include <optional>

#include "compiler/ir.h"

namespace agx::compiler {
std::optional<uint8_t> float_immediate_code(uint32_t bits);
// Whether source `i` of `in` can read a uniform register as it is (no mov
// into a register first): what opt_preamble's cost model asks.
bool takes_uniform(const Instr& in, size_t i);
}
