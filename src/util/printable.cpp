#include "util/printable.h"

#include <fmt/format.h>

namespace agx {

std::string printable(std::string_view text, size_t max_chars) {
  std::string out;
  size_t shown = 0;
  for (unsigned char c : text) {
    if (shown == max_chars) {
      out += "...";
      break;
    }
    if (c == '\n')
      out += "\\n";
    else if (c == '\t')
      out += "\\t";
    else if (c == '\\')
      out += "\\\\";
    else if (c < 0x20 || c >= 0x7f)
      out += fmt::format("\\x{:02x}", c);
    else
      out += char(c);
    ++shown;
  }
  return out;
}

}  // namespace agx
