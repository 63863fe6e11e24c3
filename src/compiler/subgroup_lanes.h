// Helpers of translate_subgroup.cpp and translate_subgroup_scan.cpp: lane
// reads and combining operations on the 32-lane SIMD group, built on
// icmp_ballot and immediate simd_shuffles (see translate_subgroup.cpp for
// why an index is only trusted as an immediate).
#pragma once

#include <functional>
#include <utility>

#include "compiler/builder.h"

namespace agx::compiler::detail::subgroup {

using IrOp = agx::compiler::Op;

inline constexpr uint32_t kLanes = 32;

// simd_shuffle's Instr::imm: the variant (pack.cpp names them).
enum Shuffle : uint64_t { kIndex = 0, kDown = 1, kUp = 2, kXor = 3 };

enum class Red { iadd, imul, fadd, fmul, smin, umin, fmin, smax, umax, fmax, and_, or_, xor_ };

inline uint32_t identity(Red r) {
  switch (r) {
    case Red::imul: return 1;
    case Red::fmul: return 0x3f800000u;   // 1.0
    case Red::smin: return 0x7fffffffu;
    case Red::umin: case Red::and_: return 0xffffffffu;
    case Red::fmin: return 0x7f800000u;   // +inf
    case Red::smax: return 0x80000000u;
    case Red::fmax: return 0xff800000u;   // -inf
    default: return 0;
  }
}

class Lanes {
 public:
  explicit Lanes(Builder& b) : b_(b) {}
  // Set for halves: each float sum/product rounded to the nearest half
  // (per operation, as SPIR-V's 16-bit OpFAdd/OpFMul).
  std::function<Src(Src)> round_float;
  Src lane() { return Src::val(b_.def(IrOp::get_sr, {}, 32, 1, 52)); }  // thread_index_in_simdgroup
  // Mask of the active lanes, in every active lane.
  Src active() { return Src::val(b_.def(IrOp::ballot, {Src::immediate(0), Src::immediate(0)}, 32, 1, 0, Cond::ueq)); }
  Src shuffle(Src x, uint64_t kind, uint32_t imm) {
    if (x.is_imm()) return x;
    if (!x.is_value()) x = Src::val(b_.def(IrOp::mov, {x}));
    return Src::val(b_.def(IrOp::simd_shuffle, {x, Src::immediate(imm)}, 32, 1, kind));
  }
  // x of lane `index` (any value): an immediate index is one broadcast.
  Src read_lane(Src x, Src index) {
    if (index.is_imm()) return index.imm < kLanes ? shuffle(x, kIndex, static_cast<uint32_t>(index.imm)) : x;
    if (x.is_imm()) return x;
    Src r = shuffle(x, kIndex, 0);
    for (uint32_t k = 1; k < kLanes; ++k)
      r = b_.select(Cond::ueq, false, index, Src::immediate(k), shuffle(x, kIndex, k), r);
    return r;
  }
  Src combine(Red r, Src a, Src x) {
    switch (r) {
      case Red::iadd: return b_.binary(IrOp::iadd, a, x);
      case Red::imul: return b_.binary(IrOp::imul, a, x);
      case Red::fadd: case Red::fmul: {
        Src t = Src::val(b_.def(r == Red::fadd ? IrOp::fadd : IrOp::fmul, {a, x}));
        return round_float ? round_float(t) : t;
      }
      case Red::smin: return b_.select(Cond::slt, false, x, a, x, a);
      case Red::umin: return b_.select(Cond::ult, false, x, a, x, a);
      case Red::fmin: return b_.select(Cond::flt, false, x, a, x, a);
      case Red::smax: return b_.select(Cond::sgt, false, x, a, x, a);
      case Red::umax: return b_.select(Cond::ugt, false, x, a, x, a);
      case Red::fmax: return b_.select(Cond::fgt, false, x, a, x, a);
      case Red::and_: return b_.binary(IrOp::iand, a, x);
      case Red::or_: return b_.binary(IrOp::ior, a, x);
      case Red::xor_: return b_.binary(IrOp::ixor, a, x);
    }
    return a;
  }
  // op over lane k's x for every k whose bit is set in `mask` (per lane),
  // in lane order from the identity.
  Src masked_lane_order(Red r, Src x, Src mask) {
    Src acc = Src::immediate(identity(r));
    for (uint32_t k = 0; k < kLanes; ++k) {
      Src y = shuffle(x, kIndex, k);
      Src t = combine(r, acc, y);
      Src top = k == kLanes - 1 ? mask : b_.binary(IrOp::ishl, mask, Src::immediate(kLanes - 1 - k));
      acc = b_.select(Cond::slt, false, top, Src::immediate(0), t, acc);  // bit k of mask is now the sign
    }
    return acc;
  }

  // 64-bit integers as (low, high) halves: add with the carry of the low
  // words, min/max on the high words (signed or not) then the low ones.
  using Pair = std::pair<Src, Src>;
  Pair combine64(Red r, Pair a, Pair x) {
    switch (r) {
      case Red::iadd: {
        Src lo = b_.binary(IrOp::iadd, a.first, x.first);
        Src carry = b_.select(Cond::ult, false, lo, a.first, Src::immediate(1), Src::immediate(0));
        return {lo, b_.binary(IrOp::iadd, b_.binary(IrOp::iadd, a.second, x.second), carry)};
      }
      case Red::and_: case Red::or_: case Red::xor_:
        return {combine(r, a.first, x.first), combine(r, a.second, x.second)};
      default: {
        bool is_min = r == Red::umin || r == Red::smin;
        Cond hi_cond = r == Red::smin || r == Red::smax ? Cond::slt : Cond::ult;
        // take x when x < a (min) or a < x (max)
        Pair p = is_min ? x : a, q = is_min ? a : x;
        Src lo_lt = b_.select(Cond::ult, false, p.first, q.first, Src::immediate(1), Src::immediate(0));
        Src eq = b_.select(Cond::ueq, false, p.second, q.second, lo_lt, Src::immediate(0));
        Src lt = b_.select(hi_cond, false, p.second, q.second, Src::immediate(1), eq);
        return {b_.select(Cond::ueq, false, lt, Src::immediate(0), a.first, x.first),
                b_.select(Cond::ueq, false, lt, Src::immediate(0), a.second, x.second)};
      }
    }
  }
  static Pair identity64(Red r) {
    switch (r) {
      case Red::umin: case Red::and_: return {Src::immediate(0xffffffffu), Src::immediate(0xffffffffu)};
      case Red::smin: return {Src::immediate(0xffffffffu), Src::immediate(0x7fffffffu)};
      case Red::smax: return {Src::immediate(0), Src::immediate(0x80000000u)};
      default: return {Src::immediate(0), Src::immediate(0)};
    }
  }
  // masked_lane_order on 64-bit halves.
  Pair masked_lane_order64(Red r, Pair x, Src mask) {
    Pair acc = identity64(r);
    for (uint32_t k = 0; k < kLanes; ++k) {
      Pair y{shuffle(x.first, kIndex, k), shuffle(x.second, kIndex, k)};
      Pair t = combine64(r, acc, y);
      Src top = k == kLanes - 1 ? mask : b_.binary(IrOp::ishl, mask, Src::immediate(kLanes - 1 - k));
      acc = {b_.select(Cond::slt, false, top, Src::immediate(0), t.first, acc.first),
             b_.select(Cond::slt, false, top, Src::immediate(0), t.second, acc.second)};
    }
    return acc;
  }

 private:
  Builder& b_;
};

enum class GroupOp : uint32_t { reduce = 0, inclusive = 1, exclusive = 2, clustered = 3 };


}  // namespace agx::compiler::detail::subgroup
