// Pack, unpack and print driven by a StructDesc (see field_table.h).
#include "cmdstream/field_table.h"

#include <fmt/format.h>

#include <algorithm>

#include "util/bits.h"

namespace agx::cmdstream {
namespace {

Error out_of_range(const StructDesc& s, const FieldDesc& f, std::string_view why) {
  return Error::invalid_argument("{}: field '{}' ({} bits at bit {}): {}", s.name, f.name,
                                 unsigned(f.size), unsigned(f.start), why);
}

bool fits_unsigned(uint64_t v, unsigned size) { return size >= 64 || (v >> size) == 0; }

bool fits_signed(int64_t v, unsigned size) {
  if (size >= 64) return true;
  int64_t lo = -(int64_t{1} << (size - 1));
  int64_t hi = (int64_t{1} << (size - 1)) - 1;
  return v >= lo && v <= hi;
}

bool enum_has(std::span<const EnumValue> values, uint64_t v) {
  for (const EnumValue& e : values)
    if (e.value == v) return true;
  return false;
}

}  // namespace

std::string_view enum_name(std::span<const EnumValue> values, uint64_t value) {
  for (const EnumValue& e : values)
    if (e.value == value) return e.name;
  return {};
}

namespace {

enum class Problem : uint8_t { none, zero, misaligned, not_pow2, not_bool, no_fit, not_enum, wide_float, bad_log2 };

// The raw bits of a logical value, or a Problem; no allocation, so pack and
// unpack stay cheap and only a failure pays for its message.
Problem encode_raw(const FieldDesc& f, uint64_t value, uint64_t& raw) {
  raw = value;
  switch (f.modifier) {
    case Modifier::none: break;
    case Modifier::minus_one:
      if (value == 0) return Problem::zero;
      raw = value - 1;
      break;
    case Modifier::shr:
      if (value & low_mask(f.shift)) return Problem::misaligned;
      raw = value >> f.shift;
      break;
    case Modifier::log2:
      if (!is_pow2(value)) return Problem::not_pow2;
      raw = log2_floor(value);
      break;
  }
  switch (f.type) {
    case FieldType::boolean:
      if (value > 1) return Problem::not_bool;
      break;
    case FieldType::sint:
      if (!fits_signed(int64_t(raw), f.size)) return Problem::no_fit;
      raw &= low_mask(f.size);
      return Problem::none;
    case FieldType::enumeration:
      if (!enum_has(f.values, value)) return Problem::not_enum;
      break;
    case FieldType::float32:
      if (value >> 32) return Problem::wide_float;
      break;
    default: break;
  }
  return fits_unsigned(raw, f.size) ? Problem::none : Problem::no_fit;
}

Problem decode_raw(const FieldDesc& f, uint64_t raw, uint64_t& value) {
  value = raw;
  if (f.type == FieldType::enumeration && !enum_has(f.values, raw)) return Problem::not_enum;
  if (f.type == FieldType::sint) {
    value = uint64_t(sign_extend(raw, f.size));
    return Problem::none;
  }
  switch (f.modifier) {
    case Modifier::none: break;
    case Modifier::minus_one: value = raw + 1; break;
    case Modifier::shr: value = raw << f.shift; break;
    case Modifier::log2:
      if (raw >= 64) return Problem::bad_log2;
      value = uint64_t{1} << raw;
      break;
  }
  return Problem::none;
}

Error encode_error(const StructDesc& s, const FieldDesc& f, uint64_t value, Problem p) {
  switch (p) {
    case Problem::zero: return out_of_range(s, f, "0 is not encodable (the field stores value - 1)");
    case Problem::misaligned:
      return out_of_range(s, f, fmt::format("0x{:x} is not a multiple of {}", value,
                                            uint64_t{1} << f.shift));
    case Problem::not_pow2: return out_of_range(s, f, fmt::format("{} is not a power of two", value));
    case Problem::not_bool: return out_of_range(s, f, fmt::format("{} is not a boolean", value));
    case Problem::not_enum:
      return out_of_range(s, f, fmt::format("{} is not a value of the enum", value));
    case Problem::wide_float: return out_of_range(s, f, "float bits wider than 32");
    default: break;
  }
  if (f.type == FieldType::sint) return out_of_range(s, f, fmt::format("{} does not fit", int64_t(value)));
  return out_of_range(s, f, fmt::format("{} does not fit", value));
}

Error decode_error(const StructDesc& s, const FieldDesc& f, uint64_t raw, Problem p) {
  if (p == Problem::bad_log2)
    return Error::decode("{}: field '{}' holds log2 {} (>= 64)", s.name, f.name, raw);
  return Error::decode("{}: field '{}' holds {}, not a value of its enum", s.name, f.name, raw);
}

}  // namespace

Result<uint64_t> encode_field(const StructDesc& s, const FieldDesc& f, uint64_t value) {
  uint64_t raw;
  Problem p = encode_raw(f, value, raw);
  if (p != Problem::none) return encode_error(s, f, value, p);
  return raw;
}

Result<uint64_t> decode_field(const StructDesc& s, const FieldDesc& f, uint64_t raw) {
  uint64_t value;
  Problem p = decode_raw(f, raw, value);
  if (p != Problem::none) return decode_error(s, f, raw, p);
  return value;
}

uint64_t get_raw(std::span<const uint32_t> words, unsigned start, unsigned size) {
  if (start % 32 + size <= 32) return bits(words[start / 32], start % 32, size);
  uint64_t out = 0;
  unsigned done = 0;
  while (done < size) {
    unsigned bit = start + done;
    unsigned take = std::min(32 - bit % 32, size - done);
    out |= bits(words[bit / 32], bit % 32, take) << done;
    done += take;
  }
  return out;
}

void put_raw(std::span<uint32_t> words, unsigned start, unsigned size, uint64_t raw) {
  if (start % 32 + size <= 32) {
    words[start / 32] = uint32_t(set_bits(words[start / 32], start % 32, size, raw));
    return;
  }
  unsigned done = 0;
  while (done < size) {
    unsigned bit = start + done;
    unsigned take = std::min(32 - bit % 32, size - done);
    words[bit / 32] = uint32_t(set_bits(words[bit / 32], bit % 32, take, raw >> done));
    done += take;
  }
}

// Bits of word `w` that field `f` covers.
static uint32_t field_mask_in_word(const FieldDesc& f, unsigned w) {
  unsigned lo = std::max<unsigned>(f.start, w * 32);
  unsigned hi = std::min<unsigned>(unsigned(f.start) + f.size, w * 32 + 32);
  return lo < hi ? uint32_t(low_mask(hi - lo) << (lo - w * 32)) : 0;
}

Status pack_into(const StructDesc& s, std::span<const uint64_t> values, std::span<uint32_t> words) {
  if (values.size() != s.fields.size())
    return Error::invalid_argument("{}: {} values given for {} fields", s.name, values.size(),
                                   s.fields.size());
  if (words.size() != s.words)
    return Error::invalid_argument("{}: {} words of room, the struct has {}", s.name,
                                   words.size(), unsigned(s.words));
  std::fill(words.begin(), words.end(), 0u);
  for (size_t i = 0; i < s.fields.size(); ++i) {
    const FieldDesc& f = s.fields[i];
    uint64_t raw;
    if (Problem p = encode_raw(f, values[i], raw); p != Problem::none)
      return encode_error(s, f, values[i], p);
    put_raw(words, f.start, f.size, raw);
  }
  return {};
}

Status unpack_into(const StructDesc& s, std::span<const uint32_t> words, std::span<uint64_t> values) {
  if (words.size() != s.words)
    return Error::decode("{}: {} words given, the struct has {}", s.name, words.size(),
                         unsigned(s.words));
  if (values.size() != s.fields.size())
    return Error::invalid_argument("{}: room for {} values, the struct has {} fields", s.name,
                                   values.size(), s.fields.size());
  for (unsigned w = 0; w < words.size(); ++w) {
    uint32_t covered = 0;
    for (const FieldDesc& f : s.fields) covered |= field_mask_in_word(f, w);
    if (uint32_t stray = words[w] & ~covered)
      return Error::decode("{}: word {} has bits 0x{:08x} set outside every field", s.name, w, stray);
  }
  for (size_t i = 0; i < s.fields.size(); ++i) {
    const FieldDesc& f = s.fields[i];
    uint64_t raw = get_raw(words, f.start, f.size);
    if (Problem p = decode_raw(f, raw, values[i]); p != Problem::none)
      return decode_error(s, f, raw, p);
  }
  return {};
}

Result<std::vector<uint32_t>> pack(const StructDesc& s, std::span<const uint64_t> values) {
  std::vector<uint32_t> words(s.words, 0);
  AGX_CHECK(pack_into(s, values, words));
  return words;
}

Result<Values> unpack(const StructDesc& s, std::span<const uint32_t> words) {
  Values out(s.fields.size());
  AGX_CHECK(unpack_into(s, words, out));
  return out;
}

std::string format_value(const FieldDesc& f, uint64_t value) {
  switch (f.type) {
    case FieldType::boolean:
      return value ? "true" : "false";
    case FieldType::uint:
      return fmt::format("{}", value);
    case FieldType::sint:
      return fmt::format("{}", int64_t(value));
    case FieldType::enumeration: {
      std::string_view name = enum_name(f.values, value);
      return name.empty() ? fmt::format("unknown {}", value) : std::string(name);
    }
    case FieldType::float32:
      return fmt::format("{}", from_bits(value));
    case FieldType::address:
    case FieldType::hex:
      return fmt::format("0x{:x}", value);
  }
  return {};
}

std::string print(const StructDesc& s, std::span<const uint64_t> values, unsigned indent) {
  std::string out;
  for (size_t i = 0; i < s.fields.size() && i < values.size(); ++i)
    out += fmt::format("{:{}}{}: {}\n", "", indent, s.fields[i].name,
                       format_value(s.fields[i], values[i]));
  return out;
}

}  // namespace agx::cmdstream
