// Float arithmetic: fmadd/fadd/fmul in 16 and 32 bits (applegpu
// FMAdd*/FAdd*/FMul* exec: fused multiply-add rounded to odd, fadd as
// a*1+b, fmul as a*b+0), and the float unaries, which applegpu decodes but
// does not execute (derived; see docs/usc.md), including the sine steps
// sin_pt_1/sin_pt_2 (see sin_fold below).
#include <cmath>

#include "usc/internal.h"

namespace agx::usc::detail {

namespace {

using isa::Opcode;

enum class Arith { fma, add, mul };

// Fast path for 32-bit sources and destination: fmaf on f32 values rounds
// exactly as round-to-odd in f64 followed by RNE to f32 (53 >= 2*24 + 2),
// so only the flush-to-zero and NaN rules need fixing up. A result of
// exactly 2^-126 may have rounded up from below (which fma.py flushes): such
// lanes are recomputed by the exact path. Returns the lanes to recompute.
// Source modifiers as bit masks: flush subnormals, clear (abs) and flip
// (neg) the sign.
struct Mod {
  uint32_t and_mask, xor_mask;
};
inline Mod mod_of(const Operand& o) {
  return {o.abs ? 0x7FFFFFFFu : 0xFFFFFFFFu, o.neg ? 0x80000000u : 0u};
}
inline float ftz_f32(uint32_t b, Mod m) {
  b = (b & 0x7F800000u) ? b : b & 0x80000000u;
  return std::bit_cast<float>((b & m.and_mask) ^ m.xor_mask);
}

template <Arith kArith>
__attribute__((target("avx2,fma"))) uint32_t farith_f32_fma(const Step& s, const uint32_t* __restrict a,
                                                           const uint32_t* __restrict b,
                                                           const uint32_t* __restrict x,
                                                           uint32_t* __restrict out) {
  Mod ma = mod_of(s.a), mb = mod_of(s.b), mc = mod_of(s.c);
  bool sat = s.sat;
  alignas(64) bool redo_lane[kLanes];
  for (unsigned l = 0; l < kLanes; ++l) {
    float fa = ftz_f32(a[l], ma);
    float fb = kArith == Arith::add ? 1.0f : ftz_f32(b[l], mb);
    float fc = kArith == Arith::fma ? ftz_f32(x[l], mc) : kArith == Arith::add ? ftz_f32(b[l], mb) : 0.0f;
    uint32_t r = std::bit_cast<uint32_t>(__builtin_fmaf(fa, fb, fc));
    uint32_t mag = r & 0x7FFFFFFFu;
    redo_lane[l] = mag == 0x00800000u;
    r = mag < 0x00800000u ? r & 0x80000000u : r;
    r = mag > 0x7F800000u ? kF32DefaultNan : r;
    uint32_t clamped = ((r >> 31) || mag > 0x7F800000u) ? 0u : (r > 0x3F800000u ? 0x3F800000u : r);
    out[l] = sat ? clamped : r;
  }
  return lane_mask(redo_lane);
}

// 32-bit float source bits; float immediates widened to f32 (exact).
const uint32_t* read_f32_bits(const Operand& o, const Core& c, uint32_t tmp[kLanes]) {
  if (o.kind != Kind::imm) return read_u32_ref(o, c, tmp);
  uint32_t v = std::bit_cast<uint32_t>(static_cast<float>(isa::float_immediate(static_cast<uint8_t>(o.imm))));
  for (unsigned l = 0; l < kLanes; ++l) tmp[l] = v;
  return tmp;
}

bool cpu_has_fma() {
  static const bool has = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  return has;
}

// The exact path: every lane through fma_round_to_odd in f64.
template <Arith kArith>
Status exec_farith(const Step& s, Core& c, Ctx&) {
  alignas(64) double a[kLanes], b[kLanes], r[kLanes];
  read_f64(s.a, c, a);
  read_f64(s.b, c, b);
  if constexpr (kArith == Arith::fma) {
    alignas(64) double x[kLanes];
    read_f64(s.c, c, x);
    for (unsigned l = 0; l < kLanes; ++l) r[l] = fma_round_to_odd(a[l], b[l], x[l]);
  } else if constexpr (kArith == Arith::add) {
    for (unsigned l = 0; l < kLanes; ++l) r[l] = fma_round_to_odd(a[l], 1.0, b[l]);
  } else {
    for (unsigned l = 0; l < kLanes; ++l) r[l] = fma_round_to_odd(a[l], b[l], 0.0);
  }
  // A 32-bit op rounds to f32 (RNE, flush-to-zero) before saturate, and a
  // 16-bit destination then rounds a second time, to f16 (applegpu.py
  // FMadd32/FAdd32/FMul32 exec at 4c5bae61; isa-facts "Float rules").
  if (s.k[1])
    for (unsigned l = 0; l < kLanes; ++l)
      r[l] = static_cast<double>(std::bit_cast<float>(f64_to_f32_ftz(r[l])));
  write_f64(s.d, c, r, s.sat);
  return {};
}

// The handler of a step whose f32 fast path applies (k[0]) on a host with
// FMA: the fused f32 result, unless a lane needs the exact path (then every
// lane takes it, as the result is written only once).
// Compiled for AVX2 and FMA like farith_f32_fma, so that it inlines here:
// compile_float gives this handler only when the host has both.
template <Arith kArith>
__attribute__((target("avx2,fma"))) Status exec_farith_f32(const Step& s, Core& c, Ctx& ctx) {
  alignas(64) uint32_t ta[kLanes], tb[kLanes], tx[kLanes], out[kLanes];
  const uint32_t* a = read_f32_bits(s.a, c, ta);
  const uint32_t* b = read_f32_bits(s.b, c, tb);
  const uint32_t* x = kArith == Arith::fma ? read_f32_bits(s.c, c, tx) : tb;
  if (farith_f32_fma<kArith>(s, a, b, x, out) != 0) return exec_farith<kArith>(s, c, ctx);
  if (s.d.kind == Kind::r32 && c.exec == 0xFFFFFFFFu) {
    c.written[s.d.index] = true;
    copy_lanes(c.r[s.d.index].data(), out);
  } else {
    write_u32(s.d, c, out);
  }
  return {};
}

// The sine steps (derived). Public facts: applegpu.py SinPt1InstructionDesc
// (sin_pt_1 takes an angle in quarter turns in [0, 4); its result fed to
// sin_pt_2 and multiplied by sin_pt_2's result gives sin); Mesa
// src/asahi/compiler/agx_compile.c (nir_op_fsin_agx is sin_pt_1, then
// sin_pt_2 of that, then fmul of the two; per the comment before
// agx_lower_sincos, sin_pt_1 maps a quadrant angle in [0, 4] into [-1, 1] by
// a piecewise sign and offset, and sin_pt_2 is a sinc on the first quadrant);
// src/compiler/nir/nir_opcodes.py (fsin_agx(x) = sin(x * tau/4)).
//
// sin_pt_1(x): the unique y in [-1, 1] with sin(pi/2 y) = sin(pi/2 x) that is
// x - 4k or 2 - x - 4k: x on [0, 1], 2 - x on [1, 3], x - 4 on [3, 4). Outside
// [0, 4) the fold continues with period 4 (so 4.0, which ffract can produce
// for tiny negative turns, gives 0); x in [-1, 1] is returned as is (keeping
// -0 and tiny negatives exact). The fold is exact for every f16/f32 input;
// +-inf and NaN give NaN (the default NaN after destination rounding).
inline double sin_fold(double x) {
  double k = std::nearbyint(x * 0.25);
  double r = k == 0.0 ? x : x - 4.0 * k;  // exact, in [-2, 2]
  return r > 1.0 ? 2.0 - r : (r < -1.0 ? -2.0 - r : r);
}

// sin_pt_2(y): sin(pi/2 y) / y, with pi/2 at y = +-0, so that
// sin_pt_1(x) * sin_pt_2(sin_pt_1(x)) = sin(pi/2 x). Even and positive on
// [-1, 1]; other finite y use the same formula (the angle folded first so the
// f64 sine stays exact in its argument); +-inf and NaN give NaN. Rounded once
// to the destination from f64 (the hardware's last-ulp behaviour is not
// public).
inline double sin_quadrant_sinc(double y) {
  constexpr double kHalfPi = 1.57079632679489661923;
  return y == 0.0 ? kHalfPi : std::sin(kHalfPi * sin_fold(y)) / y;
}

// The unaries compute in f64 and round once to the destination. floor,
// ceil, trunc and rint are exact; rcp, rsqrt, log2 and exp2 are rounded
// correctly here (the hardware's last-ulp behaviour is not public).
template <Opcode kOp>
Status exec_funary(const Step& s, Core& c, Ctx&) {
  alignas(64) double a[kLanes], r[kLanes];
  read_f64(s.a, c, a);
  for (unsigned l = 0; l < kLanes; ++l) {
    double x = a[l];
    if constexpr (kOp == Opcode::floor) r[l] = std::floor(x);
    else if constexpr (kOp == Opcode::ceil) r[l] = std::ceil(x);
    else if constexpr (kOp == Opcode::trunc) r[l] = std::trunc(x);
    else if constexpr (kOp == Opcode::rint) r[l] = std::nearbyint(x);
    else if constexpr (kOp == Opcode::rcp) r[l] = 1.0 / x;
    else if constexpr (kOp == Opcode::rsqrt) r[l] = 1.0 / std::sqrt(x);
    else if constexpr (kOp == Opcode::rsqrt_special) {
      // sqrt(x) = x * rsqrt_special(x) (applegpu docs): zero and +inf map to
      // themselves so the product keeps sqrt's special cases.
      r[l] = (x == 0.0 || std::isinf(x)) ? x : 1.0 / std::sqrt(x);
    } else if constexpr (kOp == Opcode::sin_pt_1) r[l] = sin_fold(x);
    else if constexpr (kOp == Opcode::sin_pt_2) r[l] = sin_quadrant_sinc(x);
    else if constexpr (kOp == Opcode::log2) r[l] = std::log2(x);
    else r[l] = std::exp2(x);
  }
  write_f64(s.d, c, r, s.sat);
  return {};
}

// dfdx/dfdy: difference across the 2x2 quad (lanes 0,1 top row; 2,3
// bottom row), the layout Mesa's AGX backend assumes for derivatives.
template <bool kY>
Status exec_deriv(const Step& s, Core& c, Ctx&) {
  alignas(64) double a[kLanes], r[kLanes];
  read_f64(s.a, c, a);
  unsigned bit = kY ? 2 : 1;
  for (unsigned l = 0; l < kLanes; ++l) r[l] = a[l | bit] - a[l & ~bit];
  write_f64(s.d, c, r, s.sat);
  return {};
}

}  // namespace

Result<bool> compile_float(const isa::Instr& in, Step& s) {
  switch (in.op) {
    case Opcode::fmadd32: case Opcode::fmadd16: s.run = exec_farith<Arith::fma>; break;
    case Opcode::fadd32: case Opcode::fadd16: s.run = exec_farith<Arith::add>; break;
    case Opcode::fmul32: case Opcode::fmul16: s.run = exec_farith<Arith::mul>; break;
    case Opcode::floor: s.run = exec_funary<Opcode::floor>; break;
    case Opcode::ceil: s.run = exec_funary<Opcode::ceil>; break;
    case Opcode::trunc: s.run = exec_funary<Opcode::trunc>; break;
    case Opcode::rint: s.run = exec_funary<Opcode::rint>; break;
    case Opcode::rcp: s.run = exec_funary<Opcode::rcp>; break;
    case Opcode::rsqrt: s.run = exec_funary<Opcode::rsqrt>; break;
    case Opcode::rsqrt_special: s.run = exec_funary<Opcode::rsqrt_special>; break;
    case Opcode::sin_pt_1: s.run = exec_funary<Opcode::sin_pt_1>; break;
    case Opcode::sin_pt_2: s.run = exec_funary<Opcode::sin_pt_2>; break;
    case Opcode::log2: s.run = exec_funary<Opcode::log2>; break;
    case Opcode::exp2: s.run = exec_funary<Opcode::exp2>; break;
    case Opcode::dfdx: s.run = exec_deriv<false>; break;
    case Opcode::dfdy: s.run = exec_deriv<true>; break;
    default: return false;
  }
  // FloatDst (32-bit ops) / FloatDst16 (16-bit ops); FloatSrc(16) with
  // .abs/.neg; float immediates keep their 8-bit code.
  AGX_TRY(s.d, operand(in, "D"));
  AGX_TRY(uint32_t sat, field(in, "S"));
  s.sat = sat;
  AGX_TRY(s.a, operand(in, "A"));
  if (find_operand(in, "B")) {
    AGX_TRY(s.b, operand(in, "B"));
  }
  if (find_operand(in, "C")) {
    AGX_TRY(s.c, operand(in, "C"));
  }
  // k[0]: the f32 fast path applies (32-bit registers/uniforms, float
  // immediates, 32-bit destination).
  auto f32 = [](const Operand& o) {
    return o.kind == Kind::r32 || o.kind == Kind::u32 || o.kind == Kind::none || o.kind == Kind::imm;
  };
  bool arith = in.op == Opcode::fmadd32 || in.op == Opcode::fadd32 || in.op == Opcode::fmul32;
  s.k[0] = arith && s.d.bits() == 32 && f32(s.a) && f32(s.b) && f32(s.c);
  if (s.k[0] && cpu_has_fma()) {
    s.run = in.op == Opcode::fmadd32 ? exec_farith_f32<Arith::fma>
          : in.op == Opcode::fadd32 ? exec_farith_f32<Arith::add> : exec_farith_f32<Arith::mul>;
  }
  // k[1]: a 32-bit op writing a 16-bit register (rounds twice).
  s.k[1] = arith && s.d.bits() == 16;
  return true;
}

}  // namespace agx::usc::detail
