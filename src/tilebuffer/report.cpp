#include "tilebuffer/report.h"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "cmdstream/typed.h"
#include "util/hex.h"

namespace agx::tilebuffer {
namespace {

std::string usc_shared_hex(const Layout& l) {
  auto bytes = cmdstream::pack(usc_shared(l));
  return bytes.ok() ? to_hex(*bytes) : std::string();
}

}  // namespace

std::string report_text(const Layout& l) {
  std::string out = fmt::format("tile {}x{} px, {} sample(s), {} B per sample, {} B of tile memory\n",
                                l.tile.width_px, l.tile.height_px, l.samples, l.sample_size_B, l.total_B());
  for (uint32_t rt = 0; rt < kMaxRenderTargets; ++rt) {
    if (!l.used(rt)) continue;
    const char* isa = format::to_string(l.physical(rt));
    if (l.spilled[rt])
      out += fmt::format("rt{}: {} ({}) spilled to memory\n", rt, format::name(*l.formats[rt]), isa);
    else
      out += fmt::format("rt{}: {} ({}) at {} B, {} B{}\n", rt, format::name(*l.formats[rt]), isa,
                         l.offset_B[rt], l.size_B(rt), l.supports_mask(rt) ? "" : ", no component mask");
  }
  out += fmt::format("USC Shared: {}\n", usc_shared_hex(l));
  return out;
}

std::string report_json(const Layout& l) {
  nlohmann::ordered_json j;
  j["tile_width_px"] = l.tile.width_px;
  j["tile_height_px"] = l.tile.height_px;
  j["samples"] = l.samples;
  j["sample_size_B"] = l.sample_size_B;
  j["total_B"] = l.total_B();
  auto rts = nlohmann::ordered_json::array();
  for (uint32_t rt = 0; rt < kMaxRenderTargets; ++rt) {
    if (!l.used(rt)) continue;
    nlohmann::ordered_json r;
    r["index"] = rt;
    r["format"] = format::name(*l.formats[rt]);
    r["isa_format"] = format::to_string(l.physical(rt));
    r["spilled"] = l.spilled[rt];
    r["offset_B"] = l.offset_B[rt];
    r["size_B"] = l.size_B(rt);
    r["supports_mask"] = l.supports_mask(rt);
    rts.push_back(r);
  }
  j["render_targets"] = rts;
  j["usc_shared"] = usc_shared_hex(l);
  return j.dump(2) + "\n";
}

}  // namespace agx::tilebuffer
