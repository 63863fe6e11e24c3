// `verify program_query NAME VALUE`: glGetProgramiv(NAME) must equal VALUE
// (X11Libre/mirror.fdo.piglit tests/shaders/shader_runner.c
// verify_program_query); a mismatch fails the file.
#include <charconv>

#include "shadertest/session.h"

namespace agx::shadertest {

Status Session::verify_program_query(const CmdVerifyProgramQuery& q) {
  int64_t expected = 0;
  auto [end, ec] = std::from_chars(q.value.data(), q.value.data() + q.value.size(), expected);
  if (ec != std::errc() || end != q.value.data() + q.value.size())
    return Error::parse("verify program_query: expected value '{}' is not an integer", q.value);
  if (!program_resources_)
    return Error::unsupported("verify program_query {}: the program's resources are unknown{}{}", q.name,
                              program_resources_error_.empty() ? "" : ": ", program_resources_error_);
  AGX_TRY(int64_t got, runtime::program_query(*program_resources_, q.name));
  if (got != expected)
    return Error::invalid_argument("glGetProgramiv({}): expected {}, got {}", q.name, expected, got);
  return {};
}

}  // namespace agx::shadertest
