// GLSL.std.450 functions of doubles -> IR (fp64_lowering.h). GLSL allows
// doubles only in the functions below (no trigonometric, exponential or
// logarithmic ones); the rest is a clear error.
#include <spirv/unified1/GLSL.std.450.h>

#include <fmt/format.h>

#include "compiler/fp64_lowering.h"
#include "compiler/translate.h"

namespace agx::compiler::detail {

using IrOp = agx::compiler::Op;

Status Translator::fp64_ext(const spirv::Inst& in) {
  const auto& w = in.w;
  auto inst = static_cast<GLSLstd450>(w[3]);
  Int64 x(b_);
  Fp64 fp(x);
  size_t nargs = w.size() - 4;
  TVal out;
  out.kind = TVal::Kind::data;
  out.type = w[0];
  auto push = [&](Pair p) { out.c.push_back(pack64(p.lo, p.hi)); };
  auto args = [&](size_t k) -> Status {
    if (nargs != k) return unsupported(in, "GLSL.std.450 operand count");
    return {};
  };
  auto done = [&]() -> Status { vals_[w[1]] = std::move(out); return {}; };
  AGX_TRY(auto first, get(w[4], in));
  if (first->kind != TVal::Kind::data) return unsupported(in, "GLSL.std.450 operand is not a value");
  size_t n = first->c.size();
  // Operand k, component i (a scalar operand is broadcast).
  auto arg = [&](size_t k, size_t i) -> Result<Pair> {
    AGX_TRY(auto v, get(w[4 + k], in));
    return dpair(w[4 + k], in, static_cast<unsigned>(v->c.size() == 1 ? 0 : i));
  };
  auto vec = [&](size_t k) -> Result<std::vector<Pair>> {
    std::vector<Pair> v;
    for (size_t i = 0; i < n; ++i) {
      AGX_TRY(auto p, arg(k, i));
      v.push_back(p);
    }
    return v;
  };
  auto each = [&](size_t k, auto fn) -> Status {
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
  };
  const Pair zero = Fp64::constant(0.0), one = Fp64::constant(1.0);
  auto clamp = [&](Pair v, Pair lo, Pair hi) { return fp.min(fp.max(v, lo), hi); };
  switch (inst) {
    case GLSLstd450FAbs: return each(1, [&](auto& s) { return fp.abs(s[0]); });
    case GLSLstd450FSign: return each(1, [&](auto& s) { return fp.sign(s[0]); });
    case GLSLstd450Floor: return each(1, [&](auto& s) { return fp.floor(s[0]); });
    case GLSLstd450Ceil: return each(1, [&](auto& s) { return fp.ceil(s[0]); });
    case GLSLstd450Trunc: return each(1, [&](auto& s) { return fp.trunc(s[0]); });
    case GLSLstd450Fract: return each(1, [&](auto& s) { return fp.fract(s[0]); });
    case GLSLstd450Round: return each(1, [&](auto& s) { return fp.round_away(s[0]); });
    case GLSLstd450RoundEven: return each(1, [&](auto& s) { return fp.round_even(s[0]); });
    case GLSLstd450Sqrt: return each(1, [&](auto& s) { return fp.sqrt(s[0]); });
    // 1 / sqrt(x): two correctly rounded steps, within 1 ulp.
    case GLSLstd450InverseSqrt: return each(1, [&](auto& s) { return fp.div(one, fp.sqrt(s[0])); });
    case GLSLstd450FMin: case GLSLstd450NMin: return each(2, [&](auto& s) { return fp.min(s[0], s[1]); });
    case GLSLstd450FMax: case GLSLstd450NMax: return each(2, [&](auto& s) { return fp.max(s[0], s[1]); });
    case GLSLstd450FClamp: case GLSLstd450NClamp: return each(3, [&](auto& s) { return clamp(s[0], s[1], s[2]); });
    // GLSL's definition: x * (1 - a) + y * a.
    case GLSLstd450FMix:
      return each(3, [&](auto& s) {
        Pair x_part = fp.mul(s[0], fp.sub(one, s[2]));
        return fp.add(x_part, fp.mul(s[1], s[2]));
      });
    case GLSLstd450Step: return each(2, [&](auto& s) { return fp.pick(fp.less(s[1], s[0]), zero, one); });
    case GLSLstd450SmoothStep:
      return each(3, [&](auto& s) {
        Pair num = fp.sub(s[2], s[0]);
        Pair t = clamp(fp.div(num, fp.sub(s[1], s[0])), zero, one);
        Pair t2 = fp.mul(t, t);
        return fp.mul(t2, fp.sub(Fp64::constant(3.0), fp.add(t, t)));
      });
    case GLSLstd450Fma: return each(3, [&](auto& s) { return fp.fma(s[0], s[1], s[2]); });
    case GLSLstd450Ldexp: {
      AGX_CHECK(args(2));
      for (size_t i = 0; i < n; ++i) {
        AGX_TRY(auto a, arg(0, i));
        AGX_TRY(auto ev, get(w[5], in));
        AGX_TRY(auto e, scalar(w[5], in, static_cast<unsigned>(ev->c.size() == 1 ? 0 : i)));
        push(fp.ldexp(a, e));
      }
      return done();
    }
    case GLSLstd450ModfStruct: case GLSLstd450FrexpStruct: {
      AGX_CHECK(args(1));
      std::vector<Src> second;
      for (size_t i = 0; i < n; ++i) {
        AGX_TRY(auto a, arg(0, i));
        if (inst == GLSLstd450FrexpStruct) {
          Src e;
          push(fp.frexp(a, &e));
          second.push_back(e);
          continue;
        }
        // Both parts keep x's sign; +-inf has fraction +-0 (C's modf).
        Pair whole = fp.trunc(a);
        Pair frac = fp.sub(a, whole);
        Src sign = fp.sign_of(a);
        frac.hi = x.op(IrOp::ior, x.op(IrOp::iand, frac.hi, Fp64::k(0x7FFFFFFFu)), sign);
        Src inf = fp.is_inf(a);
        frac = fp.pick(inf, Pair{Fp64::k(0), sign}, fp.pick(fp.is_nan(a), a, frac));
        push(frac);
        second.push_back(pack64(whole.lo, whole.hi));
      }
      out.c.insert(out.c.end(), second.begin(), second.end());
      return done();
    }
    case GLSLstd450PackDouble2x32: {
      AGX_CHECK(args(1));
      AGX_TRY(auto lo, scalar(w[4], in, 0));
      AGX_TRY(auto hi, scalar(w[4], in, 1));
      out.c.push_back(pack64(lo, hi));
      return done();
    }
    case GLSLstd450UnpackDouble2x32: {
      AGX_CHECK(args(1));
      AGX_TRY(auto a, dpair(w[4], in, 0));
      out.c = {a.lo, a.hi};
      return done();
    }
    case GLSLstd450Length: case GLSLstd450Distance: {
      AGX_CHECK(args(inst == GLSLstd450Length ? 1 : 2));
      AGX_TRY(auto a, vec(0));
      if (inst == GLSLstd450Distance) {
        AGX_TRY(auto b, vec(1));
        for (size_t i = 0; i < n; ++i) a[i] = fp.sub(a[i], b[i]);
      }
      push(n == 1 ? fp.abs(a[0]) : fp.sqrt(fp64_dot(fp, a, a)));
      return done();
    }
    case GLSLstd450Normalize: {
      AGX_CHECK(args(1));
      AGX_TRY(auto a, vec(0));
      Pair inv = fp.div(one, fp.sqrt(fp64_dot(fp, a, a)));
      for (size_t i = 0; i < n; ++i) push(fp.mul(a[i], inv));
      return done();
    }
    case GLSLstd450Cross: {
      AGX_CHECK(args(2));
      if (n != 3) return unsupported(in, "cross of other than 3 components");
      AGX_TRY(auto a, vec(0));
      AGX_TRY(auto b, vec(1));
      for (size_t i = 0; i < 3; ++i) {
        size_t j = (i + 1) % 3, k = (i + 2) % 3;
        Pair left = fp.mul(a[j], b[k]);
        push(fp.sub(left, fp.mul(a[k], b[j])));
      }
      return done();
    }
    case GLSLstd450FaceForward: {
      // dot(Nref, I) < 0 ? N : -N
      AGX_CHECK(args(3));
      AGX_TRY(auto nv, vec(0));
      AGX_TRY(auto iv, vec(1));
      AGX_TRY(auto ref, vec(2));
      Src neg = fp.less(fp64_dot(fp, ref, iv), zero);
      for (size_t i = 0; i < n; ++i) push(fp.pick(neg, nv[i], fp.neg(nv[i])));
      return done();
    }
    case GLSLstd450Reflect: {
      // I - 2 dot(N, I) N
      AGX_CHECK(args(2));
      AGX_TRY(auto iv, vec(0));
      AGX_TRY(auto nv, vec(1));
      Pair d = fp64_dot(fp, nv, iv);
      Pair d2 = fp.add(d, d);
      for (size_t i = 0; i < n; ++i) push(fp.sub(iv[i], fp.mul(d2, nv[i])));
      return done();
    }
    case GLSLstd450Refract: {
      // k = 1 - eta^2 (1 - dot(N, I)^2); k < 0 ? 0 : eta I - (eta dot(N, I) + sqrt(k)) N
      AGX_CHECK(args(3));
      AGX_TRY(auto iv, vec(0));
      AGX_TRY(auto nv, vec(1));
      AGX_TRY(auto eta, dpair(w[6], in, 0));
      Pair d = fp64_dot(fp, nv, iv);
      Pair eta2 = fp.mul(eta, eta);
      Pair k = fp.sub(one, fp.mul(eta2, fp.sub(one, fp.mul(d, d))));
      Pair eta_d = fp.mul(eta, d);
      Pair f = fp.add(eta_d, fp.sqrt(k));
      Src neg = fp.less(k, zero);
      for (size_t i = 0; i < n; ++i) {
        Pair eta_i = fp.mul(eta, iv[i]);
        push(fp.pick(neg, zero, fp.sub(eta_i, fp.mul(f, nv[i]))));
      }
      return done();
    }
    case GLSLstd450Determinant: case GLSLstd450MatrixInverse: return fp64_matrix_ext(in);  // translate_fp64_matrix.cpp
    default:
      return unsupported(in, fmt::format("GLSL.std.450 function {} on doubles is not supported", static_cast<unsigned>(inst)));
  }
}

}  // namespace agx::compiler::detail
