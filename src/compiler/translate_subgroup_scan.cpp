// Subgroup reductions and scans (OpGroupNonUniform{IAdd,...,BitwiseXor}
// with Reduce / InclusiveScan / ExclusiveScan / ClusteredReduce) on
// immediate shuffles: log-step when every lane of the SIMD group that
// exists is active, lane order otherwise (docs/compiler.md, "Subgroup
// operations").
#include "compiler/subgroup_lanes.h"
#include "compiler/translate.h"

namespace agx::compiler::detail {

using namespace subgroup;

// A reduction or scan of x. When every lane of the SIMD group that exists
// is active: log-step on immediate shuffles; otherwise the lane-order loop
// over the mask.
Result<Src> Translator::subgroup_scan(unsigned red_u, unsigned gop_u, uint32_t cluster, Src x, Src mask, Src act, Src lane) {
  Lanes L(b_);
  if (round_half_lanes_) L.round_float = [this](Src t) { return round_half(t); };
  auto red = static_cast<Red>(red_u);
  auto gop = static_cast<GroupOp>(gop_u);
  if (!x.is_value()) x = Src::val(b_.def(IrOp::mov, {x}));
  // The CDM fills SIMD groups in local invocation index order, so only the
  // last group of a workgroup whose size is not a multiple of 32 is partial:
  // its lanes n..31 do not exist (n = size - 32 * subgroup id).
  const auto& ls = m_.local_size;
  const uint32_t total = ls[0] * ls[1] * ls[2];
  const bool whole_groups = total % kLanes == 0;
  Src exist = Src::immediate(0xffffffffu), count = Src::immediate(kLanes);
  if (!whole_groups) {
    Src sg = Src::val(b_.def(IrOp::get_sr, {}, 32, 1, 53));  // simdgroup_index_in_threadgroup
    Src rem = b_.binary(IrOp::isub, Src::immediate(total), b_.binary(IrOp::ishl, sg, Src::immediate(5)));
    count = b_.select(Cond::ult, false, rem, Src::immediate(kLanes), rem, Src::immediate(kLanes));
    Src low = b_.binary(IrOp::isub, b_.binary(IrOp::ishl, Src::immediate(1), rem), Src::immediate(1));
    exist = b_.select(Cond::ult, false, rem, Src::immediate(kLanes), low, Src::immediate(0xffffffffu));
  }
  ValueId result = b_.function().new_value(32, 1, true);
  b_.emit(IrOp::if_, {act, exist}, 0, Cond::ueq, false);
  {
    Src v = x;
    if (gop == GroupOp::inclusive || gop == GroupOp::exclusive) {
      // Hillis-Steele: after step d, lane l holds op(x[l-2d+1 .. l]); only
      // lower lanes are read, and those exist.
      for (uint32_t d = 1; d < kLanes; d *= 2) {
        Src y = L.shuffle(v, kUp, d);
        Src t = L.combine(red, y, v);
        v = b_.select(Cond::ult, false, lane, Src::immediate(d), v, t);
      }
      if (gop == GroupOp::exclusive) {
        Src y = L.shuffle(v, kUp, 1);
        v = b_.select(Cond::ueq, false, lane, Src::immediate(0), Src::immediate(identity(red)), y);
      }
    } else if (whole_groups) {
      // Butterfly: after step d, every lane of each aligned 2d block holds
      // op of the block; clusters stop at their size. Add, multiply and the
      // bitwise ops commute exactly; float min/max of -0/+0 or NaN does not,
      // so there the lower lane's value goes first in both lanes.
      for (uint32_t d = 1; d < cluster; d *= 2) {
        Src y = L.shuffle(v, kXor, d);
        if (red != Red::fmin && red != Red::fmax) {  // commutative bit for bit
          v = L.combine(red, v, y);
          continue;
        }
        Src upper = b_.binary(IrOp::iand, lane, Src::immediate(d));
        Src lo_first = L.combine(red, v, y);
        Src hi_first = L.combine(red, y, v);
        v = b_.select(Cond::ueq, false, upper, Src::immediate(0), lo_first, hi_first);
      }
    } else {
      // Lanes past n may sit in a partner's place: a suffix reduction with
      // down shuffles (lane l takes l + d while that lane exists and is in
      // its cluster) leaves each cluster's result in its first lane, which
      // then fills the cluster with up shuffles (lanes [d, 2d) of the
      // cluster take lane - d), or a broadcast of lane 0 for the group.
      Src in_cluster = b_.binary(IrOp::iand, lane, Src::immediate(cluster - 1));
      for (uint32_t d = 1; d < cluster; d *= 2) {
        Src y = L.shuffle(v, kDown, d);
        Src t = L.combine(red, v, y);
        Src next = b_.binary(IrOp::iadd, lane, Src::immediate(d));
        Src ok = b_.select(Cond::ult, false, next, count, t, v);
        v = cluster == kLanes ? ok : b_.select(Cond::ult, false, in_cluster, Src::immediate(cluster - d), ok, v);
      }
      if (cluster == kLanes) {
        v = L.shuffle(v, kIndex, 0);
      } else {
        for (uint32_t d = 1; d < cluster; d *= 2) {
          Src y = L.shuffle(v, kUp, d);
          Src block = b_.binary(IrOp::iand, in_cluster, Src::immediate(~(d - 1)));
          v = b_.select(Cond::ueq, false, block, Src::immediate(d), y, v);
        }
      }
    }
    b_.def_into(result, IrOp::mov, {v});
  }
  b_.emit(IrOp::else_);
  b_.def_into(result, IrOp::mov, {L.masked_lane_order(red, x, mask)});
  b_.emit(IrOp::end_if);
  return Src::val(result);
}

}  // namespace agx::compiler::detail
