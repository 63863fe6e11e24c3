// Mutated SPIR-V (bit flips, replaced and dropped words) never crashes the
// module reader or the pipeline: every input gives a Shader or an Error.
#include <gtest/gtest.h>

#include <cstdlib>
#include <random>

#include "compiler/compiler.h"
#include "compiler/kernels.h"
#include "compiler/spirv_module.h"

namespace agx::compiler {
namespace {

TEST(Robustness, MutatedSpirvGivesShadersOrErrors) {
  const char* seed = std::getenv("AGX_COMPILER_MUTATION_SEED");
  std::mt19937 rng(seed ? static_cast<uint32_t>(std::atoi(seed)) : 77u);
  size_t ok = 0, errors = 0;
  for (const Kernel& k : sample_kernels()) {
    Options o;
    o.env = k.env;
    auto words = glsl_to_spirv(k.glsl, o);
    ASSERT_TRUE(words.ok());
    auto opt = optimize_spirv(*words, o);
    ASSERT_TRUE(opt.ok());
    // AGX_COMPILER_MUTATIONS raises the count for a longer local run.
    const char* env = std::getenv("AGX_COMPILER_MUTATIONS");
    int rounds = env ? std::atoi(env) : 100;
    for (int round = 0; round < rounds; ++round) {
      std::vector<uint32_t> w = *opt;
      int edits = 1 + rng() % 3;
      for (int e = 0; e < edits; ++e) {
        size_t at = 5 + rng() % (w.size() - 5);
        switch (rng() % 3) {
          case 0: w[at] ^= 1u << (rng() % 32); break;
          case 1: w[at] = rng() % 4 ? rng() % 64 : rng(); break;
          default: w.erase(w.begin() + at); break;
        }
      }
      // The reader alone (no validator in front of it) and the pipeline.
      (void)spirv::parse(w, "main");
      auto s = compile_spirv(w, o);
      if (s.ok()) ++ok; else ++errors;
      if (s.ok()) EXPECT_FALSE(s->code.empty());
      else EXPECT_FALSE(s.error().message().empty());
    }
  }
  EXPECT_GT(errors, 0u);
  (void)ok;
}

}  // namespace
}  // namespace agx::compiler
