#include "runtime/resource_binding.h"

#include <algorithm>

namespace agx::runtime {

namespace {

void put_words(std::vector<uint32_t>& u, uint32_t at, std::span<const uint32_t> words) {
  if (at + words.size() > u.size()) u.resize(at + words.size(), 0);
  std::copy(words.begin(), words.end(), u.begin() + at);
}

void put64(std::vector<uint32_t>& u, uint32_t at, uint64_t va) {
  const uint32_t w[2] = {uint32_t(va), uint32_t(va >> 32)};
  put_words(u, at, w);
}

}  // namespace

Result<StateDescriptors> bind_resources(const compiler::Abi& abi, const ResourceLookup& lookup,
                                        std::vector<uint32_t>& uniforms) {
  for (const compiler::Resource& r : abi.resources) {
    if (!lookup.buffer_for) return Error::invalid_argument("buffer '{}': no buffers to bind", r.name);
    AGX_TRY(const Buffer* b, lookup.buffer_for(r));
    put64(uniforms, r.uniform, b->gpu_va());
    // Runtime array lengths (OpArrayLength) come from the bound size.
    if (r.size_uniform != compiler::Resource::kNoUniform) {
      const uint32_t size = uint32_t(std::min<uint64_t>(b->size_B(), UINT32_MAX));
      put_words(uniforms, r.size_uniform, {&size, 1});
    }
  }
  if (abi.atomic_lock_uniform != UINT32_MAX) {
    if (!lookup.atomic_lock) return Error::invalid_argument("64-bit buffer atomics: no lock word to bind");
    AGX_TRY(const Buffer* lock, lookup.atomic_lock());
    put64(uniforms, abi.atomic_lock_uniform, lock->gpu_va());
  }
  ImageLookup images = lookup.image_for;
  if (!images)
    images = [](const compiler::ImageBinding& b) -> Result<BoundImage> {
      return Error::invalid_argument("image '{}': no images to bind", b.name);
    };
  AGX_TRY(StateDescriptors states, bind_images(abi, images));
  for (const auto& [first, words] : states.uniforms) put_words(uniforms, first, words);
  return states;
}

}  // namespace agx::runtime
