// 64-bit integer arithmetic (GL_ARB_gpu_shader_int64) -> IR. A 64-bit
// scalar is a Src of 64 bits: an immediate, a uniform pair u<N>_u<N+1>
// (low word first), or a 2 x 32-bit value (.x low, .y high) on an even
// register. Add/sub of two register pairs stay one 64-bit instruction;
// everything else is lowered on the two halves (int64_lowering.h).
// Loads, stores and atomics: translate_int64_memory.cpp.
#include <spirv/unified1/GLSL.std.450.h>

#include <fmt/format.h>

#include "compiler/int64_lowering.h"
#include "compiler/translate.h"

namespace agx::compiler::detail {

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

// The instructions that may carry 64-bit integers through arithmetic;
// loads, stores and atomics reach load64/store64/atomic64 from
// translate_memory.cpp, component moves stay with the generic code.
Status Translator::int64_instruction(const spirv::Inst& in, bool& handled) {
  handled = false;
  switch (in.op) {
    case SpvOp::OpExtInst:
      if (in.w.size() >= 5 && in.w[2] < m_.bound && m_.ext_glsl[in.w[2]] && in.w[1] < m_.bound) return ext_glsl64(in, handled);
      return {};
    case SpvOp::OpIAdd: case SpvOp::OpISub: case SpvOp::OpIMul: case SpvOp::OpUDiv: case SpvOp::OpSDiv: case SpvOp::OpUMod:
    case SpvOp::OpSRem: case SpvOp::OpSMod: case SpvOp::OpShiftLeftLogical: case SpvOp::OpShiftRightLogical:
    case SpvOp::OpShiftRightArithmetic: case SpvOp::OpBitwiseAnd: case SpvOp::OpBitwiseOr: case SpvOp::OpBitwiseXor:
    case SpvOp::OpNot: case SpvOp::OpSNegate: case SpvOp::OpIEqual: case SpvOp::OpINotEqual: case SpvOp::OpULessThan:
    case SpvOp::OpULessThanEqual: case SpvOp::OpUGreaterThan: case SpvOp::OpUGreaterThanEqual: case SpvOp::OpSLessThan:
    case SpvOp::OpSLessThanEqual: case SpvOp::OpSGreaterThan: case SpvOp::OpSGreaterThanEqual: case SpvOp::OpSConvert:
    case SpvOp::OpUConvert: case SpvOp::OpBitcast: case SpvOp::OpSelect: case SpvOp::OpVectorExtractDynamic:
    case SpvOp::OpConvertUToF: case SpvOp::OpConvertSToF: case SpvOp::OpConvertFToU: case SpvOp::OpConvertFToS:
      if (in.w.size() < 3 || in.w[1] >= m_.bound)
        return Error::decode("{}: SPIR-V word {}: too few operands or result id out of range", o_.file_name, in.word_offset);
      return alu64(in, handled);
    default: return {};
  }
}

// One 64-bit integer instruction: the builder, its operands by component
// and the result being built.
class Translator::Int64Call {
 public:
  Int64Call(Translator& t, const spirv::Inst& in, unsigned components, bool result64, bool operand64)
      : x(t.b_), n(components), r64(result64), a64(operand64), t_(t), in_(in) {
    out = TVal::data(in.w[0]);
  }
  Int64 x;
  unsigned n;
  bool r64, a64;  // the result, the first operand are 64-bit
  TVal out;

  // A 64-bit operand component as halves (a 32-bit one: high half 0).
  Result<Pair> pair(uint32_t id, unsigned i) const {
    AGX_TRY(auto s, t_.scalar(id, in_, i));
    return Pair{t_.lo32(s), t_.hi32(s)};
  }
  Status need(size_t k) const {
    if (in_.w.size() < k)
      return Error::decode("{}: SPIR-V word {}: too few operands", t_.o_.file_name, in_.word_offset);
    return {};
  }
  Status finish() {
    t_.vals_[in_.w[1]] = std::move(out);
    return {};
  }

 private:
  Translator& t_;
  const spirv::Inst& in_;
};

Status Translator::alu64(const spirv::Inst& in, bool& handled) {
  const auto& w = in.w;
  handled = false;
  if (w.size() < 3) return {};
  const uint32_t rtype = w[0];
  // Doubles reach here only for the moves (select, bitcast, dynamic
  // extract): their arithmetic is translate_fp64.cpp's.
  bool r64 = is_int64(rtype) || is_double(rtype);
  bool a64 = false;
  if (w.size() >= 3 && w[2] < m_.bound) {
    if (vals_[w[2]].kind == TVal::Kind::data) a64 = is_int64(vals_[w[2]].type) || is_double(vals_[w[2]].type);
    else if (m_.is_constant[w[2]]) a64 = is_int64(m_.constants[w[2]].type) || is_double(m_.constants[w[2]].type);
  }
  if (!r64 && !a64) return {};
  handled = true;
  Int64Call c(*this, in, std::max(1u, components(rtype)), r64, a64);
  Int64& x = c.x;
  TVal& out = c.out;
  const unsigned n = c.n;
  auto finish = [&] { return c.finish(); };
  auto pair = [&](uint32_t id, unsigned i) { return c.pair(id, i); };
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
  auto need = [&](size_t k) { return c.need(k); };
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
    Pair abs_a = x.pick(na, x.neg(a), a);
    Pair abs_d = x.pick(nd, x.neg(d), d);
    x.udivmod(abs_a, abs_d, want_q ? &q : nullptr, want_q ? nullptr : &r);
    if (want_q) {
      Src negative = x.op(IrOp::ixor, na, nd);
      return x.pick(negative, x.neg(q), q);
    }
    return x.pick(na, x.neg(r), r);  // the remainder takes the dividend's sign
  };

  switch (in.op) {
    case SpvOp::OpIAdd: case SpvOp::OpISub: {
      AGX_CHECK(need(4));
      bool add = in.op == SpvOp::OpIAdd;
      for (unsigned i = 0; i < n; ++i) {
        AGX_TRY(auto a, scalar(w[2], in, i));
        AGX_TRY(auto bb, scalar(w[3], in, i));
        if (auto r = native_add64(add ? IrOp::iadd : IrOp::isub, a, bb)) { out.c.push_back(*r); continue; }
        Pair r = add ? x.add({lo32(a), hi32(a)}, {lo32(bb), hi32(bb)}) : x.sub({lo32(a), hi32(a)}, {lo32(bb), hi32(bb)});
        out.c.push_back(pack64(r.lo, r.hi));
      }
      return finish();
    }
    case SpvOp::OpIMul: AGX_CHECK(need(4)); return bin([&](Pair a, Pair bb) { return x.mul(a, bb); });
    case SpvOp::OpBitwiseAnd: AGX_CHECK(need(4)); return bin([&](Pair a, Pair bb) { return x.bitwise(IrOp::iand, a, bb); });
    case SpvOp::OpBitwiseOr: AGX_CHECK(need(4)); return bin([&](Pair a, Pair bb) { return x.bitwise(IrOp::ior, a, bb); });
    case SpvOp::OpBitwiseXor: AGX_CHECK(need(4)); return bin([&](Pair a, Pair bb) { return x.bitwise(IrOp::ixor, a, bb); });
    case SpvOp::OpUDiv: AGX_CHECK(need(4)); return bin([&](Pair a, Pair bb) { return divide(a, bb, false, true); });
    case SpvOp::OpUMod: AGX_CHECK(need(4)); return bin([&](Pair a, Pair bb) { return divide(a, bb, false, false); });
    case SpvOp::OpSDiv: AGX_CHECK(need(4)); return bin([&](Pair a, Pair bb) { return divide(a, bb, true, true); });
    case SpvOp::OpSRem: AGX_CHECK(need(4)); return bin([&](Pair a, Pair bb) { return divide(a, bb, true, false); });
    case SpvOp::OpSMod:
      // The remainder takes the divisor's sign: a nonzero remainder of the
      // other sign gets the divisor added.
      AGX_CHECK(need(4));
      return bin([&](Pair a, Pair bb) {
        Pair r = divide(a, bb, true, false);
        Src r_negative = x.negative(r);
        Src other = x.op(IrOp::ixor, r_negative, x.negative(bb));
        Src nz = x.sel(Cond::ueq, x.differs(r, {Src::immediate(0), Src::immediate(0)}), Src::immediate(0), Src::immediate(0), other);
        return x.pick(nz, x.add(r, bb), r);
      });
    case SpvOp::OpShiftLeftLogical: case SpvOp::OpShiftRightLogical: case SpvOp::OpShiftRightArithmetic: {
      AGX_CHECK(need(4));
      IrOp o = in.op == SpvOp::OpShiftLeftLogical ? IrOp::ishl : in.op == SpvOp::OpShiftRightLogical ? IrOp::ushr : IrOp::ishr;
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
    case SpvOp::OpNot: return un([&](Pair a) { return Pair{x.op(IrOp::ixor, a.lo, Src::immediate(0xFFFFFFFFu)), x.op(IrOp::ixor, a.hi, Src::immediate(0xFFFFFFFFu))}; });
    case SpvOp::OpSNegate: return un([&](Pair a) { return x.neg(a); });
    case SpvOp::OpIEqual: AGX_CHECK(need(4)); return compare([&](Pair a, Pair bb) { return x.differs(a, bb); }, true);
    case SpvOp::OpINotEqual: AGX_CHECK(need(4)); return compare([&](Pair a, Pair bb) { return x.differs(a, bb); }, false);
    case SpvOp::OpULessThan: AGX_CHECK(need(4)); return compare([&](Pair a, Pair bb) { return x.less(false, a, bb); }, false);
    case SpvOp::OpUGreaterThan: AGX_CHECK(need(4)); return compare([&](Pair a, Pair bb) { return x.less(false, bb, a); }, false);
    case SpvOp::OpULessThanEqual: AGX_CHECK(need(4)); return compare([&](Pair a, Pair bb) { return x.less(false, bb, a); }, true);
    case SpvOp::OpUGreaterThanEqual: AGX_CHECK(need(4)); return compare([&](Pair a, Pair bb) { return x.less(false, a, bb); }, true);
    case SpvOp::OpSLessThan: AGX_CHECK(need(4)); return compare([&](Pair a, Pair bb) { return x.less(true, a, bb); }, false);
    case SpvOp::OpSGreaterThan: AGX_CHECK(need(4)); return compare([&](Pair a, Pair bb) { return x.less(true, bb, a); }, false);
    case SpvOp::OpSLessThanEqual: AGX_CHECK(need(4)); return compare([&](Pair a, Pair bb) { return x.less(true, bb, a); }, true);
    case SpvOp::OpSGreaterThanEqual: AGX_CHECK(need(4)); return compare([&](Pair a, Pair bb) { return x.less(true, a, bb); }, true);
    default: return alu64_convert(in, c, handled);
  }
}


// Conversions, bitcasts, selects and dynamic extracts of 64-bit values
// (alu64's second half); `handled` false for the component moves the
// generic code carries as they are.
Status Translator::alu64_convert(const spirv::Inst& in, Int64Call& c, bool& handled) {
  const auto& w = in.w;
  const uint32_t rtype = w[0];
  switch (in.op) {
    case SpvOp::OpSConvert: case SpvOp::OpUConvert: {
      for (unsigned i = 0; i < c.n; ++i) {
        AGX_TRY(auto s, scalar(w[2], in, i));
        if (!c.r64) { c.out.c.push_back(lo32(s)); continue; }   // 64 -> 32: the low word
        if (c.a64) { c.out.c.push_back(s); continue; }
        Src hi = in.op == SpvOp::OpSConvert ? c.x.op(IrOp::ishr, s, Src::immediate(31)) : Src::immediate(0);
        c.out.c.push_back(pack64(s, hi));
      }
      return c.finish();
    }
    case SpvOp::OpBitcast: {
      // Regroup 32-bit words: u64 <-> uvec2, i64 <-> u64.
      AGX_TRY(auto v, get(w[2], in));
      if (v->kind != TVal::Kind::data) return unsupported(in, "bitcast of a non-data value");
      std::vector<Src> words;
      for (const Src& s : v->c) {
        if (c.a64) { words.push_back(lo32(s)); words.push_back(hi32(s)); }
        else words.push_back(s);
      }
      if (!c.r64) { c.out.c = std::move(words); return c.finish(); }
      if (words.size() != 2 * c.n) return unsupported(in, "bitcast between different sizes");
      for (unsigned i = 0; i < c.n; ++i) c.out.c.push_back(pack64(words[2 * i], words[2 * i + 1]));
      return c.finish();
    }
    case SpvOp::OpSelect: {
      AGX_CHECK(c.need(5));
      AGX_TRY(auto cv, get(w[2], in));
      for (unsigned i = 0; i < c.n; ++i) {
        Cmp k;
        if (cv->cmp) k = *cv->cmp;
        else {
          size_t ci = cv->c.size() > 1 ? i : 0;
          if (ci >= cv->c.size()) return unsupported(in, "OpSelect condition shape");
          k = Cmp{Cond::ueq, true, cv->c[ci], Src::immediate(0)};
        }
        AGX_TRY(auto t, c.pair(w[3], i));
        AGX_TRY(auto e, c.pair(w[4], i));
        Src lo = b_.select(k.cond, k.invert, k.a, k.b, t.lo, e.lo);
        c.out.c.push_back(pack64(lo, b_.select(k.cond, k.invert, k.a, k.b, t.hi, e.hi)));
      }
      return c.finish();
    }
    case SpvOp::OpVectorExtractDynamic: {
      AGX_CHECK(c.need(4));
      AGX_TRY(auto v, get(w[2], in));
      AGX_TRY(auto idx, scalar(w[3], in));
      if (v->c.empty()) return unsupported(in, "OpVectorExtractDynamic of an empty vector");
      if (idx.is_imm() && idx.imm < v->c.size()) { c.out.c.push_back(v->c[idx.imm]); return c.finish(); }
      Pair r{lo32(v->c[0]), hi32(v->c[0])};
      for (size_t i = 1; i < v->c.size(); ++i) {
        r.lo = b_.select(Cond::ueq, false, idx, Src::immediate(i), lo32(v->c[i]), r.lo);
        r.hi = b_.select(Cond::ueq, false, idx, Src::immediate(i), hi32(v->c[i]), r.hi);
      }
      c.out.c.push_back(pack64(r.lo, r.hi));
      return c.finish();
    }
    case SpvOp::OpConvertUToF: case SpvOp::OpConvertSToF: {
      if (type(scalar_type(rtype)).width != 32) return unsupported(in, "64-bit integer to 16-bit float conversion");
      bool sign = in.op == SpvOp::OpConvertSToF;
      for (unsigned i = 0; i < c.n; ++i) {
        AGX_TRY(auto a, c.pair(w[2], i));
        Src neg = sign ? c.x.negative(a) : Src::immediate(0);
        if (sign) a = c.x.pick(neg, c.x.neg(a), a);
        Src f = to_float(c.x, a);
        if (sign) f = c.x.op(IrOp::ixor, f, c.x.op(IrOp::ishl, neg, Src::immediate(31)));
        c.out.c.push_back(f);
      }
      return c.finish();
    }
    case SpvOp::OpConvertFToU: case SpvOp::OpConvertFToS: {
      AGX_TRY(auto sv, get(w[2], in));
      if (type(scalar_type(sv->type)).width != 32) return unsupported(in, "16-bit float to 64-bit integer conversion");
      for (unsigned i = 0; i < c.n; ++i) {
        AGX_TRY(auto f, scalar(w[2], in, i));
        Pair r = from_float(c.x, f);
        if (in.op == SpvOp::OpConvertFToS) {
          Src negative = c.x.op(IrOp::ushr, f, Src::immediate(31));
          r = c.x.pick(negative, c.x.neg(r), r);
        }
        c.out.c.push_back(pack64(r.lo, r.hi));
      }
      return c.finish();
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
  TVal out = TVal::data(w[0]);
  for (unsigned i = 0; i < n; ++i) {
    std::vector<Pair> s;
    for (size_t k = 4; k < w.size(); ++k) {
      AGX_TRY(auto v, scalar(w[k], in, i));
      s.push_back({lo32(v), hi32(v)});
    }
    auto args = [&](size_t k) { return glsl_arity(in, s.size(), k); };
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

}  // namespace agx::compiler::detail
