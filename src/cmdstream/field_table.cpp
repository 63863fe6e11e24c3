// Pack and unpack driven by a StructDesc (see field_table.h).
#include "cmdstream/field_table.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstring>

#include "util/half.h"

namespace agx::cmdstream {

static_assert(std::endian::native == std::endian::little,
              "structs are loaded as little-endian words straight from memory");

namespace {

enum class Problem : uint8_t {
  none, below_min, misaligned, not_pow2, not_bool, no_fit, wide_float, not_exact, negative_lod, nan_lod
};

bool fits_unsigned(uint64_t v, unsigned size) { return size >= 64 || (v >> size) == 0; }

bool fits_signed(int64_t v, unsigned size) {
  if (size >= 64) return true;
  int64_t lo = -(int64_t{1} << (size - 1));
  int64_t hi = (int64_t{1} << (size - 1)) - 1;
  return v >= lo && v <= hi;
}

// The raw bits of a logical value, or a Problem; no allocation, so pack
// stays cheap and only a failure pays for its message.
Problem encode_raw(const FieldDesc& f, uint64_t value, uint64_t& raw) {
  raw = 0;
  if (f.exact && value != f.exact_value) return Problem::not_exact;
  switch (f.type) {
    case FieldType::boolean:
      if (value > 1) return Problem::not_bool;
      raw = value;
      return Problem::none;
    case FieldType::sint:
      if (!fits_signed(int64_t(value), f.size)) return Problem::no_fit;
      raw = value & low_mask(f.size);
      return Problem::none;
    case FieldType::float32:
      if (value >> 32) return Problem::wide_float;
      raw = value;
      return Problem::none;
    case FieldType::half: {
      if (value >> 32) return Problem::wide_float;
      float x = from_bits(value);
      if (std::isnan(x)) {  // keep sign and top payload bits, signaling or not
        uint32_t b = uint32_t(value);
        uint16_t h = uint16_t(((b >> 16) & 0x8000) | 0x7c00 | ((b >> 13) & 0x3ff));
        raw = (h & 0x3ff) ? h : (h | 0x200);
        return Problem::none;
      }
      uint16_t h = float_to_half(x);
      if (std::isfinite(x) && (h & 0x7fff) == 0x7c00) return Problem::no_fit;
      raw = h;
      return Problem::none;
    }
    case FieldType::lod: {
      if (value >> 32) return Problem::wide_float;
      float x = from_bits(value);
      if (std::isnan(x)) return Problem::nan_lod;
      if (x < 0) return Problem::negative_lod;
      double fixed = std::floor(double(x) * 64.0);
      if (fixed > double(low_mask(f.size))) return Problem::no_fit;
      raw = uint64_t(fixed);
      return Problem::none;
    }
    default: break;
  }
  raw = value;
  switch (f.modifier) {
    case Modifier::none: break;
    case Modifier::minus:
      if (value < f.arg) return Problem::below_min;
      raw = value - f.arg;
      break;
    case Modifier::shr:
      if (value & low_mask(f.arg)) return Problem::misaligned;
      raw = value >> f.arg;
      break;
    case Modifier::log2:
      if (!is_pow2(value)) return Problem::not_pow2;
      raw = log2_floor(value);
      break;
    case Modifier::groups: {
      uint64_t groups = value == 0 ? 1 : div_round_up(value, f.arg);
      if (value > (uint64_t(f.arg) << f.size)) return Problem::no_fit;
      raw = groups == (uint64_t{1} << f.size) ? 0 : groups;
      return Problem::none;
    }
  }
  return fits_unsigned(raw, f.size) ? Problem::none : Problem::no_fit;
}

// The largest logical value a field can hold, for error messages.
uint64_t max_logical(const FieldDesc& f) {
  uint64_t m = low_mask(f.size);
  switch (f.modifier) {
    case Modifier::minus: return m + f.arg < m ? ~uint64_t{0} : m + f.arg;
    case Modifier::shr: return f.size + f.arg >= 64 ? ~uint64_t{0} : m << f.arg;
    case Modifier::log2: return m >= 63 ? uint64_t{1} << 63 : uint64_t{1} << m;
    case Modifier::groups: return uint64_t(f.arg) << f.size;
    default: return m;
  }
}

Error encode_error(const StructDesc& s, const FieldDesc& f, uint64_t value, Problem p) {
  std::string why;
  switch (p) {
    case Problem::below_min:
      why = fmt::format("{} is below the minimum {} (the field stores value - {})", value, f.arg, f.arg);
      break;
    case Problem::misaligned:
      why = fmt::format("0x{:x} is not a multiple of {} (the field stores value >> {})", value,
                        uint64_t{1} << f.arg, f.arg);
      break;
    case Problem::not_pow2: why = fmt::format("{} is not a power of two (the field stores log2)", value); break;
    case Problem::not_bool: why = fmt::format("{} is not a boolean", value); break;
    case Problem::wide_float: why = "float bits wider than 32"; break;
    case Problem::not_exact: {
      std::string_view n = f.enumeration ? enum_name(*f.enumeration, f.exact_value) : "";
      why = n.empty() ? fmt::format("must be exactly 0x{:x}, got 0x{:x}", f.exact_value, value)
                      : fmt::format("must be exactly {} ({}), got {}", n, f.exact_value, value);
      break;
    }
    case Problem::nan_lod: why = "NaN is not a level of detail"; break;
    case Problem::negative_lod: why = fmt::format("{} is negative (unsigned 4:6 fixed point)", from_bits(value)); break;
    default:
      if (f.type == FieldType::sint)
        why = fmt::format("{} does not fit", int64_t(value));
      else if (f.type == FieldType::half)
        why = fmt::format("{} is out of the half-float range", from_bits(value));
      else if (f.type == FieldType::lod)
        why = fmt::format("{} is above the largest level of detail {}", from_bits(value),
                          double(low_mask(f.size)) / 64.0);
      else
        why = fmt::format("{} does not fit (largest {})", value, max_logical(f));
      break;
  }
  return Error::invalid_argument("{}: field '{}' ({} bits at bit {}): {}", s.name, f.name,
                                 unsigned(f.size), unsigned(f.start), why);
}

}  // namespace

Result<uint64_t> encode_field(const StructDesc& s, const FieldDesc& f, uint64_t value) {
  uint64_t raw;
  Problem p = encode_raw(f, value, raw);
  if (p != Problem::none) return encode_error(s, f, value, p);
  return raw;
}

uint64_t decode_half(uint64_t raw) {
  if (half_is_nan(uint16_t(raw)))  // the payload as is, signaling or not
    return ((raw & 0x8000) << 16) | 0x7f800000 | ((raw & 0x3ff) << 13);
  return to_bits(half_to_float(uint16_t(raw)));
}

void or_raw(uint32_t* words, unsigned start, unsigned size, uint64_t raw) {
  raw &= low_mask(size);
  unsigned done = 0;
  while (done < size) {
    unsigned bit = start + done;
    unsigned take = std::min(32 - bit % 32, size - done);
    words[bit / 32] |= uint32_t((raw >> done) & low_mask(take)) << (bit % 32);
    done += take;
  }
}

bool load_words(const StructDesc& s, std::span<const uint8_t> bytes, Words& w) {
  w.fill(0);
  if (bytes.size() < s.size_B) return false;
  std::memcpy(w.data(), bytes.data(), s.size_B);
  return true;
}

Status pack_into(const StructDesc& s, std::span<const uint64_t> values, std::span<uint8_t> out) {
  if (values.size() != s.fields.size())
    return Error::invalid_argument("{}: {} values given for {} fields", s.name, values.size(),
                                   s.fields.size());
  if (out.size() < s.size_B)
    return Error::invalid_argument("{}: {} bytes of room, the struct has {}", s.name, out.size(),
                                   unsigned(s.size_B));
  Words w{};
  for (size_t i = 0; i < s.fields.size(); ++i) {
    const FieldDesc& f = s.fields[i];
    uint64_t raw;
    if (Problem p = encode_raw(f, values[i], raw); p != Problem::none)
      return encode_error(s, f, values[i], p);
    or_raw(w.data(), f.start, f.size, raw);
  }
  std::memcpy(out.data(), w.data(), s.size_B);
  return {};
}

Result<std::vector<uint8_t>> pack(const StructDesc& s, std::span<const uint64_t> values) {
  std::vector<uint8_t> out(s.size_B, 0);
  AGX_CHECK(pack_into(s, values, out));
  return out;
}

Status unpack_into(const StructDesc& s, std::span<const uint8_t> bytes, std::span<uint64_t> values) {
  if (values.size() != s.fields.size())
    return Error::invalid_argument("{}: room for {} values, the struct has {} fields", s.name,
                                   values.size(), s.fields.size());
  Words w;
  if (!load_words(s, bytes, w))
    return Error::decode("{}: {} bytes given, the struct has {}", s.name, bytes.size(),
                         unsigned(s.size_B));
  for (size_t i = 0; i < s.fields.size(); ++i) {
    const FieldDesc& f = s.fields[i];
    values[i] = decode_field(f, get_raw(w.data(), f.start, f.size));
  }
  return {};
}

std::vector<uint8_t> covered_bits(const StructDesc& s) {
  Words w{};
  for (const FieldDesc& f : s.fields) or_raw(w.data(), f.start, f.size, low_mask(value_bits(f)));
  std::vector<uint8_t> out(s.size_B);
  std::memcpy(out.data(), w.data(), s.size_B);
  return out;
}

Result<Unpacked> unpack(const StructDesc& s, std::span<const uint8_t> bytes) {
  Unpacked u;
  u.values.resize(s.fields.size());
  AGX_CHECK(unpack_into(s, bytes, u.values));
  u.unknown_bits = covered_bits(s);
  for (size_t i = 0; i < s.size_B; ++i) {
    u.unknown_bits[i] = uint8_t(bytes[i] & ~u.unknown_bits[i]);
    u.has_unknown_bits |= u.unknown_bits[i] != 0;
  }
  for (size_t i = 0; i < s.fields.size(); ++i)
    if (s.fields[i].exact && u.values[i] != s.fields[i].exact_value)
      u.exact_mismatches.push_back(uint16_t(i));
  return u;
}

Status check_strict(const StructDesc& s, std::span<const uint8_t> bytes) {
  AGX_TRY(Unpacked u, unpack(s, bytes));
  if (u.has_unknown_bits) {
    std::string hex;
    for (uint8_t b : u.unknown_bits) hex += fmt::format("{:02x}", b);
    return Error::decode("{}: bits {} set outside every field", s.name, hex);
  }
  for (size_t i = 0; i < s.fields.size(); ++i) {
    const FieldDesc& f = s.fields[i];
    if (f.enumeration && enum_name(*f.enumeration, u.values[i]).empty())
      return Error::decode("{}: field '{}' holds {}, not a value of its enum", s.name, f.name,
                           u.values[i]);
    if (f.exact && u.values[i] != f.exact_value)
      return Error::decode("{}: field '{}' holds {}, not its exact value {}", s.name, f.name,
                           u.values[i], f.exact_value);
  }
  return {};
}

std::string_view enum_name(const EnumDesc& e, uint64_t value) {
  for (const EnumValue& v : e.values)
    if (v.value == value) return v.name;
  return {};
}

const EnumValue* enum_value(const EnumDesc& e, std::string_view name) {
  for (const EnumValue& v : e.values)
    if (v.name == name) return &v;
  auto same = [](std::string_view a, std::string_view b) {
    return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
             return std::tolower(static_cast<unsigned char>(x)) ==
                    std::tolower(static_cast<unsigned char>(y));
           });
  };
  for (const EnumValue& v : e.values)
    if (same(v.name, name)) return &v;
  return nullptr;
}

std::string modifier_string(const FieldDesc& f) {
  switch (f.modifier) {
    case Modifier::none: return "";
    case Modifier::minus: return fmt::format("minus({})", f.arg);
    case Modifier::shr: return fmt::format("shr({})", f.arg);
    case Modifier::log2: return "log2";
    case Modifier::groups: return fmt::format("groups({})", f.arg);
  }
  return "";
}

std::string_view type_string(const FieldDesc& f) {
  switch (f.type) {
    case FieldType::boolean: return "bool";
    case FieldType::uint: return "uint";
    case FieldType::sint: return "int";
    case FieldType::hex: return "hex";
    case FieldType::address: return "address";
    case FieldType::enumeration: return f.enumeration ? f.enumeration->name : "enum";
    case FieldType::float32: return "float";
    case FieldType::half: return "half";
    case FieldType::lod: return "lod";
  }
  return "";
}

}  // namespace agx::cmdstream
