// Instruction selection of the fragment ops (ops.inc): iter / iterproj /
// ldcf, sample_mask, ld_tile / st_tile and zs_emit. Their rows' fields are set by name and the
// machine instruction is the decoded encoding, so its operands are what
// the isa unit reads back (field layout: src/isa/table.inc, from
// dougallj/applegpu and bminor/mesa-mesa src/asahi/compiler/agx_pack.c).
#include <array>
#include <bit>
#include <string_view>
#include <utility>

#include "compiler/compiler.h"
#include "compiler/machine.h"

namespace agx::compiler {

namespace {

using O = isa::Opcode;
using Field = std::pair<std::string_view, uint32_t>;

Status emit_fields(O op, std::span<const Field> fields, Selection& s) {
  AGX_TRY(auto enc, isa::encode_fields(op, fields));
  AGX_TRY(auto in, isa::decode(enc.span()));
  MachineInstr m;
  m.instr = in;
  m.encoded = enc;
  s.out.push_back(m);
  return {};
}

Status cf_read(const Function& f, const Instr& in, Selection& s) {
  const Value& d = f.values[in.dest];
  if (d.bits != 32 || d.comps < 1 || d.comps > (cf_kind(in.imm) == CfRead::ldcf ? 3 : 4))
    return Error::invalid_argument("iter: a destination of {} x {} bits", unsigned(d.comps), unsigned(d.bits));
  const uint32_t half = static_cast<uint32_t>(d.reg);
  switch (cf_kind(in.imm)) {
    case CfRead::ldcf: {
      // One coefficient register: its A, B, C in three 32-bit registers.
      const std::array<Field, 5> f5{{{"D", half}, {"Dt", 1}, {"count", 1}, {"I", cf_index(in.imm)}, {"It", 0}}};
      return emit_fields(O::ldcf, f5, s);
    }
    case CfRead::iter: {
      const std::array<Field, 6> f6{{{"D", half}, {"Dt", 1}, {"count", d.comps & 3u}, {"I", cf_index(in.imm)}, {"It", 0},
                                      {"interpolation", cf_point(in.imm)}}};
      return emit_fields(O::iter, f6, s);
    }
    case CfRead::iterproj: {
      const std::array<Field, 7> f7{{{"D", half}, {"Dt", 1}, {"count", d.comps & 3u}, {"I", cf_index(in.imm)}, {"It", 0},
                                      {"J", cf_w(in.imm)}, {"interpolation", cf_point(in.imm)}}};
      return emit_fields(O::iterproj, f7, s);
    }
  }
  return Error::invalid_argument("iter: bad kind");
}

// sample_mask S, M with immediates (type 1): samples in S stay alive only
// where M has them.
Status sample_mask(const Instr& in, Selection& s) {
  for (const Src& src : in.srcs)
    if (!src.is_imm() || src.imm > 0xFF) return Error::unsupported("sample_mask: sources must be 8-bit immediates");
  const std::array<Field, 4> f4{{{"S", static_cast<uint32_t>(in.srcs[0].imm)}, {"St", 1},
                                  {"M", static_cast<uint32_t>(in.srcs[1].imm)}, {"Mt", 1}}};
  return emit_fields(O::sample_mask, f4, s);
}

// ld_tile / st_tile at the lane's own pixel (C an immediate 0, u0 0: the
// form bminor/mesa-mesa agx_pack.c packs without explicit coordinates) for
// every sample (S = 0xFF, an immediate: St 0).
Status tile_access(const Function& f, const Instr& in, Selection& s) {
  const bool load = in.op == Op::tile_load;
  const uint32_t mask = tile_mask(in.imm);
  uint32_t half = tile_fixed_half(in.imm);
  if (load || !in.srcs.empty()) {
    if (!load && (in.srcs.size() != 1 || !in.srcs[0].is_value())) return Error::invalid_argument("st_tile of a non-register");
    const Value& v = load ? f.values[in.dest] : f.values[in.srcs[0].value];
    if (v.bits != 32 || v.comps != static_cast<unsigned>(std::popcount(mask)))
      return Error::invalid_argument("{}: {} x {}-bit registers for mask {:x}", load ? "ld_tile" : "st_tile", unsigned(v.comps),
                                     unsigned(v.bits), mask);
    half = static_cast<uint32_t>(v.reg);
  }
  const std::array<Field, 9> f9{{{"R", half}, {"Rt", 1}, {"F", tile_format(in.imm)}, {"mask", mask},
                                  {"O", tile_offset_B(in.imm)}, {"S", 0xFF}, {"St", 0}, {"C", 0}, {"Ct", 0}}};
  return emit_fields(load ? O::ld_tile : O::st_tile, f9, s);
}

// zs_emit S = every sample (immediate: St 1), T = r2 (depth) / r3l.
Status zs_emit(const Instr& in, Selection& s) {
  const bool z = in.imm & 1, st = in.imm & 2;
  if (!z && !st) return Error::invalid_argument("zs_emit of neither depth nor stencil");
  const uint32_t first = z ? 2 * FragmentAbi::kDepthRegister : FragmentAbi::kStencilHalf;
  const std::array<Field, 5> f5{{{"S", 0xFF}, {"St", 1}, {"T", first}, {"z", z ? 1u : 0u}, {"s", st ? 1u : 0u}}};
  return emit_fields(O::zs_emit, f5, s);
}

}  // namespace

Status select_fragment(const Function& f, const Instr& in, Selection& s) {
  if (in.op == Op::iter) return cf_read(f, in, s);
  if (in.op == Op::sample_mask) return sample_mask(in, s);
  if (in.op == Op::tile_load || in.op == Op::tile_store) return tile_access(f, in, s);
  if (in.op == Op::zs_emit) return zs_emit(in, s);
  return Error::invalid_argument("not a fragment op");
}

}  // namespace agx::compiler
