// Fuzzes the program queries' SPIR-V scan: any words give the counts or an
// error naming the word offset, never a crash or an endless walk.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

#include "runtime/program_query.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::vector<uint32_t> words(size / 4);
  if (!words.empty()) std::memcpy(words.data(), data, words.size() * 4);
  auto r = agx::runtime::program_resources(words);
  if (r.ok()) (void)agx::runtime::program_query(*r, "GL_ACTIVE_UNIFORMS");
  return 0;
}
