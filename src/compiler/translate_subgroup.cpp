// Subgroup operations (OpGroupNonUniform* other than the votes, and the
// SPV_KHR_shader_ballot forms) -> IR, for a subgroup that is the 32-lane
// SIMD group. Only instructions whose semantics dougallj/applegpu defines
// are used: icmp_ballot (the mask of the active lanes where a comparison
// holds) and simd_shuffle / _down / _up / _xor. The hardware's SIMD
// reductions and prefix ops have no public semantics, so reductions and
// scans are built from shuffles here.
//
// Two facts of the shuffles shape this file (applegpu's simd_shuffle exec):
// - A and B are read in every lane, active or not, and the low two bits of
//   B are ORed over each quad of the lane being read. A register written
//   under divergent control flow holds stale bits in inactive lanes, so B
//   is only trusted when it is an immediate (the same in all 32 lanes): a
//   per-lane or computed index is read as 32 immediate broadcasts and a
//   select on the index (`read_lane`).
// - Inactive lanes are never written, so a log-step scan cannot pass
//   partial results through them. Only the active lanes contribute
//   (SPIR-V), so reductions and scans (translate_subgroup_scan.cpp) run in
//   one of two ways, chosen at run time: log-step when every lane that
//   exists is active, otherwise in lane order over the 32 lanes.
// Mesa's AGX backend (bminor/mesa-mesa src/asahi/compiler/
// agx_nir_lower_subgroups.c) lowers elect to "lowest active lane", the
// subgroup count to ceil(workgroup size / 32), and ballots to 32 bits.
#include <algorithm>
#include <bit>
#include <cmath>

#include <fmt/format.h>

#include "compiler/subgroup_lanes.h"
#include "compiler/translate.h"

namespace agx::compiler::detail {

using namespace subgroup;

namespace {
constexpr uint32_t kSubgroupScope = 3;  // spv::Scope::Subgroup
}  // namespace

Src Translator::read_lane(Src x, Src index) { return Lanes(b_).read_lane(x, index); }

std::optional<Src> Translator::subgroup_builtin(int32_t builtin, unsigned comp) {
  Lanes L(b_);
  auto mask = [&](auto fn) -> Src { return comp ? Src::immediate(0) : fn(L.lane()); };
  switch (static_cast<spv::BuiltIn>(builtin)) {
    case spv::BuiltIn::SubgroupSize: return Src::immediate(kLanes);
    case spv::BuiltIn::NumSubgroups: {
      const auto& ls = m_.local_size;
      return Src::immediate((ls[0] * ls[1] * ls[2] + kLanes - 1) / kLanes);
    }
    case spv::BuiltIn::SubgroupEqMask:
      return mask([&](Src l) { return b_.binary(IrOp::ishl, Src::immediate(1), l); });
    case spv::BuiltIn::SubgroupGeMask:
      return mask([&](Src l) { return b_.binary(IrOp::ishl, Src::immediate(0xffffffffu), l); });
    case spv::BuiltIn::SubgroupGtMask:
      return mask([&](Src l) { return b_.binary(IrOp::ishl, Src::immediate(0xfffffffeu), l); });
    case spv::BuiltIn::SubgroupLeMask:  // (2 << lane) - 1: lane 31 gives 0 - 1, all ones
      return mask([&](Src l) { return b_.binary(IrOp::isub, b_.binary(IrOp::ishl, Src::immediate(2), l), Src::immediate(1)); });
    case spv::BuiltIn::SubgroupLtMask:
      return mask([&](Src l) { return b_.binary(IrOp::isub, b_.binary(IrOp::ishl, Src::immediate(1), l), Src::immediate(1)); });
    default: return std::nullopt;
  }
}

bool Translator::is_subgroup_op(spv::Op op) {
  switch (op) {
    case SpvOp::OpGroupNonUniformElect: case SpvOp::OpGroupNonUniformBroadcast: case SpvOp::OpGroupNonUniformBroadcastFirst:
    case SpvOp::OpGroupNonUniformBallot: case SpvOp::OpGroupNonUniformInverseBallot:
    case SpvOp::OpGroupNonUniformBallotBitExtract: case SpvOp::OpGroupNonUniformBallotBitCount:
    case SpvOp::OpGroupNonUniformBallotFindLSB: case SpvOp::OpGroupNonUniformBallotFindMSB:
    case SpvOp::OpGroupNonUniformShuffle: case SpvOp::OpGroupNonUniformShuffleXor:
    case SpvOp::OpGroupNonUniformShuffleUp: case SpvOp::OpGroupNonUniformShuffleDown:
    case SpvOp::OpGroupNonUniformIAdd: case SpvOp::OpGroupNonUniformFAdd: case SpvOp::OpGroupNonUniformIMul:
    case SpvOp::OpGroupNonUniformFMul: case SpvOp::OpGroupNonUniformSMin: case SpvOp::OpGroupNonUniformUMin:
    case SpvOp::OpGroupNonUniformFMin: case SpvOp::OpGroupNonUniformSMax: case SpvOp::OpGroupNonUniformUMax:
    case SpvOp::OpGroupNonUniformFMax: case SpvOp::OpGroupNonUniformBitwiseAnd: case SpvOp::OpGroupNonUniformBitwiseOr:
    case SpvOp::OpGroupNonUniformBitwiseXor: case SpvOp::OpGroupNonUniformLogicalAnd: case SpvOp::OpGroupNonUniformLogicalOr:
    case SpvOp::OpGroupNonUniformLogicalXor: case SpvOp::OpGroupNonUniformQuadBroadcast: case SpvOp::OpGroupNonUniformQuadSwap:
    case SpvOp::OpSubgroupBallotKHR: case SpvOp::OpSubgroupFirstInvocationKHR: case SpvOp::OpSubgroupReadInvocationKHR:
      return true;
    default: return false;
  }
}

// One subgroup instruction: its operands after the scope, the result
// being built and the per-component (per-half for 64-bit values) walk.
class Translator::SubgroupCall {
 public:
  SubgroupCall(Translator& t, const spirv::Inst& in, size_t first_operand, unsigned components, bool wide_values,
               bool bool_values)
      : n(components), wide(wide_values), bool_result(bool_values), t_(t), in_(in), arg_(first_operand) {
    out = TVal::data(in.w[0]);
  }
  unsigned n;
  bool wide, bool_result;
  TVal out;

  Result<uint32_t> operand(size_t k) const {
    if (arg_ + k >= in_.w.size()) return t_.unsupported(in_, "subgroup operation operand count");
    return in_.w[arg_ + k];
  }
  Status finish() {
    if (bool_result && n == 1 && !out.cmp) {
      out.cmp = Cmp{Cond::ueq, true, out.c[0], Src::immediate(0)};
      out.c.clear();
    }
    t_.vals_[in_.w[1]] = std::move(out);
    return {};
  }
  // fn on each component of value operand `id` (each half of a 64-bit one).
  template <typename F>
  Status per_comp(uint32_t id, F fn) {
    for (unsigned c = 0; c < n; ++c) {
      AGX_TRY(auto x, t_.scalar(id, in_, c));
      if (wide) {
        AGX_TRY(auto lo, fn(t_.lo32(x)));
        AGX_TRY(auto hi, fn(t_.hi32(x)));
        out.c.push_back(t_.pack64(lo, hi));
        continue;
      }
      AGX_TRY(auto r, fn(x));
      out.c.push_back(r);
    }
    return finish();
  }

 private:
  Translator& t_;
  const spirv::Inst& in_;
  size_t arg_;
};

Status Translator::subgroup(const spirv::Inst& in) {
  const auto& w = in.w;
  bool khr = in.op == SpvOp::OpSubgroupBallotKHR || in.op == SpvOp::OpSubgroupFirstInvocationKHR ||
             in.op == SpvOp::OpSubgroupReadInvocationKHR;
  size_t arg = khr ? 2 : 3;  // first operand after the scope
  if (w.size() < arg || w[1] >= m_.bound)
    return Error::decode("{}: SPIR-V word {}: too few operands or result id out of range", o_.file_name, in.word_offset);
  if (!khr && (w[2] >= m_.bound || !m_.is_constant[w[2]] || m_.constants[w[2]].bits != kSubgroupScope))
    return unsupported(in, "a subgroup operation of a scope other than Subgroup");
  uint32_t rtype = w[0];
  unsigned n = components(rtype);
  if (!n) return unsupported(in, "a subgroup operation on a composite other than a vector");
  bool bool_result = is_bool(rtype);
  // 64-bit integers and doubles: lane moves and bitwise reductions run on
  // each half; double arithmetic folds with the fp64 sequences.
  const bool dbl = is_double(rtype);
  bool wide = is_int64(rtype) || dbl;
  // 8/16-bit values: widened, through translate_small_lanes.cpp.
  if (!bool_result && !wide && type(scalar_type(rtype)).width != 32 && !(small_active_ && small_width(rtype)))
    return unsupported(in, fmt::format("a subgroup operation on {}-bit values (32-bit only)", type(scalar_type(rtype)).width));
  SubgroupCall c(*this, in, arg, n, wide, bool_result);
  bool handled = false;
  AGX_CHECK(subgroup_lanes(in, c, handled));
  if (handled) return {};
  return subgroup_reduce(in, c, dbl);
}

// The lane operations: elect, ballots, broadcasts, shuffles, quad
// operations; `handled` false for the reductions and scans.
Status Translator::subgroup_lanes(const spirv::Inst& in, SubgroupCall& call, bool& handled) {
  handled = true;
  Lanes L(b_);
  const Src zero = Src::immediate(0);
  // The ballot operand's first word (subgroup size 32: the others are 0).
  auto ballot_word = [&](uint32_t id) -> Result<Src> { return scalar(id, in, 0); };
  switch (in.op) {
    case SpvOp::OpGroupNonUniformElect: {
      // The lowest active lane: its bit alone is active & -active.
      Src act = L.active();
      Src low = b_.binary(IrOp::iand, act, b_.binary(IrOp::isub, zero, act));
      call.out.cmp = Cmp{Cond::ueq, false, L.lane(), Src::val(b_.def(IrOp::ffs, {low}))};
      return call.finish();
    }
    case SpvOp::OpGroupNonUniformBallot: case SpvOp::OpSubgroupBallotKHR: {
      AGX_TRY(uint32_t id, call.operand(0));
      AGX_TRY(auto c, condition(id, in));
      if (cond_is_float(c.cond)) c = Cmp{Cond::ueq, true, materialize(c), zero};
      call.out.c.push_back(Src::val(b_.def(IrOp::ballot, {c.a, c.b}, 32, 1, 0, c.cond, c.invert)));
      for (unsigned i = 1; i < call.n; ++i) call.out.c.push_back(zero);
      return call.finish();
    }
    case SpvOp::OpGroupNonUniformInverseBallot: {
      AGX_TRY(uint32_t id, call.operand(0));
      AGX_TRY(auto v, ballot_word(id));
      Src bit = b_.binary(IrOp::iand, b_.binary(IrOp::ushr, v, L.lane()), Src::immediate(1));
      call.out.cmp = Cmp{Cond::ueq, true, bit, zero};
      return call.finish();
    }
    case SpvOp::OpGroupNonUniformBallotBitExtract: {
      AGX_TRY(uint32_t id, call.operand(0));
      AGX_TRY(uint32_t idx_id, call.operand(1));
      AGX_TRY(auto idx, scalar(idx_id, in));
      // The word index / 32 of the uvec4, then the bit.
      Src word_no = b_.binary(IrOp::ushr, idx, Src::immediate(5));
      AGX_TRY(auto word, scalar(id, in, 0));
      for (unsigned k = 1; k < 4; ++k) {
        AGX_TRY(auto wk, scalar(id, in, k));
        word = b_.select(Cond::ueq, false, word_no, Src::immediate(k), wk, word);
      }
      Src bit = b_.binary(IrOp::iand, b_.binary(IrOp::ushr, word, b_.binary(IrOp::iand, idx, Src::immediate(31))),
                          Src::immediate(1));
      call.out.cmp = Cmp{Cond::ueq, true, bit, zero};
      return call.finish();
    }
    case SpvOp::OpGroupNonUniformBallotBitCount: {
      AGX_TRY(uint32_t gop, call.operand(0));
      AGX_TRY(uint32_t id, call.operand(1));
      AGX_TRY(auto v, ballot_word(id));
      if (gop == static_cast<uint32_t>(GroupOp::inclusive)) v = b_.binary(IrOp::iand, v, *subgroup_builtin(static_cast<int32_t>(spv::BuiltIn::SubgroupLeMask), 0));
      else if (gop == static_cast<uint32_t>(GroupOp::exclusive)) v = b_.binary(IrOp::iand, v, *subgroup_builtin(static_cast<int32_t>(spv::BuiltIn::SubgroupLtMask), 0));
      else if (gop != static_cast<uint32_t>(GroupOp::reduce)) return unsupported(in, "ballot bit count with this group operation");
      call.out.c.push_back(v.is_imm() ? Src::immediate(std::popcount(static_cast<uint32_t>(v.imm))) : Src::val(b_.def(IrOp::popcount, {v})));
      return call.finish();
    }
    case SpvOp::OpGroupNonUniformBallotFindLSB: case SpvOp::OpGroupNonUniformBallotFindMSB: {
      AGX_TRY(uint32_t id, call.operand(0));
      AGX_TRY(auto v, ballot_word(id));
      // ffs gives the highest set bit; the lowest is the highest of v & -v.
      if (in.op == SpvOp::OpGroupNonUniformBallotFindLSB) v = b_.binary(IrOp::iand, v, b_.binary(IrOp::isub, zero, v));
      if (!v.is_value()) v = Src::val(b_.def(IrOp::mov, {v}));
      call.out.c.push_back(Src::val(b_.def(IrOp::ffs, {v})));
      return call.finish();
    }
    case SpvOp::OpGroupNonUniformBroadcast: case SpvOp::OpSubgroupReadInvocationKHR: {
      AGX_TRY(uint32_t id, call.operand(0));
      AGX_TRY(uint32_t idx_id, call.operand(1));
      AGX_TRY(auto idx, scalar(idx_id, in));
      return call.per_comp(id, [&](Src x) -> Result<Src> { return L.read_lane(x, idx); });
    }
    case SpvOp::OpGroupNonUniformBroadcastFirst: case SpvOp::OpSubgroupFirstInvocationKHR: {
      AGX_TRY(uint32_t id, call.operand(0));
      Src act = L.active();
      Src first = Src::val(b_.def(IrOp::ffs, {b_.binary(IrOp::iand, act, b_.binary(IrOp::isub, zero, act))}));
      return call.per_comp(id, [&](Src x) -> Result<Src> { return L.read_lane(x, first); });
    }
    case SpvOp::OpGroupNonUniformShuffle: case SpvOp::OpGroupNonUniformShuffleXor:
    case SpvOp::OpGroupNonUniformShuffleUp: case SpvOp::OpGroupNonUniformShuffleDown: {
      AGX_TRY(uint32_t id, call.operand(0));
      AGX_TRY(uint32_t k_id, call.operand(1));
      AGX_TRY(auto k, scalar(k_id, in));
      if (in.op == SpvOp::OpGroupNonUniformShuffle)
        return call.per_comp(id, [&](Src x) -> Result<Src> { return L.read_lane(x, k); });
      uint64_t kind = in.op == SpvOp::OpGroupNonUniformShuffleXor ? kXor : in.op == SpvOp::OpGroupNonUniformShuffleUp ? kUp : kDown;
      if (k.is_imm() && k.imm < kLanes)  // one shuffle with an immediate B
        return call.per_comp(id, [&](Src x) -> Result<Src> { return L.shuffle(x, kind, static_cast<uint32_t>(k.imm)); });
      // A computed delta/mask: the lane it names, read as a general shuffle.
      Src lane = L.lane();
      Src target = kind == kXor ? b_.binary(IrOp::ixor, lane, k)
                 : kind == kUp ? b_.binary(IrOp::isub, lane, k) : b_.binary(IrOp::iadd, lane, k);
      return call.per_comp(id, [&](Src x) -> Result<Src> { return L.read_lane(x, target); });
    }
    case SpvOp::OpGroupNonUniformQuadSwap: {
      AGX_TRY(uint32_t id, call.operand(0));
      AGX_TRY(uint32_t dir_id, call.operand(1));
      AGX_TRY(auto dir, scalar(dir_id, in));
      if (!dir.is_imm() || dir.imm > 2) return unsupported(in, "quad swap direction other than 0, 1, 2");
      // Horizontal: lane ^ 1, vertical: lane ^ 2, diagonal: lane ^ 3.
      uint32_t m = static_cast<uint32_t>(dir.imm) + 1;
      return call.per_comp(id, [&](Src x) -> Result<Src> { return L.shuffle(x, kXor, m); });
    }
    case SpvOp::OpGroupNonUniformQuadBroadcast: {
      AGX_TRY(uint32_t id, call.operand(0));
      AGX_TRY(uint32_t idx_id, call.operand(1));
      AGX_TRY(auto idx, scalar(idx_id, in));
      // Lane (lane & ~3) | idx is lane ^ ((lane ^ idx) & 3): the xor
      // shuffles by 0..3 (immediate B), selected per lane.
      Src m = b_.binary(IrOp::iand, b_.binary(IrOp::ixor, L.lane(), idx), Src::immediate(3));
      return call.per_comp(id, [&](Src x) -> Result<Src> {
        Src r = x;
        for (uint32_t k = 1; k < 4; ++k) r = b_.select(Cond::ueq, false, m, Src::immediate(k), L.shuffle(x, kXor, k), r);
        return r;
      });
    }
    default: handled = false; return {};
  }

}

// Reductions and scans (Reduce, InclusiveScan, ExclusiveScan,
// ClusteredReduce) of every type.
Status Translator::subgroup_reduce(const spirv::Inst& in, SubgroupCall& call, bool dbl) {
  Lanes L(b_);
  const Src zero = Src::immediate(0);
  const bool bool_result = call.bool_result, wide = call.wide;
  Red red{};
  bool logical = false;
  switch (in.op) {
    case SpvOp::OpGroupNonUniformIAdd: red = Red::iadd; break;
    case SpvOp::OpGroupNonUniformFAdd: red = Red::fadd; break;
    case SpvOp::OpGroupNonUniformIMul: red = Red::imul; break;
    case SpvOp::OpGroupNonUniformFMul: red = Red::fmul; break;
    case SpvOp::OpGroupNonUniformSMin: red = Red::smin; break;
    case SpvOp::OpGroupNonUniformUMin: red = Red::umin; break;
    case SpvOp::OpGroupNonUniformFMin: red = Red::fmin; break;
    case SpvOp::OpGroupNonUniformSMax: red = Red::smax; break;
    case SpvOp::OpGroupNonUniformUMax: red = Red::umax; break;
    case SpvOp::OpGroupNonUniformFMax: red = Red::fmax; break;
    case SpvOp::OpGroupNonUniformBitwiseAnd: red = Red::and_; break;
    case SpvOp::OpGroupNonUniformBitwiseOr: red = Red::or_; break;
    case SpvOp::OpGroupNonUniformBitwiseXor: red = Red::xor_; break;
    case SpvOp::OpGroupNonUniformLogicalAnd: red = Red::and_; logical = true; break;
    case SpvOp::OpGroupNonUniformLogicalOr: red = Red::or_; logical = true; break;
    case SpvOp::OpGroupNonUniformLogicalXor: red = Red::xor_; logical = true; break;
    default: return unsupported(in, fmt::format("subgroup operation op {}", static_cast<unsigned>(in.op)));
  }
  AGX_TRY(uint32_t gop_word, call.operand(0));
  AGX_TRY(uint32_t id, call.operand(1));
  auto gop = static_cast<GroupOp>(gop_word);
  uint32_t cluster = kLanes;
  if (gop == GroupOp::clustered) {
    AGX_TRY(uint32_t cs_id, call.operand(2));
    AGX_TRY(auto cs, scalar(cs_id, in));
    if (!cs.is_imm() || !cs.imm || (cs.imm & (cs.imm - 1)) || cs.imm > kLanes * 4)
      return unsupported(in, "cluster size not a constant power of two");
    cluster = static_cast<uint32_t>(std::min<uint64_t>(cs.imm, kLanes));
  } else if (gop != GroupOp::reduce && gop != GroupOp::inclusive && gop != GroupOp::exclusive) {
    return unsupported(in, "group operation other than Reduce, InclusiveScan, ExclusiveScan, ClusteredReduce");
  }
  if (logical != bool_result) return unsupported(in, "logical subgroup operation on non-booleans");
  // The lanes whose values each lane combines.
  Src act = L.active();
  Src lane = L.lane();
  Src mask = act;
  if (gop == GroupOp::inclusive) mask = b_.binary(IrOp::iand, act, *subgroup_builtin(static_cast<int32_t>(spv::BuiltIn::SubgroupLeMask), 0));
  if (gop == GroupOp::exclusive) mask = b_.binary(IrOp::iand, act, *subgroup_builtin(static_cast<int32_t>(spv::BuiltIn::SubgroupLtMask), 0));
  if (gop == GroupOp::clustered && cluster < kLanes) {
    Src first = b_.binary(IrOp::iand, lane, Src::immediate(~(cluster - 1)));
    mask = b_.binary(IrOp::iand, act, b_.binary(IrOp::ishl, Src::immediate((1u << cluster) - 1), first));
  }
  if (logical) {
    // Booleans: one ballot of the values. and: no masked lane false;
    // or: some masked lane true; xor: an odd count of true ones.
    return call.per_comp(id, [&](Src x) -> Result<Src> {
      Src t = Src::val(b_.def(IrOp::ballot, {x, zero}, 32, 1, 0, Cond::ueq, true));
      if (red == Red::and_) {
        Src f = b_.binary(IrOp::iand, mask, Src::val(b_.def(IrOp::inot, {t})));
        return b_.select(Cond::ueq, false, f, zero, Src::immediate(1), zero);
      }
      Src hits = b_.binary(IrOp::iand, mask, t);
      if (red == Red::or_) return b_.select(Cond::ueq, false, hits, zero, zero, Src::immediate(1));
      return b_.binary(IrOp::iand, Src::val(b_.def(IrOp::popcount, {hits})), Src::immediate(1));
    });
  }
  if (dbl) {
    if (red != Red::fadd && red != Red::fmul && red != Red::fmin && red != Red::fmax)
      return unsupported(in, "integer subgroup operation on doubles");
    for (unsigned c = 0; c < call.n; ++c) {
      AGX_TRY(auto v, scalar(id, in, c));
      call.out.c.push_back(subgroup_fold_double(static_cast<unsigned>(red), lo32(v), hi32(v), mask));
    }
    return call.finish();
  }
  if (wide && red != Red::and_ && red != Red::or_ && red != Red::xor_) {
    // 64-bit add/min/max: the lane-order fold on both halves (always exact,
    // no log-step form); multiplies in translate_subgroup_imul64.cpp.
    for (unsigned c = 0; c < call.n; ++c) {
      AGX_TRY(auto x, scalar(id, in, c));
      if (red == Red::imul) {
        call.out.c.push_back(subgroup_imul64(lo32(x), hi32(x), mask));
        continue;
      }
      auto r = L.masked_lane_order64(red, {lo32(x), hi32(x)}, mask);
      call.out.c.push_back(pack64(r.first, r.second));
    }
    return call.finish();
  }
  return call.per_comp(id, [&](Src x) -> Result<Src> { return subgroup_scan(static_cast<unsigned>(red), static_cast<unsigned>(gop), cluster, x, mask, act, lane); });
}

// One component of a double reduction or scan: the lane-order fold with
// the fp64 add / mul / min / max, as a loop over the lanes k = 0..31 (one
// fp64 sequence in the code, not 32): lane k's value read with
// read_lane's immediate broadcasts, taken where bit k of `mask` is set.
Src Translator::subgroup_fold_double(unsigned red_op, Src lo, Src hi, Src mask) {
  const Red red = static_cast<Red>(red_op);
  Lanes L(b_);
  const Src zero = Src::immediate(0);
  Int64 x64(b_);
  Fp64 fp(x64);
  Function& f = b_.function();
  if (!lo.is_value()) lo = Src::val(b_.def(IrOp::mov, {lo}));
  if (!hi.is_value()) hi = Src::val(b_.def(IrOp::mov, {hi}));
  // Identities: -0 (x + -0 is x, also for +0), 1, +inf, -inf.
  const Pair id0 = red == Red::fadd ? Fp64::constant(-0.0) : red == Red::fmul ? Fp64::constant(1.0)
                 : Fp64::constant(red == Red::fmin ? HUGE_VAL : -HUGE_VAL);
  const ValueId acc_lo = f.new_value(32, 1, true), acc_hi = f.new_value(32, 1, true), k = f.new_value(32, 1, true);
  b_.def_into(acc_lo, IrOp::mov, {id0.lo});
  b_.def_into(acc_hi, IrOp::mov, {id0.hi});
  b_.def_into(k, IrOp::mov, {zero});
  b_.emit(IrOp::loop);
  Pair acc{Src::val(acc_lo), Src::val(acc_hi)}, y{L.read_lane(lo, Src::val(k)), L.read_lane(hi, Src::val(k))};
  Pair t = red == Red::fadd ? fp.add(acc, y) : red == Red::fmul ? fp.mul(acc, y) : red == Red::fmin ? fp.min(acc, y) : fp.max(acc, y);
  Src bit = b_.binary(IrOp::iand, b_.binary(IrOp::ushr, mask, Src::val(k)), Src::immediate(1));
  b_.def_into(acc_lo, IrOp::mov, {b_.select(Cond::ueq, false, bit, zero, acc.lo, t.lo)});
  b_.def_into(acc_hi, IrOp::mov, {b_.select(Cond::ueq, false, bit, zero, acc.hi, t.hi)});
  Src next = b_.binary(IrOp::iadd, Src::val(k), Src::immediate(1));
  b_.def_into(k, IrOp::mov, {next});
  b_.emit(IrOp::if_, {next, Src::immediate(kLanes)}, 0, Cond::ueq, false);
  b_.emit(IrOp::break_);
  b_.emit(IrOp::end_if);
  b_.emit(IrOp::end_loop);
  Src result_lo = Src::val(b_.def(IrOp::mov, {Src::val(acc_lo)}));
  return pack64(result_lo, Src::val(b_.def(IrOp::mov, {Src::val(acc_hi)})));
}

}  // namespace agx::compiler::detail
