// Random damage to a SPIR-V module for the robustness tests: the compiler
// must turn every mutated module into a shader or an error, never a crash.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace agx::compiler::test {

// One to three edits past the 5-word header: a bit flipped, a word replaced
// (mostly by a small id-like number) or a word dropped.
template <typename Rng>
void mutate_spirv(std::vector<uint32_t>& w, Rng& rng) {
  int edits = 1 + static_cast<int>(rng() % 3);
  for (int e = 0; e < edits; ++e) {
    size_t pos = 5 + rng() % (w.size() - 5);
    switch (rng() % 3) {
      case 0: w[pos] ^= 1u << (rng() % 32); break;
      case 1: w[pos] = static_cast<uint32_t>(rng() % 4 ? rng() % 64 : rng()); break;
      default: w.erase(w.begin() + static_cast<std::ptrdiff_t>(pos)); break;
    }
  }
}

}  // namespace agx::compiler::test
