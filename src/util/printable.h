// Text from the user shown back in an error message: control characters,
// NUL and bytes outside ASCII are escaped (\n, \t, \xNN), so an error never
// carries raw escape sequences to the terminal, and a long token is cut to
// `max_chars` characters with "..." after it.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace agx {

std::string printable(std::string_view text, size_t max_chars = 48);

}  // namespace agx
