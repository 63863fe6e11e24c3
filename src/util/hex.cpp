#include "util/hex.h"

namespace agx {

std::string to_hex(std::span<const uint8_t> bytes) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string s;
  s.reserve(bytes.size() * 2);
  for (uint8_t b : bytes) {
    s.push_back(kDigits[b >> 4]);
    s.push_back(kDigits[b & 15]);
  }
  return s;
}

static int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

Result<std::vector<uint8_t>> parse_hex(std::string_view text) {
  std::vector<uint8_t> out;
  int pending = -1;
  size_t pending_col = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (c == ' ' || c == '\t' || c == '\r' || c == '\n') continue;
    if (c == '0' && i + 1 < text.size() && (text[i + 1] == 'x' || text[i + 1] == 'X') &&
        pending < 0) {
      ++i;
      continue;
    }
    int v = hex_value(c);
    if (v < 0) return Error::parse("column {}: '{}' is not a hex digit", i + 1, c);
    if (pending < 0) {
      pending = v;
      pending_col = i + 1;
    } else {
      out.push_back(static_cast<uint8_t>(pending << 4 | v));
      pending = -1;
    }
  }
  if (pending >= 0)
    return Error::parse("column {}: odd number of hex digits (a byte needs two)", pending_col);
  return out;
}

}  // namespace agx
