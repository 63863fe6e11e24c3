// GLSL.std.450 functions of doubles -> IR (fp64_lowering.h). GLSL allows
// doubles only in the functions below (no trigonometric, exponential or
// logarithmic ones); the rest is a clear error.
#include <spirv/unified1/GLSL.std.450.h>

#include <fmt/format.h>

#include "compiler/fp64_lowering.h"
#include "compiler/translate.h"

namespace agx::compiler::detail {

using IrOp = agx::compiler::Op;

// One GLSL.std.450 instruction on doubles: the builders, its operands by
// component (a scalar operand is broadcast) and the result being built.
class Translator::Fp64Call {
 public:
  Fp64Call(Translator& t, const spirv::Inst& in, size_t components) : x(t.b_), fp(x), n(components), t_(t), in_(in) {
    out = TVal::data(in.w[0]);
  }
  Int64 x;
  Fp64 fp;
  size_t n;
  TVal out;

  Status args(size_t k) const {
    return t_.glsl_arity(in_, in_.w.size() - 4, k);
  }
  // Operand k, component i.
  Result<Pair> arg(size_t k, size_t i) const {
    AGX_TRY(auto v, t_.get(in_.w[4 + k], in_));
    return t_.dpair(in_.w[4 + k], in_, static_cast<unsigned>(v->c.size() == 1 ? 0 : i));
  }
  Result<std::vector<Pair>> vec(size_t k) const {
    std::vector<Pair> v;
    for (size_t i = 0; i < n; ++i) {
      AGX_TRY(auto p, arg(k, i));
      v.push_back(p);
    }
    return v;
  }
  void push(Pair p) { out.c.push_back(t_.pack64(p.lo, p.hi)); }
  Status done() {
    t_.vals_[in_.w[1]] = std::move(out);
    return {};
  }
  // A function of k operands applied per component.
  template <typename F>
  Status each(size_t k, F fn) {
    AGX_CHECK(args(k));
    for (size_t i = 0; i < n; ++i) {
      std::vector<Pair> s;
      for (size_t j = 0; j < k; ++j) {
        AGX_TRY(auto p, arg(j, i));
        s.push_back(p);
      }
      push(fn(s));
    }
    return done();
  }

 private:
  Translator& t_;
  const spirv::Inst& in_;
};

Status Translator::fp64_ext(const spirv::Inst& in) {
  const auto& w = in.w;
  auto inst = static_cast<GLSLstd450>(w[3]);
  AGX_TRY(auto first, get(w[4], in));
  if (first->kind != TVal::Kind::data) return unsupported(in, "GLSL.std.450 operand is not a value");
  Fp64Call c(*this, in, first->c.size());
  const Pair zero = Fp64::constant(0.0), one = Fp64::constant(1.0);
  auto clamp = [&](Pair v, Pair lo, Pair hi) { return c.fp.min(c.fp.max(v, lo), hi); };
  switch (inst) {
    case GLSLstd450FAbs: return c.each(1, [&](auto& s) { return c.fp.abs(s[0]); });
    case GLSLstd450FSign: return c.each(1, [&](auto& s) { return c.fp.sign(s[0]); });
    case GLSLstd450Floor: return c.each(1, [&](auto& s) { return c.fp.floor(s[0]); });
    case GLSLstd450Ceil: return c.each(1, [&](auto& s) { return c.fp.ceil(s[0]); });
    case GLSLstd450Trunc: return c.each(1, [&](auto& s) { return c.fp.trunc(s[0]); });
    case GLSLstd450Fract: return c.each(1, [&](auto& s) { return c.fp.fract(s[0]); });
    case GLSLstd450Round: return c.each(1, [&](auto& s) { return c.fp.round_away(s[0]); });
    case GLSLstd450RoundEven: return c.each(1, [&](auto& s) { return c.fp.round_even(s[0]); });
    case GLSLstd450Sqrt: return c.each(1, [&](auto& s) { return c.fp.sqrt(s[0]); });
    // 1 / sqrt(x): two correctly rounded steps, within 1 ulp.
    case GLSLstd450InverseSqrt: return c.each(1, [&](auto& s) { return c.fp.div(one, c.fp.sqrt(s[0])); });
    case GLSLstd450FMin: case GLSLstd450NMin: return c.each(2, [&](auto& s) { return c.fp.min(s[0], s[1]); });
    case GLSLstd450FMax: case GLSLstd450NMax: return c.each(2, [&](auto& s) { return c.fp.max(s[0], s[1]); });
    case GLSLstd450FClamp: case GLSLstd450NClamp: return c.each(3, [&](auto& s) { return clamp(s[0], s[1], s[2]); });
    // GLSL's definition: x * (1 - a) + y * a.
    case GLSLstd450FMix:
      return c.each(3, [&](auto& s) {
        Pair x_part = c.fp.mul(s[0], c.fp.sub(one, s[2]));
        return c.fp.add(x_part, c.fp.mul(s[1], s[2]));
      });
    case GLSLstd450Step: return c.each(2, [&](auto& s) { return c.fp.pick(c.fp.less(s[1], s[0]), zero, one); });
    case GLSLstd450SmoothStep:
      return c.each(3, [&](auto& s) {
        Pair num = c.fp.sub(s[2], s[0]);
        Pair t = clamp(c.fp.div(num, c.fp.sub(s[1], s[0])), zero, one);
        Pair t2 = c.fp.mul(t, t);
        return c.fp.mul(t2, c.fp.sub(Fp64::constant(3.0), c.fp.add(t, t)));
      });
    case GLSLstd450Fma: return c.each(3, [&](auto& s) { return c.fp.fma(s[0], s[1], s[2]); });
    case GLSLstd450Ldexp: {
      AGX_CHECK(c.args(2));
      for (size_t i = 0; i < c.n; ++i) {
        AGX_TRY(auto a, c.arg(0, i));
        AGX_TRY(auto ev, get(w[5], in));
        AGX_TRY(auto e, scalar(w[5], in, static_cast<unsigned>(ev->c.size() == 1 ? 0 : i)));
        c.push(c.fp.ldexp(a, e));
      }
      return c.done();
    }
    case GLSLstd450ModfStruct: case GLSLstd450FrexpStruct: {
      AGX_CHECK(c.args(1));
      std::vector<Src> second;
      for (size_t i = 0; i < c.n; ++i) {
        AGX_TRY(auto a, c.arg(0, i));
        if (inst == GLSLstd450FrexpStruct) {
          Src e;
          c.push(c.fp.frexp(a, &e));
          second.push_back(e);
          continue;
        }
        // Both parts keep x's sign; +-inf has fraction +-0 (C's modf).
        Pair whole = c.fp.trunc(a);
        Pair frac = c.fp.sub(a, whole);
        Src sign = c.fp.sign_of(a);
        frac.hi = c.x.op(IrOp::ior, c.x.op(IrOp::iand, frac.hi, Fp64::k(0x7FFFFFFFu)), sign);
        Src inf = c.fp.is_inf(a);
        frac = c.fp.pick(inf, Pair{Fp64::k(0), sign}, c.fp.pick(c.fp.is_nan(a), a, frac));
        c.push(frac);
        second.push_back(pack64(whole.lo, whole.hi));
      }
      c.out.c.insert(c.out.c.end(), second.begin(), second.end());
      return c.done();
    }
    case GLSLstd450PackDouble2x32: {
      AGX_CHECK(c.args(1));
      AGX_TRY(auto lo, scalar(w[4], in, 0));
      AGX_TRY(auto hi, scalar(w[4], in, 1));
      c.out.c.push_back(pack64(lo, hi));
      return c.done();
    }
    case GLSLstd450UnpackDouble2x32: {
      AGX_CHECK(c.args(1));
      AGX_TRY(auto a, dpair(w[4], in, 0));
      c.out.c = {a.lo, a.hi};
      return c.done();
    }
    case GLSLstd450Determinant: case GLSLstd450MatrixInverse: return fp64_matrix_ext(in);  // translate_fp64_matrix.cpp
    default: return fp64_ext_vector(in, c);
  }
}

// The geometric functions of double vectors: length, distance, normalize,
// cross, faceforward, reflect, refract.
Status Translator::fp64_ext_vector(const spirv::Inst& in, Fp64Call& c) {
  const auto& w = in.w;
  auto inst = static_cast<GLSLstd450>(w[3]);
  const Pair zero = Fp64::constant(0.0), one = Fp64::constant(1.0);
  switch (inst) {
    case GLSLstd450Length: case GLSLstd450Distance: {
      AGX_CHECK(c.args(inst == GLSLstd450Length ? 1 : 2));
      AGX_TRY(auto a, c.vec(0));
      if (inst == GLSLstd450Distance) {
        AGX_TRY(auto b, c.vec(1));
        for (size_t i = 0; i < c.n; ++i) a[i] = c.fp.sub(a[i], b[i]);
      }
      c.push(c.n == 1 ? c.fp.abs(a[0]) : c.fp.sqrt(fp64_dot(c.fp, a, a)));
      return c.done();
    }
    case GLSLstd450Normalize: {
      AGX_CHECK(c.args(1));
      AGX_TRY(auto a, c.vec(0));
      Pair inv = c.fp.div(one, c.fp.sqrt(fp64_dot(c.fp, a, a)));
      for (size_t i = 0; i < c.n; ++i) c.push(c.fp.mul(a[i], inv));
      return c.done();
    }
    case GLSLstd450Cross: {
      AGX_CHECK(c.args(2));
      if (c.n != 3) return unsupported(in, "cross of other than 3 components");
      AGX_TRY(auto a, c.vec(0));
      AGX_TRY(auto b, c.vec(1));
      for (size_t i = 0; i < 3; ++i) {
        size_t j = (i + 1) % 3, k = (i + 2) % 3;
        Pair left = c.fp.mul(a[j], b[k]);
        c.push(c.fp.sub(left, c.fp.mul(a[k], b[j])));
      }
      return c.done();
    }
    case GLSLstd450FaceForward: {
      // dot(Nref, I) < 0 ? N : -N
      AGX_CHECK(c.args(3));
      AGX_TRY(auto nv, c.vec(0));
      AGX_TRY(auto iv, c.vec(1));
      AGX_TRY(auto ref, c.vec(2));
      Src neg = c.fp.less(fp64_dot(c.fp, ref, iv), zero);
      for (size_t i = 0; i < c.n; ++i) c.push(c.fp.pick(neg, nv[i], c.fp.neg(nv[i])));
      return c.done();
    }
    case GLSLstd450Reflect: {
      // I - 2 dot(N, I) N
      AGX_CHECK(c.args(2));
      AGX_TRY(auto iv, c.vec(0));
      AGX_TRY(auto nv, c.vec(1));
      Pair d = fp64_dot(c.fp, nv, iv);
      Pair d2 = c.fp.add(d, d);
      for (size_t i = 0; i < c.n; ++i) c.push(c.fp.sub(iv[i], c.fp.mul(d2, nv[i])));
      return c.done();
    }
    case GLSLstd450Refract: {
      // k = 1 - eta^2 (1 - dot(N, I)^2); k < 0 ? 0 : eta I - (eta dot(N, I) + sqrt(k)) N
      AGX_CHECK(c.args(3));
      AGX_TRY(auto iv, c.vec(0));
      AGX_TRY(auto nv, c.vec(1));
      AGX_TRY(auto eta, dpair(w[6], in, 0));
      Pair d = fp64_dot(c.fp, nv, iv);
      Pair eta2 = c.fp.mul(eta, eta);
      Pair k = c.fp.sub(one, c.fp.mul(eta2, c.fp.sub(one, c.fp.mul(d, d))));
      Pair eta_d = c.fp.mul(eta, d);
      Pair f = c.fp.add(eta_d, c.fp.sqrt(k));
      Src neg = c.fp.less(k, zero);
      for (size_t i = 0; i < c.n; ++i) {
        Pair eta_i = c.fp.mul(eta, iv[i]);
        c.push(c.fp.pick(neg, zero, c.fp.sub(eta_i, c.fp.mul(f, nv[i]))));
      }
      return c.done();
    }
    default:
      return unsupported(in, fmt::format("GLSL.std.450 function {} on doubles is not supported", static_cast<unsigned>(inst)));
  }
}

}  // namespace agx::compiler::detail
