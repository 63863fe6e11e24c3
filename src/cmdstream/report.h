// Text and JSON presentation of struct values (the model is field_table.h).
#pragma once

#include <nlohmann/json.hpp>

#include <span>
#include <string>

#include "cmdstream/field_table.h"
#include "util/result.h"

namespace agx::cmdstream {

// The logical value as text: "true", "42", "0x1f", "Perspective", "1.5";
// an unnamed enum value reads "unknown 9".
std::string format_value(const FieldDesc& f, uint64_t value);
// One "Name: value" line per field, each prefixed by `indent` spaces; an
// exact field not holding its value adds "(expected X)".
std::string print(const StructDesc& s, std::span<const uint64_t> values, unsigned indent = 0);
// print() of an Unpacked, then "Unknown bits: HEX" when there are some.
std::string print(const StructDesc& s, const Unpacked& u, unsigned indent = 0);

// A field's logical value as JSON: true/false, an enum's name (a number
// when unnamed), a number for float/half/lod ("nan", "inf", "-inf" as
// strings), an integer otherwise.
nlohmann::ordered_json value_to_json(const FieldDesc& f, uint64_t value);
// The reverse; an error names the struct and the field.
Result<uint64_t> value_from_json(const StructDesc& s, const FieldDesc& f, const nlohmann::ordered_json& j);

// {"Field name": value, ...} for every field, in table order.
nlohmann::ordered_json fields_to_json(const StructDesc& s, std::span<const uint64_t> values);
// Logical values from a JSON object of fields: omitted fields take their
// default; an unknown name, a non-object or a bad value is an error.
Result<Values> values_from_json(const StructDesc& s, const nlohmann::ordered_json& fields);

// A struct's description: {"name", "size_B", "fields": [{"name", "start",
// "size", "type", "modifier"?, "exact"?, "default"}]}; an enum's:
// {"name", "values": [{"name", "value"}]}.
nlohmann::ordered_json describe(const StructDesc& s);
nlohmann::ordered_json describe(const EnumDesc& e);

}  // namespace agx::cmdstream
