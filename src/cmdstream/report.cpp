// Text and JSON presentation of struct values.
#include "cmdstream/report.h"

#include <fmt/format.h>

#include <cmath>

#include "util/hex.h"

namespace agx::cmdstream {

using ojson = nlohmann::ordered_json;

std::string format_value(const FieldDesc& f, uint64_t value) {
  switch (f.type) {
    case FieldType::boolean: return value ? "true" : "false";
    case FieldType::uint: return fmt::format("{}", value);
    case FieldType::sint: return fmt::format("{}", int64_t(value));
    case FieldType::enumeration: {
      std::string_view name = enum_name(*f.enumeration, value);
      return name.empty() ? fmt::format("unknown {}", value) : std::string(name);
    }
    case FieldType::float32:
    case FieldType::half:
    case FieldType::lod: return fmt::format("{}", from_bits(value));
    case FieldType::address:
    case FieldType::hex: return fmt::format("0x{:x}", value);
  }
  return {};
}

std::string print(const StructDesc& s, std::span<const uint64_t> values, unsigned indent) {
  std::string out;
  for (size_t i = 0; i < s.fields.size() && i < values.size(); ++i) {
    const FieldDesc& f = s.fields[i];
    out += fmt::format("{:{}}{}: {}", "", indent, f.name, format_value(f, values[i]));
    if (f.exact && values[i] != f.exact_value)
      out += fmt::format(" (expected {})", format_value(f, f.exact_value));
    out += '\n';
  }
  return out;
}

std::string print(const StructDesc& s, const Unpacked& u, unsigned indent) {
  std::string out = print(s, u.values, indent);
  if (u.has_unknown_bits) out += fmt::format("{:{}}Unknown bits: {}\n", "", indent, to_hex(u.unknown_bits));
  return out;
}

ojson value_to_json(const FieldDesc& f, uint64_t value) {
  switch (f.type) {
    case FieldType::boolean: return value != 0;
    case FieldType::sint: return int64_t(value);
    case FieldType::enumeration: {
      std::string_view name = enum_name(*f.enumeration, value);
      if (name.empty()) return value;
      return std::string(name);
    }
    case FieldType::float32:
    case FieldType::half:
    case FieldType::lod: {
      float x = from_bits(value);
      if (std::isnan(x)) return "nan";
      if (std::isinf(x)) return x > 0 ? "inf" : "-inf";
      return double(x);
    }
    default: return value;
  }
}

namespace {

Error bad_value(const StructDesc& s, const FieldDesc& f, std::string_view why) {
  return Error::invalid_argument("{}: field '{}': {}", s.name, f.name, why);
}

}  // namespace

Result<uint64_t> value_from_json(const StructDesc& s, const FieldDesc& f, const ojson& j) {
  switch (f.type) {
    case FieldType::boolean:
      if (j.is_boolean()) return uint64_t(j.get<bool>());
      if (j.is_number_unsigned() && j.get<uint64_t>() <= 1) return j.get<uint64_t>();
      return bad_value(s, f, fmt::format("expected true or false, got {}", j.dump()));
    case FieldType::float32:
    case FieldType::half:
    case FieldType::lod: {
      if (j.is_number()) return to_bits(float(j.get<double>()));
      if (j.is_string()) {
        std::string t = j.get<std::string>();
        if (t == "nan") return to_bits(NAN);
        if (t == "inf") return to_bits(INFINITY);
        if (t == "-inf") return to_bits(-INFINITY);
      }
      return bad_value(s, f, fmt::format("expected a number, got {}", j.dump()));
    }
    case FieldType::enumeration:
      if (j.is_string()) {
        std::string t = j.get<std::string>();
        if (const EnumValue* v = enum_value(*f.enumeration, t)) return uint64_t(v->value);
        return bad_value(s, f, fmt::format("'{}' is not a value of enum '{}'", t, f.enumeration->name));
      }
      [[fallthrough]];
    default:
      if (j.is_number_unsigned()) return j.get<uint64_t>();
      if (j.is_number_integer()) {
        if (f.type == FieldType::sint) return uint64_t(j.get<int64_t>());
        return bad_value(s, f, fmt::format("{} is negative", j.get<int64_t>()));
      }
      return bad_value(s, f, fmt::format("expected an integer{}, got {}",
                                         f.type == FieldType::enumeration ? " or a name" : "", j.dump()));
  }
}

ojson fields_to_json(const StructDesc& s, std::span<const uint64_t> values) {
  ojson out = ojson::object();
  for (size_t i = 0; i < s.fields.size() && i < values.size(); ++i)
    out[std::string(s.fields[i].name)] = value_to_json(s.fields[i], values[i]);
  return out;
}

Result<Values> values_from_json(const StructDesc& s, const ojson& fields) {
  if (!fields.is_object())
    return Error::invalid_argument("{}: fields must be a JSON object, got {}", s.name, fields.dump());
  Values v(s.fields.size());
  for (size_t i = 0; i < s.fields.size(); ++i) v[i] = default_value(s.fields[i]);
  for (const auto& [key, value] : fields.items()) {
    int i = field_index(s, key);
    if (i < 0) return Error::not_found("{}: no field named '{}'", s.name, key);
    AGX_TRY(v[size_t(i)], value_from_json(s, s.fields[size_t(i)], value));
  }
  return v;
}

ojson describe(const StructDesc& s) {
  ojson fields = ojson::array();
  for (const FieldDesc& f : s.fields) {
    ojson j = {{"name", f.name}, {"member", f.member}, {"start", f.start}, {"size", f.size},
               {"type", type_string(f)}};
    if (f.modifier != Modifier::none) j["modifier"] = modifier_string(f);
    if (f.exact) j["exact"] = value_to_json(f, f.exact_value);
    j["default"] = value_to_json(f, default_value(f));
    fields.push_back(std::move(j));
  }
  return {{"name", s.name}, {"id", s.id}, {"size_B", s.size_B}, {"fields", std::move(fields)}};
}

ojson describe(const EnumDesc& e) {
  ojson values = ojson::array();
  for (const EnumValue& v : e.values) values.push_back({{"name", v.name}, {"value", v.value}});
  return {{"name", e.name}, {"id", e.id}, {"values", std::move(values)}};
}

}  // namespace agx::cmdstream
