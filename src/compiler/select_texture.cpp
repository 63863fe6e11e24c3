// Instruction selection, texture family: texture_load, texture_sample and
// image_write. Operand order: dougallj/applegpu applegpu.py
// TextureLoadSampleBaseInstructionDesc and ImageWriteInstructionDesc.
#include "compiler/machine.h"
#include "compiler/select_rows.h"

namespace agx::compiler {

namespace {

using O = isa::Opcode;
using D = isa::OperandDesc;

// applegpu's enums: texture `mode` (query_lod 2), `lod` (auto_lod 0,
// auto_lod_bias with a register 0b101, lod_min with a register 0b110, lod_grad 0b100, lod_grad_min 0b1100) and
// q6 (none 0, compare 1, gather_r 2, gather_depth 3, gather_g 6,
// gather_b 10, gather_a 14).
constexpr uint32_t kModeQueryLod = 2;
constexpr uint32_t kAutoLod = 0, kAutoLodBias = 5, kLodMin = 6, kLodGrad = 4, kLodGradMin = 12;
bool known_q6(uint32_t q6) { return q6 <= 3 || q6 == 6 || q6 == 10 || q6 == 14; }

// The coordinates: whole 32-bit registers, or with 16-bit extras (layer,
// sample) every half from the first: 2 x count + 1 of them (Mesa
// agx_coordinate_registers; tex_2d_ms_array's sample and layer halves
// follow from the same first register).
isa::Operand coords_of(unsigned half, uint32_t dim) {
  const isa::TexSize size = isa::kTexSizes[dim];
  return size.extra ? reg16(half, 2u * size.count + 1) : reg32(half / 2, size.count);
}

struct Lod {
  uint32_t mode;
  isa::Operand d;
};
// The LOD is an immediate 0 with mode auto_lod (texture_load then reads
// level 0; texture_sample with kTexAutoLod: the fragment quad's LOD, or
// with an fp16 bias register auto_lod_bias; without it a compute shader
// has no quad derivatives, so an explicit LOD always comes as a register
// with lod_min); gradients (ddx, ddy per coordinate, 32-bit) with
// lod_grad, and with kTexGradMin the last word's low half an fp16 minimum
// LOD.
Result<Lod> lod_of(const Function& f, const Instr& in) {
  const Src& l = in.srcs[1];
  if (l.is_imm() && l.imm == 0) return Lod{kAutoLod, imm_operand(0)};
  if (!l.is_value()) return Error::invalid_argument("texture LOD must be a register or 0");
  if (in.imm & kTexAutoLod) return Lod{kAutoLodBias, reg16(half_of(f, l))};
  const Value& g = f.values[l.value];
  if (g.comps > 1 && g.bits == 32)
    return Lod{in.imm & kTexGradMin ? kLodGradMin : kLodGrad, reg32(static_cast<unsigned>(g.reg) / 2, g.comps)};
  return Lod{kLodMin, reg16(half_of(f, l))};
}

// O: the compare reference (r32) and/or the packed offset (the r16 after
// it, or alone).
Result<isa::Operand> compare_offset_of(const Function& f, const Instr& in) {
  const bool compare = in.imm & kTexCompare, offset = in.imm & kTexOffset;
  if (!compare && !offset) return isa::Operand{isa::OperandKind::kEmpty};
  if (in.srcs.size() < 3 || !in.srcs[2].is_value()) return Error::invalid_argument("texture compare/offset must be a register");
  const unsigned h = half_of(f, in.srcs[2]);
  if (!compare) return reg16(h);
  isa::Operand o = reg32(h / 2);
  if (offset) o.kind = isa::OperandKind::kText, o.value = h + 2;
  return o;
}

Status texture(const Function& f, const Instr& in, Selection& s) {
  const uint32_t dim = image_dim(in.imm);
  if (dim >= isa::kTexDimCount) return Error::invalid_argument("texture dimension {}", dim);
  const Src& coords = in.srcs[0];
  if (!coords.is_value()) return Error::invalid_argument("texture coordinates must be registers");
  const Value& dv = f.values[in.dest];
  if (dv.comps != 4 || dv.bits != 32) return Error::unsupported("a texture result of {} x {} bits (4 x 32 needed)", dv.comps, dv.bits);
  AGX_TRY(auto lod, lod_of(f, in));
  AGX_TRY(auto o, compare_offset_of(f, in));
  const uint32_t q6 = tex_q6(in.imm);
  if (!known_q6(q6)) return Error::invalid_argument("texture q6 value {}", q6);
  // T and S: state registers, or 16-bit registers holding their numbers
  // (kTexStateReg: the last two sources).
  isa::Operand t{isa::OperandKind::kTextureState}, smp{isa::OperandKind::kSamplerState};
  t.index = static_cast<uint16_t>(image_texture_state(in.imm));
  smp.index = static_cast<uint16_t>(image_sampler_state(in.imm));
  if (in.imm & kTexStateReg) {
    if (in.srcs.size() < 4 || !in.srcs[in.srcs.size() - 2].is_value() || !in.srcs.back().is_value())
      return Error::invalid_argument("texture state indices must be registers");
    t = reg16(half_of(f, in.srcs[in.srcs.size() - 2]));
    smp = reg16(half_of(f, in.srcs.back()));
  }
  const TextureRow& r = in.op == Op::texture_load ? kTextureLoad : kTextureSample;
  Emit e(in.op == Op::texture_load ? O::texture_load : O::texture_sample);
  e.imm(r.compare, in.imm & kTexCompare ? 1 : 0);
  e.enumeration(r.mode, in.imm & kTexQueryLod ? kModeQueryLod : 0);
  e.binary(r.q3, 0);
  e.binary(r.slot, 0);
  e.enumeration(r.q6, q6);
  e.enumeration(r.mask, 0xF);
  e.binary(r.kill, 0);
  AGX_CHECK(e.data(r.R, reg32(static_cast<unsigned>(dv.reg) / 2, 4), D::kSampleReg));
  e.no_uniform_pair(r.U);
  AGX_CHECK(e.texture(r.T, t));
  AGX_CHECK(e.sampler(r.S, smp));
  e.enumeration(r.n, dim);
  AGX_CHECK(e.coords(r.C, coords_of(half_of(f, coords), dim), dim));
  e.enumeration(r.lod, lod.mode);
  AGX_CHECK(e.lod(r.D, lod.d));
  AGX_CHECK(e.compare_offset(r.O, o));
  s.out.push_back(e.done());
  return {};
}

// applegpu operand order R, C, D, U, T, n, round, then u1 u2 u3 u5:
// Mesa's image_write encoding sets bit 23 (u1) and 9 at bit 43 (u3)
// (bminor/mesa-mesa src/asahi/compiler/agx_opcodes.py).
Status image_write(const Function& f, const Instr& in, Selection& s) {
  static constexpr struct {
    OperandFields R, C, D;
    size_t U;
    OperandFields T;
    size_t n, round, u1, u2, u3, u5;
  } r = {operand_fields(O::image_write, "R", "Rt"), operand_fields(O::image_write, "C", "Ct", "Cs"),
         operand_fields(O::image_write, "D", "Dt"), isa::field_id(O::image_write, "U"),
         operand_fields(O::image_write, "T", "Tt"), isa::field_id(O::image_write, "n"),
         isa::field_id(O::image_write, "round"), isa::field_id(O::image_write, "u1"),
         isa::field_id(O::image_write, "u2"), isa::field_id(O::image_write, "u3"), isa::field_id(O::image_write, "u5")};
  const uint32_t dim = image_dim(in.imm);
  if (dim >= isa::kTexDimCount) return Error::invalid_argument("image dimension {}", dim);
  const Src& data = in.srcs[0];
  const Src& coords = in.srcs[1];
  if (!data.is_value() || !coords.is_value()) return Error::invalid_argument("image_write data and coordinates must be registers");
  AGX_TRY(auto lod, operand_of(f, in.srcs[2], false));
  isa::Operand t{isa::OperandKind::kTextureState};
  t.index = static_cast<uint16_t>(image_texture_state(in.imm));
  if (in.imm & kTexStateReg) {  // the PBE descriptor's number in a 16-bit register (source 3)
    if (in.srcs.size() < 4 || !in.srcs[3].is_value()) return Error::invalid_argument("image_write state index must be a register");
    t = reg16(half_of(f, in.srcs[3]));
  }
  Emit e(O::image_write);
  AGX_CHECK(e.data(r.R, reg32(half_of(f, data) / 2, 4), D::kPbeSourceReg));
  AGX_CHECK(e.coords(r.C, coords_of(half_of(f, coords), dim), dim));
  AGX_CHECK(e.pbe_lod(r.D, lod));
  e.no_uniform_pair(r.U);
  AGX_CHECK(e.texture(r.T, t));
  e.enumeration(r.n, dim);
  e.enumeration(r.round, 0);  // rte
  e.imm(r.u1, 1);
  e.imm(r.u2, 0);
  e.imm(r.u3, 9);
  e.imm(r.u5, 0);
  s.out.push_back(e.done());
  return {};
}

}  // namespace

Status select_texture(const Function& f, const Instr& in, Selection& s) {
  if (in.op == Op::image_write) return image_write(f, in, s);
  if (in.op == Op::texture_load || in.op == Op::texture_sample) return texture(f, in, s);
  return Error::invalid_argument("{} is not a texture op", op_info(in.op).name);
}

}  // namespace agx::compiler
