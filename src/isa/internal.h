// Shared by the isa unit's .cpp files only: the table expanded into constexpr
// arrays, and the 96-bit instruction word.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <string_view>

#include "isa/isa.h"

namespace agx::isa::detail {

// Up to 12 bytes of an instruction, little-endian, as one 96-bit word.
struct Word {
  uint64_t lo = 0;
  uint32_t hi = 0;
  uint32_t bits(unsigned start, unsigned size) const {
    if (size == 0) return 0;
    uint64_t v;
    if (start >= 64) {
      v = hi >> (start - 64);
    } else {
      v = lo >> start;
      if (start + size > 64) v |= static_cast<uint64_t>(hi) << (64 - start);
    }
    return static_cast<uint32_t>(v & ((uint64_t{1} << size) - 1));
  }
  void set_bits(unsigned start, unsigned size, uint32_t value);
  bool bit(unsigned pos) const { return ((pos < 64 ? lo >> pos : hi >> (pos - 64)) & 1) != 0; }
  // Keeps only the low `length_B` bytes.
  Word truncated(unsigned length_B) const;
  static Word load(std::span<const uint8_t> bytes);  // zero-padded
  void store(uint8_t* out, unsigned length_B) const;
};

struct OpRow {
  OpInfo info;
  uint64_t mask_lo, bits_lo;
  uint32_t mask_hi, bits_hi;
};

struct FieldRow {
  Opcode op;
  std::string_view name;
  std::array<uint8_t, 3> start, size;
  unsigned width() const { return size[0] + size[1] + size[2]; }
};

struct OperandRow {
  Opcode op;
  OperandDesc kind;
  std::string_view name;
  int enum_table;
};

struct EnumRow {
  int table;
  int value;
  std::string_view text;
};

inline constexpr OpRow kOps[] = {
#define AGX_ISA_OP(id, mn, s, l, lb, ml, bl, mh, bh, ex) \
  {{#id, mn, s, l, lb, ex != 0}, ml, bl, mh, bh},
#include "isa/table.inc"
#undef AGX_ISA_OP
};

inline constexpr FieldRow kFields[] = {
#define AGX_ISA_FIELD(id, nm, s0, n0, s1, n1, s2, n2) \
  {Opcode::id, nm, {s0, s1, s2}, {n0, n1, n2}},
#include "isa/table.inc"
#undef AGX_ISA_FIELD
};

inline constexpr OperandRow kOperands[] = {
#define AGX_ISA_OPERAND(id, kind, nm, table) {Opcode::id, OperandDesc::kind, nm, table},
#include "isa/table.inc"
#undef AGX_ISA_OPERAND
};

inline constexpr EnumRow kEnums[] = {
#define AGX_ISA_ENUM(table, value, text) {table, value, text},
#include "isa/table.inc"
#undef AGX_ISA_ENUM
};

// Where a row's fields and operands start in kFields / kOperands.
struct Span16 {
  uint16_t begin = 0, end = 0;
};
struct RowIndex {
  std::array<Span16, kOpcodeCount> fields{}, operands{};
};
constexpr RowIndex make_row_index() {
  RowIndex r{};
  for (size_t i = 0; i < std::size(kFields); ++i) {
    auto& s = r.fields[static_cast<size_t>(kFields[i].op)];
    if (s.end == 0) s.begin = static_cast<uint16_t>(i);
    s.end = static_cast<uint16_t>(i + 1);
  }
  for (size_t i = 0; i < std::size(kOperands); ++i) {
    auto& s = r.operands[static_cast<size_t>(kOperands[i].op)];
    if (s.end == 0) s.begin = static_cast<uint16_t>(i);
    s.end = static_cast<uint16_t>(i + 1);
  }
  return r;
}
inline constexpr RowIndex kRowIndex = make_row_index();

constexpr std::span<const FieldRow> fields_of(Opcode op) {
  auto s = kRowIndex.fields[static_cast<size_t>(op)];
  return {kFields + s.begin, static_cast<size_t>(s.end - s.begin)};
}
constexpr std::span<const OperandRow> operands_of(Opcode op) {
  auto s = kRowIndex.operands[static_cast<size_t>(op)];
  return {kOperands + s.begin, static_cast<size_t>(s.end - s.begin)};
}

constexpr int find_field(Opcode op, std::string_view name) {
  auto f = fields_of(op);
  for (size_t i = 0; i < f.size(); ++i)
    if (f[i].name == name) return static_cast<int>(i);
  return -1;
}

// Table checks (CONVENTIONS "One table"): lengths even, fields of a row fit
// its long form, no row has more fields/operands than Instr holds, and rows
// are grouped (every row's fields are contiguous).
constexpr bool table_is_sound() {
  for (size_t i = 0; i < kOpcodeCount; ++i) {
    const auto& r = kOps[i];
    if (r.info.short_B % 2 || r.info.long_B % 2 || r.info.short_B < kMinLength_B ||
        r.info.long_B > kMaxLength_B || r.info.short_B > r.info.long_B)
      return false;
    auto op = static_cast<Opcode>(i);
    if (fields_of(op).size() > kMaxFields || operands_of(op).size() > kMaxOperands) return false;
    for (const auto& f : fields_of(op))
      for (int p = 0; p < 3; ++p)
        if (f.size[p] && f.start[p] + f.size[p] > r.info.long_B * 8) return false;
  }
  size_t counted = 0;
  for (size_t i = 0; i < kOpcodeCount; ++i)
    counted += fields_of(static_cast<Opcode>(i)).size();
  return counted == std::size(kFields);
}
static_assert(table_is_sound(), "isa table.inc is inconsistent");

// The row's decode size for a word (applegpu decode_size).
inline unsigned decoded_length(const OpRow& r, const Word& w) {
  return w.bit(r.info.length_bit) ? r.info.long_B : r.info.short_B;
}
// applegpu `matches`: mask the word to the row's size, compare constants.
inline bool row_matches(const OpRow& r, const Word& w) {
  Word m = w.truncated(decoded_length(r, w));
  return (m.lo & r.mask_lo) == r.bits_lo && (m.hi & r.mask_hi) == r.bits_hi;
}

// First-match lookup over the rows; nullopt when nothing matches.
std::optional<Opcode> match(const Word& w);
// identify() on an already loaded word.
Result<Opcode> identify_word(std::span<const uint8_t> bytes, uint64_t pc, const Word& w);

std::string_view enum_text(int table, int value, bool* found);

}  // namespace agx::isa::detail
