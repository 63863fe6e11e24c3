// The packet field-table engine: one constexpr table per hardware struct
// (name, bit position, size, type, modifier, enum, exact value), from which
// pack, unpack, print and JSON are made. The table shape follows the
// <struct>/<field> elements of bminor/mesa-mesa src/asahi/genxml/cmdbuf.xml;
// the tables themselves are the X-macro rows of cmdstream/tables/*.inc.
//
// A struct is size_B bytes in memory; its bits are numbered as
// little-endian 32-bit words ("1:8" in the XML is bit 1*32+8 = 40), so a
// 6-byte struct is one word and the low half of the next. A field may
// straddle words and be up to 64 bits wide.
//
// Values travel as "logical" 64-bit numbers, what a driver writes:
//   boolean               0 or 1
//   uint, hex, address    the number after the modifier is undone
//   sint                  an int64_t stored in the uint64_t
//   enumeration           the enum's value (named or not)
//   float32, half, lod    the IEEE bits of a float (to_bits/from_bits)
// Modifiers (how the bits store the logical value v):
//   minus(N)   v - N                        (v >= N)
//   shr(N)     v >> N                       (low N bits of v zero)
//   log2       log2(v)                      (v a power of two)
//   groups(N)  ceil(v / N), 0 for 2^bits groups (v <= N * 2^bits; v = 0 is
//              packed as one group: the hardware cannot say "none")
// Types: half is IEEE binary16 (rounded to nearest even); lod is unsigned
// 4:6 fixed point (v * 64, truncated toward zero).
// An `exact` field must hold its exact value; a field's default is its
// exact value, else the value whose bits are all zero (minus(N): N, log2: 1,
// groups(N): N * 2^bits), else 0.
#pragma once

#include <array>
#include <bit>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "util/bits.h"
#include "util/result.h"

namespace agx::cmdstream {

enum class FieldType : uint8_t { boolean, uint, sint, hex, address, enumeration, float32, half, lod };
enum class Modifier : uint8_t { none, minus, shr, log2, groups };

// The largest struct of cmdbuf.xml ("VDM Stream Terminate") is 32 bytes.
inline constexpr unsigned kMaxStructSize_B = 32;

struct EnumValue {
  std::string_view name;
  uint32_t value;
};

struct EnumDesc {
  std::string_view name;  // cmdbuf.xml name, "Channels"
  std::string_view id;    // C++ enum class, "Channels"
  std::span<const EnumValue> values;
};

struct FieldDesc {
  std::string_view name;    // cmdbuf.xml name, "Uniform register count"
  std::string_view member;  // typed-API member, "uniform_register_count"
  uint16_t start;           // absolute bit: word * 32 + bit
  uint8_t size;             // bits, 1..64
  FieldType type;
  Modifier modifier = Modifier::none;
  uint32_t arg = 0;                    // N of minus/shr/groups
  const EnumDesc* enumeration = nullptr;  // for FieldType::enumeration
  bool exact = false;                  // the field must hold exact_value
  uint64_t exact_value = 0;            // logical value
};

struct StructDesc {
  std::string_view name;  // cmdbuf.xml name, "CDM Launch Word 0"
  std::string_view id;    // typed-API struct, "CdmLaunchWord0"
  uint8_t size_B;
  std::span<const FieldDesc> fields;
};

constexpr uint64_t to_bits(float f) { return std::bit_cast<uint32_t>(f); }
constexpr float from_bits(uint64_t v) { return std::bit_cast<float>(uint32_t(v)); }

// The default logical value of a field (see the header comment).
constexpr uint64_t default_value(FieldType type, Modifier mod, uint32_t arg, unsigned size,
                                 bool exact, uint64_t exact_value) {
  if (exact) return exact_value;
  if (type == FieldType::float32 || type == FieldType::half || type == FieldType::lod) return 0;
  switch (mod) {
    case Modifier::minus: return arg;
    case Modifier::log2: return 1;
    case Modifier::groups: return uint64_t(arg) << size;
    default: return 0;
  }
}
constexpr uint64_t default_value(const FieldDesc& f) {
  return default_value(f.type, f.modifier, f.arg, f.size, f.exact, f.exact_value);
}

// Compile-time check of a table: every field inside the struct, sizes
// 1..64, floats 32 bits, halves 16, lods 10, booleans 1, log2 fields small
// enough to decode, modifiers only on numbers.
constexpr bool table_is_valid(const StructDesc& s) {
  if (s.size_B == 0 || s.size_B > kMaxStructSize_B) return false;
  for (const FieldDesc& f : s.fields) {
    if (f.size == 0 || f.size > 64) return false;
    if (unsigned(f.start) + f.size > unsigned(s.size_B) * 8) return false;
    bool numeric = f.type == FieldType::uint || f.type == FieldType::hex ||
                   f.type == FieldType::address;
    if (f.modifier != Modifier::none && !numeric) return false;
    if (f.type == FieldType::float32 && f.size != 32) return false;
    if (f.type == FieldType::half && f.size != 16) return false;
    if (f.type == FieldType::lod && f.size != 10) return false;
    if (f.type == FieldType::boolean && f.size != 1) return false;
    if (f.modifier == Modifier::log2 && f.size > 6) return false;
    if ((f.modifier == Modifier::shr || f.modifier == Modifier::groups) && f.arg == 0) return false;
    if (f.modifier == Modifier::groups && f.size > 31) return false;
    // An enum may name values a narrow field cannot hold (PBE swizzles are
    // 2 bits of the 3-bit Channel enum); pack refuses those.
    if ((f.type == FieldType::enumeration) != (f.enumeration != nullptr)) return false;
  }
  return true;
}

// The index of a field by name, or -1.
constexpr int field_index(const StructDesc& s, std::string_view name) {
  for (size_t i = 0; i < s.fields.size(); ++i)
    if (s.fields[i].name == name) return int(i);
  return -1;
}

// Logical values of one struct, one per field in table order.
using Values = std::vector<uint64_t>;

// ---- one field ----------------------------------------------------------

// The raw bits of a logical value, or an error naming the struct and the
// field ("USC Shared: field 'Sample count' (2 bits at bit 16): 3 is not a
// power of two").
Result<uint64_t> encode_field(const StructDesc& s, const FieldDesc& f, uint64_t value);

// The logical value of raw bits. Never fails: every bit pattern reads as
// something (an enum value without a name stays a number). Inline, so
// that a constant FieldDesc folds away in the typed unpack.
uint64_t decode_half(uint64_t raw);  // a NaN keeps its payload
inline uint64_t decode_field(const FieldDesc& f, uint64_t raw) {
  switch (f.type) {
    case FieldType::sint: return uint64_t(sign_extend(raw, f.size));
    case FieldType::half: return decode_half(raw);
    case FieldType::lod: return to_bits(float(raw) / 64.0f);
    case FieldType::boolean:
    case FieldType::enumeration:
    case FieldType::float32: return raw;
    default: break;
  }
  switch (f.modifier) {
    case Modifier::none: return raw;
    case Modifier::minus: return raw + f.arg;
    case Modifier::shr: return raw << f.arg;
    case Modifier::log2: return uint64_t{1} << (raw & 63);
    case Modifier::groups: return raw == 0 ? uint64_t(f.arg) << f.size : raw * f.arg;
  }
  return raw;
}

// Raw bits [start, start+size) of little-endian words (size <= 64), and
// the OR of raw bits into them.
constexpr uint64_t get_raw(const uint32_t* words, unsigned start, unsigned size) {
  unsigned w = start / 32, b = start % 32;
  uint64_t lo = uint64_t(words[w]) | (b + size > 32 ? uint64_t(words[w + 1]) << 32 : 0);
  uint64_t v = lo >> b;
  if (b + size > 64) v |= uint64_t(words[w + 2]) << (64 - b);
  return v & low_mask(size);
}
void or_raw(uint32_t* words, unsigned start, unsigned size, uint64_t raw);

// ---- whole structs -------------------------------------------------------

// Little-endian words of a struct's bytes, zero past size_B.
using Words = std::array<uint32_t, kMaxStructSize_B / 4 + 1>;
// False when `bytes` is shorter than the struct.
bool load_words(const StructDesc& s, std::span<const uint8_t> bytes, Words& w);

// Packs all fields (values.size() must equal the field count) into
// out[0, size_B). Overlapping fields (the XML's alternative readings of the
// same bits) are ORed, as the hardware's driver does; leave the readings you
// do not use at their defaults (which pack to zero). No allocation unless
// it fails.
Status pack_into(const StructDesc& s, std::span<const uint64_t> values, std::span<uint8_t> out);
Result<std::vector<uint8_t>> pack(const StructDesc& s, std::span<const uint64_t> values);

// Every field's logical value. `values` holds one entry per field; `bytes`
// at least size_B bytes (the only failure). No allocation.
Status unpack_into(const StructDesc& s, std::span<const uint8_t> bytes, std::span<uint64_t> values);

// Raw bits of a field that a logical value can reach: all of them, except
// for a 64-bit field holding value >> N ("Acceleration buffer"), whose top
// N bits would be an address beyond 2^64.
constexpr unsigned value_bits(const FieldDesc& f) {
  if (f.modifier == Modifier::shr && f.size + f.arg > 64) return 64 - f.arg;
  return f.size;
}

// Bits of the struct (in memory order, size_B bytes) that some field covers
// (with value_bits: the rest are unknown bits).
std::vector<uint8_t> covered_bits(const StructDesc& s);

struct Unpacked {
  Values values;                      // one per field, table order
  std::vector<uint8_t> unknown_bits;  // size_B bytes: set bits no field covers
  bool has_unknown_bits = false;
  std::vector<uint16_t> exact_mismatches;  // fields not holding their exact value
};
// Never refuses a bit pattern: only a buffer shorter than the struct fails.
Result<Unpacked> unpack(const StructDesc& s, std::span<const uint8_t> bytes);

// For words this project writes itself (where anything unexpected is a
// bug): an error when bits are set outside every field, an enum field holds
// a value the XML does not name, or an exact field differs.
Status check_strict(const StructDesc& s, std::span<const uint8_t> bytes);

// ---- names ---------------------------------------------------------------

// The name of an enum value, or empty when the enum has none.
std::string_view enum_name(const EnumDesc& e, uint64_t value);
// The value of a name: exact spelling first, then ignoring case.
const EnumValue* enum_value(const EnumDesc& e, std::string_view name);

// "minus(1)", "shr(4)", "log2", "groups(64)", or "" (cmdbuf.xml spelling).
std::string modifier_string(const FieldDesc& f);
// "bool", "uint", "int", "hex", "address", "float", "half", "lod", or the
// enum's name (cmdbuf.xml spelling).
std::string_view type_string(const FieldDesc& f);

}  // namespace agx::cmdstream
