// Fuzzes the .shader_test parser: any text gives a ShaderTest or an error,
// never a crash; what parses also goes through the requirement check and the
// GLSL adaptation (pure text work).
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "shadertest/runner.h"
#include "shadertest/shader_test.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  auto test = agx::shadertest::parse_shader_test(text);
  if (!test.ok()) return 0;
  (void)agx::shadertest::skip_reason(*test, agx::shadertest::Capabilities::stack());
  for (const auto& s : test->shaders) (void)agx::shadertest::adapt_glsl(*test, s, nullptr);
  return 0;
}
