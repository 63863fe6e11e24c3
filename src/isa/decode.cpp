// Decoding: first-match row, length, merged fields, then operands.
#include "isa/internal.h"
#include "isa/operands.h"

namespace agx::isa {

using namespace detail;

Status decode_into(std::span<const uint8_t> bytes, uint64_t pc, Instr& in) {
  Word w = Word::load(bytes);
  AGX_TRY(Opcode op, identify_word(bytes, pc, w));
  const OpRow& r = kOps[static_cast<size_t>(op)];
  in.op = op;
  in.pc = pc;
  in.length_B = static_cast<uint8_t>(decoded_length(r, w));
  w = w.truncated(in.length_B);
  in.bytes = {};
  w.store(in.bytes.data(), in.length_B);
  auto fields = fields_of(op);
  in.field_count = static_cast<uint8_t>(fields.size());
  in.fields = {};
  for (size_t i = 0; i < fields.size(); ++i) {
    const FieldRow& f = fields[i];
    uint32_t v = 0;
    unsigned shift = 0;
    for (int p = 0; p < 3 && f.size[p]; ++p) {
      v |= w.bits(f.start[p], f.size[p]) << shift;
      shift += f.size[p];
    }
    in.fields[i] = v;
  }
  size_t old_count = in.operand_count;
  if (auto st = decode_operands(in); !st.ok())
    return std::move(st).error().context(fmt::format("pc 0x{:x}", pc));
  for (size_t i = in.operand_count; i < old_count && i < kMaxOperands; ++i) in.operands[i] = Operand{};
  return {};
}

Result<Instr> decode(std::span<const uint8_t> bytes, uint64_t pc) {
  Result<Instr> out{Instr{}};
  if (auto st = decode_into(bytes, pc, *out); !st.ok()) return std::move(st).error();
  return out;
}

}  // namespace agx::isa
