// The fragment/vertex fixed-function side as the shader core sees it: the
// coefficient iterators (iter, iterproj, ldcf), the vertex output store
// (st_var, st_var_final), the tilebuffer (ld_tile, st_tile), depth/stencil
// and coverage (zs_emit, sample_mask) and pixel ordering (wait_pix,
// signal_pix). The emulator reads each instruction's register operands for
// its 32 lanes exactly as the ISA table decodes them (src/isa/table.inc:
// applegpu's fields; ld_tile/st_tile/ldcf from Mesa's AGX2.xml and
// agx_pack.c), hands one plain struct per SIMD group to a GraphicsHook and
// writes what the hook returns to the destination registers of the active
// lanes. The unit that draws (gpu) implements the hook; it knows where each
// lane's pixel and sample are. See docs/usc.md.
#pragma once

#include <array>
#include <cstdint>

#include "isa/isa.h"
#include "usc/usc.h"
#include "util/result.h"

namespace agx::usc {

// What every call carries: the instruction, its pc, and the lanes it runs
// for (the exec mask). The hook reads and writes only active lanes; the
// emulator writes results back only to them.
struct GraphicsCall {
  isa::Opcode op{};
  uint64_t pc = 0;
  uint32_t active = 0;
};

// An operand that is one immediate for all lanes or a register per lane.
struct LaneValue {
  bool per_lane = false;
  uint32_t imm = 0;
  LaneArray lanes{};
  uint32_t at(unsigned lane) const { return per_lane ? lanes[lane] : imm; }
};

// iter/iterproj's interpolation field (Mesa's agx_opcodes.py INTERPOLATION;
// 3 is `sample` with the sample index in a register).
enum class Interpolation : uint8_t { center = 0, sample = 1, centroid = 2, sample_register = 3 };

inline constexpr unsigned kMaxIterComponents = 12;  // ldcf with count 4

// iter, iterproj, ldcf: coefficient registers evaluated at each lane's
// pixel (or sample). The hook fills values[k][lane] for k < components with
// raw register bits: f32 when dest32, else f16 in the low 16 bits. ldcf
// returns the coefficients themselves (3 per coefficient register: Mesa's
// ldcf loads one, `count` 1).
struct IterRequest : GraphicsCall {
  LaneValue cf;                 // I: coefficient register (cfN, or an r16 per lane)
  bool perspective = false;     // iterproj: divide by the W of cf perspective_cf
  uint32_t perspective_cf = 0;  // J (iterproj only)
  unsigned components = 0;      // iter: 1-4; ldcf: 3 x count
  bool dest32 = false;
  Interpolation interpolation = Interpolation::center;
  LaneValue sample;             // the sample index when sample interpolation
  bool forward = false, elide = false, kill = false;  // iter's fwd/elide/kill bits
  std::array<LaneArray, kMaxIterComponents> values{};
};

// st_var, st_var_final: one 32-bit vertex output per lane to the UVS.
struct VaryingStore : GraphicsCall {
  bool final = false;  // st_var_final: the last output of the vertex
  LaneValue slot;      // I: UVS index (immediate or an r16 per lane)
  LaneArray value{};   // r: the 32-bit register
};

// ld_tile, st_tile: the tilebuffer at each lane's pixel (Mesa's operands:
// format, component mask, pixel offset, sample mask, explicit coordinates).
// values[c] is component c (x, y, z, w) for each component in `mask`; the
// registers hold the masked components in order. st_tile gives them; the
// hook fills them for ld_tile. 16-bit registers use the low 16 bits.
struct TileAccess : GraphicsCall {
  bool load = false;
  uint32_t format = 0;        // F: memory format code (i8, f16, u8norm, ...)
  uint32_t mask = 0;          // component mask, bit 0 = x
  uint32_t pixel_offset = 0;  // O
  LaneValue samples;          // S: sample mask
  bool explicit_coords = false;     // u0: st_tile's explicit_coords bit
  bool coords_in_registers = false; // Ct: x, y per lane from an r16 pair
  uint32_t coords_imm = 0;          // C when not in registers
  LaneArray x{}, y{};
  bool reg32 = false;         // Rt: 32-bit registers
  std::array<LaneArray, 4> values{};
};

// zs_emit: depth and/or stencil of each lane's samples.
struct DepthStencilEmit : GraphicsCall {
  LaneValue samples;             // S: sample mask
  bool depth = false, stencil = false;
  LaneArray depth_bits{};        // f32 from the register pair
  LaneArray stencil_value{};     // the 16-bit register after the depth
};

// sample_mask: the first operand (applegpu S) and the second (M), each an
// immediate or an r16 per lane. Mesa's order: the samples the instruction
// applies to, then which of those stay alive.
struct SampleMaskUpdate : GraphicsCall {
  LaneValue samples;
  LaneValue live;
};

// wait_pix / signal_pix: ordering of overlapping fragments (Mesa's
// WRITEOUT immediate is field i; j is applegpu's second immediate).
struct PixelOrder : GraphicsCall {
  bool wait = false;  // wait_pix (true) or signal_pix
  uint32_t writeout = 0;
  uint32_t j = 0;
};

class GraphicsHook {
 public:
  virtual ~GraphicsHook() = default;
  virtual Status iterate(IterRequest& request) = 0;
  virtual Status store_varying(const VaryingStore& store) = 0;
  virtual Status access_tile(TileAccess& access) = 0;
  virtual Status emit_depth_stencil(const DepthStencilEmit& emit) = 0;
  virtual Status update_sample_mask(const SampleMaskUpdate& update) = 0;
  virtual Status order_pixels(const PixelOrder& order) = 0;
};

// Whether `op` goes to a GraphicsHook (when Memories::graphics is set).
bool is_graphics(isa::Opcode op);

}  // namespace agx::usc
