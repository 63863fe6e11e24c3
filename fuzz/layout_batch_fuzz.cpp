// Fuzzes `agx layout --batch`: any text is a result CSV (one row per
// non-empty input row after the header) or a clean header error.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "layout/layout.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  auto out = agx::layout::run_batch(text);
  if (out.ok() &&
      out->compare(0, agx::layout::kBatchOutputHeader.size(), agx::layout::kBatchOutputHeader) != 0)
    __builtin_trap();
  if (!out.ok() && out.error().message().empty()) __builtin_trap();
  return 0;
}
