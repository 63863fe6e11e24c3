// Encoding: constants of the row plus the merged field values, in the short
// form unless a field needs bits beyond it (applegpu patch_raw_fields).
#include <algorithm>

#include "isa/internal.h"

namespace agx::isa {

using namespace detail;

namespace {

// Bits of a row that are neither constant nor in a field nor the length
// bit: applegpu's "remainder". Encoding keeps them from the instruction's
// own bytes, so unknown bits survive a round trip.
Word remainder_mask(const OpRow& r, std::span<const FieldRow> fields) {
  Word used{r.mask_lo, r.mask_hi};
  for (const FieldRow& f : fields)
    for (int p = 0; p < 3 && f.size[p]; ++p) used.set_bits(f.start[p], f.size[p], ~0u);
  if (r.info.short_B != r.info.long_B) used.set_bits(r.info.length_bit, 1, 1);
  Word all = Word{~uint64_t{0}, ~uint32_t{0}}.truncated(r.info.long_B);
  return {all.lo & ~used.lo, all.hi & ~used.hi};
}

// `keep`: the instruction's own bytes (their remainder bits are kept) and
// length (a long form stays long); empty for a new instruction.
Result<Encoded> pack(Opcode op, std::span<const uint32_t> values, std::span<const uint8_t> keep) {
  const OpRow& r = kOps[static_cast<size_t>(op)];
  auto fields = fields_of(op);
  Word rest = Word::load(keep);
  Word spare = remainder_mask(r, fields);
  Word w{(rest.lo & spare.lo) | r.bits_lo, (rest.hi & spare.hi) | r.bits_hi};
  for (size_t i = 0; i < fields.size(); ++i) {
    const FieldRow& f = fields[i];
    uint32_t v = values[i];
    if (f.width() < 32 && (v >> f.width()) != 0)
      return Error::invalid_argument("{}: field {} = {} does not fit in {} bits",
                                     r.info.mnemonic, f.name, v, f.width());
    unsigned shift = 0;
    for (int p = 0; p < 3 && f.size[p]; ++p) {
      w.set_bits(f.start[p], f.size[p], static_cast<uint32_t>(uint64_t{v} >> shift));
      shift += f.size[p];
    }
  }
  unsigned len = r.info.short_B;
  if (r.info.short_B != r.info.long_B) {
    w.set_bits(r.info.length_bit, 1, 0);
    Word short_form = w.truncated(r.info.short_B);
    if (short_form.lo != w.lo || short_form.hi != w.hi || keep.size() == r.info.long_B) {
      w.set_bits(r.info.length_bit, 1, 1);
      len = r.info.long_B;
    }
  }
  Encoded e;
  e.length_B = static_cast<uint8_t>(len);
  w.store(e.bytes.data(), len);
  // The fields may have recreated an earlier row's pattern: then this
  // encoding would not decode as `op`.
  auto first = match(Word::load(e.span()));
  if (!first || *first != op)
    return Error::invalid_argument("{}: these field values encode as {}, not {}", r.info.mnemonic,
                                   first ? op_info(*first).id : "nothing", r.info.id);
  return e;
}

}  // namespace

Result<Encoded> encode(const Instr& instr) {
  if (static_cast<size_t>(instr.op) >= kOpcodeCount)
    return Error::invalid_argument("encode: opcode {} is not in the table",
                                   static_cast<unsigned>(instr.op));
  size_t keep = std::min<size_t>(instr.length_B, kMaxLength_B);
  return pack(instr.op, {instr.fields.data(), fields_of(instr.op).size()}, {instr.bytes.data(), keep});
}

Result<Encoded> encode_fields(Opcode op, std::span<const std::pair<std::string_view, uint32_t>> fields) {
  if (static_cast<size_t>(op) >= kOpcodeCount)
    return Error::invalid_argument("encode: opcode {} is not in the table", static_cast<unsigned>(op));
  std::array<uint32_t, kMaxFields> values{};
  for (const auto& [name, value] : fields) {
    int i = find_field(op, name);
    if (i < 0)
      return Error::invalid_argument("{}: no field named '{}'", op_info(op).mnemonic, name);
    values[static_cast<size_t>(i)] = value;
  }
  return pack(op, {values.data(), fields_of(op).size()}, {});
}

}  // namespace agx::isa
