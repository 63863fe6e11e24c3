// Hex text <-> bytes, used by every tool that prints or reads machine code,
// memory or packets.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "util/result.h"

namespace agx {

// Lower-case hex digits, no separators: "62000000".
std::string to_hex(std::span<const uint8_t> bytes);

// Parses hex digits; spaces, tabs and an optional "0x" prefix are ignored.
// An odd digit count or a non-hex character is an error naming the column.
Result<std::vector<uint8_t>> parse_hex(std::string_view text);

}  // namespace agx
