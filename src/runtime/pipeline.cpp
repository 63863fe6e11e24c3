#include "runtime/pipeline.h"

#include <algorithm>

namespace agx::runtime {

uint64_t PipelineCache::key(std::span<const uint32_t> spirv, const compiler::Options& options) {
  // FNV-1a over the words' bytes, the target and the entry point name.
  uint64_t h = 0xcbf29ce484222325ull;
  auto mix = [&](uint8_t b) {
    h ^= b;
    h *= 0x100000001b3ull;
  };
  for (uint32_t w : spirv)
    for (int i = 0; i < 4; ++i) mix(uint8_t(w >> (8 * i)));
  mix(uint8_t(options.env));
  for (char c : options.entry) mix(uint8_t(c));
  for (const auto& [id, bits] : options.specialization_bits)
    for (int i = 0; i < 12; ++i) mix(uint8_t((i < 4 ? uint64_t{id} : bits) >> (8 * (i < 4 ? i : i - 4))));
  for (const auto& [id, text] : options.specializations) {
    for (int i = 0; i < 4; ++i) mix(uint8_t(id >> (8 * i)));
    for (char c : text) mix(uint8_t(c));
    mix(0);
  }
  return h;
}

size_t PipelineCache::size() const {
  std::lock_guard g(mu_);
  return entries_.size();
}

Result<std::shared_ptr<const compiler::Shader>> PipelineCache::get(std::span<const uint32_t> spirv,
                                                                   const compiler::Options& options) {
  uint64_t k = key(spirv, options);
  {
    std::lock_guard g(mu_);
    auto [first, last] = entries_.equal_range(k);
    for (auto it = first; it != last; ++it) {
      const Entry& e = it->second;
      if (e.env == options.env && e.entry == options.entry && e.specializations == options.specializations &&
          e.specialization_bits == options.specialization_bits &&
          std::equal(e.words.begin(), e.words.end(), spirv.begin(), spirv.end())) {
        ++hits_;
        return e.shader;
      }
    }
    ++misses_;
  }
  // Compiled outside the lock: other pipelines are not held up.
  AGX_TRY(compiler::Shader shader, compiler::compile_spirv(spirv, options));
  auto shared = std::make_shared<const compiler::Shader>(std::move(shader));
  std::lock_guard g(mu_);
  entries_.emplace(k, Entry{std::vector<uint32_t>(spirv.begin(), spirv.end()), options.env, options.entry,
                           options.specializations, options.specialization_bits, shared});
  return shared;
}

}  // namespace agx::runtime
