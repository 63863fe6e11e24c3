// The push constant / loose uniform block kept in memory: a shader whose
// block does not fit in the 256 uniform registers reads it through a
// 64-bit address (compiler::Abi::push_memory_uniform, docs/compiler.md
// "Push constants in memory"). The caller builds the uniform list as if
// the block were pushed, its words at compiler::Abi::push_constants_uniform
// (past the uniform file); the runtime moves them into a buffer of their
// own, the same bytes, and loads the rest as the uniform file.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "compiler/compiler.h"
#include "runtime/runtime.h"
#include "util/result.h"

namespace agx::runtime {

struct PushMemory {
  uint32_t address_uniform = 0;  // u<N>_u<N+1>: the buffer's address, low word first
  uint32_t first_word = 0;       // the block: words [first_word, first_word + words) of the list
  uint32_t words = 0;
  uint32_t file_words = 0;       // the uniform file: words 0 .. file_words - 1
};

// The block's place by the shader's Abi; none when the block is pushed.
std::optional<PushMemory> push_memory(const compiler::Abi& abi);

// The uniform file of `uniforms` (file_words long, zero-padded) with the
// block's words (zero where the list is shorter) in `*buffer`, made here
// and named by `label`, and its address at address_uniform. Errors: a
// block or address outside the list's place for it.
Result<std::vector<uint32_t>> place_push_memory(Device& device, std::span<const uint32_t> uniforms,
                                                const PushMemory& block, std::unique_ptr<Buffer>* buffer,
                                                const std::string& label);

}  // namespace agx::runtime
