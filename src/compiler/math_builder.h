// Float math sequences built from the AGX's float ops (fadd/fmul/fmadd,
// rcp, rsqrt_special, exp2, log2, sin_pt_1/sin_pt_2) and selects, shared
// by the GLSL.std.450 lowering and the float remainder instructions.
// The formulas are the ones Mesa feeds the AGX backend (NIR's builtin
// builder and SPIR-V front end: bminor/mesa-mesa
// src/compiler/nir/nir_builtin_builder.c, src/compiler/spirv/vtn_glsl450.c,
// src/asahi/compiler/agx_compile.c); the code is our own.
#pragma once

#include <bit>

#include "compiler/builder.h"

namespace agx::compiler::detail {

class MathBuilder {
 public:
  explicit MathBuilder(Builder& b) : b_(b) {}

  static Src k(float v) { return Src::float_immediate(v); }
  static Src neg(Src s) { s.neg = !s.neg; return s; }
  static Src abs(Src s) { s.abs = true; s.neg = false; return s; }

  Src add(Src a, Src c) { return Src::val(b_.def(Op::fadd, {a, c})); }
  Src sub(Src a, Src c) { return add(a, neg(c)); }
  Src mul(Src a, Src c) { return Src::val(b_.def(Op::fmul, {a, c})); }
  Src fma(Src a, Src c, Src d) { return Src::val(b_.def(Op::fmadd, {a, c, d})); }
  Src unary(Op op, Src a) { return Src::val(b_.def(op, {a})); }
  Src rcp(Src a) { return unary(Op::rcp, a); }
  Src div(Src a, Src c) { return mul(a, rcp(c)); }  // Mesa's lower_fdiv
  // A value with its modifiers applied (selects take raw registers).
  Src apply(Src a) { return a.neg || a.abs ? add(a, Src::immediate(0x80000000u)) : a; }
  // cond(a, c) ? x : y on floats.
  Src fsel(Cond cond, Src a, Src c, Src x, Src y) {
    Src xa = apply(x);
    return b_.select(cond, false, a, c, xa, apply(y));
  }

  Src sqrt(Src x) { return mul(x, unary(Op::rsqrt_special, x)); }
  Src exp2(Src x) { return unary(Op::exp2, x); }
  Src log2(Src x) { return unary(Op::log2, x); }
  Src exp(Src x) { return exp2(mul(x, k(1.4426950408889634f))); }   // e^x = 2^(x log2 e)
  Src log(Src x) { return mul(log2(x), k(0.69314718055994531f)); }  // ln x = log2 x * ln 2
  Src min(Src a, Src c) { return fsel(Cond::fltn, a, c, a, c); }
  Src max(Src a, Src c) { return fsel(Cond::fgtn, a, c, a, c); }
  // 1.0, -1.0 or 0.0 (NaN gives 0.0).
  Src sign(Src x) {
    Src pos = b_.select(Cond::fgt, false, x, Src::immediate(0), k(1.0f), Src::immediate(0));
    return b_.select(Cond::flt, false, x, Src::immediate(0), k(-1.0f), pos);
  }
  // |mag| with the sign bit of s.
  Src copysign(Src mag, Src s) {
    Src m = b_.binary(Op::iand, apply(mag), Src::immediate(0x7FFFFFFFu));
    Src sb = b_.binary(Op::iand, apply(s), Src::immediate(0x80000000u));
    return b_.binary(Op::ior, m, sb);
  }

  // sin/cos: quarter turns (x * 2/pi, +1 for cosine), sin_pt_1 folds them
  // into [-1, 1], sin_pt_2 gives sin(pi/2 y) / y, times y (agx_compile.c's
  // sequence for fsin/fcos).
  Src sin_turns(Src turns) {
    Src y = unary(Op::sin_pt_1, turns);
    return mul(unary(Op::sin_pt_2, y), y);
  }
  Src sin(Src x) { return sin_turns(mul(x, k(0.63661977236758134f))); }
  Src cos(Src x) { return sin_turns(fma(x, k(0.63661977236758134f), k(1.0f))); }

  Src atan(Src x);
  Src atan2(Src y, Src x);
  Src asin_poly(Src x, float p0, float p1, bool piecewise);
  Src asin(Src x) { return asin_poly(x, 0.086566724f, -0.03102955f, true); }
  Src acos(Src x) { return sub(k(1.57079632679489662f), asin_poly(x, 0.08132463f, -0.02363318f, false)); }

 private:
  Builder& b_;
};

}  // namespace agx::compiler::detail
