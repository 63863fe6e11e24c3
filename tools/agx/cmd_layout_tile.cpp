// `agx tile`: tile a generated image into a layout, detile it back, check
// that every byte survived, cross-check the tiled bytes against the element
// address function, and show where the first elements of a tile land (the
// Morton order inside the tile).
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "command.h"
#include "util/printable.h"
#include "layout/layout.h"

namespace AGX_UNITY_ID {

using agx::layout::Layout;

struct Options {
  std::string format = "R8G8B8A8_UNORM", size = "256x256", tiling = "gpu";
  uint32_t levels = 1, level = 0, rows = 4, cols = 8;
};

// A byte of element (x, y): distinct for nearby elements, so any misplaced
// element shows.
uint8_t pattern(uint32_t x, uint32_t y, uint32_t byte) {
  uint32_t v = (x * 0x9E3779B1u) ^ (y * 0x85EBCA77u) ^ (byte * 0xC2B2AE3Du);
  return static_cast<uint8_t>(v ^ (v >> 13) ^ (v >> 24));
}

double ms_since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t).count();
}

// Every element's bytes must sit at element_address_B in the tiled image.
uint64_t cross_check(const Layout& l, uint32_t level, const std::vector<uint8_t>& image,
                     uint32_t w_el, uint32_t h_el) {
  const auto& f = l.format();
  uint64_t bad = 0;
  for (uint32_t y = 0; y < h_el; ++y)
    for (uint32_t x = 0; x < w_el; ++x) {
      auto a =
          agx::layout::element_address_B(l, x * f.block_width_px, y * f.block_height_px, 0, level);
      for (uint32_t b = 0; a.ok() && b < l.bytes_per_element_B; ++b)
        bad += image[*a + b] != pattern(x, y, b);
    }
  return bad;
}

void show_tile_order(const Layout& l, uint32_t level, const Options& o) {
  const auto t = l.tile_el[level];
  const uint32_t rows = std::min({o.rows, t.height_el, l.level_height_el(level)});
  const uint32_t cols = std::min({o.cols, t.width_el, l.level_width_el(level)});
  fmt::print(
      "first {} rows x {} columns of tile (0, 0): element index in the tile (Morton order),\n"
      "byte offset from the level start below\n",
      rows, cols);
  std::string header = "     ";
  for (uint32_t x = 0; x < cols; ++x) header += fmt::format("{:>7}", fmt::format("x={}", x));
  fmt::print("{}\n", header);
  for (uint32_t y = 0; y < rows; ++y) {
    std::string idx = fmt::format("y={:<3}", y), off = "     ";
    for (uint32_t x = 0; x < cols; ++x) {
      uint64_t el = agx::layout::tiled_offset_el(l, level, x, y);
      idx += fmt::format("{:>7}", el);
      off += fmt::format("{:>7}", fmt::format("0x{:x}", el * l.bytes_per_element_B));
    }
    fmt::print("{}\n{}\n", idx, off);
  }
}

void run(const Options& o) {
  agx::layout::Request r;
  auto f = agx::format::find_format(o.format);
  if (!f.ok()) agx::cli::fail(f.error());
  r.format = *f;
  // Exactly WxH: tile works on one 2D image, so a depth is refused rather
  // than dropped.
  unsigned w = 0, h = 0;
  int used = -1;
  const bool digits_only = o.size.find_first_not_of("0123456789x") == std::string::npos;
  if (!digits_only || std::sscanf(o.size.c_str(), "%ux%u%n", &w, &h, &used) != 2 || used != int(o.size.size()))
    agx::cli::fail(fmt::format("tile: --size '{}' must be WxH (one 2D image; no depth)", agx::printable(o.size)));
  r.width_px = w;
  r.height_px = h;
  r.levels = o.levels;
  auto t = agx::layout::parse_tiling(o.tiling);
  if (!t.ok()) agx::cli::fail(t.error());
  r.tiling = t->tiling;
  r.compressed = t->compressed;
  auto l = agx::layout::make_layout(r);
  if (!l.ok()) agx::cli::fail(l.error());
  if (o.level >= l->levels)
    agx::cli::fail(
        fmt::format("tile: level {} out of range: the image has {} levels", o.level, l->levels));
  const uint32_t E = l->bytes_per_element_B, w_el = l->level_width_el(o.level),
                 h_el = l->level_height_el(o.level);
  const uint64_t pitch = uint64_t{w_el} * E;
  std::vector<uint8_t> linear(pitch * h_el), back(pitch * h_el), image(l->size_B);
  for (uint32_t yy = 0; yy < h_el; ++yy)
    for (uint32_t xx = 0; xx < w_el; ++xx)
      for (uint32_t b = 0; b < E; ++b) linear[yy * pitch + xx * E + b] = pattern(xx, yy, b);
  const auto rect = agx::layout::level_rect(*l, o.level);
  fmt::print("{} {}x{} px, {} tiling, level {} of {}: {}x{} elements of {} B, tile {}x{}\n",
             l->format().name, r.width_px, r.height_px,
             agx::layout::tiling_name(r.tiling, r.compressed), o.level, l->levels, w_el, h_el, E,
             l->tile_el[o.level].width_el, l->tile_el[o.level].height_el);
  auto t0 = std::chrono::steady_clock::now();
  if (auto st = agx::layout::tile(*l, o.level, 0, image, linear, pitch, rect); !st.ok())
    agx::cli::fail(st.error());
  double tile_ms = ms_since(t0);
  t0 = std::chrono::steady_clock::now();
  if (auto st = agx::layout::detile(*l, o.level, 0, image, back, pitch, rect); !st.ok())
    agx::cli::fail(st.error());
  double detile_ms = ms_since(t0);
  const bool equal = back == linear;
  const uint64_t misplaced = cross_check(*l, o.level, image, w_el, h_el);
  fmt::print("tiled {} B and detiled them back: bytes equal: {}\n", linear.size(),
             equal ? "yes" : "NO");
  fmt::print("tiled bytes at element_address_B: {} of {} wrong\n", misplaced, linear.size());
  fmt::print("time: tile {:.3f} ms, detile {:.3f} ms\n", tile_ms, detile_ms);
  show_tile_order(*l, o.level, o);
  if (!equal || misplaced) agx::cli::fail("tile: round trip FAILED");
}

void setup_tile(agx::cli::Args& sub) {
  auto o = std::make_shared<Options>();
  sub.add_option("--format,-f", o->format, "Gallium format name");
  sub.add_option("--size,-s", o->size, "WxH in pixels");
  sub.add_option("--levels,-l", o->levels, "Mip levels of the image");
  sub.add_option("--level", o->level, "Level to tile and detile");
  sub.add_option("--tiling,-t", o->tiling, "gpu or twiddled (or *_compressed)");
  sub.add_option("--rows", o->rows, "Rows of the tile order to show");
  sub.add_option("--cols", o->cols, "Columns of the tile order to show");
  sub.callback([o] { run(*o); });
}

agx::cli::Command kTile{"tile",
                        "Tile a generated image into a layout, detile it back, verify, and show "
                        "the Morton order inside a tile",
                        setup_tile};

}  // namespace AGX_UNITY_ID
