// The tilebuffer layout a driver chooses for a render pass: where each
// colour render target sits in a sample's record of tile memory, how big the
// record is, how many pixels a tile holds, and the USC Shared word that
// tells the hardware. The compiler's fragment and end-of-tile programs use
// the offsets (ld_tile / st_tile / image_write_block); the runtime packs the
// USC Shared word into the fragment and background/end-of-tile word lists.
//
// Rules of bminor/mesa-mesa src/asahi/lib/agx_tilebuffer.c (and its test
// vectors, src/asahi/lib/tests/test-tilebuffer.cpp): render targets are
// placed in descending order of their ISA format's alignment (stable), each
// one at the running offset; a target that would take the record past
// 64 bytes, or a 16x16 tile of records (rounded up to 8 bytes) past the
// G13G limit of 32767 bytes, is spilled to memory instead. The record is
// rounded up to 8 bytes (at least 1 byte with MSAA) and the tile is the
// largest of 32x32, 32x16 and 16x16 pixels whose records fit in 32767 bytes.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <span>

#include "cmdstream/tables.h"
#include "format/format.h"
#include "util/result.h"

namespace agx::tilebuffer {

inline constexpr uint32_t kMaxRenderTargets = 8;
inline constexpr uint32_t kMaxTile_B = 32768 - 1;  // bytes of tile memory (G13G)
inline constexpr uint32_t kMaxSample_B = 64;       // bytes of one sample's record
inline constexpr uint32_t kMinTile_px = 16 * 16;   // the smallest tile

struct TileSize {
  uint32_t width_px = 32;
  uint32_t height_px = 32;
  uint32_t pixels() const { return width_px * height_px; }
  bool operator==(const TileSize&) const = default;
};

// One colour render target of the pass; an empty slot has no format.
using RenderTargets = std::array<std::optional<format::Format>, kMaxRenderTargets>;

struct Layout {
  RenderTargets formats{};                        // the logical formats, by slot
  std::array<uint32_t, kMaxRenderTargets> offset_B{};  // in the sample record
  std::array<bool, kMaxRenderTargets> spilled{};  // kept in memory, not in the tile
  uint32_t sample_size_B = 0;                     // one sample's record
  uint32_t samples = 1;                           // 1, 2 or 4
  bool layered = false;
  TileSize tile;

  bool used(uint32_t rt) const { return rt < kMaxRenderTargets && formats[rt].has_value(); }
  // Bytes of tile memory: records x samples x pixels.
  uint32_t total_B() const { return sample_size_B * samples * tile.pixels(); }
  // How the target is stored in tile memory (the ISA format its logical
  // format renders through); None for an empty slot.
  format::IsaFormat physical(uint32_t rt) const;
  // Bytes of one pixel of the target in its record.
  uint32_t size_B(uint32_t rt) const;
  // Whether st_tile may write some of the target's components alone: not
  // for spilled targets nor the packed formats (rgb10a2, rg11b10f, rgb9e5),
  // as Mesa's ail_isa_format_supports_mask says.
  bool supports_mask(uint32_t rt) const;
};

// The layout of `targets` with `samples` samples per pixel. A format that
// the PBE cannot render, or a sample count other than 1, 2 or 4, is an
// invalid_argument error naming it.
Result<Layout> build_layout(const RenderTargets& targets, uint32_t samples, bool layered = false);

// The ISA format's element: its alignment in a record (bytes of one
// channel for the per-channel formats, 4 for the packed ones).
uint32_t isa_format_align_B(format::IsaFormat f);
// The tile size whose records of `pixel_B` bytes (all samples) fit.
TileSize select_tile_size(uint32_t pixel_B);
// The USC Shared word of a fragment-side program using the layout.
cmdstream::UscShared usc_shared(const Layout& layout);
// The USC Shared word of a vertex or compute program that uses no tile
// memory (Mesa: layout Vertex/compute, 64 KiB per threadgroup).
cmdstream::UscShared usc_shared_without_tilebuffer();

}  // namespace agx::tilebuffer
