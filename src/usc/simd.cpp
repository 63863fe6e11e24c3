// SIMD-group and quad operations. Ballots and simd_shuffle{,_down,_up,
// _rotate_up,_xor} follow applegpu's exec: A and B are read in every lane,
// active or not, and the low two bits of B are ORed across each quad. The
// quad shuffles, fcmp_ballot's comparison, quad ballots and the reductions
// and prefix ops are derived (see docs/usc.md).
#include <bit>
#include <cmath>

#include "usc/internal.h"
#include "util/bits.h"
#include "util/half.h"

namespace agx::usc::detail {

namespace {

using isa::Opcode;

template <bool kFloat, bool kQuad>
Status exec_ballot(const Step& s, Core& c, Ctx& ctx) {
  AGX_CHECK(check_undefined(s, ctx, kUndefinedCompare, c.exec));  // active lanes compare
  alignas(64) uint32_t cond[kLanes];
  if constexpr (kFloat) fcompare(s.cc, s.a, s.b, c, cond);
  else icompare(s.cc, s.a, s.b, c, cond);
  uint32_t ballot = lane_mask(cond) & c.exec;
  alignas(64) uint32_t r[kLanes];
  for (unsigned l = 0; l < kLanes; ++l) r[l] = kQuad ? ballot >> (l & ~3u) : ballot;
  write_u32(s.d, c, r);
  return {};
}

enum class Shuffle { index, down, up, rotate_up, xor_ };

// k[0] = Shuffle kind, k[1] = 1 for the quad forms.
template <Shuffle kKind>
Status exec_simd_shuffle(const Step& s, Core& c, Ctx&) {
  alignas(64) uint32_t a[kLanes], b[kLanes], r[kLanes];
  read_u32(s.a, c, a);
  read_u32(s.b, c, b);
  uint32_t quad_bits[kLanes / 4];
  for (unsigned q = 0; q < kLanes / 4; ++q)
    quad_bits[q] = (b[4 * q] | b[4 * q + 1] | b[4 * q + 2] | b[4 * q + 3]) & 3;
  for (unsigned l = 0; l < kLanes; ++l) {
    int64_t t = 0;
    uint32_t v = a[l];
    unsigned in_quad = l & 3;
    if constexpr (kKind == Shuffle::index) {
      t = b[l];
      if (t < kLanes) v = a[(t & ~3) | quad_bits[t >> 2]];
    } else {
      if constexpr (kKind == Shuffle::down) t = int64_t{l} + b[l];
      else if constexpr (kKind == Shuffle::up) t = int64_t{l} - b[l];
      else if constexpr (kKind == Shuffle::rotate_up) t = (int64_t{l} - b[l]) & 31;
      else t = int64_t{l ^ b[l]};
      if (t >= 0 && t < kLanes) {
        unsigned q = static_cast<unsigned>(t) >> 2, qs = quad_bits[q];
        unsigned src = kKind == Shuffle::down ? (in_quad + qs) & 3
                     : kKind == Shuffle::xor_ ? (in_quad ^ qs) & 3 : (in_quad - qs) & 3;
        v = a[4 * q + src];
      }
    }
    r[l] = v;
  }
  write_u32(s.d, c, r);
  return {};
}

// Quad shuffles (derived): lane l reads lane (l & ~3) | f(l & 3, B) within
// its quad, where f is the index, l+B, l-B (clamped, keeping A outside the
// quad), rotate, or xor.
template <Shuffle kKind>
Status exec_quad_shuffle(const Step& s, Core& c, Ctx&) {
  alignas(64) uint32_t a[kLanes], b[kLanes], r[kLanes];
  read_u32(s.a, c, a);
  read_u32(s.b, c, b);
  for (unsigned l = 0; l < kLanes; ++l) {
    int64_t q = l & 3, t;
    if constexpr (kKind == Shuffle::index) t = b[l] & 3;
    else if constexpr (kKind == Shuffle::down) t = q + b[l];
    else if constexpr (kKind == Shuffle::up) t = q - int64_t{b[l]};
    else if constexpr (kKind == Shuffle::rotate_up) t = (q - b[l]) & 3;
    else t = (q ^ b[l]);
    r[l] = (t >= 0 && t < 4) ? a[(l & ~3u) | static_cast<unsigned>(t)] : a[l];
  }
  write_u32(s.d, c, r);
  return {};
}

enum class Red : uint32_t { and_, or_, xor_, iadd, fadd, fmul, min_u, max_u, min_s, max_s, min_f, max_f };

// Reductions and prefix ops over active lanes (derived): k[0] = Red,
// k[1] = 1 for quad scope, k[2] = 1 for an exclusive prefix. Float ops run
// at the destination's size, in lane order, each step rounded as fadd/fmul.
Status exec_reduce(const Step& s, Core& c, Ctx&) {
  Red op = static_cast<Red>(s.k[0]);
  unsigned bits = s.d.bits();
  alignas(64) uint64_t a[kLanes];
  read_u64(s.a, c, a);
  auto to_real = [&](uint64_t v) {
    return bits == 16 ? half_to_double(static_cast<uint16_t>(v)) : double(std::bit_cast<float>(static_cast<uint32_t>(v)));
  };
  auto from_real = [&](double v) -> uint64_t { return bits == 16 ? f64_to_f16(v) : f64_to_f32_ftz(v); };
  auto combine = [&](uint64_t x, uint64_t y) -> uint64_t {
    uint64_t m = low_mask(bits);
    int64_t sx = sign_extend(x, bits), sy = sign_extend(y, bits);
    switch (op) {
      case Red::and_: return x & y;
      case Red::or_: return x | y;
      case Red::xor_: return x ^ y;
      case Red::iadd: return (x + y) & m;
      case Red::min_u: return std::min(x & m, y & m);
      case Red::max_u: return std::max(x & m, y & m);
      case Red::min_s: return static_cast<uint64_t>(std::min(sx, sy)) & m;
      case Red::max_s: return static_cast<uint64_t>(std::max(sx, sy)) & m;
      case Red::fadd: return from_real(fma_round_to_odd(to_real(x), 1.0, to_real(y)));
      case Red::fmul: return from_real(fma_round_to_odd(to_real(x), to_real(y), 0.0));
      case Red::min_f: return from_real(std::fmin(to_real(x), to_real(y)));
      case Red::max_f: return from_real(std::fmax(to_real(x), to_real(y)));
    }
    return 0;
  };
  uint64_t identity = op == Red::and_ ? low_mask(bits) : op == Red::min_u ? low_mask(bits)
                    : op == Red::min_s ? low_mask(bits - 1) : op == Red::max_s ? uint64_t{1} << (bits - 1)
                    : op == Red::fmul ? from_real(1.0) : op == Red::min_f ? from_real(HUGE_VAL)
                    : op == Red::max_f ? from_real(-HUGE_VAL) : 0;
  unsigned scope = s.k[1] ? 4 : kLanes;
  alignas(64) uint64_t r[kLanes];
  for (unsigned g = 0; g < kLanes; g += scope) {
    uint64_t acc = identity;
    bool first = true;
    for (unsigned l = g; l < g + scope; ++l) {
      if (!lane_on(c.exec, l)) continue;
      uint64_t before = acc;
      acc = first ? a[l] & low_mask(bits) : combine(acc, a[l]);
      first = false;
      if (s.k[2]) r[l] = before;
    }
    if (!s.k[2])
      for (unsigned l = g; l < g + scope; ++l) r[l] = acc;
  }
  write_u64(s.d, c, r);
  return {};
}

struct RedRow { Opcode op; Red red; bool quad, prefix; };
constexpr RedRow kReductions[] = {
    {Opcode::quad_and, Red::and_, true, false}, {Opcode::quad_or, Red::or_, true, false},
    {Opcode::quad_xor, Red::xor_, true, false}, {Opcode::quad_iadd, Red::iadd, true, false},
    {Opcode::quad_fadd, Red::fadd, true, false}, {Opcode::quad_fmul, Red::fmul, true, false},
    {Opcode::quad_prefix_iadd, Red::iadd, true, true}, {Opcode::quad_prefix_fadd, Red::fadd, true, true},
    {Opcode::quad_prefix_fmul, Red::fmul, true, true}, {Opcode::quad_min_u, Red::min_u, true, false},
    {Opcode::quad_max_u, Red::max_u, true, false}, {Opcode::quad_min_s, Red::min_s, true, false},
    {Opcode::quad_max_s, Red::max_s, true, false}, {Opcode::quad_min_f, Red::min_f, true, false},
    {Opcode::quad_max_f, Red::max_f, true, false}, {Opcode::simd_and, Red::and_, false, false},
    {Opcode::simd_or, Red::or_, false, false}, {Opcode::simd_xor, Red::xor_, false, false},
    {Opcode::simd_iadd, Red::iadd, false, false}, {Opcode::simd_fadd, Red::fadd, false, false},
    {Opcode::simd_fmul, Red::fmul, false, false}, {Opcode::simd_prefix_iadd, Red::iadd, false, true},
    {Opcode::simd_prefix_fadd, Red::fadd, false, true}, {Opcode::simd_prefix_fmul, Red::fmul, false, true},
    {Opcode::simd_prefix_and, Red::and_, false, true}, {Opcode::simd_prefix_or, Red::or_, false, true},
    {Opcode::simd_prefix_xor, Red::xor_, false, true}, {Opcode::simd_prefix_min_s, Red::min_s, false, true},
    {Opcode::simd_prefix_min_u, Red::min_u, false, true}, {Opcode::simd_prefix_max_s, Red::max_s, false, true},
    {Opcode::simd_prefix_max_u, Red::max_u, false, true}, {Opcode::simd_min_u, Red::min_u, false, false},
    {Opcode::simd_max_u, Red::max_u, false, false}, {Opcode::simd_min_s, Red::min_s, false, false},
    {Opcode::simd_max_s, Red::max_s, false, false}, {Opcode::simd_min_f, Red::min_f, false, false},
    {Opcode::simd_max_f, Red::max_f, false, false},
};

}  // namespace

Result<bool> compile_simd(const isa::Instr& in, Step& s) {
  auto dst = [&]() -> Status {
    AGX_TRY(s.d, operand(in, "D"));
    return {};
  };
  // The table gives the quad shuffles and reductions AluSrc64 sources
  // (applegpu); they move 32 bits, so a pair is read as its low register.
  // B of the SIMD shuffles is AluSrc16 (a 16-bit lane index).
  auto narrow = [](Operand& o) {
    if (o.kind == Kind::r64) o.kind = Kind::r32;
  };
  auto ab = [&](bool) -> Status {
    AGX_TRY(s.a, operand(in, "A"));
    AGX_TRY(s.b, operand(in, "B"));
    narrow(s.a);
    narrow(s.b);
    return {};
  };
  switch (in.op) {
    case Opcode::icmp_ballot: case Opcode::icmp_quad_ballot:
    case Opcode::fcmp_ballot: case Opcode::fcmp_quad_ballot: {
      bool fl = in.op == Opcode::fcmp_ballot || in.op == Opcode::fcmp_quad_ballot;
      bool quad = in.op == Opcode::icmp_quad_ballot || in.op == Opcode::fcmp_quad_ballot;
      AGX_CHECK(dst());
      AGX_CHECK(compare_fields(in, s, fl));
      narrow(s.a);
      narrow(s.b);
      s.run = fl ? (quad ? exec_ballot<true, true> : exec_ballot<true, false>)
                 : (quad ? exec_ballot<false, true> : exec_ballot<false, false>);
      return true;
    }
    case Opcode::simd_shuffle: AGX_CHECK(dst()); AGX_CHECK(ab(true)); s.run = exec_simd_shuffle<Shuffle::index>; return true;
    case Opcode::simd_shuffle_down: AGX_CHECK(dst()); AGX_CHECK(ab(true)); s.run = exec_simd_shuffle<Shuffle::down>; return true;
    case Opcode::simd_shuffle_up: AGX_CHECK(dst()); AGX_CHECK(ab(true)); s.run = exec_simd_shuffle<Shuffle::up>; return true;
    case Opcode::simd_shuffle_rotate_up: AGX_CHECK(dst()); AGX_CHECK(ab(true)); s.run = exec_simd_shuffle<Shuffle::rotate_up>; return true;
    case Opcode::simd_shuffle_xor: AGX_CHECK(dst()); AGX_CHECK(ab(true)); s.run = exec_simd_shuffle<Shuffle::xor_>; return true;
    case Opcode::quad_shuffle: AGX_CHECK(dst()); AGX_CHECK(ab(false)); s.run = exec_quad_shuffle<Shuffle::index>; return true;
    case Opcode::quad_shuffle_down: AGX_CHECK(dst()); AGX_CHECK(ab(false)); s.run = exec_quad_shuffle<Shuffle::down>; return true;
    case Opcode::quad_shuffle_up: AGX_CHECK(dst()); AGX_CHECK(ab(false)); s.run = exec_quad_shuffle<Shuffle::up>; return true;
    case Opcode::quad_shuffle_rotate_up: AGX_CHECK(dst()); AGX_CHECK(ab(false)); s.run = exec_quad_shuffle<Shuffle::rotate_up>; return true;
    case Opcode::quad_shuffle_xor: AGX_CHECK(dst()); AGX_CHECK(ab(false)); s.run = exec_quad_shuffle<Shuffle::xor_>; return true;
    default: break;
  }
  for (const RedRow& row : kReductions) {
    if (row.op != in.op) continue;
    AGX_CHECK(dst());
    AGX_TRY(s.a, operand(in, "A"));
    narrow(s.a);
    s.k[0] = static_cast<uint32_t>(row.red);
    s.k[1] = row.quad;
    s.k[2] = row.prefix;
    s.run = exec_reduce;
    return true;
  }
  return false;
}

}  // namespace agx::usc::detail
