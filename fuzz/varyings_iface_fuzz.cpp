// Fuzzes the IFACE JSON parser and the report behind `agx varyings`: any
// text gives a report or an error, never a crash; a report's packed words
// unpack again.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "varyings/varyings.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  auto iface = agx::varyings::parse_interface_json(text);
  if (!iface.ok()) return 0;
  auto report = agx::varyings::make_report(*iface);
  if (!report.ok()) return 0;
  (void)agx::varyings::report_text(*report);
  (void)agx::varyings::report_json(*report);
  auto back = agx::varyings::unpack_bindings(report->binding_words);
  if (!back.ok() || !agx::varyings::validate(*back, report->slots, *iface).ok()) __builtin_trap();
  return 0;
}
