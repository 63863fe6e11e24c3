// The compiler's IR: a function is one flat list of instructions in program
// order with structured control flow markers (if/else/end_if, loop/end_loop,
// break/continue), the way the AGX executes it: every instruction runs, and
// the execution mask (r0l nesting counter) decides which lanes it touches.
//
// Values are virtual registers of 16, 32 or 64 bits with 1-4 components.
// Most are defined once (SSA); a value flagged `variable` (phi results) is
// written on each incoming path and read after the join.
#pragma once

#include <array>
#include <bit>
#include <cstdint>
#include <string>
#include <vector>

#include "util/result.h"

namespace agx::compiler {

enum class Op : uint8_t {
#define AGX_IR_OP(name, srcs, flags) name,
#include "compiler/ops.inc"
#undef AGX_IR_OP
};

// Per-op facts (ops.inc).
enum OpFlag : uint16_t {
  kOpDest = 1 << 0,       // writes a value
  kOpSideEffect = 1 << 1, // never removed by DCE
  kOpControl = 1 << 2,    // structured control flow marker
  kOpLoad = 1 << 3,       // result arrives later: needs a wait before use
  kOpCse = 1 << 4,        // pure: equal instructions give equal values
  kOpFloat = 1 << 5,      // float sources (float immediates, modifiers)
};
struct OpInfo {
  const char* name;
  int8_t srcs;  // fixed source count, -1 = variable
  uint16_t flags;
};
const OpInfo& op_info(Op op);

// Comparison conditions of icmpsel/fcmpsel/if (applegpu's ICondition and
// FCondition names; `invert` is their `n` prefix).
enum class Cond : uint8_t { ueq, ult, ugt, seq, slt, sgt, feq, flt, fgt, fltn, fgte, flte, fgtn, none };
// applegpu's spelling of a condition, inverted or not ("ult" / "ugte").
const char* cond_name(Cond c, bool invert = false);
bool cond_is_float(Cond c);

// Memory formats/ops carried in Instr::imm for the memory instructions.
enum class AtomicOp : uint8_t { add, sub, xchg, cmpxchg, umin, imin, umax, imax, and_, or_, xor_ };
const char* atomic_name(AtomicOp op);

// Instr::imm of the image instructions: the texture state register (ts<N>),
// the dimension in the texture instructions' `n` order (applegpu).
// the dimension in the texture instructions' `n` order (applegpu), and
// the sampler state register (ss<N>) of texture_load / texture_sample.
inline uint64_t image_imm(uint32_t texture_state, uint32_t dim, uint32_t sampler_state = 0) {
  return texture_state | uint64_t{dim} << 16 | uint64_t{sampler_state} << 24;
}
inline uint32_t image_texture_state(uint64_t imm) { return static_cast<uint32_t>(imm & 0xFFFF); }
inline uint32_t image_dim(uint64_t imm) { return static_cast<uint32_t>(imm >> 16 & 0xFF); }
inline uint32_t image_sampler_state(uint64_t imm) { return static_cast<uint32_t>(imm >> 24 & 0xFF); }
// texture_sample / texture_load flags above image_imm: the optional third
// source (O) holds the compare reference (32-bit) and/or the packed
// offset (16-bit, after the reference); query_lod mode; D holds gradients
// then an fp16 minimum LOD; q6 (gathers: applegpu's field).
inline constexpr uint64_t kTexCompare = 1ull << 32;
inline constexpr uint64_t kTexOffset = 1ull << 33;
inline constexpr uint64_t kTexQueryLod = 1ull << 34;
inline constexpr uint64_t kTexGradMin = 1ull << 35;
// texture_load / texture_sample / image_write: the texture (and sampler)
// state index comes from registers, the last sources (T, then S for the
// texture instructions; 16-bit), not from the ts/ss numbers in imm: an
// element of an array of images picked at run time.
inline constexpr uint64_t kTexStateReg = 1ull << 36;
// texture_sample in a fragment shader: the LOD comes from the quad's
// coordinates (auto_lod); D is the immediate 0, or an fp16 bias added to
// it (auto_lod_bias).
inline constexpr uint64_t kTexAutoLod = 1ull << 37;
inline uint64_t tex_gather(uint32_t q6) { return uint64_t{q6 & 0x1F} << 40; }
inline uint32_t tex_q6(uint64_t imm) { return static_cast<uint32_t>(imm >> 40 & 0x1F); }

// Instr::imm of device_load/device_store (the index shift, bits 0-7) and
// of local_load/local_store (shift 0): the element size in bytes in bits
// 8-15, 0 for 32-bit words (format i32). 1 and 2 are the i8 and i16
// formats, each element zero-extended into (or taken from the low bits of)
// a 32-bit register: the 8/16-bit types (translate_small_memory.cpp).
inline uint64_t mem_imm(uint32_t shift, uint32_t elem_B = 4) { return shift | uint64_t{elem_B == 4 ? 0u : elem_B} << 8; }
inline uint32_t mem_shift(uint64_t imm) { return static_cast<uint32_t>(imm & 0xFF); }
inline uint32_t mem_elem_B(uint64_t imm) { uint32_t e = static_cast<uint32_t>(imm >> 8 & 0xFF); return e ? e : 4; }

// Instr::imm of Op::iter: the coefficient register (bits 0-7), the W
// register of iterproj (8-15), the kind (16-17: 0 iter, 1 iterproj, 2
// ldcf) and the point (18-19: the iter instructions' interpolation field,
// 0 center, 2 centroid). The destination's component count is the count.
enum class CfRead : uint8_t { iter, iterproj, ldcf };
inline uint64_t cf_imm(uint32_t cf, CfRead kind, uint32_t w_cf = 0, uint32_t point = 0) {
  return (cf & 0xFF) | uint64_t{w_cf & 0xFF} << 8 | uint64_t{static_cast<uint32_t>(kind)} << 16 | uint64_t{point & 3} << 18;
}
inline uint32_t cf_index(uint64_t imm) { return static_cast<uint32_t>(imm & 0xFF); }
inline uint32_t cf_w(uint64_t imm) { return static_cast<uint32_t>(imm >> 8 & 0xFF); }
inline CfRead cf_kind(uint64_t imm) { return static_cast<CfRead>(imm >> 16 & 3); }
inline uint32_t cf_point(uint64_t imm) { return static_cast<uint32_t>(imm >> 18 & 3); }

// Instr::imm of Op::tile_load / tile_store: the st_tile memory format F
// (bits 0-3), the component mask (4-7) and the byte offset in the sample
// record (8-15).
inline uint64_t tile_imm(uint32_t format, uint32_t mask, uint32_t offset_B) {
  return (format & 0xF) | (mask & 0xF) << 4 | uint64_t{offset_B & 0xFF} << 8;
}
inline uint32_t tile_format(uint64_t imm) { return static_cast<uint32_t>(imm & 0xF); }
inline uint32_t tile_mask(uint64_t imm) { return static_cast<uint32_t>(imm >> 4 & 0xF); }
inline uint32_t tile_offset_B(uint64_t imm) { return static_cast<uint32_t>(imm >> 8 & 0xFF); }
// tile_store without a source: the data in the fixed 32-bit registers from
// this half on (bits 16-23), e.g. the colour the main shader left.
inline uint64_t tile_fixed(uint32_t half) { return uint64_t{half & 0xFF} << 16; }
inline uint32_t tile_fixed_half(uint64_t imm) { return static_cast<uint32_t>(imm >> 16 & 0xFF); }

// Conversions (Instr::imm of Op::convert): applegpu's convert modes.
enum class Conv : uint8_t { u32_to_f, s32_to_f, f_to_u32, f_to_s32 };

using ValueId = uint32_t;
inline constexpr ValueId kNoValue = UINT32_MAX;

struct Value {
  uint8_t bits = 32;       // 16, 32, 64 per component
  uint8_t comps = 1;       // 1-4
  bool variable = false;   // several definitions (phi)
  int32_t reg = -1;        // first 16-bit half after register allocation
  bool pair = false;       // 2 x 32 bits read as one 64-bit register pair
  unsigned halves() const { return bits / 16 * comps; }
};

struct Src {
  enum class Kind : uint8_t { none, value, imm, uniform, sr } kind = Kind::none;
  ValueId value = kNoValue;
  uint8_t comp = 0;        // component of a vector value
  uint8_t bits = 32;       // size read (16/32/64)
  bool neg = false, abs = false;  // float modifiers
  uint64_t imm = 0;        // immediate bits, uniform index (32-bit units), or sr number
  static Src val(ValueId v, uint8_t bits = 32, uint8_t comp = 0) {
    Src s; s.kind = Kind::value; s.value = v; s.bits = bits; s.comp = comp; return s;
  }
  static Src immediate(uint64_t v, uint8_t bits = 32) {
    Src s; s.kind = Kind::imm; s.imm = v; s.bits = bits; return s;
  }
  static Src float_immediate(float v) { return immediate(std::bit_cast<uint32_t>(v)); }
  static Src uniform(uint32_t u, uint8_t bits = 32) {
    Src s; s.kind = Kind::uniform; s.imm = u; s.bits = bits; return s;
  }
  bool is_value() const { return kind == Kind::value; }
  bool is_imm() const { return kind == Kind::imm; }
  bool operator==(const Src&) const = default;
};

struct Instr {
  Op op{};
  Cond cond = Cond::none;
  bool invert = false;
  ValueId dest = kNoValue;
  std::vector<Src> srcs;
  uint64_t imm = 0;        // op-specific: special register, atomic op, convert mode, components ...
  uint32_t line = 0;       // source line (OpLine) for errors, 0 unknown
};

struct Function {
  std::vector<Value> values;
  std::vector<Instr> instrs;
  // Bytes at the bottom of the thread's stack frame that local arrays use
  // (translate_local.cpp); spill slots go above them (register_allocate).
  uint32_t stack_B = 0;
  // Halves below this are never allocated: r0-r1, and a fragment shader's
  // output registers r2.. (fragment.h), which Op::reg_write fills at the end.
  uint32_t first_free_half = 4;
  ValueId new_value(uint8_t bits = 32, uint8_t comps = 1, bool variable = false) {
    values.push_back(Value{bits, comps, variable, -1, false});
    return static_cast<ValueId>(values.size() - 1);
  }
};

// Loop jumps, plain or conditional (opt_break_if.cpp).
inline bool is_break(Op op) { return op == Op::break_ || op == Op::break_if; }
inline bool is_continue(Op op) { return op == Op::continue_ || op == Op::continue_if; }

// Removes the instructions whose `drop` flag is set, keeping the order.
void remove_instrs(Function& f, const std::vector<bool>& drop);

// Text form, one instruction per line ("%3 = iadd %1, #4"), indented by
// control-flow depth.
std::string print(const Function& f);
std::string print_instr(const Function& f, const Instr& in);

// Structural checks: control markers nest, sources refer to defined values
// of the right size and component, definitions dominate uses (in the
// structured order), destinations exist for ops that need them. After
// register allocation (`allocated`), every value has an aligned register.
Status validate(const Function& f, bool allocated = false);

}  // namespace agx::compiler
