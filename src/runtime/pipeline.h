// Compute pipelines: compiled shaders cached by their SPIR-V. The key is a
// 64-bit hash of the words, the target and the entry point; a hit compares
// the words too, so a hash collision is a miss, never a wrong shader.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <span>
#include <unordered_map>
#include <vector>

#include "compiler/compiler.h"
#include "util/result.h"

namespace agx::runtime {

class PipelineCache {
 public:
  // The compiled shader for `spirv`; compiles on a miss. Failures are not
  // cached (the error comes back each time). Thread-safe.
  Result<std::shared_ptr<const compiler::Shader>> get(std::span<const uint32_t> spirv,
                                                      const compiler::Options& options);
  size_t hits() const { return hits_; }
  size_t misses() const { return misses_; }
  size_t size() const;

  static uint64_t key(std::span<const uint32_t> spirv, const compiler::Options& options);

 private:
  struct Entry {
    std::vector<uint32_t> words;
    compiler::TargetEnv env;
    std::string entry;
    std::map<uint32_t, std::string> specializations;
    std::map<uint32_t, uint64_t> specialization_bits;
    std::shared_ptr<const compiler::Shader> shader;
  };
  mutable std::mutex mu_;
  std::unordered_multimap<uint64_t, Entry> entries_;
  size_t hits_ = 0, misses_ = 0;
};

}  // namespace agx::runtime
