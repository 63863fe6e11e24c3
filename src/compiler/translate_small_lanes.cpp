// Subgroup operations and SPV_AMD_shader_trinary_minmax on 8/16-bit
// values (docs/compiler.md, "8- and 16-bit types"). The 32-bit
// translations run on the widened values:
//  - lane moves (broadcast, shuffle, quad ops) move the widened value as
//    it is;
//  - integer reductions and scans: add, multiply and the bitwise ops keep
//    their low bits exactly, so the result is masked to the width (which
//    also makes the 32-bit identities the width's: ~0 -> 0xFFFF). Signed
//    min/max are the unsigned ones on x ^ sign bit (signed order is the
//    unsigned order of the sign-flipped bits; the unsigned identities then
//    flip back to INT16_MAX / INT16_MIN);
//  - half add/multiply reductions round every step to the nearest half
//    (SPIR-V's 16-bit OpFAdd/OpFMul; Lanes::round_float), min/max are
//    exact;
//  - derivatives: SPIR-V validation (Vulkan) rejects a 16-bit
//    OpDPdx..OpFwidth result, so the front end refuses them before here;
//    translate_derivatives.cpp names the width if one arrives;
//  - trinary min/max/mid: selects, exact; the signed forms compare
//    sign-extended operands and mask the result.
#include <spirv/unified1/AMD_shader_trinary_minmax.h>

#include "compiler/translate.h"

namespace agx::compiler::detail {

using IrOp = agx::compiler::Op;

namespace {

bool integer_reduction(SpvOp op) {
  switch (op) {
    case SpvOp::OpGroupNonUniformIAdd: case SpvOp::OpGroupNonUniformIMul: case SpvOp::OpGroupNonUniformSMin:
    case SpvOp::OpGroupNonUniformUMin: case SpvOp::OpGroupNonUniformSMax: case SpvOp::OpGroupNonUniformUMax:
    case SpvOp::OpGroupNonUniformBitwiseAnd: case SpvOp::OpGroupNonUniformBitwiseOr: case SpvOp::OpGroupNonUniformBitwiseXor:
      return true;
    default: return false;
  }
}

}  // namespace

Status Translator::small_lanes(const spirv::Inst& in) {
  const auto& w = in.w;
  const unsigned bits = small_width(w[0]);
  const bool half = is_half(w[0]);
  spirv::Inst op = in;
  // Operands swapped for a view (sign-flipped / sign-extended) during the
  // 32-bit translation, put back after.
  std::vector<std::pair<uint32_t, TVal>> saved;
  auto view = [&](uint32_t id, auto fn) -> Status {
    for (auto& [sid, tv] : saved)
      if (sid == id) return {};
    AGX_TRY(auto v, get(id, in));
    if (v->kind != TVal::Kind::data) return {};
    TVal t = *v;
    saved.emplace_back(id, *v);
    for (Src& s : t.c) s = fn(s);
    vals_[id] = std::move(t);
    return {};
  };
  const uint32_t sign = bits ? 1u << (bits - 1) : 0;
  bool flip_result = false, mask_result = false;
  const bool trinary = in.op == SpvOp::OpExtInst;
  if (bits && !half && integer_reduction(in.op) && w.size() >= 5) {
    mask_result = true;
    if (in.op == SpvOp::OpGroupNonUniformSMin || in.op == SpvOp::OpGroupNonUniformSMax) {
      op.op = in.op == SpvOp::OpGroupNonUniformSMin ? SpvOp::OpGroupNonUniformUMin : SpvOp::OpGroupNonUniformUMax;
      flip_result = true;
      AGX_CHECK(view(w[4], [&](Src s) { return b_.binary(IrOp::ixor, s, Src::immediate(sign)); }));
    }
  }
  if (trinary && bits && !half) {
    const auto f = static_cast<AMD_shader_trinary_minmaxInstructions>(w.size() > 3 ? w[3] : 0);
    if (f == AMD_shader_trinary_minmaxSMin3AMD || f == AMD_shader_trinary_minmaxSMax3AMD ||
        f == AMD_shader_trinary_minmaxSMid3AMD) {
      mask_result = true;
      for (size_t k = 4; k < w.size(); ++k) AGX_CHECK(view(w[k], [&](Src s) { return sext(s, bits); }));
    }
  }
  round_half_lanes_ = half && (in.op == SpvOp::OpGroupNonUniformFAdd || in.op == SpvOp::OpGroupNonUniformFMul);
  small_active_ = true;
  Status st = instruction(op);
  small_active_ = false;
  round_half_lanes_ = false;
  for (auto& [id, tv] : saved) vals_[id] = std::move(tv);
  AGX_CHECK(st);
  TVal& out = vals_[w[1]];
  if (out.kind != TVal::Kind::data || out.cmp || !bits) return {};
  for (Src& s : out.c) {
    if (mask_result) s = truncate(s, bits);
    if (flip_result) s = b_.binary(IrOp::ixor, s, Src::immediate(sign));
  }
  return {};
}

}  // namespace agx::compiler::detail
