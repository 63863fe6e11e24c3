// The robustness loop the compiler tests share: a module mutated again and
// again (spirv_mutate.h) goes through the module reader alone and through
// the whole pipeline; each round must give a shader with code or an error
// with a message, never a crash.
#pragma once

#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <vector>

#include "compiler/compiler.h"
#include "compiler/spirv_module.h"
#include "compiler/tests/spirv_mutate.h"

namespace agx::compiler::test {

struct MutationCounts {
  size_t compiled = 0;
  size_t errors = 0;
};

// `rounds` mutations of `module`; `also` (optional) is run on each mutated
// module before it is compiled, for a pass that reads modules on its own.
template <typename Rng>
MutationCounts mutation_rounds(const std::vector<uint32_t>& module, const Options& o, int rounds,
                               Rng& rng,
                               const std::function<void(std::vector<uint32_t>&)>& also = nullptr) {
  MutationCounts n;
  for (int round = 0; round < rounds; ++round) {
    std::vector<uint32_t> w = module;
    mutate_spirv(w, rng);
    if (also) also(w);
    (void)spirv::parse(w, "main");
    auto s = compile_spirv(w, o);
    if (s.ok()) {
      ++n.compiled;
      EXPECT_FALSE(s->code.empty()) << "round " << round;
    } else {
      ++n.errors;
      EXPECT_FALSE(s.error().message().empty()) << "round " << round;
    }
  }
  return n;
}

}  // namespace agx::compiler::test
