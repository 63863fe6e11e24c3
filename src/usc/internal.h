// Shared by the usc unit's .cpp files only: compiled steps, resolved
// operands, and the per-lane helpers every executor uses.
#pragma once

#include <array>
#include <bit>
#include <cstdint>
#include <cstring>
#include <string>
#if defined(__SSE2__)
#include <emmintrin.h>
#include <xmmintrin.h>
#endif

#include "usc/names.h"
#include "usc/usc.h"
#include "util/bits.h"

namespace agx::usc {

namespace detail {

inline constexpr uint64_t kF64DefaultNan = 0x7FF8000000000000ull;
inline constexpr uint32_t kF32DefaultNan = 0x7FC00000u;
inline constexpr uint16_t kF16DefaultNan = 0x7E00u;

// Where an operand's value comes from (see from_isa).
enum class Kind : uint8_t { none, imm, r16, r32, r64, u16, u32, u64 };

struct Operand {
  Kind kind = Kind::none;
  bool abs = false, neg = false, sx = false;
  uint16_t index = 0;   // half index for r16/u16, register index otherwise
  uint8_t count = 1;    // registers in a tuple (memory data); 0 = none
  uint64_t imm = 0;     // kind imm
  unsigned bits() const;  // 16, 32 or 64 (immediates count as 16, as applegpu)
  bool is_reg() const { return kind == Kind::r16 || kind == Kind::r32 || kind == Kind::r64; }
};

struct Ctx;
}  // namespace detail

// One decoded instruction, ready to run for 32 lanes.
struct Step {
  using Handler = Status (*)(const Step&, Core&, detail::Ctx&);
  Handler run = nullptr;
  isa::Opcode op{};
  uint8_t length_B = 0;
  uint64_t pc = 0;
  detail::Operand d, a, b, c, x, y;
  bool sat = false;
  uint32_t cc = 0;        // condition (cc | ccn << 3)
  uint32_t n = 0;         // push/pop count, shift amount, mask width, ...
  uint32_t k[6] = {};     // instruction-specific fields (see each executor)
  int64_t offset = 0;     // branch offset / memory offset immediate
  // Undefined encodings that only fail when a lane evaluates them: a bit
  // per part (kUndefined*); why is worked out again from the instruction.
  uint8_t undefined = 0;
  bool float_compare = false;  // the condition is a float one (FConditionDesc)
};

namespace detail {

// Execution context of one run.
struct Ctx {
  const Program* program = nullptr;
  const Memories* mem = nullptr;
  const RunOptions* options = nullptr;
  uint64_t next_pc = 0;
  bool stop = false;
  bool barrier = false;
  // Debug mode only (null otherwise, so a run sets up and clears nothing):
  // per register, pc + 1 of the load still outstanding into it, 0 none.
  std::array<uint64_t, kRegisters>* pending_load_pc = nullptr;
  void pending(unsigned r, uint64_t pc) {
    if (pending_load_pc) (*pending_load_pc)[r] = pc + 1;
  }
  void clear_pending() {
    if (pending_load_pc) pending_load_pc->fill(0);
  }
  // The decoded instruction of a fixed-function step (kept by the program).
  const isa::Instr* fixed_function_instr(const Step& s) const;
};

// Operand access for all lanes. Values are zero-extended unless `sx`.
void read_u32(const Operand& o, const Core& c, uint32_t out[kLanes]);
void read_u64(const Operand& o, const Core& c, uint64_t out[kLanes]);  // honours sx
// Like read_u32, but a 32-bit register is returned in place (no copy).
inline const uint32_t* read_u32_ref(const Operand& o, const Core& c, uint32_t tmp[kLanes]) {
  if (o.kind == Kind::r32) return c.r[o.index].data();
  read_u32(o, c, tmp);
  return tmp;
}
// Float sources: widened to f64 with applegpu's rules (f16 keeps
// subnormals, f32 flushes them), then .abs and .neg.
void read_f64(const Operand& o, const Core& c, double out[kLanes]);
// Writes active lanes, truncating to the destination width.
void write_u64(const Operand& d, Core& c, const uint64_t v[kLanes]);
void write_u32(const Operand& d, Core& c, const uint32_t v[kLanes]);
// Float destination: optional saturate, then round the f64 value to f32
// (RNE, flush-to-zero) or to f16 (RNE, subnormals kept); NaN is default NaN.
void write_f64(const Operand& d, Core& c, const double v[kLanes], bool sat);
inline void mark_written(const Operand& d, Core& c) {
  switch (d.kind) {
    case Kind::r16: c.written[d.index >> 1] = true; break;
    case Kind::r32: c.written[d.index] = true; break;
    case Kind::r64: c.written[d.index] = c.written[d.index + 1] = true; break;
    default: break;
  }
}

// The one conversion from the isa unit's decoded operand to the emulator's
// form: registers, uniforms and immediates (kFloatImm keeps its 8-bit code;
// read_f64 turns it into its number). Undefined source encodings (kNone)
// and registers past r127 / u255 (e.g. a pair r127_r128) are errors.
Result<Operand> from_isa(const isa::Operand& o);
// The operand named `name` (applegpu's name) of `in`: converted, or its
// `value` (immediates, enums, conditions, shifts). A row without that
// operand is an error naming the row and the name, never a silent 0.
Result<Operand> operand(const isa::Instr& in, Name name);
Result<int64_t> operand_value(const isa::Instr& in, Name name);
// The raw decoded operand, or nullptr when the row has none of that name
// (for rows where it is optional, e.g. the unary float ops' B and C).
const isa::Operand* find_operand(const isa::Instr& in, Name name);
// The 8-bit float immediate's number: the isa unit's decoding.
inline double float_immediate(uint32_t code) { return isa::float_immediate(static_cast<uint8_t>(code)); }

// Undefined encodings (a source or select operand of undefined type, an
// undefined condition code) are not refused at decode: like applegpu's
// exec, the step fails only when an active lane evaluates them, so an
// instruction whose undefined part no lane needs still runs.
enum : uint8_t { kUndefinedCompare = 1, kUndefinedX = 2, kUndefinedY = 4 };
// The operand `name`; if its encoding is undefined, records that under
// `part` and gives an immediate 0 in its place.
Result<Operand> lazy_operand(const isa::Instr& in, Name name, Step& s, uint8_t part);
// The error of the first undefined part in `parts`, naming pc, mnemonic and
// what is undefined (read again from the step's decoded instruction).
Status undefined_used(const Step& s, const Ctx& ctx, uint8_t parts);
// Fails if any lane of `need` evaluates an undefined part in `parts`.
inline Status check_undefined(const Step& s, const Ctx& ctx, uint8_t parts, uint32_t need) {
  if ((s.undefined & parts) && need) return undefined_used(s, ctx, s.undefined & parts);
  return {};
}

// Integer/float comparisons (IConditionDesc / FConditionDesc).
Result<bool> check_icond(uint32_t cc);
Result<bool> check_fcond(uint32_t cc);
// Reads A, B (lazily) and cc/ccn into s.a, s.b, s.cc; an undefined
// condition or operand marks kUndefinedCompare.
Status compare_fields(const isa::Instr& in, Step& s, bool is_float);
// out[l] is a lane mask: all ones where the comparison holds, else 0.
void icompare(uint32_t cc, const Operand& a, const Operand& b, const Core& c, uint32_t out[kLanes]);
void fcompare(uint32_t cc, const Operand& a, const Operand& b, const Core& c, uint32_t out[kLanes]);

// Float rounding (fma.py): fused multiply-add rounded to odd in f64, and the
// conversions to the destination format. Inline and branch-free so the lane
// loops vectorize; see float.cpp for the rules.
inline double fma_round_to_odd(double a, double b, double c) {
  double p = a * b;  // exact: both factors have <= 24 significant bits
  double s = p + c;  // round to nearest even
  // Error of the addition (Knuth's TwoSum), exact while s is finite.
  double bb = s - p;
  double err = (p - (s - bb)) + (c - bb);
  uint64_t bits = std::bit_cast<uint64_t>(s);
  uint64_t abs_bits = bits & 0x7FFFFFFFFFFFFFFFull;
  bool finite = abs_bits < 0x7FF0000000000000ull;
  // Round to odd: when inexact and s is even, step one ulp toward the exact
  // value (up in magnitude when err has the sign of s).
  bool fix = err != 0.0 && finite && (bits & 1) == 0;
  bool up = (err > 0) == (s > 0);
  bits += fix ? (up ? 1 : ~uint64_t{0}) : 0;
  bool nan = abs_bits > 0x7FF0000000000000ull;
  return std::bit_cast<double>(nan ? kF64DefaultNan : bits);
}
inline uint32_t f64_to_f32_ftz(double v) {
  uint32_t r = std::bit_cast<uint32_t>(static_cast<float>(v));  // RNE (default mode)
  uint64_t b = std::bit_cast<uint64_t>(v);
  uint32_t sign = static_cast<uint32_t>(b >> 32) & 0x80000000u;
  uint64_t mag = b & 0x7FFFFFFFFFFFFFFFull;
  // Flush on the unrounded exponent: |v| < 2^-126 gives a signed zero.
  r = mag < 0x3810000000000000ull ? sign : r;
  return mag > 0x7FF0000000000000ull ? kF32DefaultNan : r;
}
uint16_t f64_to_f16(double v);
inline double saturate(double v) {
  // fma.py saturate64: negative (even -0) and NaN give +0; above 1 gives 1.
  uint64_t b = std::bit_cast<uint64_t>(v);
  bool zero = (b >> 63) || (b & 0x7FFFFFFFFFFFFFFFull) > 0x7FF0000000000000ull;
  return zero ? 0.0 : (v > 1.0 ? 1.0 : v);
}

inline bool lane_on(uint32_t exec, unsigned lane) { return (exec >> lane) & 1; }

// A memory instruction's index operand in lane `lane`: a signed 16-bit
// immediate, an unsigned 16-bit register, or a 32-bit register, signed
// unless `is_unsigned` (the rows' Ou bit).
inline int64_t memory_index(const Operand& o, const Core& c, unsigned lane, bool is_unsigned) {
  if (o.kind == Kind::imm) return sign_extend(o.imm, 16);
  if (o.kind == Kind::r16) return int64_t{c.r16(o.index, lane)};
  uint32_t v = c.r[o.index][lane];
  return is_unsigned ? int64_t{v} : int64_t{static_cast<int32_t>(v)};
}
// The index shift field `s` of the load/store rows: 3 acts as 2 (applegpu's
// DeviceLoad exec).
constexpr unsigned index_shift(uint32_t s) { return s == 3 ? 2 : s; }

// Bit l set when m[l] is all ones (the masks icompare/fcompare give).
inline uint32_t lane_mask(const uint32_t m[kLanes]) {
#if defined(__SSE2__)
  uint32_t bits = 0;
  for (unsigned q = 0; q < kLanes / 4; ++q) {
    __m128 v;
    std::memcpy(&v, m + 4 * q, 16);
    bits |= static_cast<uint32_t>(_mm_movemask_ps(v)) << (4 * q);
  }
  return bits;
#else
  uint32_t bits = 0;
  for (unsigned l = 0; l < kLanes; ++l) bits |= (m[l] & 1u) << l;
  return bits;
#endif
}

// One 32-bit value per lane (128 bytes) between a register and memory (or
// another register); the two never overlap.
// Eight 16-byte moves: a plain memcpy of this size becomes `rep movs`,
// whose start-up costs more than the copy.
inline void copy_lanes(void* dst, const void* src) {
#if defined(__SSE2__)
  auto* d = static_cast<uint8_t*>(dst);
  const auto* p = static_cast<const uint8_t*>(src);
  for (unsigned q = 0; q < kLanes / 4; ++q)  // dst and src never overlap
    _mm_storeu_si128(reinterpret_cast<__m128i*>(d + 16 * q), _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + 16 * q)));
#else
  std::memcpy(dst, src, 4 * kLanes);
#endif
}

// Bit l set when b[l] (bools are 0 or 1): the lane mask of a per-lane test.
inline uint32_t lane_mask(const bool b[kLanes]) {
#if defined(__SSE2__)
  __m128i lo, hi;
  std::memcpy(&lo, b, 16);
  std::memcpy(&hi, b + 16, 16);
  __m128i zero = _mm_setzero_si128();
  uint32_t m_lo = static_cast<uint32_t>(_mm_movemask_epi8(_mm_cmpgt_epi8(lo, zero))) & 0xFFFF;
  uint32_t m_hi = static_cast<uint32_t>(_mm_movemask_epi8(_mm_cmpgt_epi8(hi, zero))) & 0xFFFF;
  return m_lo | m_hi << 16;
#else
  uint32_t m = 0;
  for (unsigned l = 0; l < kLanes; ++l) m |= uint32_t{b[l]} << l;
  return m;
#endif
}

// One lane's register: r32 (reg = register) or r16 (reg = half index).
inline void set_reg(Core& c, bool r32, unsigned reg, unsigned lane, uint32_t v) {
  if (r32) {
    c.r[reg][lane] = v;
  } else {
    uint32_t& w = c.r[reg >> 1][lane];
    w = (reg & 1) ? (w & 0xFFFF) | (v << 16) : (w & 0xFFFF0000u) | (v & 0xFFFF);
  }
}

// Executors by family; each fills step.run (or returns an error) for the
// opcodes it owns. Returns false if the opcode is not its own.
Result<bool> compile_alu(const isa::Instr& in, Step& s);
Result<bool> compile_float(const isa::Instr& in, Step& s);
Result<bool> compile_control(const isa::Instr& in, Step& s);
Result<bool> compile_memory(const isa::Instr& in, Step& s);
Result<bool> compile_simd(const isa::Instr& in, Step& s);
Result<bool> compile_atomic(const isa::Instr& in, Step& s);
Result<bool> compile_uniform_store(const isa::Instr& in, Step& s);
Result<bool> compile_matrix(const isa::Instr& in, Step& s);

// A raw field by applegpu name; a row without it is an error naming both.
Result<uint32_t> field(const isa::Instr& in, Name name);

// A graphics instruction through Memories::graphics (graphics.cpp); the
// caller prefixes the pc to its errors.
Status exec_graphics(const Step& s, Core& c, Ctx& ctx);

// The error of a step that cannot run (kept by the program, not the step).
Status unsupported(const Step& s, const Ctx& ctx);

}  // namespace detail
}  // namespace agx::usc
