// The packet field-table engine: one constexpr table per hardware struct
// (name, bit position, size, type, modifier), from which pack, unpack and
// print are made. The table shape follows the <struct>/<field> elements of
// Mesa's src/asahi/genxml/cmdbuf.xml (bminor/mesa-mesa); the tables
// themselves live in packets.h.
//
// A struct is N little-endian 32-bit words. A field's `start` counts bits
// from bit 0 of word 0 ("1:8" in the XML is 1*32+8 = 40); it may straddle
// words and be up to 64 bits wide.
//
// Values travel as "logical" 64-bit numbers, the way a driver writes them:
//   boolean      0 or 1
//   uint, hex    the number (before the modifier is applied)
//   sint         an int64_t stored in the uint64_t (two's complement)
//   enumeration  the enum's value
//   float32      the IEEE bits of a float (to_bits/from_bits below)
//   address      the byte address (before shr)
// Modifiers: minus_one stores value-1, shr(N) stores value>>N (the low N
// bits must be zero), log2 stores log2(value) (value a power of two).
#pragma once

#include <array>
#include <bit>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "util/result.h"

namespace agx::cmdstream {

enum class FieldType : uint8_t { boolean, uint, sint, enumeration, float32, address, hex };
enum class Modifier : uint8_t { none, minus_one, shr, log2 };

struct EnumValue {
  std::string_view name;
  uint32_t value;
};

struct FieldDesc {
  std::string_view name;
  uint16_t start;  // absolute bit: word * 32 + bit
  uint8_t size;    // bits, 1..64
  FieldType type;
  Modifier modifier = Modifier::none;
  uint8_t shift = 0;                        // for Modifier::shr
  std::span<const EnumValue> values = {};  // for FieldType::enumeration
};

struct StructDesc {
  std::string_view name;
  uint8_t words;  // size in 32-bit words
  std::span<const FieldDesc> fields;
};

// Compile-time check of a table: every field inside the struct, sizes
// 1..64, floats 32 bits, enums with values that fit, shr only with a shift.
constexpr bool table_is_valid(const StructDesc& s) {
  if (s.words == 0) return false;
  for (const FieldDesc& f : s.fields) {
    if (f.size == 0 || f.size > 64) return false;
    if (unsigned(f.start) + f.size > unsigned(s.words) * 32) return false;
    if (f.type == FieldType::float32 && (f.size != 32 || f.modifier != Modifier::none)) return false;
    if (f.type == FieldType::boolean && f.size != 1) return false;
    if ((f.modifier == Modifier::shr) != (f.shift != 0)) return false;
    if (f.type == FieldType::enumeration) {
      if (f.values.empty()) return false;
      for (const EnumValue& v : f.values)
        if (f.size < 32 && (v.value >> f.size) != 0) return false;
    }
  }
  return true;
}

// The index of a field by name, for tables that name their fields with an
// enum (checked by static_assert next to the table).
constexpr int field_index(const StructDesc& s, std::string_view name) {
  for (size_t i = 0; i < s.fields.size(); ++i)
    if (s.fields[i].name == name) return int(i);
  return -1;
}

constexpr uint64_t to_bits(float f) { return std::bit_cast<uint32_t>(f); }
constexpr float from_bits(uint64_t v) { return std::bit_cast<float>(uint32_t(v)); }

// Logical values of one struct, one per field in table order.
using Values = std::vector<uint64_t>;

// Encodes one field's logical value into its raw bits, or an error naming
// the struct and the field when the value does not fit.
Result<uint64_t> encode_field(const StructDesc& s, const FieldDesc& f, uint64_t value);
// The reverse; an error for raw bits with no meaning (unknown enum value,
// log2 exponent out of range).
Result<uint64_t> decode_field(const StructDesc& s, const FieldDesc& f, uint64_t raw);

// Raw bits [start, start+size) of a word array (size <= 64), and the store.
uint64_t get_raw(std::span<const uint32_t> words, unsigned start, unsigned size);
void put_raw(std::span<uint32_t> words, unsigned start, unsigned size, uint64_t raw);

// Packs all fields (values.size() must equal the field count). Fields that
// overlap (alternative layouts of one struct) are packed in table order.
Result<std::vector<uint32_t>> pack(const StructDesc& s, std::span<const uint64_t> values);
// Unpacks words.size() == s.words words. Bits set outside every field are
// an error (they mean the table or the input is wrong).
Result<Values> unpack(const StructDesc& s, std::span<const uint32_t> words);
// The same without allocating: `words` must hold s.words words, `values`
// one entry per field. On error the output is unspecified.
Status pack_into(const StructDesc& s, std::span<const uint64_t> values, std::span<uint32_t> words);
Status unpack_into(const StructDesc& s, std::span<const uint32_t> words, std::span<uint64_t> values);

// The logical value as text: "true", "42", "0x1f", "Perspective", "1.5".
std::string format_value(const FieldDesc& f, uint64_t value);
// One "Name: value" line per field, each prefixed by `indent` spaces.
std::string print(const StructDesc& s, std::span<const uint64_t> values, unsigned indent = 0);

// The name of an enum value, or empty when the table has none.
std::string_view enum_name(std::span<const EnumValue> values, uint64_t value);

}  // namespace agx::cmdstream
