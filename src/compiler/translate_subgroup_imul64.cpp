// 64-bit integer subgroup multiplies (OpGroupNonUniformIMul on int64 /
// uint64: reduce, inclusive and exclusive scans, clustered reduce): the
// lane-order fold of translate_subgroup.cpp's other 64-bit reductions,
// with the 64-bit product of int64_lowering (the low 64 bits, the same for
// signed and unsigned, as OpIMul).
#include "compiler/int64_lowering.h"
#include "compiler/subgroup_lanes.h"
#include "compiler/translate.h"

namespace agx::compiler::detail {

using IrOp = agx::compiler::Op;

// The product of x over the lanes whose bit is set in `mask` (per lane),
// from 1; x as its (low, high) words.
Src Translator::subgroup_imul64(Src lo, Src hi, Src mask) {
  subgroup::Lanes L(b_);
  Int64 x64(b_);
  Pair acc{Src::immediate(1), Src::immediate(0)};
  for (uint32_t k = 0; k < subgroup::kLanes; ++k) {
    Pair y{L.shuffle(lo, subgroup::kIndex, k), L.shuffle(hi, subgroup::kIndex, k)};
    Pair t = x64.mul(acc, y);
    // Bit k of the mask moved to the sign.
    Src top = k == subgroup::kLanes - 1 ? mask : b_.binary(IrOp::ishl, mask, Src::immediate(subgroup::kLanes - 1 - k));
    acc = {b_.select(Cond::slt, false, top, Src::immediate(0), t.lo, acc.lo),
           b_.select(Cond::slt, false, top, Src::immediate(0), t.hi, acc.hi)};
  }
  auto mat = [&](Src s) { return s.is_value() ? s : Src::val(b_.def(IrOp::mov, {s})); };
  Src result_lo = mat(acc.lo);
  return pack64(result_lo, mat(acc.hi));
}

}  // namespace agx::compiler::detail
