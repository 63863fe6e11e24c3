// The JSON line protocols of `agx pack --batch` / `agx unpack --batch`
// (docs/cmdstream.md): one request per line, one answer per line, a bad
// line answered with {"error": ...} and never stopping the rest.
#include <fmt/format.h>

#include "cmdstream/report.h"
#include "cmdstream/tables.h"
#include "util/hex.h"

namespace agx::cmdstream {

using ojson = nlohmann::ordered_json;

Result<const StructDesc*> struct_named(std::string_view name) {
  if (const StructDesc* s = find_struct(name)) return s;
  return Error::not_found("no struct named '{}' (agx structs lists them)", name);
}

Result<ojson> unpack_json(const StructDesc& s, std::span<const uint8_t> bytes) {
  if (bytes.size() != s.size_B)
    return Error::decode("{}: {} bytes given, the struct has {}", s.name, bytes.size(),
                         unsigned(s.size_B));
  AGX_TRY(Unpacked u, unpack(s, bytes));
  ojson out = {{"fields", fields_to_json(s, u.values)}};
  if (u.has_unknown_bits) out["unknown_bits"] = to_hex(u.unknown_bits);
  return out;
}

Result<std::vector<uint8_t>> pack_json(const StructDesc& s, const ojson& fields) {
  AGX_TRY(Values v, values_from_json(s, fields));
  return pack(s, v);
}

namespace {

std::string error_line(std::string_view message) {
  return ojson{{"error", message}}.dump(-1, ' ', false, ojson::error_handler_t::replace);
}

Result<ojson> parse_request(std::string_view line, const char* second) {
  ojson j = ojson::parse(line, nullptr, false);
  if (j.is_discarded()) return Error::parse("not a JSON object: {}", line.substr(0, 80));
  if (!j.is_object()) return Error::parse("expected a JSON object, got {}", j.dump().substr(0, 80));
  auto st = j.find("struct");
  if (st == j.end() || !st->is_string()) return Error::parse("missing \"struct\" (a string)");
  if (!j.contains(second)) return Error::parse("missing \"{}\"", second);
  return j;
}

Result<std::string> pack_line(std::string_view line) {
  AGX_TRY(ojson j, parse_request(line, "fields"));
  AGX_TRY(const StructDesc* s, struct_named(j["struct"].get<std::string>()));
  AGX_TRY(std::vector<uint8_t> bytes, pack_json(*s, j["fields"]));
  return ojson{{"hex", to_hex(bytes)}}.dump();
}

Result<std::string> unpack_line(std::string_view line) {
  AGX_TRY(ojson j, parse_request(line, "hex"));
  AGX_TRY(const StructDesc* s, struct_named(j["struct"].get<std::string>()));
  if (!j["hex"].is_string()) return Error::parse("\"hex\" must be a string");
  AGX_TRY(std::vector<uint8_t> bytes, parse_hex(j["hex"].get<std::string>()));
  AGX_TRY(ojson out, unpack_json(*s, bytes));
  return out.dump();
}

}  // namespace

std::string batch_pack_line(std::string_view line) {
  try {
    auto r = pack_line(line);
    return r.ok() ? *r : error_line(r.error().message());
  } catch (const std::exception& e) {  // nlohmann type errors on odd input
    return error_line(e.what());
  }
}

std::string batch_unpack_line(std::string_view line) {
  try {
    auto r = unpack_line(line);
    return r.ok() ? *r : error_line(r.error().message());
  } catch (const std::exception& e) {
    return error_line(e.what());
  }
}

}  // namespace agx::cmdstream
