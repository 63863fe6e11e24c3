// Fuzzes the uniform-block reader and the binding rewrite: any words give
// the blocks or an error naming the word offset, never a crash or an
// endless walk; a rewritten module reads back with the same members.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

#include "runtime/uniform_blocks.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::vector<uint32_t> words(size / 4);
  if (!words.empty()) std::memcpy(words.data(), data, words.size() * 4);
  auto blocks = agx::runtime::uniform_blocks(words);
  auto bound = agx::runtime::bind_uniform_blocks_by_index(words);
  if (blocks.ok() && bound.ok()) {
    auto again = agx::runtime::uniform_blocks(*bound);
    if (!again.ok() || again->size() != blocks->size()) __builtin_trap();
    for (const auto& b : *again)
      for (const auto& m : b.members) (void)agx::runtime::find_block_member(*again, m.name + "[1]");
  }
  return 0;
}
