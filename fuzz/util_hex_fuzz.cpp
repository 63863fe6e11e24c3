// Fuzzes the hex parser: any text gives bytes or an error, never a crash.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "util/hex.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto r = agx::parse_hex(std::string_view(reinterpret_cast<const char*>(data), size));
  if (r.ok()) {
    auto again = agx::parse_hex(agx::to_hex(*r));
    if (!again.ok() || *again != *r) __builtin_trap();
  }
  return 0;
}
