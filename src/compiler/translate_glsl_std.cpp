// GLSL.std.450 extended instructions and the float remainders (OpFMod,
// OpFRem) -> IR. Everything is built from the AGX's own float ops the way
// Mesa lowers it for the AGX (math_builder.h names the sources).
#include <spirv/unified1/GLSL.std.450.h>

#include <fmt/format.h>

#include "compiler/math_builder.h"
#include "compiler/translate.h"

namespace agx::compiler::detail {

using IrOp = agx::compiler::Op;

namespace {

constexpr float kPi = 3.14159265358979323846f;

bool whole_vector(GLSLstd450 f) {
  switch (f) {
    case GLSLstd450Length: case GLSLstd450Normalize: case GLSLstd450Distance: case GLSLstd450Cross:
    case GLSLstd450Reflect: case GLSLstd450Refract: case GLSLstd450FaceForward:
      return true;
    default: return false;
  }
}

}  // namespace

// Length, distance, normalize, cross, reflect, refract, faceforward: the
// ones that mix components.
Status Translator::ext_glsl_vector(const spirv::Inst& in) {
  const auto& w = in.w;
  auto inst = static_cast<GLSLstd450>(w[3]);
  MathBuilder m(b_);
  size_t nargs = w.size() - 4;
  size_t want = inst == GLSLstd450Length || inst == GLSLstd450Normalize ? 1
              : inst == GLSLstd450Refract || inst == GLSLstd450FaceForward ? 3 : 2;
  AGX_CHECK(glsl_arity(in, nargs, want));
  AGX_TRY(auto av, get(w[4], in));
  size_t n = av->c.size();
  if (!n || av->kind != TVal::Kind::data || (type(scalar_type(av->type)).width != 32 && !small_active_))
    return unsupported(in, "vector function on a non-32-bit vector");
  // Vector operands (all but refract's eta).
  std::vector<std::vector<Src>> v(want, std::vector<Src>(n));
  for (size_t a = 0; a < want; ++a) {
    if (inst == GLSLstd450Refract && a == 2) {
      AGX_TRY(auto eta, scalar(w[6], in));
      v[2].assign(1, eta);
      continue;
    }
    for (size_t i = 0; i < n; ++i) {
      AGX_TRY(auto s, scalar(w[4 + a], in, static_cast<unsigned>(i)));
      v[a][i] = s;
    }
  }
  auto dot = [&](const std::vector<Src>& x, const std::vector<Src>& y) {
    Src acc = m.mul(x[0], y[0]);
    for (size_t i = 1; i < n; ++i) acc = m.fma(x[i], y[i], acc);
    return acc;
  };
  TVal out = TVal::data(w[0]);
  switch (inst) {
    case GLSLstd450Cross:
      if (n != 3) return unsupported(in, "cross of other than 3 components");
      for (size_t i = 0; i < 3; ++i) {
        size_t j = (i + 1) % 3, k = (i + 2) % 3;
        out.c.push_back(m.fma(v[0][j], v[1][k], MathBuilder::neg(m.mul(v[0][k], v[1][j]))));
      }
      break;
    case GLSLstd450Length: case GLSLstd450Distance: {
      std::vector<Src> x = v[0];
      if (inst == GLSLstd450Distance)
        for (size_t i = 0; i < n; ++i) x[i] = m.sub(x[i], v[1][i]);
      out.c.push_back(m.sqrt(dot(x, x)));
      break;
    }
    case GLSLstd450Normalize: {
      Src r = m.unary(IrOp::rsqrt, dot(v[0], v[0]));
      for (size_t i = 0; i < n; ++i) out.c.push_back(m.mul(v[0][i], r));
      break;
    }
    case GLSLstd450FaceForward: {
      // dot(Nref, I) < 0 ? N : -N
      Src d = dot(v[2], v[1]);
      for (size_t i = 0; i < n; ++i)
        out.c.push_back(m.fsel(Cond::flt, d, Src::immediate(0), v[0][i], MathBuilder::neg(v[0][i])));
      break;
    }
    case GLSLstd450Reflect: {
      // I - 2 dot(N, I) N
      Src d2 = m.mul(dot(v[1], v[0]), MathBuilder::k(2.0f));
      for (size_t i = 0; i < n; ++i) out.c.push_back(m.fma(MathBuilder::neg(v[1][i]), d2, v[0][i]));
      break;
    }
    case GLSLstd450Refract: {
      // k = 1 - eta^2 (1 - dot(N, I)^2); k < 0 ? 0 : eta I - (eta dot(N, I) + sqrt(k)) N
      Src eta = v[2][0];
      Src d = dot(v[1], v[0]);
      Src one = MathBuilder::k(1.0f);
      Src t = m.fma(MathBuilder::neg(d), d, one);
      Src k = m.fma(MathBuilder::neg(eta), m.mul(eta, t), one);
      Src f = m.fma(eta, d, m.sqrt(k));
      for (size_t i = 0; i < n; ++i) {
        Src r = m.fma(MathBuilder::neg(f), v[1][i], m.mul(eta, v[0][i]));
        out.c.push_back(b_.select(Cond::flt, false, k, Src::immediate(0), Src::immediate(0), r));
      }
      break;
    }
    default: return unsupported(in, "GLSL.std.450 vector function");
  }
  vals_[w[1]] = std::move(out);
  return {};
}

// One component of a per-component GLSL.std.450 function: absolute value,
// rounding, exponentials and logarithms, trigonometry and the hyperbolic
// functions. `s` holds the operands' same component; `handled` is false
// for a function of another group.
// A GLSL.std.450 function given `given` operands where it takes `k`.
Status Translator::glsl_arity(const spirv::Inst& in, size_t given, size_t k) {
  if (given != k) return unsupported(in, "GLSL.std.450 operand count");
  return {};
}

Result<Src> Translator::glsl_float_math(const spirv::Inst& in, uint32_t inst_id, const std::vector<Src>& s, bool& handled) {
  const auto inst = static_cast<GLSLstd450>(inst_id);
  handled = true;
  MathBuilder m(b_);
  auto K = MathBuilder::k;
  auto neg = MathBuilder::neg;
  auto fabs_ = MathBuilder::abs;
  auto args = [&](size_t k) { return glsl_arity(in, s.size(), k); };
  auto un = [&](IrOp op) { return Src::val(b_.def(op, {s[0]})); };
  Src r;
  switch (inst) {
    case GLSLstd450FAbs: AGX_CHECK(args(1)); r = m.apply(fabs_(s[0])); break;
    case GLSLstd450SAbs: AGX_CHECK(args(1)); r = b_.select(Cond::slt, false, s[0], Src::immediate(0), b_.binary(IrOp::isub, Src::immediate(0), s[0]), s[0]); break;
    case GLSLstd450Floor: AGX_CHECK(args(1)); r = un(IrOp::floor); break;
    case GLSLstd450Ceil: AGX_CHECK(args(1)); r = un(IrOp::ceil); break;
    case GLSLstd450Trunc: AGX_CHECK(args(1)); r = un(IrOp::trunc); break;
    // round() may go either way at .5 (GLSL 4.60 8.3); Mesa lowers it to
    // round-to-even as well.
    case GLSLstd450Round: case GLSLstd450RoundEven: AGX_CHECK(args(1)); r = un(IrOp::rint); break;
    case GLSLstd450Fract: AGX_CHECK(args(1)); r = m.sub(s[0], un(IrOp::floor)); break;
    case GLSLstd450Exp2: AGX_CHECK(args(1)); r = m.exp2(s[0]); break;
    case GLSLstd450Log2: AGX_CHECK(args(1)); r = m.log2(s[0]); break;
    case GLSLstd450Exp: AGX_CHECK(args(1)); r = m.exp(s[0]); break;
    case GLSLstd450Log: AGX_CHECK(args(1)); r = m.log(s[0]); break;
    case GLSLstd450Pow: AGX_CHECK(args(2)); r = m.exp2(m.mul(m.log2(s[0]), s[1])); break;
    case GLSLstd450InverseSqrt: AGX_CHECK(args(1)); r = un(IrOp::rsqrt); break;
    // sqrt(x) = x * rsqrt_special(x) (0 and +inf map to themselves).
    case GLSLstd450Sqrt: AGX_CHECK(args(1)); r = m.sqrt(s[0]); break;
    case GLSLstd450Radians: AGX_CHECK(args(1)); r = m.mul(s[0], K(kPi / 180.0f)); break;
    case GLSLstd450Degrees: AGX_CHECK(args(1)); r = m.mul(s[0], K(180.0f / kPi)); break;
    case GLSLstd450Sin: AGX_CHECK(args(1)); r = m.sin(s[0]); break;
    case GLSLstd450Cos: AGX_CHECK(args(1)); r = m.cos(s[0]); break;
    case GLSLstd450Tan: AGX_CHECK(args(1)); {
      Src sine = m.sin(s[0]);
      r = m.div(sine, m.cos(s[0]));
      break;
    }
    case GLSLstd450Asin: AGX_CHECK(args(1)); r = m.asin(s[0]); break;
    case GLSLstd450Acos: AGX_CHECK(args(1)); r = m.acos(s[0]); break;
    case GLSLstd450Atan: AGX_CHECK(args(1)); r = m.atan(s[0]); break;
    case GLSLstd450Atan2: AGX_CHECK(args(2)); r = m.atan2(s[0], s[1]); break;
    case GLSLstd450Sinh: case GLSLstd450Cosh: {
      // (e^x -+ e^-x) / 2
      AGX_CHECK(args(1));
      Src e = m.exp(s[0]), en = m.exp(neg(s[0]));
      r = m.mul(inst == GLSLstd450Sinh ? m.sub(e, en) : m.add(e, en), K(0.5f));
      break;
    }
    case GLSLstd450Tanh: {
      // (e^x - e^-x) / (e^x + e^-x) on x clamped to [-10, 10] (beyond,
      // the float result is +-1); 0 < |x| fails for +-0 and NaN, which
      // come back as they are.
      AGX_CHECK(args(1));
      Src x = m.min(m.max(s[0], K(-10.0f)), K(10.0f));
      Src e = m.exp(x), en = m.exp(neg(x));
      Src difference = m.sub(e, en);
      Src t = m.div(difference, m.add(e, en));
      r = b_.select(Cond::flt, false, Src::immediate(0), fabs_(s[0]), t, s[0]);
      break;
    }
    case GLSLstd450Asinh: {
      // sign(x) ln(|x| + sqrt(x^2 + 1))
      AGX_CHECK(args(1));
      Src magnitude = fabs_(s[0]);
      Src l = m.log(m.add(magnitude, m.sqrt(m.fma(s[0], s[0], K(1.0f)))));
      r = m.mul(m.sign(s[0]), l);
      break;
    }
    case GLSLstd450Acosh:
      // ln(x + sqrt(x^2 - 1))
      AGX_CHECK(args(1));
      r = m.log(m.add(s[0], m.sqrt(m.fma(s[0], s[0], K(-1.0f)))));
      break;
    case GLSLstd450Atanh: {
      // ln((1 + x) / (1 - x)) / 2
      AGX_CHECK(args(1));
      Src numerator = m.add(s[0], K(1.0f));
      r = m.mul(m.log(m.div(numerator, m.sub(K(1.0f), s[0]))), K(0.5f));
      break;
    }
    default:
      handled = false;
      return Src{};
  }
  return r;
}

// One component of min / max / clamp, fma, the bit searches, step,
// smoothstep, mix, sign and ldexp (as glsl_float_math).
Result<Src> Translator::glsl_select_math(const spirv::Inst& in, uint32_t inst_id, const std::vector<Src>& s, bool& handled) {
  const auto inst = static_cast<GLSLstd450>(inst_id);
  handled = true;
  MathBuilder m(b_);
  auto K = MathBuilder::k;
  auto neg = MathBuilder::neg;
  auto args = [&](size_t k) { return glsl_arity(in, s.size(), k); };
  auto un = [&](IrOp op) { return Src::val(b_.def(op, {s[0]})); };
  auto sel = [&](Cond c, Src a, Src b2) { return b_.select(c, false, a, b2, a, b2); };
  Src r;
  switch (inst) {
    case GLSLstd450FMin: case GLSLstd450NMin: AGX_CHECK(args(2)); r = m.min(s[0], s[1]); break;
    case GLSLstd450FMax: case GLSLstd450NMax: AGX_CHECK(args(2)); r = m.max(s[0], s[1]); break;
    case GLSLstd450UMin: AGX_CHECK(args(2)); r = sel(Cond::ult, s[0], s[1]); break;
    case GLSLstd450UMax: AGX_CHECK(args(2)); r = sel(Cond::ugt, s[0], s[1]); break;
    case GLSLstd450SMin: AGX_CHECK(args(2)); r = sel(Cond::slt, s[0], s[1]); break;
    case GLSLstd450SMax: AGX_CHECK(args(2)); r = sel(Cond::sgt, s[0], s[1]); break;
    case GLSLstd450FClamp: case GLSLstd450NClamp: AGX_CHECK(args(3)); r = m.min(m.max(s[0], s[1]), s[2]); break;
    case GLSLstd450UClamp: AGX_CHECK(args(3)); r = sel(Cond::ult, sel(Cond::ugt, s[0], s[1]), s[2]); break;
    case GLSLstd450SClamp: AGX_CHECK(args(3)); r = sel(Cond::slt, sel(Cond::sgt, s[0], s[1]), s[2]); break;
    case GLSLstd450Fma: AGX_CHECK(args(3)); r = m.fma(s[0], s[1], s[2]); break;
    case GLSLstd450FindUMsb: AGX_CHECK(args(1)); r = un(IrOp::ffs); break;
    case GLSLstd450FindSMsb: {
      // The highest bit that differs from the sign: msb of ~x for x < 0.
      AGX_CHECK(args(1));
      Src inv = Src::val(b_.def(IrOp::inot, {s[0]}));
      r = Src::val(b_.def(IrOp::ffs, {b_.select(Cond::slt, false, s[0], Src::immediate(0), inv, s[0])}));
      break;
    }
    case GLSLstd450FindILsb: {
      // 31 - msb(bitreverse(x)), and -1 for 0.
      AGX_CHECK(args(1));
      Src h = Src::val(b_.def(IrOp::ffs, {Src::val(b_.def(IrOp::bitrev, {s[0]}))}));
      Src lsb = b_.binary(IrOp::isub, Src::immediate(31), h);
      r = b_.select(Cond::ueq, false, s[0], Src::immediate(0), Src::immediate(0xFFFFFFFFu), lsb);
      break;
    }
    case GLSLstd450Step:
      // x < edge ? 0.0 : 1.0 (NaN gives 1.0)
      AGX_CHECK(args(2));
      r = b_.select(Cond::flt, false, s[1], s[0], Src::immediate(0), K(1.0f));
      break;
    case GLSLstd450SmoothStep: {
      // t = clamp((x - e0) / (e1 - e0), 0, 1); t * t * (3 - 2 t)
      AGX_CHECK(args(3));
      Src numerator = m.sub(s[2], s[0]);
      Src q = m.div(numerator, m.sub(s[1], s[0]));
      Src t = m.min(m.max(q, Src::immediate(0)), K(1.0f));
      Src t2 = m.mul(t, t);
      r = m.mul(t2, m.fma(neg(t), K(2.0f), K(3.0f)));
      break;
    }
    case GLSLstd450FMix:
      // x + (y - x) * a
      AGX_CHECK(args(3));
      r = m.fma(m.sub(s[1], s[0]), s[2], s[0]);
      break;
    case GLSLstd450FSign: AGX_CHECK(args(1)); r = m.sign(s[0]); break;
    case GLSLstd450SSign: {
      // clamp(x, -1, 1)
      AGX_CHECK(args(1));
      Src lo = sel(Cond::sgt, s[0], Src::immediate(0xFFFFFFFFu));
      r = sel(Cond::slt, lo, Src::immediate(1));
      break;
    }
    case GLSLstd450Ldexp: {
      // x * 2^e1 * 2^e2 with e clamped to [-252, 254] and split in two
      // halves, each a normal power of two built in the exponent field
      // (Mesa's nir_ldexp), so results near the range ends come out.
      AGX_CHECK(args(2));
      Src e = sel(Cond::slt, sel(Cond::sgt, s[1], Src::immediate(static_cast<uint32_t>(-252))), Src::immediate(254));
      Src e1 = b_.binary(IrOp::ishr, e, Src::immediate(1));
      Src e2 = b_.binary(IrOp::isub, e, e1);
      auto pow2 = [&](Src x) { return b_.binary(IrOp::ishl, b_.binary(IrOp::iadd, x, Src::immediate(127)), Src::immediate(23)); };
      Src half = m.mul(s[0], pow2(e1));
      r = m.mul(half, pow2(e2));
      break;
    }
    default:
      handled = false;
      return Src{};
  }
  return r;
}

Status Translator::ext_glsl(const spirv::Inst& in) {
  const auto& w = in.w;
  uint32_t rtype = w[0], rid = w[1];
  auto inst = static_cast<GLSLstd450>(w[3]);
  if (whole_vector(inst)) return ext_glsl_vector(in);
  if (inst == GLSLstd450ModfStruct || inst == GLSLstd450FrexpStruct) return ext_glsl_struct(in);
  if (inst == GLSLstd450Modf || inst == GLSLstd450Frexp)
    return unsupported(in, fmt::format("GLSL.std.450 function {} with an output pointer is not supported (only the struct form)",
                                       static_cast<unsigned>(inst)));
  unsigned n = components(rtype);
  if (!n) return unsupported(in, "GLSL.std.450 function on a composite");
  if (type(scalar_type(rtype)).width != 32 && !small_active_) return unsupported(in, "GLSL.std.450 function on a non-32-bit type");
  // Packing: a vector in, one word out; unpacking: one word in, a vector out.
  switch (inst) {
    case GLSLstd450PackUnorm2x16: case GLSLstd450PackSnorm2x16: case GLSLstd450PackUnorm4x8: case GLSLstd450PackSnorm4x8:
    case GLSLstd450UnpackUnorm2x16: case GLSLstd450UnpackSnorm2x16: case GLSLstd450UnpackUnorm4x8: case GLSLstd450UnpackSnorm4x8:
      return ext_glsl_pack(in);
    case GLSLstd450PackHalf2x16: case GLSLstd450UnpackHalf2x16:
      return ext_glsl_half(in);
    default: break;
  }
  TVal out = TVal::data(rtype);
  for (unsigned i = 0; i < n; ++i) {
    std::vector<Src> s;
    for (size_t k = 4; k < w.size(); ++k) {
      AGX_TRY(auto v, scalar(w[k], in, i));
      s.push_back(v);
    }
    bool handled = false;
    AGX_TRY(Src r, glsl_float_math(in, w[3], s, handled));
    if (!handled) {
      AGX_TRY(r, glsl_select_math(in, w[3], s, handled));
    }
    if (!handled)
      return unsupported(in, fmt::format("GLSL.std.450 function {} is not supported", static_cast<unsigned>(inst)));
    out.c.push_back(r);
  }
  vals_[rid] = std::move(out);
  return {};
}

// modfStruct / frexpStruct: a struct {fraction or significand, whole part or
// exponent} of same-shaped members, flattened member by member.
Status Translator::ext_glsl_struct(const spirv::Inst& in) {
  const auto& w = in.w;
  auto inst = static_cast<GLSLstd450>(w[3]);
  AGX_CHECK(glsl_arity(in, w.size() - 4, 1));
  AGX_TRY(auto xv, get(w[4], in));
  size_t n = xv->c.size();
  if (!n || xv->kind != TVal::Kind::data || (type(scalar_type(xv->type)).width != 32 && !small_active_))
    return unsupported(in, "modf/frexp of a non-32-bit value");
  MathBuilder m(b_);
  std::vector<Src> first(n), second(n);
  for (size_t i = 0; i < n; ++i) {
    AGX_TRY(auto x, scalar(w[4], in, static_cast<unsigned>(i)));
    Src sign_bit = b_.binary(IrOp::iand, x, Src::immediate(0x80000000u));
    if (inst == GLSLstd450ModfStruct) {
      // Both parts keep x's sign; +-inf has fraction +-0 (Mesa's vtn
      // lowering: sign | fract(|x|), sign | floor(|x|)).
      Src ax = MathBuilder::abs(x);
      Src whole = Src::val(b_.def(IrOp::floor, {ax}));
      Src frac = m.sub(ax, whole);
      Src abs_bits = b_.binary(IrOp::iand, x, Src::immediate(0x7FFFFFFFu));
      first[i] = b_.select(Cond::ueq, false, abs_bits, Src::immediate(0x7F800000u), sign_bit, b_.binary(IrOp::ior, sign_bit, frac));
      second[i] = b_.binary(IrOp::ior, sign_bit, whole);
    } else {
      // Significand in [0.5, 1): the exponent field set to 126; exponent
      // = biased exponent - 126; zero gives (x, 0) (nir_lower_frexp).
      Src abs_bits = b_.binary(IrOp::iand, x, Src::immediate(0x7FFFFFFFu));
      Src sig = b_.binary(IrOp::ior, b_.binary(IrOp::iand, x, Src::immediate(0x807FFFFFu)), Src::immediate(0x3F000000u));
      Src ex = b_.binary(IrOp::isub, b_.binary(IrOp::ushr, abs_bits, Src::immediate(23)), Src::immediate(126));
      first[i] = b_.select(Cond::ueq, false, abs_bits, Src::immediate(0), x, sig);
      second[i] = b_.select(Cond::ueq, false, abs_bits, Src::immediate(0), Src::immediate(0), ex);
    }
  }
  TVal out = TVal::data(w[0]);
  out.c = first;
  out.c.insert(out.c.end(), second.begin(), second.end());
  vals_[w[1]] = std::move(out);
  return {};
}

// pack/unpack Unorm/Snorm 2x16 and 4x8 (the conversions NIR's
// nir_lower_packing spells out: round-to-even of the clamped value times
// 2^bits - 1 (or 2^(bits-1) - 1), and back by a divide).
Status Translator::ext_glsl_pack(const spirv::Inst& in) {
  const auto& w = in.w;
  auto inst = static_cast<GLSLstd450>(w[3]);
  AGX_CHECK(glsl_arity(in, w.size() - 4, 1));
  bool pack = inst == GLSLstd450PackUnorm2x16 || inst == GLSLstd450PackSnorm2x16 || inst == GLSLstd450PackUnorm4x8 ||
              inst == GLSLstd450PackSnorm4x8;
  bool snorm = inst == GLSLstd450PackSnorm2x16 || inst == GLSLstd450PackSnorm4x8 || inst == GLSLstd450UnpackSnorm2x16 ||
               inst == GLSLstd450UnpackSnorm4x8;
  unsigned bits = inst == GLSLstd450PackUnorm4x8 || inst == GLSLstd450PackSnorm4x8 || inst == GLSLstd450UnpackUnorm4x8 ||
                  inst == GLSLstd450UnpackSnorm4x8 ? 8 : 16;
  unsigned count = 32 / bits;
  float scale = snorm ? float((1u << (bits - 1)) - 1) : float((1u << bits) - 1);
  MathBuilder m(b_);
  TVal out = TVal::data(w[0]);
  if (pack) {
    Src word = Src::immediate(0);
    for (unsigned i = 0; i < count; ++i) {
      AGX_TRY(auto x, scalar(w[4], in, i));
      Src c = m.min(m.max(x, MathBuilder::k(snorm ? -1.0f : 0.0f)), MathBuilder::k(1.0f));
      Src q = Src::val(b_.def(IrOp::rint, {m.mul(c, MathBuilder::k(scale))}));
      Src v = Src::val(b_.def(IrOp::convert, {q}, 32, 1, static_cast<uint64_t>(snorm ? Conv::f_to_s32 : Conv::f_to_u32)));
      v = b_.binary(IrOp::iand, v, Src::immediate((1u << bits) - 1));
      word = b_.binary(IrOp::ior, word, b_.binary(IrOp::ishl, v, Src::immediate(i * bits)));
    }
    out.c.push_back(word);
  } else {
    AGX_TRY(auto x, scalar(w[4], in));
    for (unsigned i = 0; i < count; ++i) {
      Src f;
      if (snorm) {
        // Sign-extend the field: shift it to the top, arithmetic shift down.
        Src top = b_.binary(IrOp::ishl, x, Src::immediate(32 - bits * (i + 1)));
        Src v = b_.binary(IrOp::ishr, top, Src::immediate(32 - bits));
        f = Src::val(b_.def(IrOp::convert, {v}, 32, 1, static_cast<uint64_t>(Conv::s32_to_f)));
        f = m.max(m.div(f, MathBuilder::k(scale)), MathBuilder::k(-1.0f));
      } else {
        Src v = b_.binary(IrOp::iand, b_.binary(IrOp::ushr, x, Src::immediate(i * bits)), Src::immediate((1u << bits) - 1));
        f = m.div(Src::val(b_.def(IrOp::convert, {v}, 32, 1, static_cast<uint64_t>(Conv::u32_to_f))), MathBuilder::k(scale));
      }
      out.c.push_back(f);
    }
  }
  vals_[w[1]] = std::move(out);
  return {};
}

// packHalf2x16 / unpackHalf2x16 through the float unit's size conversion
// (Mesa's f2f16 / f2f32 on the AGX are float moves between register
// sizes): fadd32 x, -0.0 written to a 16-bit half rounds to f16, and a
// 16-bit source is widened exactly. The two halves of the packed word are
// one 16-bit 2-component value read as a 32-bit register.
Status Translator::ext_glsl_half(const spirv::Inst& in) {
  const auto& w = in.w;
  AGX_CHECK(glsl_arity(in, w.size() - 4, 1));
  auto inst = static_cast<GLSLstd450>(w[3]);
  Src minus_zero = Src::immediate(0x80000000u);
  TVal out = TVal::data(w[0]);
  if (inst == GLSLstd450PackHalf2x16) {
    std::vector<Src> h;
    for (unsigned i = 0; i < 2; ++i) {
      AGX_TRY(auto x, scalar(w[4], in, i));
      h.push_back(Src::val(b_.def(IrOp::fadd, {x, minus_zero}, 16), 16));
    }
    ValueId pair = b_.def(IrOp::collect, h, 16, 2);
    out.c.push_back(Src::val(pair, 32));
  } else {
    AGX_TRY(auto u, scalar(w[4], in));
    if (u.kind == Src::Kind::imm || u.kind == Src::Kind::none) {
      // A constant word: a value to take the halves of.
      u = Src::val(b_.def(IrOp::mov, {u}));
    }
    for (unsigned i = 0; i < 2; ++i) {
      Src half = i == 0 ? u : b_.binary(IrOp::ushr, u, Src::immediate(16));
      half.bits = 16;  // the low half of the register (or uniform)
      out.c.push_back(Src::val(b_.def(IrOp::fadd, {half, minus_zero})));
    }
  }
  vals_[w[1]] = std::move(out);
  return {};
}

// OpFMod: x - y floor(x / y) (the result takes y's sign); OpFRem: x - y
// trunc(x / y) (x's sign). NIR lowers fmod the same way.
Status Translator::float_remainder(const spirv::Inst& in) {
  const auto& w = in.w;
  if (w.size() != 4) return unsupported(in, "float remainder operand count");
  unsigned n = components(w[0]);
  if (!n || (type(scalar_type(w[0])).width != 32 && !small_active_)) return unsupported(in, "float remainder of a non-32-bit type");
  MathBuilder m(b_);
  TVal out = TVal::data(w[0]);
  for (unsigned i = 0; i < n; ++i) {
    AGX_TRY(auto x, scalar(w[2], in, i));
    AGX_TRY(auto y, scalar(w[3], in, i));
    Src q = Src::val(b_.def(in.op == SpvOp::OpFMod ? IrOp::floor : IrOp::trunc, {m.div(x, y)}));
    out.c.push_back(m.fma(MathBuilder::neg(y), q, x));
  }
  vals_[w[1]] = std::move(out);
  return {};
}

}  // namespace agx::compiler::detail
