// 64-bit integers (GL_ARB_gpu_shader_int64) -> 32-bit IR. A 64-bit scalar
// is a Src of 64 bits: an immediate, a uniform pair u<N>_u<N+1> (low word
// first), or a 2 x 32-bit value (.x low, .y high). Every operation is
// lowered here on the two halves, with the formulas of
// bminor/mesa-mesa src/compiler/nir/nir_lower_int64.c (add with carry,
// 32x32->64 multiply plus cross terms, shifts split at 32, comparisons on
// the high word then the low word, shift-subtract division), so no 64-bit
// operand ever reaches an IR instruction.
#include <spirv/unified1/GLSL.std.450.h>

#include <fmt/format.h>

#include "compiler/translate.h"

namespace agx::compiler::detail {

using spv::Op;
using IrOp = agx::compiler::Op;

bool Translator::is_int64(uint32_t t) const {
  const spirv::Type& st = type(scalar_type(t));
  return st.kind == spirv::Type::Kind::int_ && st.width == 64;
}

Src Translator::lo32(const Src& s) {
  switch (s.kind) {
    case Src::Kind::imm: return Src::immediate(static_cast<uint32_t>(s.imm));
    case Src::Kind::uniform: return Src::uniform(static_cast<uint32_t>(s.imm));
    case Src::Kind::value: return s.bits == 64 ? Src::val(s.value, 32, s.comp) : s;
    default: return s;
  }
}

Src Translator::hi32(const Src& s) {
  switch (s.kind) {
    case Src::Kind::imm: return Src::immediate(s.bits == 64 ? static_cast<uint32_t>(s.imm >> 32) : 0);
    case Src::Kind::uniform: return Src::uniform(static_cast<uint32_t>(s.imm) + 1);
    case Src::Kind::value: return s.bits == 64 ? Src::val(s.value, 32, static_cast<uint8_t>(s.comp + 1)) : Src::immediate(0);
    default: return s;
  }
}

Src Translator::pack64(Src lo, Src hi) {
  if (lo.is_imm() && hi.is_imm())
    return Src::immediate((hi.imm & 0xFFFFFFFFu) << 32 | (lo.imm & 0xFFFFFFFFu), 64);
  // The halves of one value, in order: no copy.
  if (lo.is_value() && hi.is_value() && lo.value == hi.value && hi.comp == lo.comp + 1 && lo.bits == 32 && hi.bits == 32 &&
      !lo.neg && !lo.abs && !hi.neg && !hi.abs && b_.function().values[lo.value].bits == 32)
    return Src::val(lo.value, 64, lo.comp);
  return Src::val(pair_value(b_.def(IrOp::collect, {lo, hi}, 32, 2)), 64);
}

// A 2 x 32-bit value that may be read as one 64-bit register pair: it
// starts on an even register (regs.h register_alignment).
ValueId Translator::pair_value(ValueId v) {
  b_.function().values[v].pair = true;
  return v;
}

// Add and subtract stay 64-bit instructions when both operands are register
// pairs: applegpu's iadd/isub take 64-bit register operands (the usc unit
// runs them) and Mesa's AGX backend keeps iadd64 native
// (bminor/mesa-mesa src/asahi/compiler/agx_compile.h, agx_nir_options:
// lower_int64_options = everything but iadd64 and imul_2x32_64). Uniform
// pairs are not 64-bit operands in applegpu's iadd, and immediates take the
// 32-bit form.
std::optional<Src> Translator::native_add64(IrOp op, const Src& a, const Src& b) {
  auto is_pair = [&](const Src& s) {
    return s.is_value() && s.bits == 64 && s.comp == 0 && b_.function().values[s.value].pair &&
           b_.function().values[s.value].comps == 2 && b_.function().values[s.value].bits == 32;
  };
  if (!is_pair(a) || !is_pair(b)) return std::nullopt;
  return Src::val(pair_value(b_.def(op, {a, b}, 32, 2)), 64);
}

namespace {

struct Pair { Src lo, hi; };

}  // namespace

// The 64-bit arithmetic on halves. Named helpers keep the formulas short.
class Int64 {
 public:
  explicit Int64(Builder& b) : b_(b) {}
  Builder& builder() { return b_; }
  Src flag(Cond c, Src a, Src x) { return b_.select(c, false, a, x, Src::immediate(1), Src::immediate(0)); }
  Src sel(Cond c, Src a, Src x, Src t, Src f) { return b_.select(c, false, a, x, t, f); }
  Src op(IrOp o, Src a, Src x) { return b_.binary(o, a, x); }

  Pair add(Pair a, Pair x) {
    Src lo = op(IrOp::iadd, a.lo, x.lo);
    Src carry = lo.is_imm() && a.lo.is_imm() ? Src::immediate(static_cast<uint32_t>(lo.imm) < static_cast<uint32_t>(a.lo.imm))
                                             : flag(Cond::ult, lo, a.lo);
    return {lo, op(IrOp::iadd, op(IrOp::iadd, a.hi, x.hi), carry)};
  }
  Pair sub(Pair a, Pair x) {
    Src borrow = a.lo.is_imm() && x.lo.is_imm() ? Src::immediate(static_cast<uint32_t>(a.lo.imm) < static_cast<uint32_t>(x.lo.imm))
                                                : flag(Cond::ult, a.lo, x.lo);
    return {op(IrOp::isub, a.lo, x.lo), op(IrOp::isub, op(IrOp::isub, a.hi, x.hi), borrow)};
  }
  Pair mul(Pair a, Pair x) {
    Src lo, carry_hi;
    if (a.lo.is_imm() && x.lo.is_imm()) {
      uint64_t p = (a.lo.imm & 0xFFFFFFFFu) * (x.lo.imm & 0xFFFFFFFFu);
      lo = Src::immediate(static_cast<uint32_t>(p));
      carry_hi = Src::immediate(static_cast<uint32_t>(p >> 32));
    } else {
      Src l = a.lo, r = x.lo;
      if (l.is_imm()) std::swap(l, r);
      ValueId wide = b_.def(IrOp::umul_wide, {l, r}, 32, 2);
      b_.function().values[wide].pair = true;
      lo = Src::val(wide, 32, 0);
      carry_hi = Src::val(wide, 32, 1);
    }
    Src hi = b_.imad(a.lo, x.hi, b_.imad(a.hi, x.lo, carry_hi));
    return {lo, hi};
  }
  Pair bitwise(IrOp o, Pair a, Pair x) { return {op(o, a.lo, x.lo), op(o, a.hi, x.hi)}; }
  Pair neg(Pair a) { return sub({Src::immediate(0), Src::immediate(0)}, a); }

  // Shifts by s mod 64: the halves move across at 32.
  Pair shift(IrOp o, Pair a, Src s) {
    Src s5 = op(IrOp::iand, s, Src::immediate(31));
    Src big = op(IrOp::iand, s, Src::immediate(32));
    Src inv = op(IrOp::isub, Src::immediate(31), s5);
    Pair small, large;
    if (o == IrOp::ishl) {
      // (lo >> 1) >> (31 - s): the bits that cross, 0 for s = 0.
      Src cross = op(IrOp::ushr, op(IrOp::ushr, a.lo, Src::immediate(1)), inv);
      small = {op(IrOp::ishl, a.lo, s5), op(IrOp::ior, op(IrOp::ishl, a.hi, s5), cross)};
      large = {Src::immediate(0), op(IrOp::ishl, a.lo, s5)};
    } else {
      Src cross = op(IrOp::ishl, op(IrOp::ishl, a.hi, Src::immediate(1)), inv);
      small = {op(IrOp::ior, op(IrOp::ushr, a.lo, s5), cross), op(o, a.hi, s5)};
      large = {op(o, a.hi, s5), o == IrOp::ishr ? op(IrOp::ishr, a.hi, Src::immediate(31)) : Src::immediate(0)};
    }
    if (big.is_imm()) return big.imm ? large : small;
    return {sel(Cond::ueq, big, Src::immediate(0), small.lo, large.lo), sel(Cond::ueq, big, Src::immediate(0), small.hi, large.hi)};
  }

  // 1 where a < b (signed on the high word for `sign`), else 0.
  Src less(bool sign, Pair a, Pair x) {
    Src lo_lt = flag(Cond::ult, a.lo, x.lo);
    Src hi_lt = flag(sign ? Cond::slt : Cond::ult, a.hi, x.hi);
    return sel(Cond::ueq, a.hi, x.hi, lo_lt, hi_lt);
  }
  // Nonzero where a != b.
  Src differs(Pair a, Pair x) { return op(IrOp::ior, op(IrOp::ixor, a.lo, x.lo), op(IrOp::ixor, a.hi, x.hi)); }
  // Per half: f != 0 ? t : e.
  Pair pick(Src f, Pair t, Pair e) {
    return {sel(Cond::ueq, f, Src::immediate(0), e.lo, t.lo), sel(Cond::ueq, f, Src::immediate(0), e.hi, t.hi)};
  }
  Src negative(Pair a) { return flag(Cond::slt, a.hi, Src::immediate(0)); }
  Pair abs(Pair a) { return pick(negative(a), neg(a), a); }

  // Unsigned n / d and n % d: 64 steps of shift-subtract in a loop (the
  // numerator shifts out at the top while the quotient bits shift in).
  void udivmod(Pair n, Pair d, Pair* q, Pair* r) {
    Function& f = b_.function();
    auto var = [&](Src init) {
      ValueId v = f.new_value(32, 1, true);
      b_.def_into(v, IrOp::mov, {init});
      return v;
    };
    ValueId nl = var(n.lo), nh = var(n.hi), rl = var(Src::immediate(0)), rh = var(Src::immediate(0));
    ValueId i = var(Src::immediate(64));
    auto V = [](ValueId v) { return Src::val(v); };
    b_.emit(IrOp::loop);
    Src top = op(IrOp::ushr, V(rh), Src::immediate(31));  // the bit r << 1 loses
    Pair r2{op(IrOp::ior, op(IrOp::ishl, V(rl), Src::immediate(1)), op(IrOp::ushr, V(nh), Src::immediate(31))),
            op(IrOp::ior, op(IrOp::ishl, V(rh), Src::immediate(1)), op(IrOp::ushr, V(rl), Src::immediate(31)))};
    Pair n2{op(IrOp::ishl, V(nl), Src::immediate(1)),
            op(IrOp::ior, op(IrOp::ishl, V(nh), Src::immediate(1)), op(IrOp::ushr, V(nl), Src::immediate(31)))};
    Src ge = op(IrOp::ior, top, op(IrOp::ixor, less(false, r2, d), Src::immediate(1)));
    Pair r3 = pick(ge, sub(r2, d), r2);
    Src nl3 = op(IrOp::ior, n2.lo, ge);
    b_.def_into(rl, IrOp::mov, {r3.lo});
    b_.def_into(rh, IrOp::mov, {r3.hi});
    b_.def_into(nl, IrOp::mov, {nl3});
    b_.def_into(nh, IrOp::mov, {n2.hi});
    Src i2 = op(IrOp::isub, V(i), Src::immediate(1));
    b_.def_into(i, IrOp::mov, {i2});
    b_.emit(IrOp::if_, {i2, Src::immediate(0)}, 0, Cond::ueq, false);
    b_.emit(IrOp::break_);
    b_.emit(IrOp::end_if);
    b_.emit(IrOp::end_loop);
    // Copies out of the variables: later uses read plain values.
    if (q) *q = {Src::val(b_.def(IrOp::mov, {V(nl)})), Src::val(b_.def(IrOp::mov, {V(nh)}))};
    if (r) *r = {Src::val(b_.def(IrOp::mov, {V(rl)})), Src::val(b_.def(IrOp::mov, {V(rh)}))};
  }

 private:
  Builder& b_;
};

namespace {

// An unsigned 64-bit value to the nearest float (ties to even): a high word
// of 0 converts the low word; otherwise the 32 bits from the leading one
// down, with a sticky bit for anything nonzero below them, convert with the
// hardware's rounding and are scaled back by a power of two.
Src to_float(Int64& x, Pair a) {
  Builder& b = x.builder();
  Src small = Src::val(b.def(IrOp::convert, {a.lo}, 32, 1, static_cast<uint64_t>(Conv::u32_to_f)));
  Src msb = Src::val(b.def(IrOp::ffs, {a.hi}));
  Src sh = x.op(IrOp::isub, Src::immediate(31), msb);
  Src cross = x.op(IrOp::ushr, x.op(IrOp::ushr, a.lo, Src::immediate(1)), msb);
  Src top = x.op(IrOp::ior, x.op(IrOp::ishl, a.hi, sh), cross);
  Src rest = x.op(IrOp::ishl, a.lo, sh);
  top = x.op(IrOp::ior, top, x.sel(Cond::ueq, rest, Src::immediate(0), Src::immediate(0), Src::immediate(1)));
  Src f = Src::val(b.def(IrOp::convert, {top}, 32, 1, static_cast<uint64_t>(Conv::u32_to_f)));
  // 2^(32 - sh) as float bits: exponent 127 + 32 - sh.
  Src scale = x.op(IrOp::ishl, x.op(IrOp::isub, Src::immediate(159), sh), Src::immediate(23));
  Src big = Src::val(b.def(IrOp::fmul, {f, scale}));
  return x.sel(Cond::ueq, a.hi, Src::immediate(0), small, big);
}

// A float's magnitude truncated to an unsigned 64-bit integer: the 24-bit
// significand shifted by exponent - 150 (right for small values, left into
// the high word for large ones); NaN and out-of-range values are
// undefined in GLSL.
Pair from_float(Int64& x, Src f) {
  Src e = x.op(IrOp::iand, x.op(IrOp::ushr, f, Src::immediate(23)), Src::immediate(0xFF));
  Src mant = x.op(IrOp::ior, x.op(IrOp::iand, f, Src::immediate(0x7FFFFF)), Src::immediate(0x800000));
  Src right = x.op(IrOp::isub, Src::immediate(150), e);
  right = x.sel(Cond::ugt, right, Src::immediate(31), Src::immediate(31), right);
  Src small = x.op(IrOp::ushr, mant, right);
  Pair big = x.shift(IrOp::ishl, {mant, Src::immediate(0)}, x.op(IrOp::isub, e, Src::immediate(150)));
  Src is_small = x.flag(Cond::ult, e, Src::immediate(150));
  return x.pick(is_small, {small, Src::immediate(0)}, big);
}

}  // namespace

// The instructions that may carry 64-bit integers through arithmetic;
// loads, stores and atomics reach load64/store64/atomic64 from
// translate_memory.cpp, component moves stay with the generic code.
Status Translator::int64_instruction(const spirv::Inst& in, bool& handled) {
  handled = false;
  switch (in.op) {
    case Op::OpExtInst:
      if (in.w.size() >= 5 && in.w[2] < m_.bound && m_.ext_glsl[in.w[2]] && in.w[1] < m_.bound) return ext_glsl64(in, handled);
      return {};
    case Op::OpIAdd: case Op::OpISub: case Op::OpIMul: case Op::OpUDiv: case Op::OpSDiv: case Op::OpUMod:
    case Op::OpSRem: case Op::OpSMod: case Op::OpShiftLeftLogical: case Op::OpShiftRightLogical:
    case Op::OpShiftRightArithmetic: case Op::OpBitwiseAnd: case Op::OpBitwiseOr: case Op::OpBitwiseXor:
    case Op::OpNot: case Op::OpSNegate: case Op::OpIEqual: case Op::OpINotEqual: case Op::OpULessThan:
    case Op::OpULessThanEqual: case Op::OpUGreaterThan: case Op::OpUGreaterThanEqual: case Op::OpSLessThan:
    case Op::OpSLessThanEqual: case Op::OpSGreaterThan: case Op::OpSGreaterThanEqual: case Op::OpSConvert:
    case Op::OpUConvert: case Op::OpBitcast: case Op::OpSelect: case Op::OpVectorExtractDynamic:
    case Op::OpConvertUToF: case Op::OpConvertSToF: case Op::OpConvertFToU: case Op::OpConvertFToS:
      if (in.w.size() < 3 || in.w[1] >= m_.bound)
        return Error::decode("{}: SPIR-V word {}: too few operands or result id out of range", o_.file_name, in.word_offset);
      return alu64(in, handled);
    default: return {};
  }
}

Status Translator::alu64(const spirv::Inst& in, bool& handled) {
  const auto& w = in.w;
  handled = false;
  if (w.size() < 3) return {};
  uint32_t rtype = w[0], rid = w[1];
  bool r64 = is_int64(rtype);
  bool a64 = false;
  if (w.size() >= 3 && w[2] < m_.bound) {
    if (vals_[w[2]].kind == TVal::Kind::data) a64 = is_int64(vals_[w[2]].type);
    else if (m_.is_constant[w[2]]) a64 = is_int64(m_.constants[w[2]].type);
  }
  if (!r64 && !a64) return {};
  handled = true;
  Int64 x(b_);
  unsigned n = std::max(1u, components(rtype));
  TVal out;
  out.kind = TVal::Kind::data;
  out.type = rtype;
  auto finish = [&]() -> Status { vals_[rid] = std::move(out); return {}; };
  // A 64-bit operand component as halves; a 32-bit one widened by `sign`.
  auto pair = [&](uint32_t id, unsigned i) -> Result<Pair> {
    AGX_TRY(auto s, scalar(id, in, i));
    return Pair{lo32(s), hi32(s)};
  };
  auto bin = [&](auto fn) -> Status {
    for (unsigned i = 0; i < n; ++i) {
      AGX_TRY(auto a, pair(w[2], i));
      AGX_TRY(auto bb, pair(w[3], i));
      Pair r = fn(a, bb);
      out.c.push_back(pack64(r.lo, r.hi));
    }
    return finish();
  };
  auto un = [&](auto fn) -> Status {
    for (unsigned i = 0; i < n; ++i) {
      AGX_TRY(auto a, pair(w[2], i));
      Pair r = fn(a);
      out.c.push_back(pack64(r.lo, r.hi));
    }
    return finish();
  };
  // A comparison: `f` gives 1/0 (or nonzero/0 when `nonzero`); scalars
  // stay a Cmp.
  auto compare = [&](auto fn, bool invert) -> Status {
    for (unsigned i = 0; i < n; ++i) {
      AGX_TRY(auto a, pair(w[2], i));
      AGX_TRY(auto bb, pair(w[3], i));
      Src r = fn(a, bb);
      Cmp c{Cond::ueq, !invert, r, Src::immediate(0)};
      if (n == 1) out.cmp = c;
      else out.c.push_back(materialize(c));
    }
    return finish();
  };
  auto need = [&](size_t k) -> Status {
    if (w.size() < k) return Error::decode("{}: SPIR-V word {}: too few operands", o_.file_name, in.word_offset);
    return {};
  };
  auto shift_amount = [&](unsigned i) -> Result<Src> {
    AGX_TRY(auto s, scalar(w[3], in, i));
    return lo32(s);
  };
  // Signed division from the unsigned one: |n| / |d|, then the signs.
  auto divide = [&](Pair a, Pair d, bool sign, bool want_q) -> Pair {
    if (!sign) {
      Pair q, r;
      x.udivmod(a, d, want_q ? &q : nullptr, want_q ? nullptr : &r);
      return want_q ? q : r;
    }
    Src na = x.negative(a), nd = x.negative(d);
    Pair q, r;
    x.udivmod(x.pick(na, x.neg(a), a), x.pick(nd, x.neg(d), d), want_q ? &q : nullptr, want_q ? nullptr : &r);
    if (want_q) return x.pick(x.op(IrOp::ixor, na, nd), x.neg(q), q);
    return x.pick(na, x.neg(r), r);  // the remainder takes the dividend's sign
  };

  switch (in.op) {
    case Op::OpIAdd: case Op::OpISub: {
      AGX_CHECK(need(4));
      bool add = in.op == Op::OpIAdd;
      for (unsigned i = 0; i < n; ++i) {
        AGX_TRY(auto a, scalar(w[2], in, i));
        AGX_TRY(auto bb, scalar(w[3], in, i));
        if (auto r = native_add64(add ? IrOp::iadd : IrOp::isub, a, bb)) { out.c.push_back(*r); continue; }
        Pair r = add ? x.add({lo32(a), hi32(a)}, {lo32(bb), hi32(bb)}) : x.sub({lo32(a), hi32(a)}, {lo32(bb), hi32(bb)});
        out.c.push_back(pack64(r.lo, r.hi));
      }
      return finish();
    }
    case Op::OpIMul: AGX_CHECK(need(4)); return bin([&](Pair a, Pair bb) { return x.mul(a, bb); });
    case Op::OpBitwiseAnd: AGX_CHECK(need(4)); return bin([&](Pair a, Pair bb) { return x.bitwise(IrOp::iand, a, bb); });
    case Op::OpBitwiseOr: AGX_CHECK(need(4)); return bin([&](Pair a, Pair bb) { return x.bitwise(IrOp::ior, a, bb); });
    case Op::OpBitwiseXor: AGX_CHECK(need(4)); return bin([&](Pair a, Pair bb) { return x.bitwise(IrOp::ixor, a, bb); });
    case Op::OpUDiv: AGX_CHECK(need(4)); return bin([&](Pair a, Pair bb) { return divide(a, bb, false, true); });
    case Op::OpUMod: AGX_CHECK(need(4)); return bin([&](Pair a, Pair bb) { return divide(a, bb, false, false); });
    case Op::OpSDiv: AGX_CHECK(need(4)); return bin([&](Pair a, Pair bb) { return divide(a, bb, true, true); });
    case Op::OpSRem: AGX_CHECK(need(4)); return bin([&](Pair a, Pair bb) { return divide(a, bb, true, false); });
    case Op::OpSMod:
      // The remainder takes the divisor's sign: a nonzero remainder of the
      // other sign gets the divisor added.
      AGX_CHECK(need(4));
      return bin([&](Pair a, Pair bb) {
        Pair r = divide(a, bb, true, false);
        Src other = x.op(IrOp::ixor, x.negative(r), x.negative(bb));
        Src nz = x.sel(Cond::ueq, x.differs(r, {Src::immediate(0), Src::immediate(0)}), Src::immediate(0), Src::immediate(0), other);
        return x.pick(nz, x.add(r, bb), r);
      });
    case Op::OpShiftLeftLogical: case Op::OpShiftRightLogical: case Op::OpShiftRightArithmetic: {
      AGX_CHECK(need(4));
      IrOp o = in.op == Op::OpShiftLeftLogical ? IrOp::ishl : in.op == Op::OpShiftRightLogical ? IrOp::ushr : IrOp::ishr;
      if (!r64) {
        // A 32-bit value shifted by a 64-bit amount: the low word counts.
        for (unsigned i = 0; i < n; ++i) {
          AGX_TRY(auto a, scalar(w[2], in, i));
          AGX_TRY(auto sa, shift_amount(i));
          out.c.push_back(x.op(o, a, sa));
        }
        return finish();
      }
      for (unsigned i = 0; i < n; ++i) {
        AGX_TRY(auto a, pair(w[2], i));
        AGX_TRY(auto s, shift_amount(i));
        Pair r = x.shift(o, a, s);
        out.c.push_back(pack64(r.lo, r.hi));
      }
      return finish();
    }
    case Op::OpNot: return un([&](Pair a) { return Pair{x.op(IrOp::ixor, a.lo, Src::immediate(0xFFFFFFFFu)), x.op(IrOp::ixor, a.hi, Src::immediate(0xFFFFFFFFu))}; });
    case Op::OpSNegate: return un([&](Pair a) { return x.neg(a); });
    case Op::OpIEqual: AGX_CHECK(need(4)); return compare([&](Pair a, Pair bb) { return x.differs(a, bb); }, true);
    case Op::OpINotEqual: AGX_CHECK(need(4)); return compare([&](Pair a, Pair bb) { return x.differs(a, bb); }, false);
    case Op::OpULessThan: AGX_CHECK(need(4)); return compare([&](Pair a, Pair bb) { return x.less(false, a, bb); }, false);
    case Op::OpUGreaterThan: AGX_CHECK(need(4)); return compare([&](Pair a, Pair bb) { return x.less(false, bb, a); }, false);
    case Op::OpULessThanEqual: AGX_CHECK(need(4)); return compare([&](Pair a, Pair bb) { return x.less(false, bb, a); }, true);
    case Op::OpUGreaterThanEqual: AGX_CHECK(need(4)); return compare([&](Pair a, Pair bb) { return x.less(false, a, bb); }, true);
    case Op::OpSLessThan: AGX_CHECK(need(4)); return compare([&](Pair a, Pair bb) { return x.less(true, a, bb); }, false);
    case Op::OpSGreaterThan: AGX_CHECK(need(4)); return compare([&](Pair a, Pair bb) { return x.less(true, bb, a); }, false);
    case Op::OpSLessThanEqual: AGX_CHECK(need(4)); return compare([&](Pair a, Pair bb) { return x.less(true, bb, a); }, true);
    case Op::OpSGreaterThanEqual: AGX_CHECK(need(4)); return compare([&](Pair a, Pair bb) { return x.less(true, a, bb); }, true);
    case Op::OpSConvert: case Op::OpUConvert: {
      for (unsigned i = 0; i < n; ++i) {
        AGX_TRY(auto s, scalar(w[2], in, i));
        if (!r64) { out.c.push_back(lo32(s)); continue; }   // 64 -> 32: the low word
        if (a64) { out.c.push_back(s); continue; }
        Src hi = in.op == Op::OpSConvert ? x.op(IrOp::ishr, s, Src::immediate(31)) : Src::immediate(0);
        out.c.push_back(pack64(s, hi));
      }
      return finish();
    }
    case Op::OpBitcast: {
      // Regroup 32-bit words: u64 <-> uvec2, i64 <-> u64.
      AGX_TRY(auto v, get(w[2], in));
      if (v->kind != TVal::Kind::data) return unsupported(in, "bitcast of a non-data value");
      std::vector<Src> words;
      for (const Src& s : v->c) {
        if (a64) { words.push_back(lo32(s)); words.push_back(hi32(s)); }
        else words.push_back(s);
      }
      if (!r64) { out.c = std::move(words); return finish(); }
      if (words.size() != 2 * n) return unsupported(in, "bitcast between different sizes");
      for (unsigned i = 0; i < n; ++i) out.c.push_back(pack64(words[2 * i], words[2 * i + 1]));
      return finish();
    }
    case Op::OpSelect: {
      AGX_CHECK(need(5));
      AGX_TRY(auto cv, get(w[2], in));
      for (unsigned i = 0; i < n; ++i) {
        Cmp c;
        if (cv->cmp) c = *cv->cmp;
        else {
          size_t ci = cv->c.size() > 1 ? i : 0;
          if (ci >= cv->c.size()) return unsupported(in, "OpSelect condition shape");
          c = Cmp{Cond::ueq, true, cv->c[ci], Src::immediate(0)};
        }
        AGX_TRY(auto t, pair(w[3], i));
        AGX_TRY(auto e, pair(w[4], i));
        out.c.push_back(pack64(b_.select(c.cond, c.invert, c.a, c.b, t.lo, e.lo), b_.select(c.cond, c.invert, c.a, c.b, t.hi, e.hi)));
      }
      return finish();
    }
    case Op::OpVectorExtractDynamic: {
      AGX_CHECK(need(4));
      AGX_TRY(auto v, get(w[2], in));
      AGX_TRY(auto idx, scalar(w[3], in));
      if (v->c.empty()) return unsupported(in, "OpVectorExtractDynamic of an empty vector");
      if (idx.is_imm() && idx.imm < v->c.size()) { out.c.push_back(v->c[idx.imm]); return finish(); }
      Pair r{lo32(v->c[0]), hi32(v->c[0])};
      for (size_t i = 1; i < v->c.size(); ++i) {
        r.lo = b_.select(Cond::ueq, false, idx, Src::immediate(i), lo32(v->c[i]), r.lo);
        r.hi = b_.select(Cond::ueq, false, idx, Src::immediate(i), hi32(v->c[i]), r.hi);
      }
      out.c.push_back(pack64(r.lo, r.hi));
      return finish();
    }
    case Op::OpConvertUToF: case Op::OpConvertSToF: {
      if (type(scalar_type(rtype)).width != 32) return unsupported(in, "64-bit integer to double conversion (no fp64)");
      bool sign = in.op == Op::OpConvertSToF;
      for (unsigned i = 0; i < n; ++i) {
        AGX_TRY(auto a, pair(w[2], i));
        Src neg = sign ? x.negative(a) : Src::immediate(0);
        if (sign) a = x.pick(neg, x.neg(a), a);
        Src f = to_float(x, a);
        if (sign) f = x.op(IrOp::ixor, f, x.op(IrOp::ishl, neg, Src::immediate(31)));
        out.c.push_back(f);
      }
      return finish();
    }
    case Op::OpConvertFToU: case Op::OpConvertFToS: {
      AGX_TRY(auto sv, get(w[2], in));
      if (type(scalar_type(sv->type)).width != 32) return unsupported(in, "double to 64-bit integer conversion (no fp64)");
      for (unsigned i = 0; i < n; ++i) {
        AGX_TRY(auto f, scalar(w[2], in, i));
        Pair r = from_float(x, f);
        if (in.op == Op::OpConvertFToS) r = x.pick(x.op(IrOp::ushr, f, Src::immediate(31)), x.neg(r), r);
        out.c.push_back(pack64(r.lo, r.hi));
      }
      return finish();
    }
    default:
      handled = false;  // component moves (the generic code carries 64-bit Srcs as they are) and the rest
      return {};
  }
}

Status Translator::ext_glsl64(const spirv::Inst& in, bool& handled) {
  const auto& w = in.w;
  handled = false;
  if (w.size() < 5 || !is_int64(w[0])) return {};
  handled = true;
  auto inst = static_cast<GLSLstd450>(w[3]);
  unsigned n = std::max(1u, components(w[0]));
  Int64 x(b_);
  TVal out;
  out.kind = TVal::Kind::data;
  out.type = w[0];
  for (unsigned i = 0; i < n; ++i) {
    std::vector<Pair> s;
    for (size_t k = 4; k < w.size(); ++k) {
      AGX_TRY(auto v, scalar(w[k], in, i));
      s.push_back({lo32(v), hi32(v)});
    }
    auto args = [&](size_t k) -> Status {
      if (s.size() != k) return unsupported(in, "GLSL.std.450 operand count");
      return {};
    };
    auto min = [&](bool sign, Pair a, Pair bb) { return x.pick(x.less(sign, a, bb), a, bb); };
    auto max = [&](bool sign, Pair a, Pair bb) { return x.pick(x.less(sign, a, bb), bb, a); };
    Pair r;
    switch (inst) {
      case GLSLstd450SAbs: AGX_CHECK(args(1)); r = x.abs(s[0]); break;
      case GLSLstd450SSign: {
        // -1, 0 or 1: the sign word, or 1 for a nonzero positive value.
        AGX_CHECK(args(1));
        Src sign = x.op(IrOp::ishr, s[0].hi, Src::immediate(31));
        Src nz = x.sel(Cond::ueq, x.op(IrOp::ior, s[0].lo, s[0].hi), Src::immediate(0), Src::immediate(0), Src::immediate(1));
        r = {x.sel(Cond::slt, s[0].hi, Src::immediate(0), Src::immediate(0xFFFFFFFFu), nz), sign};
        break;
      }
      case GLSLstd450SMin: AGX_CHECK(args(2)); r = min(true, s[0], s[1]); break;
      case GLSLstd450UMin: AGX_CHECK(args(2)); r = min(false, s[0], s[1]); break;
      case GLSLstd450SMax: AGX_CHECK(args(2)); r = max(true, s[0], s[1]); break;
      case GLSLstd450UMax: AGX_CHECK(args(2)); r = max(false, s[0], s[1]); break;
      case GLSLstd450SClamp: AGX_CHECK(args(3)); r = min(true, max(true, s[0], s[1]), s[2]); break;
      case GLSLstd450UClamp: AGX_CHECK(args(3)); r = min(false, max(false, s[0], s[1]), s[2]); break;
      default:
        return unsupported(in, fmt::format("GLSL.std.450 function {} on 64-bit integers is not supported", static_cast<unsigned>(inst)));
    }
    out.c.push_back(pack64(r.lo, r.hi));
  }
  vals_[w[1]] = std::move(out);
  return {};
}

// 64-bit loads and stores: two 32-bit words per component, low word at
// the lower address (the buffers are little-endian, as piglit fills them).
Status Translator::load64(const spirv::Inst& in, const Ptr& p) {
  const auto& w = in.w;
  unsigned n = components(w[0]);
  if (!n) return unsupported(in, "load of a composite containing 64-bit integers");
  TVal out;
  out.kind = TVal::Kind::data;
  out.type = w[0];
  for (unsigned i = 0; i < n; ++i) {
    Ptr q = p;
    q.const_B += 8 * i;
    switch (p.space) {
      case Ptr::Space::push:
        if (!q.terms.empty()) return unsupported(in, "dynamic index into push constants / loose uniforms");
        out.c.push_back(Src::uniform(q.uniform + q.const_B / 4, 64));
        break;
      case Ptr::Space::buffer: {
        AGX_TRY(auto idx, buffer_index(q, 4, in));
        ValueId d = pair_value(b_.def(IrOp::device_load, {Src::uniform(q.uniform, 64), idx}, 32, 2));
        out.c.push_back(Src::val(d, 64));
        break;
      }
      case Ptr::Space::shared: {
        AGX_TRY(auto addr, shared_address(q));
        ValueId d = pair_value(b_.def(IrOp::local_load, {addr}, 32, 2));
        out.c.push_back(Src::val(d, 64));
        break;
      }
      default: return unsupported(in, "64-bit load from this storage class");
    }
  }
  vals_[w[1]] = std::move(out);
  return {};
}

Status Translator::store64(const spirv::Inst& in, const Ptr& p, const std::vector<Src>& data) {
  unsigned n = components(p.type);
  if (!n) return unsupported(in, "store of a composite containing 64-bit integers");
  if (data.size() != n) return unsupported(in, "store of a value of another shape");
  for (unsigned i = 0; i < n; ++i) {
    Ptr q = p;
    q.const_B += 8 * i;
    Src d = Src::val(b_.def(IrOp::collect, {lo32(data[i]), hi32(data[i])}, 32, 2));
    switch (p.space) {
      case Ptr::Space::buffer: {
        AGX_TRY(auto idx, buffer_index(q, 4, in));
        b_.emit(IrOp::device_store, {d, Src::uniform(q.uniform, 64), idx});
        break;
      }
      case Ptr::Space::shared: {
        AGX_TRY(auto addr, shared_address(q));
        b_.emit(IrOp::local_store, {d, addr});
        break;
      }
      default: return unsupported(in, "64-bit store to a read-only or unsupported storage class");
    }
  }
  return {};
}

// 64-bit atomics. The AGX atomic instructions work on 32-bit words
// (dougallj/applegpu: `atomic` / `threadgroup_atomic` take one 32-bit
// register, a pair only for cmpxchg's new/compare values), so a 64-bit
// read-modify-write runs under a spin lock: a lane takes the lock word with
// an exchange, does the plain load, operation and store, gives the lock
// back and leaves the loop in the same iteration -- no lane ever waits
// while it holds the lock, so SIMD lanes and groups always make progress.
// Shared variables: the lock is 4 bytes the compiler adds after them.
// Buffers: one device word the runtime provides (Abi::atomic_lock_uniform,
// docs/compiler.md), a lock for every 64-bit buffer atomic of the dispatch.
Status Translator::atomic64(const spirv::Inst& in, const Ptr& p) {
  const auto& w = in.w;
  bool device = p.space == Ptr::Space::buffer;
  if (!device && p.space != Ptr::Space::shared) return unsupported(in, "64-bit atomic on this storage class");
  if (!device && lock_offset_B_ == UINT32_MAX) {
    lock_offset_B_ = (abi_.threadgroup_memory_B + 3) / 4 * 4;
    abi_.threadgroup_memory_B = lock_offset_B_ + 4;
    if (abi_.threadgroup_memory_B > 32 * 1024)
      return unsupported(in, "no room for the 64-bit atomics' lock word in 32 KiB of threadgroup memory");
    // Threadgroup memory starts undefined: the first thread of the group
    // clears the lock before anyone may take it, at the top of the shader
    // (before any control flow, so every thread meets the barrier).
    // thread_index_in_threadgroup is sr51 (applegpu SR_NAMES).
    Function& f = b_.function();
    ValueId index = f.new_value(), zero = f.new_value();
    std::vector<Instr> init = {
        Instr{IrOp::get_sr, Cond::none, false, index, {}, 51, 0},
        Instr{IrOp::if_, Cond::ueq, false, kNoValue, {Src::val(index), Src::immediate(0)}, 0, 0},
        Instr{IrOp::mov, Cond::none, false, zero, {Src::immediate(0)}, 0, 0},
        Instr{IrOp::local_store, Cond::none, false, kNoValue, {Src::val(zero), Src::immediate(lock_offset_B_)}, 0, 0},
        Instr{IrOp::end_if, Cond::none, false, kNoValue, {}, 0, 0},
        Instr{IrOp::barrier, Cond::none, false, kNoValue, {}, 0, 0},
    };
    f.instrs.insert(f.instrs.begin(), init.begin(), init.end());
  }
  if (device && abi_.atomic_lock_uniform == UINT32_MAX) {
    abi_.atomic_lock_uniform = (abi_.uniform_count + 1) / 2 * 2;
    abi_.uniform_count = abi_.atomic_lock_uniform + 2;
    if (abi_.uniform_count > 256)
      return unsupported(in, fmt::format("needs {} uniform registers with the 64-bit atomics' lock (at most 256)", abi_.uniform_count));
  }
  Int64 x(b_);
  Pair value{}, compare{};
  spv::Op op = in.op;
  switch (op) {
    case Op::OpAtomicIIncrement: case Op::OpAtomicIDecrement: value = {Src::immediate(1), Src::immediate(0)}; break;
    case Op::OpAtomicCompareExchange: {
      if (w.size() < 8) return Error::decode("{}: bad OpAtomicCompareExchange", o_.file_name);
      AGX_TRY(auto v, scalar(w[6], in));
      AGX_TRY(auto c, scalar(w[7], in));
      value = {lo32(v), hi32(v)};
      compare = {lo32(c), hi32(c)};
      break;
    }
    default: {
      if (w.size() < 6) return Error::decode("{}: bad atomic", o_.file_name);
      AGX_TRY(auto v, scalar(w[5], in));
      value = {lo32(v), hi32(v)};
    }
  }
  Src addr;
  if (device) {
    AGX_TRY(auto idx, buffer_index(p, 4, in));
    addr = idx;
  } else {
    AGX_TRY(auto a, shared_address(p));
    addr = a;
  }
  Src base = Src::uniform(p.uniform, 64);
  Function& f = b_.function();
  ValueId res = f.new_value(32, 2, true);
  auto xchg = [&](uint32_t v) {
    Src d = Src::val(b_.def(IrOp::mov, {Src::immediate(v)}));
    ValueId old = f.new_value();
    std::vector<Src> srcs = device ? std::vector<Src>{Src::uniform(abi_.atomic_lock_uniform, 64), Src::immediate(0), d}
                                   : std::vector<Src>{Src::immediate(lock_offset_B_), d};
    f.instrs.push_back(Instr{device ? IrOp::atomic : IrOp::local_atomic, Cond::none, false, old, std::move(srcs),
                             static_cast<uint64_t>(AtomicOp::xchg), b_.line});
    return Src::val(old);
  };
  b_.emit(IrOp::loop);
  Src got = xchg(1);
  b_.emit(IrOp::if_, {got, Src::immediate(0)}, 0, Cond::ueq, false);
  ValueId old = device ? b_.def(IrOp::device_load, {base, addr}, 32, 2) : b_.def(IrOp::local_load, {addr}, 32, 2);
  Pair o{Src::val(old, 32, 0), Src::val(old, 32, 1)};
  Pair r;
  switch (op) {
    case Op::OpAtomicIAdd: case Op::OpAtomicIIncrement: r = x.add(o, value); break;
    case Op::OpAtomicISub: case Op::OpAtomicIDecrement: r = x.sub(o, value); break;
    case Op::OpAtomicExchange: r = value; break;
    case Op::OpAtomicCompareExchange: r = x.pick(x.differs(o, compare), o, value); break;
    case Op::OpAtomicUMin: r = x.pick(x.less(false, o, value), o, value); break;
    case Op::OpAtomicSMin: r = x.pick(x.less(true, o, value), o, value); break;
    case Op::OpAtomicUMax: r = x.pick(x.less(false, o, value), value, o); break;
    case Op::OpAtomicSMax: r = x.pick(x.less(true, o, value), value, o); break;
    case Op::OpAtomicAnd: r = x.bitwise(IrOp::iand, o, value); break;
    case Op::OpAtomicOr: r = x.bitwise(IrOp::ior, o, value); break;
    case Op::OpAtomicXor: r = x.bitwise(IrOp::ixor, o, value); break;
    default: return unsupported(in, "64-bit atomic operation");
  }
  Src data = Src::val(b_.def(IrOp::collect, {r.lo, r.hi}, 32, 2));
  if (device) b_.emit(IrOp::device_store, {data, base, addr});
  else b_.emit(IrOp::local_store, {data, addr});
  b_.def_into(res, IrOp::collect, {o.lo, o.hi});
  xchg(0);
  b_.emit(IrOp::break_);
  b_.emit(IrOp::end_if);
  b_.emit(IrOp::end_loop);
  TVal out;
  out.kind = TVal::Kind::data;
  out.type = w[0];
  out.c.push_back(pack64(Src::val(b_.def(IrOp::mov, {Src::val(res, 32, 0)})), Src::val(b_.def(IrOp::mov, {Src::val(res, 32, 1)}))));
  vals_[w[1]] = std::move(out);
  return {};
}

// A phi of a 64-bit integer: one 2 x 32-bit variable per component.
ValueId Translator::phi_var64() {
  return pair_value(b_.function().new_value(32, 2, true));
}

void Translator::phi_move64(ValueId dest, const Src& src) {
  b_.def_into(dest, IrOp::collect, {lo32(src), hi32(src)});
}

}  // namespace agx::compiler::detail
