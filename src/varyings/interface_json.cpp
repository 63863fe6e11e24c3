// The IFACE JSON format of `agx varyings` (docs/varyings.md):
//   {"varyings": [{"name": "uv", "components": 2, "bits": 32, "interp": "smooth"}],
//    "point_size": true, "layer_viewport": false, "clip_distances": 0,
//    "fragcoord_z": false}
// Unknown keys are errors, so a typo never passes silently.
#include <nlohmann/json.hpp>

#include <fmt/format.h>

#include "varyings/varyings.h"

namespace agx::varyings {

using nlohmann::json;

namespace {

Status only_keys(const json& obj, std::initializer_list<std::string_view> keys,
                 const std::string& where) {
  for (const auto& [key, value] : obj.items()) {
    bool known = false;
    for (std::string_view k : keys) known |= (key == k);
    if (!known) return Error::parse("{}: unknown key '{}'", where, key);
  }
  return {};
}

Result<bool> get_bool(const json& obj, const char* key, const std::string& where) {
  if (!obj.contains(key)) return false;
  if (!obj[key].is_boolean()) return Error::parse("{}.{}: expected true or false", where, key);
  return obj[key].get<bool>();
}

Result<unsigned> get_uint(const json& obj, const char* key, const std::string& where,
                          unsigned fallback, unsigned max) {
  if (!obj.contains(key)) return fallback;
  const json& v = obj[key];
  if (!v.is_number_integer() || v.get<int64_t>() < 0 || v.get<int64_t>() > int64_t(max))
    return Error::parse("{}.{}: expected an integer 0..{}, got {}", where, key, max, v.dump());
  return unsigned(v.get<int64_t>());
}

Result<Interp> parse_interp(const json& obj, const std::string& where) {
  if (!obj.contains("interp")) return Interp::smooth;
  const json& v = obj["interp"];
  if (v == "smooth") return Interp::smooth;
  if (v == "flat") return Interp::flat;
  if (v == "linear") return Interp::linear;
  return Error::parse("{}.interp: expected \"smooth\", \"flat\" or \"linear\", got {}", where,
                      v.dump());
}

Result<Varying> parse_varying(const json& obj, const std::string& where) {
  if (!obj.is_object()) return Error::parse("{}: expected an object", where);
  AGX_CHECK(only_keys(obj, {"name", "components", "bits", "interp"}, where));
  Varying v;
  if (!obj.contains("name") || !obj["name"].is_string())
    return Error::parse("{}.name: expected a string", where);
  v.name = obj["name"].get<std::string>();
  if (!obj.contains("components")) return Error::parse("{}: missing \"components\"", where);
  AGX_TRY(v.components, get_uint(obj, "components", where, 0, 4));
  if (v.components == 0) return Error::parse("{}.components: expected 1..4, got 0", where);
  AGX_TRY(v.bits, get_uint(obj, "bits", where, 32, 32));
  if (v.bits != 32 && v.bits != 16)
    return Error::parse("{}.bits: expected 32 or 16, got {}", where, v.bits);
  AGX_TRY(v.interp, parse_interp(obj, where));
  return v;
}

}  // namespace

Result<Interface> parse_interface_json(std::string_view text) {
  json doc = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded()) return Error::parse("IFACE: not valid JSON");
  if (!doc.is_object()) return Error::parse("IFACE: expected a JSON object");
  AGX_CHECK(only_keys(doc, {"varyings", "point_size", "layer_viewport", "clip_distances",
                            "fragcoord_z"}, "IFACE"));
  if (!doc.contains("varyings") || !doc["varyings"].is_array())
    return Error::parse("IFACE.varyings: expected a list");
  Interface iface;
  const json& list = doc["varyings"];
  for (size_t i = 0; i < list.size(); ++i) {
    AGX_TRY(Varying v, parse_varying(list[i], fmt::format("IFACE.varyings[{}]", i)));
    iface.varyings.push_back(std::move(v));
  }
  AGX_TRY(iface.point_size, get_bool(doc, "point_size", "IFACE"));
  AGX_TRY(iface.layer_viewport, get_bool(doc, "layer_viewport", "IFACE"));
  AGX_TRY(iface.fragcoord_z, get_bool(doc, "fragcoord_z", "IFACE"));
  AGX_TRY(iface.clip_distances, get_uint(doc, "clip_distances", "IFACE", 0, 16));
  return iface;
}

}  // namespace agx::varyings
