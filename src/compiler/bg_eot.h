// Background and end-of-tile programs: the small fragment-side programs a
// render command runs over every pixel of a tile before its primitives
// (background: clear or load each colour render target into the
// tilebuffer) and after them (end of tile: store each render target's tile
// through its PBE descriptor). Built from a key as machine instructions of
// the isa table (no assembly text), as bminor/mesa-mesa
// src/asahi/lib/agx_bg_eot.c describes them:
// - clear: the colour is read from uniforms, so one program serves every
//   clear value: render target rt's four 32-bit words at u(2 + 4 rt) ..
//   u(5 + 4 rt) (Mesa: load_preamble at 16-bit half 4 + 8 rt), stored with
//   st_tile to every sample;
// - load: texture_load of texture state ts(rt) at the pixel (sr80, sr81),
//   level 0 (with the layer sr2 when layered), sampler state ss0 (Mesa
//   pushes a txf sampler), then st_tile;
// - store: image_write_block of the tile at the target's byte offset in
//   the sample record through the PBE descriptor in ts(rt), 2D or 2D
//   multisampled (arrays when layered), in the target's tile format.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "util/result.h"

namespace agx::compiler {

inline constexpr uint32_t kMaxTileTargets = 8;

// Where a colour render target lives in the tilebuffer (the tilebuffer
// unit's layout): its memory format code as st_tile / image_write_block
// take it (applegpu's MEMORY_FORMATS: i8 0, i16 1, i32 2, f16 3, u8norm 4,
// s8norm 5, u16norm 6, s16norm 7, rgb10a2 8, srgba8 10, rg11b10f 12,
// rgb9e5 13), its byte offset in a sample's record, its component count
// and whether its logical format is an integer one.
struct TileTarget {
  uint32_t tile_format = 4;
  uint32_t offset_B = 0;
  uint32_t components = 4;
  bool integer = false;
};

enum class BackgroundOp : uint8_t { none, clear, load };

struct BackgroundKey {
  std::array<BackgroundOp, kMaxTileTargets> op{};
  std::array<TileTarget, kMaxTileTargets> targets{};
  uint32_t samples = 1;  // 1, 2 or 4
  bool layered = false;
};

// `resolve` (with more than one sample) stores one sample per pixel to a
// single-sampled image: the samples' average (each loaded with ld_tile as
// a 32-bit float, summed, scaled by 1 / samples, stored back to sample 0),
// or sample 0 for an integer format (Vulkan's resolve of integer
// attachments); the PBE descriptor is then 2D (array).
struct EndOfTileKey {
  std::array<bool, kMaxTileTargets> store{};
  std::array<bool, kMaxTileTargets> resolve{};
  std::array<TileTarget, kMaxTileTargets> targets{};
  uint32_t samples = 1;  // 1, 2 or 4: the PBE descriptors are 2D multisampled above 1
  bool layered = false;
};

// A compiled tile program: code from offset 0 ending in stop, and what its
// USC word list must provide.
struct TileProgram {
  std::vector<uint8_t> code;
  uint32_t register_halves = 0;   // the Registers word's count
  uint32_t uniform_halves = 0;    // uniforms read (16-bit halves from u0)
  uint32_t texture_states = 0;    // texture state registers read: ts0 .. ts(n-1)
  uint32_t sampler_states = 0;    // sampler state registers read: ss0 .. ss(n-1)
};

// A bad key (a sample count other than 1, 2 or 4, an unknown tile format,
// components outside 1..4, an offset past the 64-byte record, nothing to
// do, a load of a multisampled target, the resolve of an f16 target) is
// an invalid_argument or unsupported error naming the render target.
Result<TileProgram> compile_background(const BackgroundKey& key);
Result<TileProgram> compile_end_of_tile(const EndOfTileKey& key);

}  // namespace agx::compiler
