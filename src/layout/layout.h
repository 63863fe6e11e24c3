// AGX (G13) image layouts: strided linear, GPU-tiled, fully twiddled, and
// either tiled layout with lossless compression (a metadata buffer after the
// image body). Exact to the allocations Metal makes (Mesa
// src/asahi/layout/tests vectors; rules in docs/layout.md).
//
// Also: the byte address of an element, sparse page tables (folios of 256
// pages), and fast tile/detile between linear host memory and a tiled level.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "format/format.h"
#include "util/result.h"

namespace agx::layout {

inline constexpr uint32_t kCacheLine_B = 0x80;
inline constexpr uint32_t kPage_B = 0x4000;
inline constexpr uint32_t kMaxLevels = 16;
// Texture/PBE descriptors hold width-1 and height-1 in 14 bits.
inline constexpr uint32_t kMaxDimension_px = 16384;
// Buffer textures may be linear and far wider than an image.
inline constexpr uint32_t kMaxLinearWidth_px = 1u << 27;

enum class Tiling : uint8_t { linear, gpu, twiddled };

const char* to_string(Tiling t);

// "linear", "gpu", "twiddled", "gpu_compressed", "twiddled_compressed".
struct TilingChoice {
  Tiling tiling;
  bool compressed;
};
Result<TilingChoice> parse_tiling(std::string_view text);
std::string tiling_name(Tiling t, bool compressed);

struct Tile {
  uint32_t width_el = 1, height_el = 1;  // powers of two
};

// What the caller asks for.
struct Request {
  format::Format format = format::Format::R8G8B8A8_UNORM;
  uint32_t width_px = 1, height_px = 1;
  uint32_t depth_px = 1;  // layers of arrays and cubes, slices of 3D images
  uint32_t levels = 1;    // >1 always allocates the full chain
  uint32_t sample_count_sa = 1;
  Tiling tiling = Tiling::gpu;
  bool compressed = false;
  bool mipmapped_z = false;      // API 3D image: depth counts for the level count
  uint32_t linear_stride_B = 0;  // linear only; 0 = the default stride
  bool writeable_image = false;  // PBE stores / image atomics: page-aligned layers
  bool renderable = false;       // rendered to (PBE or ZLS)
};

// The layout made from a Request. Offsets are from the start of the image.
struct Layout {
  Request request;
  uint32_t levels = 1;               // levels allocated (the full chain if request.levels > 1)
  uint32_t bytes_per_element_B = 0;  // bytes per block x samples
  uint32_t width_el = 0, height_el = 0;

  // Per-level offsets inside one layer; level_offsets_B[levels] is the end of
  // the miptree (a multiple of 128 B).
  std::array<uint64_t, kMaxLevels + 1> level_offsets_B{};
  std::array<Tile, kMaxLevels> tile_el{};
  std::array<uint32_t, kMaxLevels> stride_el{};  // row stride of each level, in elements

  uint64_t layer_stride_B = 0;
  bool page_aligned_layers = false;
  uint32_t linear_stride_B = 0;  // linear: bytes between rows; else 0

  // Lossless compression: metadata after all layers' bodies.
  uint64_t metadata_offset_B = 0;
  uint64_t metadata_layer_stride_B = 0;
  uint32_t metadata_levels = 0;  // levels allocated with metadata
  std::array<uint64_t, kMaxLevels> metadata_level_offsets_B{};

  uint64_t size_B = 0;

  // Sparse binding (not part of size_B).
  uint32_t sparse_folios_per_layer = 0;
  uint64_t sparse_table_size_B = 0;
  uint32_t mip_tail_first_level = 0;
  uint64_t mip_tail_stride_B = 0;

  const format::FormatInfo& format() const { return format::info(request.format); }
  bool compressed() const { return request.compressed; }
  uint64_t level_size_B(uint32_t level) const {
    return level_offsets_B[level + 1] - level_offsets_B[level];
  }
  uint32_t level_width_px(uint32_t level) const;
  uint32_t level_height_px(uint32_t level) const;
  uint32_t level_width_el(uint32_t level) const;
  uint32_t level_height_el(uint32_t level) const;
  // Compression metadata exists for this level (Mesa: "allocated compressed").
  bool level_allocated_compressed(uint32_t level) const;
  // The GPU compresses this level; only other levels may be tiled by the CPU.
  bool level_logically_compressed(uint32_t level) const;
};

// Lays out an image; invalid requests are an Error naming the reason.
Result<Layout> make_layout(const Request& request);

// The large-tile size for bytes per element 1..64 (one 16 KiB page).
Result<Tile> max_tile(uint32_t bytes_per_element_B);

// Byte offset of pixel (x, y) of `layer`, `level`, `sample`: the element
// (block) holding that pixel, plus the sample's bytes inside it.
Result<uint64_t> element_address_B(const Layout& layout, uint32_t x_px, uint32_t y_px,
                                   uint32_t layer, uint32_t level, uint32_t sample = 0);

// Offset of element (x_el, y_el) inside a tiled level, relative to the level
// start; no checks (for callers that already validated coordinates).
uint64_t tiled_offset_el(const Layout& layout, uint32_t level, uint32_t x_el, uint32_t y_el);

// A rectangle of one level, in pixels. For block-compressed formats x and y
// must be block-aligned; the width and height may end at the level's edge.
struct Rect {
  uint32_t x_px = 0, y_px = 0, width_px = 0, height_px = 0;
};

// Tile: copies `rect` of (level, layer) from linear host memory (the rect's
// first element at linear[0], rows linear_pitch_B apart) into `image`, which
// holds the whole image. Detile: the reverse. Any level that is not
// compressed by the GPU, any element size, any pitch >= the rect's row.
Status tile(const Layout& layout, uint32_t level, uint32_t layer, std::span<uint8_t> image,
            std::span<const uint8_t> linear, uint64_t linear_pitch_B, Rect rect);
Status detile(const Layout& layout, uint32_t level, uint32_t layer, std::span<const uint8_t> image,
              std::span<uint8_t> linear, uint64_t linear_pitch_B, Rect rect);
// The whole level.
Rect level_rect(const Layout& layout, uint32_t level);

// Sparse page tables. Per layer, folios of 2 KiB: 256 four-byte entries, one
// per 16 KiB page of the layer (4 MiB of image), then 256 words of a second
// array (probably counters; written as zero). Layer z's folios follow layer
// z-1's. Word index of (layer, page): (z * folios_per_layer + page / 256) *
// 512 + page % 256 (Mesa src/asahi/layout).
inline constexpr uint32_t kSparsePagesPerFolio = 256;
inline constexpr uint32_t kSparseFolio_B = 2048;
// Entry encoding. TODO: the hardware's bit layout of a Sparse Block entry is
// not in the public sources we use; this project stores the 16 KiB page
// number of the VA (va >> 14) in bits 0..29 and "mapped" in bit 31 until it
// is known.
inline constexpr uint32_t kSparseMapped = 1u << 31;
inline constexpr unsigned kSparsePageShift = 14;
inline constexpr uint64_t kSparseMaxVa = (uint64_t{1} << (30 + kSparsePageShift)) - 1;

// Pages of one layer (the layer stride in 16 KiB pages, rounded up).
uint32_t sparse_pages_per_layer(const Layout& layout);
// Byte offset of the entry for (layer, page) inside the table.
Result<uint64_t> sparse_entry_offset_B(const Layout& layout, uint32_t layer, uint32_t page);
// Builds the table: va_of(layer, page) gives the GPU VA the page is bound to
// (16 KiB aligned), or nullopt for an unbound page.
using PageVa = std::function<std::optional<uint64_t>(uint32_t layer, uint32_t page)>;
Result<std::vector<uint8_t>> build_sparse_table(const Layout& layout, const PageVa& va_of);
// Reads back the VA of (layer, page): nullopt if unbound; an Error if the
// table is too small or the page is out of range.
Result<std::optional<uint64_t>> sparse_page_va(const Layout& layout, std::span<const uint8_t> table,
                                               uint32_t layer, uint32_t page);

// Batch mode of `agx layout`: CSV in (header format,width,height,depth,
// levels,samples,tiling and optional mipmapped_z, any order), CSV out with
// header kBatchOutputHeader, one row per input row, in order. level_offsets_B
// lists the requested levels (the full chain is allocated either way). A row that
// cannot be laid out keeps its input columns, empty results and the reason
// in `error`. Only an unusable header is an Error.
inline constexpr std::string_view kBatchOutputHeader =
    "format,width,height,depth,levels,samples,tiling,size_B,metadata_offset_B,layer_stride_B,"
    "level_offsets_B,error";
Result<std::string> run_batch(std::string_view csv);

// Splits one CSV line into fields (RFC 4180 quotes allowed).
Result<std::vector<std::string>> split_csv_line(std::string_view line);

// Human-readable and JSON descriptions (stable JSON keys, see docs/layout.md).
std::string describe(const Layout& layout);
std::string to_json(const Layout& layout, int indent = 2);

}  // namespace agx::layout
