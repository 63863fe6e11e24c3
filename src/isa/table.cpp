// The table's lookups: row facts, field names, the 96-bit word, and the
// first-match search (applegpu tries descriptors in registration order).
#include <algorithm>
#include <cstring>
#include <vector>

#include "isa/internal.h"

namespace agx::isa {
namespace detail {

void Word::set_bits(unsigned start, unsigned size, uint32_t value) {
  for (unsigned i = 0; i < size; ++i) {
    unsigned pos = start + i;
    uint64_t b = (value >> i) & 1;
    if (pos < 64)
      lo = (lo & ~(uint64_t{1} << pos)) | (b << pos);
    else
      hi = (hi & ~(uint32_t{1} << (pos - 64))) | static_cast<uint32_t>(b << (pos - 64));
  }
}

Word Word::truncated(unsigned length_B) const {
  Word w = *this;
  if (length_B < 8) {
    w.lo &= (uint64_t{1} << (length_B * 8)) - 1;
    w.hi = 0;
  } else if (length_B < 12) {
    w.hi &= (uint32_t{1} << ((length_B - 8) * 8)) - 1;
  }
  return w;
}

Word Word::load(std::span<const uint8_t> bytes) {
  Word w;
  if (bytes.size() >= kMaxLength_B) {
    std::memcpy(&w.lo, bytes.data(), 8);  // little-endian host (x86-64)
    std::memcpy(&w.hi, bytes.data() + 8, 4);
    return w;
  }
  for (size_t i = 0; i < bytes.size(); ++i) {
    if (i < 8)
      w.lo |= static_cast<uint64_t>(bytes[i]) << (8 * i);
    else
      w.hi |= static_cast<uint32_t>(bytes[i]) << (8 * (i - 8));
  }
  return w;
}

void Word::store(uint8_t* out, unsigned length_B) const {
  for (unsigned i = 0; i < length_B; ++i)
    out[i] = static_cast<uint8_t>(i < 8 ? lo >> (8 * i) : hi >> (8 * (i - 8)));
}

namespace {

// One row's test for one encoding length: the word, cut to that length,
// masked, must equal the constant bits. Cutting is folded into the mask.
struct Test {
  uint64_t mask_lo, bits_lo;
  uint32_t mask_hi, bits_hi;
  bool possible;  // constants that need bits past the length never match
};

Test make_test(const OpRow& r, unsigned length_B) {
  Word keep = Word{~uint64_t{0}, ~uint32_t{0}}.truncated(length_B);
  Test t{r.mask_lo & keep.lo, r.bits_lo, r.mask_hi & keep.hi, r.bits_hi, true};
  t.possible = (t.bits_lo & ~t.mask_lo) == 0 && (t.bits_hi & ~t.mask_hi) == 0;
  return t;
}

struct Candidate {
  Test test[2];  // short, long
  uint8_t length_bit;
};

// Whether a row can match an encoding that starts with the 16 bits `key`.
bool may_match(const Candidate& c, unsigned key) {
  for (int form = 0; form < 2; ++form) {
    if (c.length_bit < 16 && ((key >> c.length_bit) & 1) != static_cast<unsigned>(form)) continue;
    const Test& t = c.test[form];
    if (t.possible && (key & t.mask_lo & 0xffff) == (t.bits_lo & 0xffff)) return true;
  }
  return false;
}

// For each value of the first 16 bits, the rows that can match it, in table
// order: the first-match search walks only these.
struct Candidates {
  std::array<Candidate, kOpcodeCount> rows;
  std::vector<uint32_t> begin;  // 65537 offsets into `list`
  std::vector<uint16_t> list;
  Candidates() {
    for (size_t i = 0; i < kOpcodeCount; ++i) {
      const OpRow& r = kOps[i];
      rows[i] = {{make_test(r, r.info.short_B), make_test(r, r.info.long_B)}, r.info.length_bit};
    }
    begin.reserve(65537);
    for (unsigned key = 0; key < 65536; ++key) {
      begin.push_back(static_cast<uint32_t>(list.size()));
      for (size_t i = 0; i < kOpcodeCount; ++i)
        if (may_match(rows[i], key)) list.push_back(static_cast<uint16_t>(i));
    }
    begin.push_back(static_cast<uint32_t>(list.size()));
  }
};

const Candidates& candidates() {
  static const Candidates c;
  return c;
}

}  // namespace

std::optional<Opcode> match(const Word& w) {
  const Candidates& c = candidates();
  unsigned key = w.lo & 0xffff;
  for (uint32_t k = c.begin[key], end = c.begin[key + 1]; k < end; ++k) {
    uint16_t row = c.list[k];
    const Candidate& cand = c.rows[row];
    const Test& t = cand.test[w.bit(cand.length_bit) ? 1 : 0];
    if (t.possible && (w.lo & t.mask_lo) == t.bits_lo && (w.hi & t.mask_hi) == t.bits_hi)
      return static_cast<Opcode>(row);
  }
  return std::nullopt;
}

std::string_view enum_text(int table, int value, bool* found) {
  for (const auto& e : kEnums)
    if (e.table == table && e.value == value) {
      *found = true;
      return e.text;
    }
  *found = false;
  return {};
}

}  // namespace detail

using namespace detail;

const OpInfo& op_info(Opcode op) { return kOps[static_cast<size_t>(op)].info; }

int field_index(Opcode op, std::string_view name) { return find_field(op, name); }

std::vector<std::string_view> field_names(Opcode op) {
  std::vector<std::string_view> names;
  for (const auto& f : fields_of(op)) names.push_back(f.name);
  return names;
}

unsigned field_width(Opcode op, size_t index) {
  auto f = fields_of(op);
  return index < f.size() ? f[index].width() : 0;
}

std::optional<uint32_t> Instr::field(std::string_view name) const {
  int i = find_field(op, name);
  if (i < 0) return std::nullopt;
  return fields[static_cast<size_t>(i)];
}

namespace detail {

Result<Opcode> identify_word(std::span<const uint8_t> bytes, uint64_t pc, const Word& w) {
  if (bytes.size() < kMinLength_B)
    return Error::decode("truncated instruction at pc 0x{:x}: expected at least 2 bytes, have {}",
                         pc, bytes.size());
  auto op = match(w);
  if (!op)
    return Error::decode("unknown instruction at pc 0x{:x}: no encoding matches {:04x}", pc,
                         static_cast<unsigned>(w.lo & 0xffff));
  unsigned len = decoded_length(kOps[static_cast<size_t>(*op)], w);
  if (bytes.size() < len)
    return Error::decode("truncated instruction at pc 0x{:x}: {} needs {} bytes, have {}", pc,
                         op_info(*op).mnemonic, len, bytes.size());
  return *op;
}

}  // namespace detail

Result<Opcode> identify(std::span<const uint8_t> bytes, uint64_t pc) {
  return identify_word(bytes, pc, Word::load(bytes));
}

bool matches_row(Opcode op, std::span<const uint8_t> bytes) {
  if (bytes.size() < kMinLength_B) return false;
  Word w = Word::load(bytes);
  const Candidate& cand = candidates().rows[static_cast<size_t>(op)];
  const Test& t = cand.test[w.bit(cand.length_bit) ? 1 : 0];
  return t.possible && (w.lo & t.mask_lo) == t.bits_lo && (w.hi & t.mask_hi) == t.bits_hi;
}

Result<size_t> instruction_length(std::span<const uint8_t> bytes, uint64_t pc) {
  AGX_TRY(Opcode op, identify(bytes, pc));
  return static_cast<size_t>(decoded_length(kOps[static_cast<size_t>(op)], Word::load(bytes)));
}

int operand_index(Opcode op, std::string_view name) {
  auto rows = operands_of(op);
  for (size_t i = 0; i < rows.size(); ++i)
    if (rows[i].name == name) return static_cast<int>(i);
  return -1;
}

}  // namespace agx::isa
