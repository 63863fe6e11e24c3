// Inverse trigonometry as polynomials (the approximations NIR lowers to,
// bminor/mesa-mesa src/compiler/nir/nir_builtin_builder.c nir_atan /
// nir_atan2 and src/compiler/spirv/vtn_glsl450.c build_asin).
#include "compiler/math_builder.h"

namespace agx::compiler::detail {

// atan(x): reduce to |u| <= 1 (u = x, or 1/x with a -pi/2 bias), odd
// degree-11 minimax polynomial in u by Horner's rule on u^2, then the sign
// of x.
Src MathBuilder::atan(Src x) {
  static constexpr float kCoeffs[] = {-0.0121323213173444f, 0.0536813784310406f, -0.1173503194786851f,
                                      0.1938924977115610f, -0.3326756418091246f, 0.9999793128310355f};
  Src plain = apply(x);
  Src u = b_.select(Cond::flte, false, abs(x), k(1.0f), plain, rcp(x));
  Src u2 = mul(u, u);
  Src p = k(kCoeffs[0]);
  for (size_t i = 1; i < std::size(kCoeffs); ++i) p = fma(p, u2, k(kCoeffs[i]));
  Src bias = b_.select(Cond::flte, false, abs(x), k(1.0f), Src::immediate(0), k(-1.57079632679489662f));
  Src t = fma(abs(u), p, bias);
  return copysign(t, x);
}

// atan2(y, x): in the left half-plane (x <= 0) the coordinates turn by
// pi/2 so the division never meets x = 0; a huge denominator is scaled by
// 1/4 first so that its reciprocal does not flush; |x| = |y| counts as
// tan = 1 (the IEEE infinities' +-pi/4, +-3pi/4).
Src MathBuilder::atan2(Src y, Src x) {
  Src ax = apply(abs(x));
  Src s = b_.select(Cond::fgte, false, Src::immediate(0), x, ax, apply(y));
  Src t = b_.select(Cond::fgte, false, Src::immediate(0), x, apply(y), ax);
  Src scale = b_.select(Cond::fgte, false, abs(t), k(1e18f), k(0.25f), k(1.0f));
  Src rcp_t = rcp(mul(t, scale));
  Src q = mul(abs(mul(s, scale)), abs(rcp_t));
  Src tan = b_.select(Cond::feq, false, abs(x), abs(y), k(1.0f), q);
  Src flip = b_.select(Cond::fgte, false, Src::immediate(0), x, k(1.0f), Src::immediate(0));
  Src arc = fma(flip, k(1.57079632679489662f), atan(tan));
  // Negative when y < 0, or (flipped) when t = y is -0: min(y, 1/t) < 0.
  Src m = min(y, rcp_t);
  return b_.select(Cond::flt, false, m, Src::immediate(0), apply(neg(arc)), arc);
}

// asin(x) ~ sign(x) (pi/2 - sqrt(1 - |x|) (pi/2 + |x| (pi/4 - 1 + |x| (p0 +
// |x| p1)))); with `piecewise`, |x| < 0.5 uses the rational
// x + x (x^2 (pS0 + x^2 (pS1 + x^2 pS2))) / (1 + qS1 x^2) instead.
Src MathBuilder::asin_poly(Src x, float p0, float p1, bool piecewise) {
  Src ax = abs(x);
  Src tail = fma(ax, fma(ax, fma(ax, k(p1), k(p0)), k(0.78539816339744831f - 1.0f)), k(1.57079632679489662f));
  Src root = sqrt(sub(k(1.0f), ax));
  Src sign_x = sign(x);
  Src r0 = mul(sign_x, fma(neg(root), tail, k(1.57079632679489662f)));
  if (!piecewise) return r0;
  Src x2 = mul(x, x);
  Src p = mul(x2, fma(x2, fma(x2, k(-8.6563630030e-03f), k(-4.2743422091e-02f)), k(1.6666586697e-01f)));
  Src q = fma(x2, k(-7.0662963390e-01f), k(1.0f));
  Src r1 = fma(x, div(p, q), x);
  return b_.select(Cond::flt, false, ax, k(0.5f), r1, r0);
}

}  // namespace agx::compiler::detail
