// Background and end-of-tile programs from their keys (bg_eot.h), built as
// machine instructions (machine.h's Emit over the isa table rows) and
// encoded with isa::encode. What each program does follows
// bminor/mesa-mesa src/asahi/lib/agx_bg_eot.c (clear colours from
// uniforms at half 4 + 8 rt, loads as txf at the pixel coordinate, stores
// with the block image store at the target's tilebuffer offset); the
// operand encodings are Mesa's src/asahi/compiler/agx_pack.c ones as the
// isa table's rows spell them.
#include "compiler/bg_eot.h"

#include <algorithm>
#include <bit>

#include "compiler/machine.h"
#include "compiler/select_rows.h"

namespace agx::compiler {

namespace {

using O = isa::Opcode;
using D = isa::OperandDesc;

// Special registers (docs/gpu.md "SIMD groups and special registers"):
// the layer, and the pixel's window coordinates.
constexpr unsigned kSrLayer = 2, kSrPixelX = 80, kSrPixelY = 81;
// isa enum table 14 (texture dimensions) and 17 (rounding).
constexpr uint32_t kTex2d = 2, kTex2dArray = 3, kTex2dMs = 4, kTex2dMsArray = 8;
constexpr uint32_t kRoundNearestEven = 0;
// The memory format codes applegpu names (enum table 4).
bool known_tile_format(uint32_t f) { return f <= 8 || f == 10 || f == 12 || f == 13 || f == 14 || f == 15; }

// Registers the programs use: the colour in r0..r3, coordinates r4..r6
// (layer in r4 for arrays), the tile offset in r3l of the end of tile.
constexpr unsigned kColour = 0, kCoords = 4;
constexpr uint32_t kRegisterHalves = 16, kResolveRegisterHalves = 56;

struct Program {
  std::vector<MachineInstr> code;
  Status add(const Emit& e) {
    code.push_back(e.done());
    return {};
  }
};

Status check_common(uint32_t samples, const TileTarget& t, uint32_t rt) {
  if (samples != 1 && samples != 2 && samples != 4)
    return Error::invalid_argument("render target {}: {} samples per pixel (1, 2 or 4)", rt, samples);
  if (!known_tile_format(t.tile_format))
    return Error::invalid_argument("render target {}: tile format {} is not a memory format code", rt, t.tile_format);
  if (t.components < 1 || t.components > 4)
    return Error::invalid_argument("render target {}: {} components (1 to 4)", rt, t.components);
  if (t.offset_B >= 64) return Error::invalid_argument("render target {}: offset {} is past the 64-byte record", rt, t.offset_B);
  return {};
}

Status get_sr(Program& p, unsigned reg, unsigned sr) {
  Emit e(O::get_sr);
  AGX_CHECK(e.dst(kGetSr.d, reg32(reg), D::kAluDst));
  e.special(kGetSr.sr, sr);
  return p.add(e);
}

// A move (bitop's mov table, as instruction selection moves).
Status mov(Program& p, const isa::Operand& d, const isa::Operand& a) {
  Emit e(O::bitop);
  e.truth_table(kBitop.tt, tt("0101"));
  AGX_CHECK(e.dst(kBitop.d, d, D::kAluDst));
  AGX_CHECK(e.src(kBitop.a, a, D::kAluSrc));
  AGX_CHECK(e.src(kBitop.b, imm_operand(0), D::kAluSrc));
  return p.add(e);
}

Status mov_imm16(Program& p, unsigned half, uint32_t value) {
  Emit e(O::mov_imm16);
  AGX_CHECK(e.dst(kMovImm16.d, reg16(half), D::kAluDst));
  e.imm(kMovImm16.imm, value);
  return p.add(e);
}

// st_tile and ld_tile have the same operands (isa table rows from Mesa).
struct TileRow {
  O op;
  OperandFields R;
  size_t F, u0, mask, offset;
  OperandFields S, C;
};
constexpr TileRow tile_row(O op) {
  return {op, operand_fields(op, "R", "Rt"), required_field(op, "F"), required_field(op, "u0"),
          required_field(op, "mask"), required_field(op, "O"), operand_fields(op, "S", "St"),
          operand_fields(op, "C", "Ct")};
}
constexpr TileRow kStTile = tile_row(O::st_tile), kLdTile = tile_row(O::ld_tile);

// st_tile / ld_tile of `components` registers from r(reg) at the target's
// offset, for the samples in `samples`, at the lane's own pixel; u0 is 1
// for ld_tile as Mesa packs it.
Status tile_access(Program& p, const TileRow& r, unsigned reg, const TileTarget& t, uint32_t samples) {
  Emit e(r.op);
  AGX_CHECK(e.data(r.R, reg32(reg, t.components), D::kThreadgroupMemoryReg));
  e.enumeration(r.F, t.tile_format);
  e.imm(r.u0, r.op == O::ld_tile ? 1 : 0);
  e.enumeration(r.mask, (1u << t.components) - 1);
  e.imm(r.offset, t.offset_B);
  e.sample_mask(r.S, samples);
  e.own_pixel(r.C);
  return p.add(e);
}
Status st_tile(Program& p, const TileTarget& t) { return tile_access(p, kStTile, kColour, t, 0xFF); }

Status float_op(Program& p, const AluRow& row, unsigned d, unsigned a, unsigned b) {
  Emit e(row.op);
  AGX_CHECK(e.dst(row.d, reg32(d), row.dst_desc));
  AGX_CHECK(e.src(row.srcs[0], reg32(a), row.src_desc[0]));
  AGX_CHECK(e.src(row.srcs[1], reg32(b), row.src_desc[1]));
  return p.add(e);
}

// The samples' average into sample 0: sample s in r(8 + 4 s).., the sum
// in r8.., 1 / samples in r24.
constexpr unsigned kSamples = 8, kScale = 24;
Status resolve(Program& p, const TileTarget& t, uint32_t samples) {
  for (uint32_t s = 0; s < samples; ++s) AGX_CHECK(tile_access(p, kLdTile, kSamples + 4 * s, t, 1u << s));
  Emit w(O::wait);
  w.imm(isa::field_id(O::wait, "i"), 0);
  AGX_CHECK(p.add(w));
  for (uint32_t s = 1; s < samples; ++s)
    for (unsigned c = 0; c < t.components; ++c) AGX_CHECK(float_op(p, kFadd32, kSamples + c, kSamples + c, kSamples + 4 * s + c));
  Emit m(O::mov_imm32);
  AGX_CHECK(m.dst(kMovImm32.d, reg32(kScale), D::kAluDst));
  m.imm(kMovImm32.imm, std::bit_cast<uint32_t>(1.0f / float(samples)));
  m.binary(kMovImm32.kill, 0);
  AGX_CHECK(p.add(m));
  for (unsigned c = 0; c < t.components; ++c) AGX_CHECK(float_op(p, kFmul32, kSamples + c, kSamples + c, kScale));
  return tile_access(p, kStTile, kSamples, t, 1);
}

// texture_load (txf) of ts(rt) at the pixel, level 0, sampler ss0.
Status load_texel(Program& p, uint32_t rt, bool layered) {
  const TextureRow& r = kTextureLoad;
  Emit e(O::texture_load);
  e.imm(r.compare, 0);
  e.enumeration(r.mode, 0);
  e.binary(r.q3, 0);
  e.binary(r.slot, 0);
  e.enumeration(r.q6, 0);
  e.enumeration(r.mask, 0xF);
  e.binary(r.kill, 0);
  AGX_CHECK(e.data(r.R, reg32(kColour, 4), D::kSampleReg));
  e.no_uniform_pair(r.U);
  isa::Operand t{isa::OperandKind::kTextureState}, s{isa::OperandKind::kSamplerState};
  t.index = static_cast<uint16_t>(rt);
  AGX_CHECK(e.texture(r.T, t));
  AGX_CHECK(e.sampler(r.S, s));
  const uint32_t dim = layered ? kTex2dArray : kTex2d;
  e.enumeration(r.n, dim);
  AGX_CHECK(e.coords(r.C, layered ? reg16(2 * kCoords, 5) : reg32(kCoords, 2), dim));
  e.enumeration(r.lod, 0);
  AGX_CHECK(e.lod(r.D, imm_operand(0)));
  AGX_CHECK(e.compare_offset(r.O, isa::Operand{isa::OperandKind::kEmpty}));
  AGX_CHECK(p.add(e));
  Emit w(O::wait);
  w.imm(isa::field_id(O::wait, "i"), 0);
  return p.add(w);
}

// image_write_block of the tile at the offset in r3l through ts(rt).
Status write_block(Program& p, uint32_t rt, const TileTarget& t, uint32_t dim) {
  constexpr O op = O::image_write_block;
  AGX_CHECK(mov_imm16(p, 2 * 3, t.offset_B));
  Emit e(op);
  e.tile_offset(isa::field_id(op, "R"), 2 * 3);
  AGX_CHECK(e.coords(operand_fields(op, "C", "Ct", "Cs"), dim == kTex2d ? reg32(kCoords, 2) : reg16(2 * kCoords, 5), dim));
  AGX_CHECK(e.pbe_lod(operand_fields(op, "D", "Dt"), imm_operand(0)));
  isa::Operand ts{isa::OperandKind::kTextureState};
  ts.index = static_cast<uint16_t>(rt);
  AGX_CHECK(e.texture(operand_fields(op, "T", "Tt"), ts));
  e.enumeration(isa::field_id(op, "n"), dim);
  e.enumeration(isa::field_id(op, "round"), kRoundNearestEven);
  e.enumeration(isa::field_id(op, "F"), t.tile_format);
  // The constant operands Mesa packs for the block store.
  e.imm(isa::field_id(op, "q0"), 0);
  e.imm(isa::field_id(op, "q1"), 9);
  e.imm(isa::field_id(op, "q2"), 1);
  return p.add(e);
}

Result<TileProgram> finish(Program& p, uint32_t uniforms, uint32_t textures, uint32_t samplers,
                           uint32_t halves = kRegisterHalves) {
  p.code.push_back(Emit(O::stop).done());
  TileProgram out;
  for (size_t i = 0; i < p.code.size(); ++i) {
    auto enc = isa::encode(p.code[i].instr);
    if (!enc.ok()) return Error::invalid_argument("encoding instruction {} ({}): {}", i,
                                                  isa::op_info(p.code[i].instr.op).mnemonic, enc.error().message());
    out.code.insert(out.code.end(), enc->bytes.begin(), enc->bytes.begin() + enc->length_B);
  }
  out.register_halves = halves;
  out.uniform_halves = uniforms;
  out.texture_states = textures;
  out.sampler_states = samplers;
  return out;
}

}  // namespace

Result<TileProgram> compile_background(const BackgroundKey& key) {
  Program p;
  uint32_t uniforms = 0, textures = 0;
  bool any = false, coords = false;
  for (uint32_t rt = 0; rt < kMaxTileTargets; ++rt) {
    const BackgroundOp op = key.op[rt];
    if (op == BackgroundOp::none) continue;
    const TileTarget& t = key.targets[rt];
    AGX_CHECK(check_common(key.samples, t, rt));
    if (op != BackgroundOp::clear && op != BackgroundOp::load)
      return Error::invalid_argument("render target {}: background op {}", rt, static_cast<unsigned>(op));
    any = true;
    if (op == BackgroundOp::clear) {
      for (unsigned c = 0; c < t.components; ++c) AGX_CHECK(mov(p, reg32(kColour + c), uniform32(2 + 4 * rt + c)));
      uniforms = std::max(uniforms, 2 * (2 + 4 * rt + 4));
    } else {
      if (key.samples > 1)
        return Error::unsupported("render target {}: loading a multisampled target (one texel per sample) is not supported", rt);
      if (!coords) {  // x, y, then the layer in the half after them
        AGX_CHECK(get_sr(p, kCoords, kSrPixelX));
        AGX_CHECK(get_sr(p, kCoords + 1, kSrPixelY));
        if (key.layered) AGX_CHECK(get_sr(p, kCoords + 2, kSrLayer));
        coords = true;
      }
      AGX_CHECK(load_texel(p, rt, key.layered));
      textures = std::max(textures, rt + 1);
    }
    AGX_CHECK(st_tile(p, t));
  }
  if (!any) return Error::invalid_argument("a background program with no render target to clear or load");
  return finish(p, uniforms, textures, textures ? 1 : 0);
}

Result<TileProgram> compile_end_of_tile(const EndOfTileKey& key) {
  Program p;
  const uint32_t ms_dim = key.layered ? kTex2dMsArray : kTex2dMs, single_dim = key.layered ? kTex2dArray : kTex2d;
  uint32_t textures = 0;
  bool resolves = false;
  // Arrays take the layer in the first half of C (r4l); 2D MS arrays the
  // sample half first (unused by the block store), then the layer (r4h).
  if (key.layered) {
    AGX_CHECK(get_sr(p, kCoords, kSrLayer));
    if (key.samples > 1) AGX_CHECK(mov(p, reg16(2 * kCoords + 1), reg16(2 * kCoords)));
  }
  for (uint32_t rt = 0; rt < kMaxTileTargets; ++rt) {
    if (!key.store[rt]) continue;
    const TileTarget& t = key.targets[rt];
    AGX_CHECK(check_common(key.samples, t, rt));
    const bool resolved = key.resolve[rt] && key.samples > 1;
    if (resolved && !t.integer) {
      if (t.tile_format == 1 || t.tile_format == 3 || t.tile_format == 0)
        return Error::unsupported("render target {}: resolving tile format {} (only 32-bit and normalized elements are averaged)",
                                  rt, t.tile_format);
      AGX_CHECK(resolve(p, t, key.samples));
      resolves = true;
    }
    AGX_CHECK(write_block(p, rt, t, key.samples > 1 && !resolved ? ms_dim : single_dim));
    textures = rt + 1;
  }
  if (textures == 0) return Error::invalid_argument("an end-of-tile program with no render target to store");
  return finish(p, 0, textures, 0, resolves ? kResolveRegisterHalves : kRegisterHalves);
}

}  // namespace agx::compiler
