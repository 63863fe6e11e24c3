// Subgroup votes (GL_ARB_shader_group_vote's anyInvocationARB /
// allInvocationsARB / allInvocationsEqualARB as OpSubgroup*KHR, and the
// OpGroupNonUniform forms) -> IR. The AGX has no vote instructions but
// ballots over the SIMD group's active lanes; the lowering is Mesa's for
// the AGX (bminor/mesa-mesa src/asahi/compiler/agx_nir_lower_subgroups.c):
//   any(x)      = ballot(x) != 0
//   all(x)      = ballot(!x) == 0
//   allEqual(x) = ballot(x != x of the highest active lane) == 0, that lane
//                 found as ufind_msb(ballot(true)), its x read by simd_shuffle
//                 (immediate broadcasts: translate_subgroup.cpp's read_lane).
// The group is the 32-lane SIMD group (the ARB extension's "group" is
// implementation-defined).
#include <fmt/format.h>

#include "compiler/translate.h"

namespace agx::compiler::detail {

using IrOp = agx::compiler::Op;

Status Translator::vote(const spirv::Inst& in) {
  const auto& w = in.w;
  bool non_uniform = in.op == SpvOp::OpGroupNonUniformAny || in.op == SpvOp::OpGroupNonUniformAll ||
                     in.op == SpvOp::OpGroupNonUniformAllEqual;
  size_t arg = non_uniform ? 3 : 2;
  if (w.size() != arg + 1) return unsupported(in, "vote operand count");
  if (non_uniform) {
    // Execution scope: only Subgroup (3) is the SIMD group.
    if (w[2] >= m_.bound || !m_.is_constant[w[2]] || m_.constants[w[2]].bits != 3)
      return unsupported(in, "a group vote of a scope other than Subgroup");
  }
  bool all_equal = in.op == SpvOp::OpSubgroupAllEqualKHR || in.op == SpvOp::OpGroupNonUniformAllEqual;
  bool any = in.op == SpvOp::OpSubgroupAnyKHR || in.op == SpvOp::OpGroupNonUniformAny;
  AGX_TRY(auto v, get(w[arg], in));
  if (all_equal && !v->cmp && v->kind == TVal::Kind::data && v->c.size() > 1) {
    AGX_TRY(Src diff_mask, vote_all_equal_vector(in, w[arg], static_cast<unsigned>(v->c.size())));
    TVal out = TVal::data(w[0]);
    out.cmp = Cmp{Cond::ueq, false, diff_mask, Src::immediate(0)};
    vals_[w[1]] = std::move(out);
    return {};
  }
  // (any / all take a bool scalar: SPIR-V has no vector form of them.)
  if (!v->cmp && (v->kind != TVal::Kind::data || v->c.size() != 1))
    return unsupported(in, "a vote on a composite");
  const bool wide = !v->cmp && type(v->type).width == 64;  // int64 or double: both halves compared
  // 8/16-bit: the widened values, equal exactly when the narrow ones are.
  if (!v->cmp && !is_bool(v->type) && type(v->type).width != 32 && !wide && !(small_active_ && small_width(v->type)))
    return unsupported(in, "a vote on a non-32-bit value");
  Src zero = Src::immediate(0);
  Src mask;
  if (all_equal) {
    // Bools are compared as 0/1, everything else bit for bit.
    AGX_TRY(auto x, scalar(w[arg], in));
    if (x.is_imm()) {
      TVal out = TVal::data(w[0]);
      out.cmp = Cmp{Cond::ueq, false, zero, zero};  // constant: every lane agrees
      vals_[w[1]] = std::move(out);
      return {};
    }
    if (wide) {
      // Lanes whose halves are not both equal to the lane's: the vector
      // form's comparison of one component.
      AGX_TRY(mask, vote_all_equal_vector(in, w[arg], 1));
    } else {
      Src active = Src::val(b_.def(IrOp::ballot, {zero, zero}, 32, 1, 0, Cond::ueq));
      Src last = Src::val(b_.def(IrOp::ffs, {active}));
      Src other = read_lane(x, last);  // translate_subgroup.cpp: a computed index is not a trusted B
      mask = Src::val(b_.def(IrOp::ballot, {x, other}, 32, 1, 0, Cond::ueq, true));
    }
  } else {
    AGX_TRY(auto c, condition(w[arg], in));
    if (cond_is_float(c.cond)) c = Cmp{Cond::ueq, true, materialize(c), zero};
    // all(x): ballot of the inverted condition.
    mask = Src::val(b_.def(IrOp::ballot, {c.a, c.b}, 32, 1, 0, c.cond, any ? c.invert : !c.invert));
  }
  TVal out = TVal::data(w[0]);
  out.cmp = Cmp{Cond::ueq, any, mask, zero};  // any: mask != 0; all / allEqual: mask == 0
  vals_[w[1]] = std::move(out);
  return {};
}

// allEqual(v) of a vector (or of one 64-bit value): the lanes where some
// component differs from that component of the highest active lane
// (bools as 0/1, the rest bit for bit, 64-bit components on both
// halves); the vote holds where none.
Result<Src> Translator::vote_all_equal_vector(const spirv::Inst& in, uint32_t id, unsigned comps) {
  AGX_TRY(auto v, get(id, in));
  const unsigned width = type(scalar_type(v->type)).width;
  if (!is_bool(scalar_type(v->type)) && width != 32 && width != 64)
    return unsupported(in, "a vote on a vector of non-32/64-bit values");
  Src zero = Src::immediate(0);
  Src active = Src::val(b_.def(IrOp::ballot, {zero, zero}, 32, 1, 0, Cond::ueq));
  Src last = Src::val(b_.def(IrOp::ffs, {active}));
  Src diff = zero;
  for (unsigned c = 0; c < comps; ++c) {
    AGX_TRY(Src x, scalar(id, in, c));
    if (x.is_imm()) continue;  // a constant component agrees in every lane
    Src d;
    if (width == 64) {
      Src lo = b_.binary(IrOp::ixor, lo32(x), read_lane(lo32(x), last));
      d = b_.binary(IrOp::ior, lo, b_.binary(IrOp::ixor, hi32(x), read_lane(hi32(x), last)));
    } else {
      d = b_.binary(IrOp::ixor, x, read_lane(x, last));
    }
    diff = diff.is_imm() ? d : b_.binary(IrOp::ior, diff, d);
  }
  if (diff.is_imm()) return zero;
  return Src::val(b_.def(IrOp::ballot, {diff, zero}, 32, 1, 0, Cond::ueq, true));
}

}  // namespace agx::compiler::detail
