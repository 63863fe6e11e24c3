// The instruction walk the SPIR-V readers share (the compiler's
// specialization reader and Rect rewrite, the runtime's program queries
// and uniform blocks): the header check, each instruction's word count,
// and operand counts named by word offset.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>

#include <spirv/unified1/spirv.hpp11>

#include "util/result.h"

namespace agx::compiler::spirv {

struct SpirvInstruction {
  spv::Op op = spv::Op::OpNop;
  std::span<const uint32_t> w;  // the operands (the words after the first)
  size_t at = 0;                // the word offset of the instruction
  // An error naming the instruction when it has fewer than n operands.
  Status need(size_t n) const {
    if (w.size() < n) return Error::parse("SPIR-V: instruction at word {} has {} operands, {} needed", at, w.size(), n);
    return {};
  }
};

// The first word of an instruction: its word count (the opcode word
// included) in the high 16 bits, its opcode in the low 16 (SPIR-V
// specification, 2.3 "Physical Layout of a SPIR-V Module and Instruction").
inline uint32_t opcode_word(spv::Op op, size_t count) {
  return static_cast<uint32_t>(count) << 16 | static_cast<uint32_t>(op);
}

// Calls `fn` for every instruction after the 5-word header, stopping at its
// first error; a module without the magic number or with a word count of 0
// or past the end is a parse error naming the word.
inline Status for_each_instruction(std::span<const uint32_t> words,
                                   const std::function<Status(const SpirvInstruction&)>& fn) {
  if (words.size() < 5 || words[0] != spv::MagicNumber)
    return Error::parse("SPIR-V: no module header (magic 0x{:08x} expected)", spv::MagicNumber);
  for (size_t at = 5; at < words.size();) {
    const uint32_t count = words[at] >> 16;
    if (count == 0 || at + count > words.size())
      return Error::parse("SPIR-V: instruction at word {} has a bad word count {}", at, count);
    AGX_CHECK(fn(SpirvInstruction{spv::Op(words[at] & 0xffff), words.subspan(at + 1, count - 1), at}));
    at += count;
  }
  return {};
}

}  // namespace agx::compiler::spirv
