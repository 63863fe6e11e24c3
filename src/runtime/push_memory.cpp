// The push constant / loose uniform block in memory (push_memory.h).
#include "runtime/push_memory.h"

#include <algorithm>
#include <cstring>

namespace agx::runtime {

std::optional<PushMemory> push_memory(const compiler::Abi& abi) {
  if (abi.push_memory_uniform == compiler::Resource::kNoUniform) return std::nullopt;
  PushMemory m;
  m.address_uniform = abi.push_memory_uniform;
  m.first_word = abi.push_constants_uniform;
  m.words = (abi.push_constants_size_B + 3) / 4;
  m.file_words = abi.uniform_count;
  return m;
}

Result<std::vector<uint32_t>> place_push_memory(Device& device, std::span<const uint32_t> uniforms,
                                                const PushMemory& block, std::unique_ptr<Buffer>* buffer,
                                                const std::string& label) {
  if (block.address_uniform + 2 > block.file_words)
    return Error::invalid_argument("{}: the block's address u{}_u{} is outside the uniform file of {} words", label,
                                   block.address_uniform, block.address_uniform + 1, block.file_words);
  if (block.first_word < block.file_words)
    return Error::invalid_argument("{}: the block at word {} overlaps the uniform file of {} words", label,
                                   block.first_word, block.file_words);
  std::vector<uint32_t> words(std::max<uint32_t>(block.words, 1), 0);
  if (uniforms.size() > block.first_word) {
    const size_t n = std::min<size_t>(block.words, uniforms.size() - block.first_word);
    std::copy_n(uniforms.begin() + block.first_word, n, words.begin());
  }
  AGX_TRY(*buffer, device.create_buffer(words.size() * 4, label));
  std::memcpy((*buffer)->host().data(), words.data(), words.size() * 4);
  std::vector<uint32_t> file(block.file_words, 0);
  std::copy_n(uniforms.begin(), std::min<size_t>(uniforms.size(), block.file_words), file.begin());
  const uint64_t va = (*buffer)->gpu_va();
  file[block.address_uniform] = uint32_t(va);
  file[block.address_uniform + 1] = uint32_t(va >> 32);
  return file;
}

}  // namespace agx::runtime
