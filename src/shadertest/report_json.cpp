// The probe records of `agx shader-test --report` as JSON (report.h): what
// the child process that ran a file hands to the parent that writes the page.
#include <limits>
#include <nlohmann/json.hpp>

#include "shadertest/report.h"

namespace agx::shadertest {

namespace {

const char* kind_name(ProbeFailure::Kind k) {
  switch (k) {
    case ProbeFailure::Kind::color: return "color";
    case ProbeFailure::Kind::integer: return "integer";
    case ProbeFailure::Kind::depth: return "depth";
  }
  return "color";
}

nlohmann::json rgba_json(const Rgba& v) { return nlohmann::json::array({v[0], v[1], v[2], v[3]}); }

Result<ProbeFailure> probe_from_json(const nlohmann::json& j, size_t index) {
  auto bad = [&](const char* what) { return Error::invalid_argument("probe record {}: {}", index, what); };
  if (!j.is_object()) return bad("not an object");
  ProbeFailure f;
  const std::string kind = j.value("kind", "");
  if (kind == "color") f.kind = ProbeFailure::Kind::color;
  else if (kind == "integer") f.kind = ProbeFailure::Kind::integer;
  else if (kind == "depth") f.kind = ProbeFailure::Kind::depth;
  else return bad("'kind' is not color, integer or depth");
  if (!j.contains("text") || !j["text"].is_string()) return bad("'text' is not a string");
  f.text = j["text"].get<std::string>();
  const auto& r = j.value("region", nlohmann::json());
  const auto& at = j.value("pixel", nlohmann::json());
  const auto& e = j.value("expected", nlohmann::json());
  const auto& o = j.value("observed", nlohmann::json());
  const auto& fb = j.value("framebuffer", nlohmann::json());
  auto ints = [](const nlohmann::json& a, size_t n) {
    if (!a.is_array() || a.size() != n) return false;
    for (const auto& v : a)
      if (!v.is_number_integer()) return false;
    return true;
  };
  // JSON has no NaN or infinity: the writer gives null for them.
  auto floats = [](const nlohmann::json& a) {
    if (!a.is_array() || a.size() != 4) return false;
    for (const auto& v : a)
      if (!v.is_number() && !v.is_null()) return false;
    return true;
  };
  auto value = [](const nlohmann::json& v) {
    return v.is_null() ? std::numeric_limits<float>::quiet_NaN() : v.get<float>();
  };
  if (!ints(r, 4)) return bad("'region' is not [x, y, w, h]");
  if (!ints(at, 2)) return bad("'pixel' is not [x, y]");
  if (!ints(fb, 2) || fb[0].get<int64_t>() <= 0 || fb[1].get<int64_t>() <= 0)
    return bad("'framebuffer' is not [width, height]");
  if (!floats(e) || !floats(o)) return bad("'expected' or 'observed' is not 4 numbers");
  if (!j.contains("channels") || !j["channels"].is_number_integer()) return bad("'channels' is not an integer");
  if (!j.contains("line") || !j["line"].is_number_unsigned()) return bad("'line' is not a line number");
  f.region = {r[0].get<int>(), r[1].get<int>(), r[2].get<int>(), r[3].get<int>()};
  f.x = at[0].get<int>();
  f.y = at[1].get<int>();
  for (int c = 0; c < 4; ++c) {
    f.expected[c] = value(e[c]);
    f.observed[c] = value(o[c]);
  }
  f.channels = j["channels"].get<int>();
  if (f.channels < 1 || f.channels > 4) return bad("'channels' is not 1 to 4");
  f.fb_width_px = fb[0].get<uint32_t>();
  f.fb_height_px = fb[1].get<uint32_t>();
  f.line = j["line"].get<unsigned>();
  return f;
}

}  // namespace

std::string probe_failures_json(const std::vector<ProbeFailure>& probes) {
  nlohmann::json a = nlohmann::json::array();
  for (const auto& f : probes) {
    a.push_back({{"kind", kind_name(f.kind)},
                 {"text", f.text},
                 {"region", {f.region.x, f.region.y, f.region.w, f.region.h}},
                 {"pixel", {f.x, f.y}},
                 {"expected", rgba_json(f.expected)},
                 {"observed", rgba_json(f.observed)},
                 {"channels", f.channels},
                 {"framebuffer", {f.fb_width_px, f.fb_height_px}},
                 {"line", f.line}});
  }
  return a.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

Result<std::vector<ProbeFailure>> parse_probe_failures(std::string_view json) {
  nlohmann::json a = nlohmann::json::parse(json, nullptr, /*allow_exceptions=*/false);
  if (a.is_discarded()) return Error::invalid_argument("probe records: not JSON");
  if (!a.is_array()) return Error::invalid_argument("probe records: not a JSON array");
  std::vector<ProbeFailure> out;
  for (size_t i = 0; i < a.size(); ++i) {
    AGX_TRY(ProbeFailure f, probe_from_json(a[i], i));
    out.push_back(std::move(f));
  }
  return out;
}

}  // namespace agx::shadertest
