// Integer, bit and select instructions. Semantics: the `exec` methods of
// dougallj/applegpu applegpu.py (MovImm*, MovFromSr, IAdd, IMAdd, the
// bitfield family, Bitop, BitReverse, PopCount, FindFirstSet, ICmpsel,
// FCmpsel); `convert` is derived (see docs/usc.md).
#include <bit>
#include <cmath>

#include "usc/internal.h"
#include "util/morton.h"
#include "util/bits.h"
#include "util/half.h"

namespace agx::usc::detail {

namespace {

using isa::Opcode;

inline uint64_t shl64(uint64_t v, unsigned sh) { return sh >= 64 ? 0 : v << sh; }
inline uint64_t shr64(uint64_t v, unsigned sh) { return sh >= 64 ? 0 : v >> sh; }

Status exec_mov_imm(const Step& s, Core& c, Ctx&) {
  alignas(64) uint32_t v[kLanes];
  for (unsigned l = 0; l < kLanes; ++l) v[l] = s.k[0];
  write_u32(s.d, c, v);
  return {};
}

Status exec_get_sr(const Step& s, Core& c, Ctx&) {
  unsigned n = s.k[0];
  alignas(64) uint32_t v[kLanes];
  if ((n >= 56 && n <= 59) || n == 63) {
    // Dynamic, from exec: index among the active lanes of the quad (56) or
    // the group (58), how many lanes of the quad (57) or the group (59) are
    // active (Mesa agx_opcodes.py: total_active_threads_in_quad/_subgroup),
    // or whether the lane is active (63).
    for (unsigned l = 0; l < kLanes; ++l) {
      uint32_t below = c.exec & ((1u << l) - 1);
      uint32_t quad = c.exec & (0xFu << (l & ~3u));
      if (n == 63) v[l] = lane_on(c.exec, l);
      else if (n == 59) v[l] = std::popcount(c.exec);
      else if (n == 58) v[l] = std::popcount(below);
      else if (n == 57) v[l] = std::popcount(quad);
      else v[l] = std::popcount(below & ~((1u << (l & ~3u)) - 1));
    }
  } else if (!c.sr_known[n]) {
    return Error::unsupported("not supported by the emulator: get_sr sr{} (unknown special register)", n);
  } else {
    for (unsigned l = 0; l < kLanes; ++l) v[l] = c.sr[n][l];
  }
  write_u32(s.d, c, v);
  return {};
}

// A special register that holds one value per lane (not one of the dynamic
// ones) into a 32-bit register of a group with every lane active: a copy.
Status exec_get_sr_copy(const Step& s, Core& c, Ctx& ctx) {
  const unsigned n = s.k[0];
  if (c.exec != 0xFFFFFFFFu || !c.sr_known[n]) return exec_get_sr(s, c, ctx);
  c.written[s.d.index] = true;  // s.d is a 32-bit register
  copy_lanes(c.r[s.d.index].data(), c.sr[n].data());
  return {};
}

// Clamp for .sat (ISaturatableInstructionDesc.saturate).
inline uint64_t saturate_int(__int128 r, unsigned bits, bool is_signed) {
  __int128 lo = is_signed ? -(__int128{1} << (bits - 1)) : 0;
  __int128 hi = is_signed ? (__int128{1} << (bits - 1)) - 1 : (__int128{1} << bits) - 1;
  if (r < lo) r = lo;
  if (r > hi) r = hi;
  return static_cast<uint64_t>(r);
}

// iadd/isub and imadd/imsub: D = [A*B] + ((N ? -C : C) << shift); shift >= 5
// drops the addend. k[0] = N, k[1] = shift, k[2] = saturate, k[3] = signed.
// 32-bit fast path (k[4]): destination and sources of at most 32 bits and
// no saturation, so wrapping 32-bit arithmetic gives the truncated result.
const uint32_t* read_sx32(const Operand& o, const Core& c, uint32_t tmp[kLanes]) {
  const uint32_t* v = read_u32_ref(o, c, tmp);
  if (!(o.sx && o.kind != Kind::imm && o.bits() == 16)) return v;
  for (unsigned l = 0; l < kLanes; ++l) tmp[l] = static_cast<uint32_t>(static_cast<int32_t>(static_cast<int16_t>(v[l])));
  return tmp;
}

template <bool kMul>
Status exec_iadd32(const Step& s, Core& c, Ctx&) {
  alignas(64) uint32_t ta[kLanes], tb[kLanes], tm[kLanes], r[kLanes];
  const uint32_t* a = read_sx32(s.a, c, ta);
  const uint32_t* b = read_sx32(s.b, c, tb);
  const uint32_t* m = kMul ? read_sx32(s.c, c, tm) : tb;
  const uint32_t* add = kMul ? m : b;
  unsigned sh = s.k[1];
  uint32_t keep = sh < 5 ? 0xFFFFFFFFu : 0;
  sh = sh < 5 ? sh : 0;
  for (unsigned l = 0; l < kLanes; ++l) {
    uint32_t addend = ((s.k[0] ? 0u - add[l] : add[l]) << sh) & keep;
    r[l] = (kMul ? a[l] * b[l] : a[l]) + addend;
  }
  write_u32(s.d, c, r);
  return {};
}

template <bool kMul>
Status exec_iadd(const Step& s, Core& c, Ctx&) {
  alignas(64) uint64_t a[kLanes], b[kLanes], r[kLanes];
  read_u64(s.a, c, a);
  read_u64(s.b, c, b);
  alignas(64) uint64_t m[kLanes];
  if constexpr (kMul) read_u64(s.c, c, m);
  const uint64_t* add = kMul ? m : b;
  unsigned sh = s.k[1];
  if (!s.k[2]) {
    for (unsigned l = 0; l < kLanes; ++l) {
      uint64_t addend = s.k[0] ? 0 - add[l] : add[l];
      addend = sh < 5 ? addend << sh : 0;
      r[l] = (kMul ? a[l] * b[l] : a[l]) + addend;
    }
  } else {
    // Saturating: exact arithmetic on the (sign- or zero-extended) values.
    unsigned bits = s.d.bits();
    auto wide = [&](const Operand& o, uint64_t v) -> __int128 {
      return o.sx && o.kind != Kind::imm ? __int128{static_cast<int64_t>(v)} : __int128{v};
    };
    const Operand& addop = kMul ? s.c : s.b;
    for (unsigned l = 0; l < kLanes; ++l) {
      __int128 x = wide(s.a, a[l]);
      if constexpr (kMul) x *= wide(s.b, b[l]);
      __int128 y = wide(addop, add[l]);
      r[l] = saturate_int(x + (s.k[0] ? -y : y), bits, s.k[3]);
    }
  }
  write_u64(s.d, c, r);
  return {};
}

// The bitfield family (BaseBitfieldInstructionDesc): shift = C & 0x7F,
// mask = m ? (1 << m) - 1 : 0xFFFFFFFF.
template <Opcode kOp>
Status exec_bitfield(const Step& s, Core& c, Ctx&) {
  alignas(64) uint32_t a[kLanes], b[kLanes], sa[kLanes], r[kLanes];
  read_u32(s.a, c, a);
  read_u32(s.b, c, b);
  read_u32(s.c, c, sa);
  uint64_t mask = s.n ? (uint64_t{1} << s.n) - 1 : 0xFFFFFFFFull;
  for (unsigned l = 0; l < kLanes; ++l) {
    unsigned sh = sa[l] & 0x7F;
    uint64_t A = a[l], B = b[l], v;
    if constexpr (kOp == Opcode::bfi) {
      v = (A & ~shl64(mask, sh)) | shl64(B & mask, sh);
    } else if constexpr (kOp == Opcode::bfeil) {
      v = (A & ~mask) | (shr64(B, sh) & mask);
    } else if constexpr (kOp == Opcode::extr) {
      v = shr64(B << 32 | A, sh) & mask;
    } else if constexpr (kOp == Opcode::shlhi) {
      uint64_t smask = shl64(mask, sh > 32 ? sh - 32 : 0);
      unsigned __int128 wide = static_cast<unsigned __int128>(B) << sh;  // sh < 128
      v = (static_cast<uint64_t>(wide >> 32) & smask) | (A & ~smask);
    } else {  // shrhi
      uint64_t smask = (mask << 32) >> (sh < 32 ? sh : 32);
      v = (shr64(B << 32, sh) & smask) | (A & ~smask);
    }
    r[l] = static_cast<uint32_t>(v);
  }
  write_u32(s.d, c, r);
  return {};
}

template <bool kHigh>
Status exec_asr(const Step& s, Core& c, Ctx&) {
  alignas(64) uint32_t a[kLanes], b[kLanes], r[kLanes];
  read_u32(s.a, c, a);
  read_u32(s.b, c, b);
  unsigned bits = s.a.bits();
  for (unsigned l = 0; l < kLanes; ++l) {
    int64_t v = sign_extend(a[l], bits);
    if constexpr (kHigh) v = static_cast<int64_t>(static_cast<uint64_t>(v) << 32);
    unsigned sh = b[l] & 0x7F;
    r[l] = static_cast<uint32_t>(v >> (sh > 63 ? 63 : sh));
  }
  write_u32(s.d, c, r);
  return {};
}

Status exec_bitop(const Step& s, Core& c, Ctx&) {
  alignas(64) uint32_t a[kLanes], b[kLanes], r[kLanes];
  read_u32(s.a, c, a);
  read_u32(s.b, c, b);
  uint32_t tt = s.k[0];  // bit i = tt_i
  bool pass_a = tt == 0b1100 || tt == 0b0011;  // tt 0011 / 1100: result = A
  uint32_t t0 = (tt & 1) ? ~0u : 0, t1 = (tt & 2) ? ~0u : 0;
  uint32_t t2 = (tt & 4) ? ~0u : 0, t3 = (tt & 8) ? ~0u : 0;
  for (unsigned l = 0; l < kLanes; ++l) {
    uint32_t x = a[l], y = b[l];
    uint32_t v = (t0 & ~x & ~y) | (t1 & x & ~y) | (t2 & ~x & y) | (t3 & x & y);
    r[l] = pass_a ? x : v;
  }
  write_u32(s.d, c, r);
  return {};
}

// intl (applegpu InterleaveInstructionDesc pseudocode): bit i of A's low
// 16 bits goes to bit 2i, bit i of B's to bit 2i + 1 (a Morton code).
Status exec_intl(const Step& s, Core& c, Ctx&) {
  alignas(64) uint32_t a[kLanes], b[kLanes], r[kLanes];
  read_u32(s.a, c, a);
  read_u32(s.b, c, b);
  for (unsigned l = 0; l < kLanes; ++l) r[l] = morton_interleave(a[l] & 0xFFFF, b[l] & 0xFFFF);
  write_u32(s.d, c, r);
  return {};
}

template <Opcode kOp>
Status exec_unary_int(const Step& s, Core& c, Ctx&) {
  alignas(64) uint32_t a[kLanes], r[kLanes];
  read_u32(s.a, c, a);
  for (unsigned l = 0; l < kLanes; ++l) {
    uint32_t x = a[l];
    if constexpr (kOp == Opcode::bitrev) {
      uint32_t v = 0;
      for (unsigned i = 0; i < 32; ++i) v |= ((x >> i) & 1) << (31 - i);
      r[l] = v;
    } else if constexpr (kOp == Opcode::popcount) {
      r[l] = std::popcount(x);
    } else {  // ffs: index of the highest set bit, or -1
      r[l] = x ? 31 - std::countl_zero(x) : 0xFFFFFFFFu;
    }
  }
  write_u32(s.d, c, r);
  return {};
}

template <bool kFloat>
Status exec_cmpsel(const Step& s, Core& c, Ctx& ctx) {
  alignas(64) uint32_t cond[kLanes];
  if (s.undefined) [[unlikely]] {
    AGX_CHECK(check_undefined(s, ctx, kUndefinedCompare, c.exec));
  }
  if constexpr (kFloat) fcompare(s.cc, s.a, s.b, c, cond);
  else icompare(s.cc, s.a, s.b, c, cond);
  if (s.undefined) [[unlikely]] {
    uint32_t takes_x = lane_mask(cond);
    AGX_CHECK(check_undefined(s, ctx, kUndefinedX, c.exec & takes_x));
    AGX_CHECK(check_undefined(s, ctx, kUndefinedY, c.exec & ~takes_x));
  }
  alignas(64) uint32_t tx[kLanes], ty[kLanes], r[kLanes];
  const uint32_t* x = read_u32_ref(s.x, c, tx);
  const uint32_t* y = read_u32_ref(s.y, c, ty);
  for (unsigned l = 0; l < kLanes; ++l) {  // branch-free, so it vectorizes
    r[l] = (x[l] & cond[l]) | (y[l] & ~cond[l]);
  }
  write_u32(s.d, c, r);
  return {};
}

// convert (derived: applegpu decodes it but has no exec). k[0] = mode,
// k[1] = rounding (0 rtz, 1 rte). Integer -> float rounds to the
// destination's size; float -> integer rounds and saturates, NaN gives 0.
Status exec_convert(const Step& s, Core& c, Ctx&) {
  uint32_t mode = s.k[0];
  Rounding rnd = s.k[1] ? Rounding::nearest_even : Rounding::toward_zero;
  alignas(64) uint32_t raw[kLanes], r[kLanes];
  read_u32(s.a, c, raw);
  bool to_float = mode <= 1 || mode == 6 || mode == 7 || mode == 10 || mode == 11;
  if (to_float) {
    for (unsigned l = 0; l < kLanes; ++l) {
      uint32_t x = raw[l];
      double v = mode == 0 ? (x & 0xFF) : mode == 1 ? sign_extend(x, 8)
               : mode == 6 ? (x & 0xFFFF) : mode == 7 ? sign_extend(x, 16)
               : mode == 10 ? double(x) : double(static_cast<int32_t>(x));
      r[l] = s.d.bits() == 16 ? double_to_half(v, rnd)
                              : std::bit_cast<uint32_t>(double_to_float(v, rnd));
    }
  } else {
    alignas(64) double f[kLanes];
    Operand src = s.a;
    read_f64(src, c, f);
    bool is_signed = mode & 1;
    unsigned bits = mode <= 5 ? 16 : 32;
    double lo = is_signed ? -std::ldexp(1.0, bits - 1) : 0.0;
    double hi = is_signed ? std::ldexp(1.0, bits - 1) - 1 : std::ldexp(1.0, bits) - 1;
    for (unsigned l = 0; l < kLanes; ++l) {
      double v = f[l];
      if (std::isnan(v)) v = 0;
      v = s.k[1] ? std::nearbyint(v) : std::trunc(v);
      v = v < lo ? lo : v > hi ? hi : v;
      r[l] = static_cast<uint32_t>(static_cast<int64_t>(v));
    }
  }
  write_u32(s.d, c, r);
  return {};
}

Result<Operand> dst(const isa::Instr& in) { return operand(in, "D"); }
Result<Operand> src(const isa::Instr& in, Name name) { return operand(in, name); }

}  // namespace

Result<bool> compile_alu(const isa::Instr& in, Step& s) {
  switch (in.op) {
    case Opcode::mov_imm16:
    case Opcode::mov_imm32: {
      AGX_TRY(s.d, dst(in));
      AGX_TRY(int64_t imm, in.op == Opcode::mov_imm16 ? operand_value(in, "imm16") : operand_value(in, "imm32"));
      s.k[0] = static_cast<uint32_t>(imm);
      s.run = exec_mov_imm;
      return true;
    }
    case Opcode::get_sr: {
      AGX_TRY(s.d, dst(in));
      const isa::Operand* sr = find_operand(in, "SR");
      if (!sr) return Error::decode("get_sr has no operand SR");
      s.k[0] = sr->index & 0xFF;
      const bool dynamic = (s.k[0] >= 56 && s.k[0] <= 59) || s.k[0] == 63;
      s.run = !dynamic && s.d.kind == Kind::r32 ? exec_get_sr_copy : exec_get_sr;
      return true;
    }
    case Opcode::iadd:
    case Opcode::imadd: {
      bool mul = in.op == Opcode::imadd;
      // Sizes follow the table's descriptors: D AluDst64, A/B MulSrc (imadd)
      // or AddSrc (iadd, 64-bit allowed), C AddSrc; .sx comes with them.
      AGX_TRY(s.d, dst(in));
      AGX_TRY(s.a, src(in, "A"));
      AGX_TRY(s.b, src(in, "B"));
      if (mul) {
        AGX_TRY(s.c, src(in, "C"));
      }
      AGX_TRY(s.k[0], field(in, "N"));
      AGX_TRY(int64_t shift, operand_value(in, "shift"));
      s.k[1] = static_cast<uint32_t>(shift);
      bool sizes_ok = s.d.bits() <= 32 && (mul ? s.c.bits() <= 32
                                               : s.a.bits() <= 32 && s.b.bits() <= 32);
      AGX_TRY(uint32_t sat, field(in, "S"));
      s.k[2] = sat && s.k[1] == 0 && sizes_ok;
      // Saturation is signed when any sign-extension bit is set, as in
      // applegpu's exec, which reads the raw As/Bs/Cs bits (also for
      // immediates, whose decoded operands carry no .sx).
      AGX_TRY(uint32_t as, field(in, "As"));
      AGX_TRY(uint32_t bs, field(in, "Bs"));
      uint32_t cs = 0;
      if (mul) {
        AGX_TRY(cs, field(in, "Cs"));
      }
      s.k[3] = as || bs || cs;
      bool narrow = s.d.bits() <= 32 && s.a.bits() <= 32 && s.b.bits() <= 32 && (!mul || s.c.bits() <= 32);
      if (narrow && !s.k[2]) s.run = mul ? exec_iadd32<true> : exec_iadd32<false>;
      else s.run = mul ? exec_iadd<true> : exec_iadd<false>;
      return true;
    }
    case Opcode::bfi: case Opcode::bfeil: case Opcode::extr:
    case Opcode::shlhi: case Opcode::shrhi: {
      AGX_TRY(s.d, dst(in));
      AGX_TRY(s.a, src(in, "A"));
      AGX_TRY(s.b, src(in, "B"));
      AGX_TRY(s.c, src(in, "C"));
      AGX_TRY(int64_t m, operand_value(in, "m"));
      s.n = static_cast<uint32_t>(m);
      s.run = in.op == Opcode::bfi     ? exec_bitfield<Opcode::bfi>
            : in.op == Opcode::bfeil   ? exec_bitfield<Opcode::bfeil>
            : in.op == Opcode::extr    ? exec_bitfield<Opcode::extr>
            : in.op == Opcode::shlhi   ? exec_bitfield<Opcode::shlhi>
                                       : exec_bitfield<Opcode::shrhi>;
      return true;
    }
    case Opcode::asr: case Opcode::asrh: {
      AGX_TRY(s.d, dst(in));
      AGX_TRY(s.a, src(in, "A"));
      AGX_TRY(s.b, src(in, "B"));
      s.run = in.op == Opcode::asr ? exec_asr<false> : exec_asr<true>;
      return true;
    }
    case Opcode::bitop: {
      AGX_TRY(s.d, dst(in));
      AGX_TRY(s.a, src(in, "A"));
      AGX_TRY(s.b, src(in, "B"));
      AGX_TRY(int64_t tt, operand_value(in, "tt"));  // kTruthTable: bit i = tt_i
      s.k[0] = static_cast<uint32_t>(tt);
      s.run = exec_bitop;
      return true;
    }
    case Opcode::intl: {
      AGX_TRY(s.d, dst(in));
      AGX_TRY(s.a, src(in, "A"));
      AGX_TRY(s.b, src(in, "B"));
      s.run = exec_intl;
      return true;
    }
    case Opcode::bitrev: case Opcode::popcount: case Opcode::ffs: {
      AGX_TRY(s.d, dst(in));
      AGX_TRY(s.a, src(in, "A"));
      s.run = in.op == Opcode::bitrev   ? exec_unary_int<Opcode::bitrev>
            : in.op == Opcode::popcount ? exec_unary_int<Opcode::popcount>
                                        : exec_unary_int<Opcode::ffs>;
      return true;
    }
    case Opcode::icmpsel:
    case Opcode::fcmpsel: {
      bool fl = in.op == Opcode::fcmpsel;
      AGX_TRY(s.d, dst(in));
      AGX_TRY(s.x, lazy_operand(in, "X", s, kUndefinedX));  // CmpselSrc: sized like D
      AGX_TRY(s.y, lazy_operand(in, "Y", s, kUndefinedY));
      AGX_CHECK(compare_fields(in, s, fl));
      s.run = fl ? exec_cmpsel<true> : exec_cmpsel<false>;
      return true;
    }
    case Opcode::convert: {
      AGX_TRY(int64_t mode, operand_value(in, "mode"));
      AGX_TRY(int64_t round, operand_value(in, "round"));
      s.k[0] = static_cast<uint32_t>(mode);
      s.k[1] = static_cast<uint32_t>(round);
      uint32_t m = s.k[0];
      if (!(m <= 1 || (m >= 4 && m <= 11)) || s.k[1] > 1)
        return Error::unsupported("not supported by the emulator: convert mode {} round {}", m, s.k[1]);
      AGX_TRY(s.d, dst(in));
      AGX_TRY(s.a, src(in, "src"));
      s.run = exec_convert;
      return true;
    }
    default:
      return false;
  }
}

}  // namespace agx::usc::detail
