// The report of `agx varyings`: vertex outputs, slots, bindings and packed
// words of an interface, as text for the eye and as JSON for tools.
#include <nlohmann/json.hpp>

#include <fmt/format.h>

#include "cmdstream/cmdstream.h"
#include "varyings/varyings.h"

namespace agx::varyings {

namespace cs = agx::cmdstream;
using nlohmann::ordered_json;

namespace {

std::string hex32(uint32_t w) { return fmt::format("0x{:08x}", w); }

// "uv.x", "col.xy" (a pair), "col.z" (a pair whose high half is unused).
std::string slot_name(const Slot& s, const Interface& iface) {
  static constexpr char kXyzw[] = "xyzw";
  switch (s.source) {
    case SlotSource::w: return "W";
    case SlotSource::z: return "Z";
    default: break;
  }
  const Varying& v = iface.varyings[s.varying];
  std::string out = v.name + "." + kXyzw[s.component];
  if (s.source == SlotSource::pair16 && s.component + 1 < v.components) out += kXyzw[s.component + 1];
  return out;
}

const char* source_name(SlotSource s) {
  switch (s) {
    case SlotSource::w: return "W";
    case SlotSource::z: return "Z";
    case SlotSource::varying32: return "varying32";
    case SlotSource::pair16: return "pair16";
  }
  return "?";
}

// The fields of a one-word struct that are not zero, "Name: value, ...".
std::string set_fields(const cs::StructDesc& s, uint32_t word) {
  auto v = cs::unpack(s, std::span(reinterpret_cast<const uint8_t*>(&word), 4));
  if (!v.ok()) return v.error().message();
  std::string out;
  for (size_t i = 0; i < s.fields.size(); ++i) {
    if (v->values[i] == 0) continue;
    out += fmt::format("{}{}: {}", out.empty() ? "" : ", ", s.fields[i].name,
                       cs::format_value(s.fields[i], v->values[i]));
  }
  return out.empty() ? "(all zero)" : out;
}

}  // namespace

Result<Report> make_report(const Interface& iface) {
  Report r;
  r.iface = iface;
  AGX_TRY(r.layout, layout_vertex_outputs(iface));
  AGX_TRY(r.slots, remap(r.layout.output_select, r.layout));
  AGX_TRY(r.bindings, compile_time_bindings(r.slots, iface));
  AGX_TRY(r.binding_words, pack_bindings(r.bindings));
  return r;
}

std::string report_text(const Report& r) {
  std::string out = fmt::format("vertex outputs: {} words\n", r.layout.output_count);
  for (const OutputRange& o : r.layout.outputs) {
    std::string what;
    if (o.varying >= 0) {
      const Varying& v = r.iface.varyings[o.varying];
      what = fmt::format("  ({}-bit {}, {} component{})", v.bits, to_string(v.interp), v.components,
                         v.components == 1 ? "" : "s");
    }
    out += fmt::format("  {:3}  {} word{}  {}{}\n", o.index, o.words, o.words == 1 ? " " : "s",
                       o.name, what);
  }
  out += fmt::format("slots: {} ({} 32-bit, {} 16-bit pairs)\n", r.slots.slots.size(),
                     r.slots.num_32bit_slots, r.slots.num_16bit_pairs);
  for (size_t s = 0; s < r.slots.slots.size(); ++s) {
    const Slot& slot = r.slots.slots[s];
    std::string from = slot.varying >= 0 ? fmt::format("  (vertex output {})", slot.vertex_output) : "";
    out += fmt::format("  {:3}  {}{}\n", s, slot_name(slot, r.iface), from);
  }
  out += fmt::format("cf bindings: {} coefficient registers\n", r.bindings.num_cf);
  for (size_t i = 0; i < r.bindings.bindings.size(); ++i) {
    const CfBinding& b = r.bindings.bindings[i];
    std::string range = b.components == 1 ? fmt::format("cf{}", b.base_cf)
                                          : fmt::format("cf{}..{}", b.base_cf, b.base_cf + b.components - 1);
    out += fmt::format("  {:10} {}  {:13} {:12} slot {}\n", range, hex32(r.binding_words[i + 1]),
                       to_string(b.shade_model), to_string(b.source), b.base_slot);
  }
  const std::pair<const char*, std::pair<const cs::StructDesc*, uint32_t>> words[] = {
      {"Output Select", {&cs::kOutputSelect, r.layout.output_select}},
      {"Varying Counts 32", {&cs::kVaryingCounts, r.layout.varying_counts_32}},
      {"Varying Counts 16", {&cs::kVaryingCounts, r.layout.varying_counts_16}},
      {"VDM Vertex Outputs", {&cs::kVdmStateVertexOutputs, r.layout.vdm_vertex_outputs}},
      {"CF binding header", {&cs::kCfBindingHeader, r.binding_words[0]}},
  };
  out += "packed words:\n";
  for (const auto& [name, sw] : words)
    out += fmt::format("  {:19} {}  {}\n", name, hex32(sw.second), set_fields(*sw.first, sw.second));
  return out;
}

std::string report_json(const Report& r) {
  ordered_json j;
  j["vertex_outputs"] = ordered_json::array();
  for (const OutputRange& o : r.layout.outputs)
    j["vertex_outputs"].push_back({{"name", o.name}, {"index", o.index}, {"words", o.words}});
  j["output_count"] = r.layout.output_count;
  j["slots"] = ordered_json::array();
  for (size_t s = 0; s < r.slots.slots.size(); ++s) {
    const Slot& slot = r.slots.slots[s];
    ordered_json e{{"slot", s}, {"source", source_name(slot.source)}, {"name", slot_name(slot, r.iface)}};
    if (slot.varying >= 0) e["vertex_output"] = slot.vertex_output;
    j["slots"].push_back(e);
  }
  j["num_32bit_slots"] = r.slots.num_32bit_slots;
  j["num_16bit_pairs"] = r.slots.num_16bit_pairs;
  j["num_coefficient_registers"] = r.bindings.num_cf;
  j["cf_bindings"] = ordered_json::array();
  for (size_t i = 0; i < r.bindings.bindings.size(); ++i) {
    const CfBinding& b = r.bindings.bindings[i];
    j["cf_bindings"].push_back({{"base_cf", b.base_cf}, {"components", b.components},
                                {"shade_model", to_string(b.shade_model)},
                                {"source", to_string(b.source)}, {"base_slot", b.base_slot},
                                {"word", hex32(r.binding_words[i + 1])}});
  }
  ordered_json packed{{"output_select", hex32(r.layout.output_select)},
                      {"varying_counts_32", hex32(r.layout.varying_counts_32)},
                      {"varying_counts_16", hex32(r.layout.varying_counts_16)},
                      {"vdm_vertex_outputs", hex32(r.layout.vdm_vertex_outputs)},
                      {"cf_binding_header", hex32(r.binding_words[0])}};
  packed["cf_bindings"] = ordered_json::array();
  for (size_t i = 1; i < r.binding_words.size(); ++i) packed["cf_bindings"].push_back(hex32(r.binding_words[i]));
  j["packed"] = packed;
  return j.dump(2, ' ', false, ordered_json::error_handler_t::replace) + "\n";
}

}  // namespace agx::varyings
