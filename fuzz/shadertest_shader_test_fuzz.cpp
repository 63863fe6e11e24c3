// Fuzzes the .shader_test parser: any text gives a ShaderTest or an error,
// never a crash; what parses also goes through the requirement check and the
// GLSL adaptation (pure text work). The same bytes go to the parser of
// `--report`'s probe records (JSON): records or an error, and what parses
// writes back to records that parse the same.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "shadertest/report.h"
#include "shadertest/runner.h"
#include "shadertest/shader_test.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  if (auto probes = agx::shadertest::parse_probe_failures(text); probes.ok()) {
    auto again = agx::shadertest::parse_probe_failures(agx::shadertest::probe_failures_json(*probes));
    if (!again.ok() || again->size() != probes->size()) std::abort();
    (void)agx::shadertest::report_html({{"f", agx::shadertest::Outcome::fail, "", 0, "p.png", *probes}}, "fuzz");
  }
  auto test = agx::shadertest::parse_shader_test(text);
  if (!test.ok()) return 0;
  (void)agx::shadertest::skip_reason(*test, agx::shadertest::Capabilities::stack());
  for (const auto& s : test->shaders) (void)agx::shadertest::adapt_glsl(*test, s, nullptr);
  return 0;
}
