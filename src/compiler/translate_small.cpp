// 8/16-bit integers and 16-bit floats (GL_EXT_shader_explicit_arithmetic_types,
// SPIR-V Int8, Int16, Float16) -> IR. Every such scalar is held widened in a
// 32-bit value (docs/compiler.md, "8- and 16-bit types"):
//  - int8/int16 (either signedness): the low 8/16 bits, the rest zero;
//  - float16: the f32 of the same value (every half is exactly a float).
// The 32-bit code translates the arithmetic; this file puts the operands in
// the form the operation needs (signed operations read sign-extended values)
// and brings results back: integers masked to their width, floats rounded
// to the nearest half (ties to even) by the float unit's size conversion
// (fadd32 x, -0.0 written to a 16-bit register rounds to f16, a 16-bit
// source is widened exactly: applegpu.py's float destination/source rules,
// docs/usc.md "Float rules").
#include <spirv/unified1/GLSL.std.450.h>

#include <bit>
#include <cstring>

#include <fmt/format.h>

#include "compiler/fp64_lowering.h"
#include "compiler/translate.h"
#include "util/half.h"

namespace agx::compiler::detail {

using IrOp = agx::compiler::Op;
using Kind = spirv::Type::Kind;

namespace {

uint32_t low_mask(unsigned bits) { return bits >= 32 ? 0xFFFFFFFFu : (1u << bits) - 1; }

float f32_of(uint32_t bits) { return std::bit_cast<float>(bits); }

// Value instructions whose operands are all ids from word 2 on.
bool value_op(SpvOp op) {
  switch (op) {
    case SpvOp::OpIAdd: case SpvOp::OpISub: case SpvOp::OpIMul: case SpvOp::OpUDiv: case SpvOp::OpSDiv: case SpvOp::OpUMod:
    case SpvOp::OpSRem: case SpvOp::OpSMod: case SpvOp::OpShiftLeftLogical: case SpvOp::OpShiftRightLogical:
    case SpvOp::OpShiftRightArithmetic: case SpvOp::OpBitwiseAnd: case SpvOp::OpBitwiseOr: case SpvOp::OpBitwiseXor:
    case SpvOp::OpNot: case SpvOp::OpSNegate: case SpvOp::OpBitCount: case SpvOp::OpBitReverse:
    case SpvOp::OpIEqual: case SpvOp::OpINotEqual: case SpvOp::OpULessThan: case SpvOp::OpULessThanEqual:
    case SpvOp::OpUGreaterThan: case SpvOp::OpUGreaterThanEqual: case SpvOp::OpSLessThan: case SpvOp::OpSLessThanEqual:
    case SpvOp::OpSGreaterThan: case SpvOp::OpSGreaterThanEqual:
    case SpvOp::OpFAdd: case SpvOp::OpFSub: case SpvOp::OpFMul: case SpvOp::OpFDiv: case SpvOp::OpFMod: case SpvOp::OpFRem:
    case SpvOp::OpFNegate: case SpvOp::OpVectorTimesScalar: case SpvOp::OpDot:
    case SpvOp::OpFOrdEqual: case SpvOp::OpFUnordEqual: case SpvOp::OpFOrdNotEqual: case SpvOp::OpFUnordNotEqual:
    case SpvOp::OpFOrdLessThan: case SpvOp::OpFUnordLessThan: case SpvOp::OpFOrdGreaterThan: case SpvOp::OpFUnordGreaterThan:
    case SpvOp::OpFOrdLessThanEqual: case SpvOp::OpFUnordLessThanEqual: case SpvOp::OpFOrdGreaterThanEqual:
    case SpvOp::OpFUnordGreaterThanEqual: case SpvOp::OpIsNan: case SpvOp::OpIsInf:
    case SpvOp::OpSConvert: case SpvOp::OpUConvert: case SpvOp::OpFConvert: case SpvOp::OpConvertSToF: case SpvOp::OpConvertUToF:
    case SpvOp::OpConvertFToS: case SpvOp::OpConvertFToU: case SpvOp::OpBitcast:
      return true;
    default: return false;
  }
}

bool signed_op(SpvOp op) {
  switch (op) {
    case SpvOp::OpSDiv: case SpvOp::OpSRem: case SpvOp::OpSMod: case SpvOp::OpShiftRightArithmetic: case SpvOp::OpSLessThan:
    case SpvOp::OpSLessThanEqual: case SpvOp::OpSGreaterThan: case SpvOp::OpSGreaterThanEqual: case SpvOp::OpSConvert:
    case SpvOp::OpConvertSToF:
      return true;
    default: return false;
  }
}

bool signed_ext(GLSLstd450 f) {
  switch (f) {
    case GLSLstd450SAbs: case GLSLstd450SSign: case GLSLstd450SMin: case GLSLstd450SMax: case GLSLstd450SClamp:
    case GLSLstd450FindSMsb:
      return true;
    default: return false;
  }
}

// Results that stay in the canonical form (no mask / no rounding needed).
bool int_result_canonical(SpvOp op, int ext) {
  switch (op) {
    case SpvOp::OpBitwiseAnd: case SpvOp::OpBitwiseOr: case SpvOp::OpBitwiseXor: case SpvOp::OpUDiv: case SpvOp::OpUMod:
    case SpvOp::OpShiftRightLogical: case SpvOp::OpBitCount:
      return true;
    case SpvOp::OpExtInst:
      return ext == GLSLstd450UMin || ext == GLSLstd450UMax || ext == GLSLstd450UClamp;
    default: return false;
  }
}

bool half_result_exact(SpvOp op, int ext) {
  if (op == SpvOp::OpFNegate) return true;
  if (op != SpvOp::OpExtInst) return false;
  switch (ext) {
    case GLSLstd450FAbs: case GLSLstd450FSign: case GLSLstd450FMin: case GLSLstd450FMax: case GLSLstd450NMin:
    case GLSLstd450NMax: case GLSLstd450FClamp: case GLSLstd450NClamp: case GLSLstd450Floor: case GLSLstd450Ceil:
    case GLSLstd450Trunc: case GLSLstd450Round: case GLSLstd450RoundEven: case GLSLstd450Step:
      return true;
    default: return false;
  }
}

}  // namespace

unsigned Translator::small_width(uint32_t t) const {
  const spirv::Type& st = type(scalar_type(t));
  if ((st.kind == Kind::int_ || st.kind == Kind::float_) && (st.width == 8 || st.width == 16)) return st.width;
  return 0;
}

bool Translator::is_half(uint32_t t) const {
  const spirv::Type& st = type(scalar_type(t));
  return st.kind == Kind::float_ && st.width == 16;
}

uint32_t Translator::operand_type(uint32_t id) const {
  if (id >= m_.bound) return 0;
  if (vals_[id].kind == TVal::Kind::data) return vals_[id].type;
  if (m_.is_constant[id]) return m_.constants[id].type;
  return 0;
}

// A constant scalar in the widened form: SPIR-V sign-extends the literal of
// a signed 8/16-bit integer; a half's bits become the float's.
Src Translator::small_constant(uint32_t type_id, uint64_t bits) const {
  const spirv::Type& t = type(type_id);
  if (t.kind == Kind::float_ && t.width == 16) return Src::float_immediate(half_to_float(static_cast<uint16_t>(bits)));
  return Src::immediate(static_cast<uint32_t>(bits) & low_mask(t.width));
}

Src Translator::sext(Src v, unsigned bits) {
  if (bits == 0 || bits >= 32) return v;
  if (v.is_imm()) {
    uint32_t x = static_cast<uint32_t>(v.imm) << (32 - bits);
    return Src::immediate(static_cast<uint32_t>(static_cast<int32_t>(x) >> (32 - bits)));
  }
  return b_.binary(IrOp::ishr, b_.binary(IrOp::ishl, v, Src::immediate(32 - bits)), Src::immediate(32 - bits));
}

Src Translator::truncate(Src v, unsigned bits) {
  if (bits >= 32) return v;
  return b_.binary(IrOp::iand, v, Src::immediate(low_mask(bits)));
}

// f32 -> the nearest half (ties to even; overflow to infinity, subnormals
// kept, NaN stays NaN) -> f32. A float op result just emitted writes the
// 16-bit register itself (one rounding to f32, then to f16: exact for a
// sum, product or quotient of halves, as f32 has more than 2 x 11 + 2
// significand bits).
Src Translator::round_half(Src x, size_t window_start) {
  if (x.is_imm()) return Src::float_immediate(half_to_float(float_to_half(f32_of(static_cast<uint32_t>(x.imm)))));
  Function& f = b_.function();
  Src h;
  // The op that made x, at or after `window_start`, with no reader after
  // it: it can write the half register itself.
  bool retarget = false;
  if (x.is_value() && !x.neg && !x.abs && x.comp == 0 && f.values[x.value].bits == 32 && f.values[x.value].comps == 1 &&
      !f.values[x.value].variable) {
    size_t lo = std::min(window_start, f.instrs.size() ? f.instrs.size() - 1 : 0);
    for (size_t i = f.instrs.size(); i-- > lo;) {
      const Instr& in = f.instrs[i];
      if (in.dest == x.value) {
        retarget = in.op == IrOp::fadd || in.op == IrOp::fmul || in.op == IrOp::fmadd;
        break;
      }
      bool reads = false;
      for (const Src& s : in.srcs) reads |= s.is_value() && s.value == x.value;
      if (reads) break;
    }
  }
  if (retarget) {
    f.values[x.value].bits = 16;
    h = Src::val(x.value, 16);
  } else {
    h = Src::val(b_.def(IrOp::fadd, {x, Src::float_immediate(-0.0f)}, 16), 16);
  }
  ValueId r = b_.def(IrOp::fadd, {h, Src::float_immediate(-0.0f)});
  half_source_[r] = h;
  return Src::val(r);
}

// A half (as its f32) -> a 16-bit source holding its bits: where they
// already are, or one rounding (exact) into a half register. An immediate
// becomes a 16-bit move.
Src Translator::half_register(Src x) {
  if (x.is_imm()) return Src::val(b_.def(IrOp::mov, {Src::immediate(float_to_half(f32_of(static_cast<uint32_t>(x.imm))), 16)}, 16), 16);
  if (x.is_value() && !x.neg && !x.abs && x.bits == 32 && x.comp == 0) {
    auto it = half_source_.find(x.value);
    if (it != half_source_.end()) {
      Src n = it->second;
      n.bits = 16;
      return n;
    }
  }
  return Src::val(b_.def(IrOp::fadd, {x, Src::float_immediate(-0.0f)}, 16), 16);
}

// A half (as its f32) -> its 16 bits, zero-extended to 32.
Src Translator::half_bits(Src x) {
  if (x.is_imm()) return Src::immediate(float_to_half(f32_of(static_cast<uint32_t>(x.imm))));
  Src h;
  if (x.is_value() && !x.neg && !x.abs && x.bits == 32) {
    auto it = half_source_.find(x.value);
    if (it != half_source_.end() && x.comp == 0) {
      if (it->second.bits == 32) return it->second;
      h = it->second;
    }
  }
  if (h.kind == Src::Kind::none) h = Src::val(b_.def(IrOp::fadd, {x, Src::float_immediate(-0.0f)}, 16), 16);
  return Src::val(b_.def(IrOp::iadd, {h, Src::immediate(0)}));
}

// The low 16 bits of a 32-bit value, read as a half -> its f32.
// `zero_extended`: v's upper 16 bits are zero (v is then the half's bits
// as a 16-bit integer, which a bitcast or store takes as it is).
Src Translator::from_half_bits(Src v, bool zero_extended) {
  if (v.is_imm()) return Src::float_immediate(half_to_float(static_cast<uint16_t>(v.imm)));
  if (v.kind != Src::Kind::value && v.kind != Src::Kind::uniform) v = Src::val(b_.def(IrOp::mov, {v}));
  Src raw = v;
  v.bits = 16;  // the low half of the register (or uniform)
  ValueId r = b_.def(IrOp::fadd, {v, Src::float_immediate(-0.0f)});
  if (zero_extended && raw.is_value() && raw.bits == 32 && !raw.neg && !raw.abs) half_source_[r] = raw;
  else if (raw.is_value()) half_source_[r] = v;
  return Src::val(r);
}

// Float sources that are widened halves read the half itself where its 16
// bits already are (the float unit widens a 16-bit source exactly, so the
// value is the same): the widening goes dead, and an fadd/fmul/fmadd whose
// registers are all 16-bit becomes the native fadd16/fmul16/fmadd16 (pack.cpp),
// which rounds once to f16.
void Translator::narrow_half_sources(size_t first_instr, TVal& out) {
  auto narrow = [&](Src& s) {
    if (!s.is_value() || s.bits != 32 || s.comp != 0) return;
    auto it = half_source_.find(s.value);
    if (it == half_source_.end()) return;
    Src n = it->second;
    n.bits = 16;  // a 16-bit value, or the low half of a zero-extended loaded element
    n.neg = s.neg;
    n.abs = s.abs;
    s = n;
  };
  Function& f = b_.function();
  for (size_t i = first_instr; i < f.instrs.size(); ++i) {
    Instr& in = f.instrs[i];
    switch (in.op) {
      case IrOp::fadd: case IrOp::fmul: case IrOp::fmadd: case IrOp::floor: case IrOp::ceil: case IrOp::trunc:
      case IrOp::rint: case IrOp::rcp: case IrOp::rsqrt: case IrOp::rsqrt_special: case IrOp::log2: case IrOp::exp2:
        for (Src& s : in.srcs) narrow(s);
        break;
      case IrOp::fcmpsel:
        narrow(in.srcs[0]);
        narrow(in.srcs[1]);
        break;
      default: break;
    }
  }
  if (out.cmp && cond_is_float(out.cmp->cond)) {
    narrow(out.cmp->a);
    narrow(out.cmp->b);
  }
}

Status Translator::small_instruction(const spirv::Inst& in, bool& handled) {
  handled = false;
  if (small_active_) return {};
  const auto& w = in.w;
  bool ext = in.op == SpvOp::OpExtInst;
  if (!ext && !value_op(in.op)) {
    // Operations the widened form would get wrong without their own rules.
    const bool all_equal = in.op == SpvOp::OpGroupNonUniformAllEqual || in.op == SpvOp::OpSubgroupAllEqualKHR;
    if ((is_subgroup_op(in.op) || all_equal || (in.op >= SpvOp::OpDPdx && in.op <= SpvOp::OpFwidthCoarse)) && w.size() >= 3 &&
        (small_width(w[0]) || small_width(operand_type(w[w.size() - 1])))) {
      handled = true;
      return small_lanes(in);  // translate_small_lanes.cpp
    }
    return {};
  }
  if (w.size() < 3 || w[1] >= m_.bound) return {};
  size_t first = ext ? 4 : 2;
  if (ext && w.size() < 5) return {};
  bool any = small_width(w[0]) != 0;
  for (size_t k = first; k < w.size(); ++k) any |= small_width(operand_type(w[k])) != 0;
  if (!any) return {};
  handled = true;
  int ext_fn = -1;
  if (ext) {
    if (w[2] < m_.bound && m_.ext_amd_trinary[w[2]]) return small_lanes(in);  // translate_small_lanes.cpp
    if (w[2] >= m_.bound || !m_.ext_glsl[w[2]]) return unsupported(in, "an extended instruction set other than GLSL.std.450 on 8/16-bit values");
    ext_fn = static_cast<int>(w[3]);
  }
  switch (in.op) {
    case SpvOp::OpSConvert: case SpvOp::OpUConvert: case SpvOp::OpFConvert: case SpvOp::OpConvertSToF: case SpvOp::OpConvertUToF:
    case SpvOp::OpConvertFToS: case SpvOp::OpConvertFToU:
      return small_convert(in);
    case SpvOp::OpBitcast: return small_bitcast(in);
    case SpvOp::OpIsInf: {
      // |x| == inf on the widened float.
      TVal out = TVal::data(w[0]);
      unsigned n = components(w[0]);
      for (unsigned i = 0; i < n; ++i) {
        AGX_TRY(auto x, scalar(w[2], in, i));
        Src a = b_.binary(IrOp::iand, x, Src::immediate(0x7FFFFFFFu));
        Cmp c{Cond::ueq, false, a, Src::immediate(0x7F800000u)};
        if (n == 1) out.cmp = c;
        else out.c.push_back(materialize(c));
      }
      vals_[w[1]] = std::move(out);
      return {};
    }
    case SpvOp::OpBitReverse: {
      unsigned bits = small_width(w[0]);
      if (!bits) return unsupported(in, "OpBitReverse between different widths");
      TVal out = TVal::data(w[0]);
      for (unsigned i = 0; i < components(w[0]); ++i) {
        AGX_TRY(auto x, scalar(w[2], in, i));
        Src r = Src::val(b_.def(IrOp::bitrev, {x}));
        out.c.push_back(b_.binary(IrOp::ushr, r, Src::immediate(32 - bits)));
      }
      vals_[w[1]] = std::move(out);
      return {};
    }
    default: break;
  }
  // Signed operations read sign-extended operands: their values are
  // swapped in for the 32-bit translation and put back afterwards.
  bool is_signed = signed_op(in.op) || (ext && signed_ext(static_cast<GLSLstd450>(ext_fn)));
  std::vector<std::pair<uint32_t, TVal>> saved;
  if (is_signed) {
    for (size_t k = first; k < w.size(); ++k) {
      uint32_t id = w[k];
      unsigned bits = small_width(operand_type(id));
      if (!bits || is_half(operand_type(id))) continue;
      bool seen = false;
      for (auto& [sid, tv] : saved) seen |= sid == id;
      if (seen) continue;
      AGX_TRY(auto v, get(id, in));
      if (v->kind != TVal::Kind::data) continue;
      TVal view = *v;
      saved.emplace_back(id, *v);
      for (Src& s : view.c) s = sext(s, bits);
      vals_[id] = std::move(view);
    }
  }
  small_active_ = true;
  const size_t first_instr = b_.function().instrs.size();
  Status st = instruction(in);
  small_active_ = false;
  for (auto& [id, tv] : saved) vals_[id] = std::move(tv);
  AGX_CHECK(st);
  TVal& out = vals_[w[1]];
  narrow_half_sources(first_instr, out);
  if (out.kind != TVal::Kind::data || out.cmp) return {};
  unsigned rbits = small_width(w[0]);
  if (!rbits) return {};
  if (is_half(w[0])) {
    if (!half_result_exact(in.op, ext_fn))
      for (Src& s : out.c) {
        // Results made here and used once may write the half register.
        size_t uses = 0;
        for (const Src& o : out.c) uses += o.is_value() && s.is_value() && o.value == s.value;
        s = round_half(s, uses == 1 ? first_instr : SIZE_MAX);
      }
  } else if (!int_result_canonical(in.op, ext_fn)) {
    for (Src& s : out.c) s = truncate(s, rbits);
  }
  return {};
}

}  // namespace agx::compiler::detail
