// Names of tilings, and the human-readable and JSON descriptions of a layout
// (the formats `agx layout` prints; documented in docs/layout.md).
#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "layout/layout.h"

namespace agx::layout {

const char* to_string(Tiling t) {
  switch (t) {
    case Tiling::linear:
      return "linear";
    case Tiling::gpu:
      return "gpu";
    case Tiling::twiddled:
      return "twiddled";
  }
  return "?";
}

std::string tiling_name(Tiling t, bool compressed) {
  return compressed ? fmt::format("{}_compressed", to_string(t)) : to_string(t);
}

Result<TilingChoice> parse_tiling(std::string_view text) {
  for (Tiling t : {Tiling::linear, Tiling::gpu, Tiling::twiddled})
    for (bool c : {false, true})
      if (text == tiling_name(t, c)) return TilingChoice{t, c};
  return Error::parse(
      "unknown tiling '{}': expected linear, gpu, twiddled, gpu_compressed or twiddled_compressed",
      text);
}

std::string describe(const Layout& l) {
  const Request& r = l.request;
  const auto& f = l.format();
  std::string out = fmt::format(
      "{} {}x{}x{}, {} level{}{}, {} sample{}, {} tiling{}\n", f.name, r.width_px, r.height_px,
      r.depth_px, l.levels, l.levels == 1 ? "" : "s",
      r.levels != l.levels ? fmt::format(" ({} requested; the full chain is allocated)", r.levels)
                           : "",
      r.sample_count_sa, r.sample_count_sa == 1 ? "" : "s", tiling_name(r.tiling, r.compressed),
      r.mipmapped_z ? ", mipmapped Z" : "");
  out += fmt::format("element: {} B ({}x{} px block{})\n", l.bytes_per_element_B, f.block_width_px,
                     f.block_height_px,
                     r.sample_count_sa > 1 ? fmt::format(" x {} samples", r.sample_count_sa) : "");
  if (r.tiling == Tiling::linear) out += fmt::format("linear stride: {} B\n", l.linear_stride_B);
  out +=
      fmt::format("{:>5}  {:>12}  {:>12}  {:>11}  {:>9}  {:>11}{}\n", "level", "offset_B", "size_B",
                  "size_px", "tile_el", "stride_el", r.compressed ? "  metadata_B" : "");
  for (uint32_t i = 0; i < l.levels; ++i) {
    std::string meta;
    if (r.compressed)
      meta = l.level_allocated_compressed(i)
                 ? fmt::format("  {:>10}", fmt::format("0x{:x}", l.metadata_level_offsets_B[i]))
                 : fmt::format("  {:>10}", "-");
    out += fmt::format("{:>5}  {:>12}  {:>12}  {:>11}  {:>9}  {:>11}{}\n", i,
                       fmt::format("0x{:x}", l.level_offsets_B[i]), l.level_size_B(i),
                       fmt::format("{}x{}", l.level_width_px(i), l.level_height_px(i)),
                       fmt::format("{}x{}", l.tile_el[i].width_el, l.tile_el[i].height_el),
                       l.stride_el[i], meta);
  }
  out += fmt::format("miptree: {} B per layer\n", l.level_offsets_B[l.levels]);
  out += fmt::format("layer stride: {} B (0x{:x}), page-aligned layers: {}\n", l.layer_stride_B,
                     l.layer_stride_B, l.page_aligned_layers ? "yes" : "no");
  if (r.compressed)
    out += fmt::format("metadata: offset {} B (0x{:x}), {} B per layer, {} level{}\n",
                       l.metadata_offset_B, l.metadata_offset_B, l.metadata_layer_stride_B,
                       l.metadata_levels, l.metadata_levels == 1 ? "" : "s");
  else
    out += "metadata: none\n";
  out +=
      fmt::format("sparse: {} folio{} per layer, table {} B; mip tail from level {}, stride {} B\n",
                  l.sparse_folios_per_layer, l.sparse_folios_per_layer == 1 ? "" : "s",
                  l.sparse_table_size_B, l.mip_tail_first_level, l.mip_tail_stride_B);
  out += fmt::format("total: {} B (0x{:x})\n", l.size_B, l.size_B);
  return out;
}

std::string to_json(const Layout& l, int indent) {
  const Request& r = l.request;
  nlohmann::ordered_json j;
  j["format"] = l.format().name;
  j["width_px"] = r.width_px;
  j["height_px"] = r.height_px;
  j["depth_px"] = r.depth_px;
  j["levels"] = l.levels;
  j["requested_levels"] = r.levels;
  j["samples"] = r.sample_count_sa;
  j["tiling"] = to_string(r.tiling);
  j["compressed"] = r.compressed;
  j["mipmapped_z"] = r.mipmapped_z;
  j["bytes_per_element_B"] = l.bytes_per_element_B;
  j["size_B"] = l.size_B;
  j["layer_stride_B"] = l.layer_stride_B;
  j["page_aligned_layers"] = l.page_aligned_layers;
  j["linear_stride_B"] = l.linear_stride_B;
  j["metadata_offset_B"] = l.metadata_offset_B;
  j["metadata_layer_stride_B"] = l.metadata_layer_stride_B;
  j["sparse_folios_per_layer"] = l.sparse_folios_per_layer;
  j["sparse_table_size_B"] = l.sparse_table_size_B;
  j["mip_tail_first_level"] = l.mip_tail_first_level;
  j["mip_tail_stride_B"] = l.mip_tail_stride_B;
  auto levels = nlohmann::ordered_json::array();
  for (uint32_t i = 0; i < l.levels; ++i) {
    nlohmann::ordered_json e;
    e["level"] = i;
    e["offset_B"] = l.level_offsets_B[i];
    e["size_B"] = l.level_size_B(i);
    e["width_px"] = l.level_width_px(i);
    e["height_px"] = l.level_height_px(i);
    e["tile_width_el"] = l.tile_el[i].width_el;
    e["tile_height_el"] = l.tile_el[i].height_el;
    e["stride_el"] = l.stride_el[i];
    if (l.level_allocated_compressed(i))
      e["metadata_offset_B"] = l.metadata_level_offsets_B[i];
    else
      e["metadata_offset_B"] = nullptr;
    levels.push_back(std::move(e));
  }
  j["level_info"] = std::move(levels);
  return j.dump(indent);
}

}  // namespace agx::layout
