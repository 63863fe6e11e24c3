// Packing: every IR instruction becomes applegpu's assembly text, which
// the isa unit assembles (isa::assemble) -- the one opcode table of the
// project; no encoding is written here. Control markers become the
// exec-mask instructions (bminor/mesa-mesa src/asahi/compiler/agx_compile.c
// uses the same sequences): if -> if_icmp/if_fcmp n=1, else -> else_icmp
// (always true) n=1, end_if -> pop_exec 1, loop -> push_exec L (L = 1 or
// 2 levels, lower_control_flow.cpp), end_loop -> [while_icmp (always true)
// n=2 when L = 2] + jmp_exec_any to the loop start + pop_exec L,
// break/continue -> mov_imm r0l, k + pop_exec 0, break_if/continue_if ->
// while n=1 (k = 1) or cmpsel r0l + pop_exec 0.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <iterator>
#include <optional>
#include <utility>

#include <fmt/format.h>

#include "compiler/lower_immediates.h"
#include "compiler/passes.h"
#include "isa/fields.h"
#include "isa/isa.h"

namespace agx::compiler {

namespace {

struct Line {
  std::string text;       // with "{}" for the branch offset when target >= 0
  int target = -1;        // line index a branch goes to
  int target_ir = -1;     // or: the first line of this IR instruction
};

// Regions at least this many IR instructions long are jumped over
// (jmp_exec_none) when no lane runs them; shorter ones just run with an
// empty mask (the jump would cost more than it saves).
constexpr size_t kSkipRegionInstrs = 6;

// cmpsel's X/Y immediates are 8-bit (applegpu CmpselSrcDesc).
constexpr uint64_t kMaxCmpselImmediate = 255;

// The texture instructions' `n` values (applegpu's enum); how many 32-bit
// coordinates and 16-bit extras (layer, sample) each reads is the isa
// unit's isa::kTexSizes (applegpu TEX_SIZES).
constexpr const char* kDims[] = {"tex_1d", "tex_1d_array", "tex_2d", "tex_2d_array", "tex_2d_ms",
                                 "tex_3d", "tex_cube", "tex_cube_array", "tex_2d_ms_array"};
static_assert(std::size(kDims) == isa::kTexDimCount);

// The coordinate operand: whole 32-bit registers, or with 16-bit extras
// every half named (r4l_r4h_r5l_r5h_r6l), as applegpu writes it.
std::string coord_tuple(unsigned half, uint32_t dim) {
  const unsigned count = isa::kTexSizes[dim].count, extra = isa::kTexSizes[dim].extra;
  std::string t;
  if (extra == 0) {
    for (unsigned i = 0; i < count; ++i) t += fmt::format("{}r{}", i ? "_" : "", half / 2 + i);
    return t;
  }
  // applegpu's operand text names one extra half even for tex_2d_ms_array,
  // whose sample and layer halves (Mesa agx_coordinate_registers: 6
  // halves) follow from the same first register.
  for (unsigned h = 0; h < 2 * count + 1; ++h)
    t += fmt::format("{}r{}{}", h ? "_" : "", (half + h) / 2, (half + h) % 2 ? 'h' : 'l');
  return t;
}

// Python repr() of the float immediates' values, as applegpu prints them.
std::string float_text(uint32_t bits) {
  float v;
  std::memcpy(&v, &bits, 4);
  std::string t = fmt::format("{}", static_cast<double>(v));
  if (t.find('.') == std::string::npos && t.find('e') == std::string::npos && t.find("inf") == std::string::npos) t += ".0";
  return t;
}

class Printer {
 public:
  explicit Printer(const Function& f) : f_(f) {}

  std::string reg(unsigned half, unsigned bits) const {
    if (bits == 16) return fmt::format("r{}{}", half / 2, half % 2 ? 'h' : 'l');
    if (bits == 64) return fmt::format("r{}_r{}", half / 2, half / 2 + 1);
    return fmt::format("r{}", half / 2);
  }
  unsigned half_of(const Src& s) const {
    const Value& v = f_.values[s.value];
    return static_cast<unsigned>(v.reg) + s.comp * (v.bits / 16);
  }
  std::string dest(ValueId d) const {
    const Value& v = f_.values[d];
    if (v.pair && v.comps == 2 && v.bits == 32) return reg(static_cast<unsigned>(v.reg), 64);  // a 64-bit result
    return reg(static_cast<unsigned>(v.reg), v.bits);
  }
  // A register tuple for memory data: rA_rB_rC for n 32-bit registers.
  std::string tuple(unsigned half, unsigned n) const {
    std::string t;
    for (unsigned i = 0; i < n; ++i) t += fmt::format("{}r{}", i ? "_" : "", half / 2 + i);
    return t;
  }
  Result<std::string> src(const Src& s, bool is_float) const {
    std::string t;
    switch (s.kind) {
      case Src::Kind::value: t = reg(half_of(s), s.bits); break;
      case Src::Kind::uniform:
        t = s.bits == 64 ? fmt::format("u{}_u{}", s.imm, s.imm + 1) : s.bits == 16 ? fmt::format("u{}l", s.imm) : fmt::format("u{}", s.imm);
        break;
      case Src::Kind::imm:
        if (is_float) {
          uint32_t bits = static_cast<uint32_t>(s.imm);
          if (s.abs) bits &= 0x7FFFFFFFu;
          if (s.neg) bits ^= 0x80000000u;
          if (!float_immediate_code(bits)) return Error::unsupported("float immediate 0x{:08x} has no 8-bit code", bits);
          return float_text(bits);
        }
        return fmt::format("{}", static_cast<int64_t>(static_cast<int32_t>(static_cast<uint32_t>(s.imm))));
      case Src::Kind::sr: return fmt::format("sr{}", s.imm);
      case Src::Kind::none: return std::string("None");
    }
    if (is_float) {
      if (s.abs) t += ".abs";
      if (s.neg) t += ".neg";
    }
    return t;
  }

 private:
  const Function& f_;
};

Status lines_for(const Function& f, const Printer& p, const Instr& in, std::vector<Line>& out,
                 std::vector<size_t>& loop_starts) {
  auto add = [&](std::string t, int target = -1) { out.push_back(Line{std::move(t), target}); };
  auto S = [&](size_t i, bool fl = false) -> Result<std::string> { return p.src(in.srcs[i], fl); };
  std::string d = in.dest != kNoValue ? p.dest(in.dest) : "None";
  // Threadgroup addressing: base (16-bit register or 0) + index elements of
  // 4 bytes: a register byte address is "rNl, 0", a constant one "0, N/4".
  // Elements are 4 bytes (i32) or, for the 8/16-bit types, 1 or 2 (i8,
  // i16; ir.h mem_imm).
  auto local_address = [&](const Src& a, uint32_t elem_B = 4) -> Result<std::string> {
    if (a.is_imm()) {
      if (a.imm % elem_B || a.imm / elem_B > 32767)
        return Error::unsupported("threadgroup address {} not a multiple of {} below {} KiB", a.imm, elem_B, 32 * elem_B);
      return fmt::format("0, {}", a.imm / elem_B);
    }
    Src r = a;
    if (r.is_value()) r.bits = 16;
    AGX_TRY(auto t, p.src(r, false));
    return t + ", 0";
  };
  // A float op whose destination and register/uniform sources are all
  // 16-bit: the native 16-bit form (fadd16, fmul16, fmadd16), one rounding
  // to f16. Otherwise the 32-bit form (16-bit sources widen exactly; a
  // 16-bit destination rounds to f32, then to f16).
  bool all16 = in.dest != kNoValue && f.values[in.dest].bits == 16;
  for (const Src& s : in.srcs)
    all16 = all16 && (s.is_imm() || ((s.is_value() || s.kind == Src::Kind::uniform) && s.bits == 16));
  // Store data: n 32-bit registers, or for i16 data in 16-bit registers
  // (halves, rNl_rNh_...; the Rt = 0 form) n halves.
  auto data_tuple = [&](const Src& data, unsigned n) {
    if (data.bits != 16 || mem_elem_B(in.imm) != 2) return p.tuple(p.half_of(data), n);
    std::string t;
    for (unsigned h = 0; h < n; ++h) t += fmt::format("{}{}", h ? "_" : "", p.reg(p.half_of(data) + h, 16));
    return t;
  };
  auto mem_format = [&]() { return mem_elem_B(in.imm) == 1 ? "i8" : mem_elem_B(in.imm) == 2 ? "i16" : "i32"; };
  switch (in.op) {
    case Op::mov: case Op::collect: {
      const Value& dv = f.values[in.dest];
      for (size_t i = 0; i < in.srcs.size(); ++i) {
        const Src& s = in.srcs[i];
        unsigned half = static_cast<unsigned>(dv.reg) + static_cast<unsigned>(i) * (dv.bits / 16);
        if (dv.bits == 64) return Error::unsupported("64-bit moves are not supported");
        std::string dr = p.reg(half, dv.bits);
        if (s.is_imm() && (s.imm > 255 || s.neg || s.abs)) {
          uint32_t bits = static_cast<uint32_t>(s.imm);
          if (s.abs) bits &= 0x7FFFFFFFu;
          if (s.neg) bits ^= 0x80000000u;
          add(dv.bits == 16 ? fmt::format("mov_imm {}, {}", dr, bits & 0xFFFF) : fmt::format("mov_imm {}, {}, 0b0", dr, bits));
        } else if (s.neg || s.abs) {
          AGX_TRY(auto t, p.src(s, true));
          add(fmt::format("fadd32 {}, {}, -0.0", dr, t));
        } else {
          AGX_TRY(auto t, p.src(s, false));
          add(fmt::format("mov {}, {}", dr, t));
        }
      }
      return {};
    }
    case Op::get_sr: add(fmt::format("get_sr {}, sr{}", d, in.imm)); return {};
    case Op::iadd: case Op::isub: {
      AGX_TRY(auto a, S(0));
      AGX_TRY(auto b, S(1));
      add(fmt::format("{} {}, {}, {}", in.op == Op::iadd ? "iadd" : "isub", d, a, b));
      return {};
    }
    case Op::imul: {
      AGX_TRY(auto a, S(0));
      AGX_TRY(auto b, S(1)); add(fmt::format("imadd {}, {}, {}, 0", d, a, b)); return {}; }
    case Op::umul_wide: {
      AGX_TRY(auto a, S(0));
      AGX_TRY(auto b, S(1));
      add(fmt::format("imadd {}, {}, {}, 0", p.reg(f.values[in.dest].reg, 64), a, b));
      return {};
    }
    case Op::imad: {
      AGX_TRY(auto a, S(0));
      AGX_TRY(auto b, S(1));
      AGX_TRY(auto c, S(2)); add(fmt::format("imadd {}, {}, {}, {}", d, a, b, c)); return {}; }
    // Shifts through the bitfield instructions: bfi D, 0, x, s is x << s;
    // bfeil D, 0, x, s is x >> s (mask 0 = all 32 bits).
    case Op::ishl: {
      AGX_TRY(auto a, S(0));
      AGX_TRY(auto b, S(1)); add(fmt::format("bfi {}, 0, {}, {}", d, a, b)); return {}; }
    case Op::ushr: {
      AGX_TRY(auto a, S(0));
      AGX_TRY(auto b, S(1)); add(fmt::format("bfeil {}, 0, {}, {}", d, a, b)); return {}; }
    case Op::ishr: {
      AGX_TRY(auto a, S(0));
      AGX_TRY(auto b, S(1)); add(fmt::format("asr {}, {}, {}", d, a, b)); return {}; }
    case Op::iand: case Op::ior: case Op::ixor: {
      AGX_TRY(auto a, S(0));
      AGX_TRY(auto b, S(1));
      add(fmt::format("{} {}, {}, {}", in.op == Op::iand ? "and" : in.op == Op::ior ? "or" : "xor", d, a, b));
      return {};
    }
    case Op::inot: { AGX_TRY(auto a, S(0)); add(fmt::format("not {}, {}", d, a)); return {}; }
    case Op::popcount: { AGX_TRY(auto a, S(0)); add(fmt::format("popcount {}, {}", d, a)); return {}; }
    case Op::ffs: {
      AGX_TRY(auto a, S(0));
      add(fmt::format("ffs {}, {}", d, a));
      return {};
    }
    case Op::bitrev: { AGX_TRY(auto a, S(0)); add(fmt::format("bitrev {}, {}", d, a)); return {}; }
    case Op::fadd: case Op::fmul: {
      AGX_TRY(auto a, S(0, true));
      AGX_TRY(auto b, S(1, true));
      add(fmt::format("{}{} {}, {}, {}", in.op == Op::fadd ? "fadd" : "fmul", all16 ? "16" : "32", d, a, b));
      return {};
    }
    case Op::fmadd: {
      AGX_TRY(auto a, S(0, true));
      AGX_TRY(auto b, S(1, true));
      AGX_TRY(auto c, S(2, true)); add(fmt::format("fmadd{} {}, {}, {}, {}", all16 ? "16" : "32", d, a, b, c)); return {}; }
    case Op::floor: case Op::ceil: case Op::trunc: case Op::rint: case Op::rcp: case Op::rsqrt: case Op::rsqrt_special:
    case Op::log2: case Op::exp2: case Op::sin_pt_1: case Op::sin_pt_2: {
      AGX_TRY(auto a, S(0, true));
      add(fmt::format("{} {}, {}", op_info(in.op).name, d, a));
      return {};
    }
    case Op::icmpsel: case Op::fcmpsel: {
      bool f_cmp = in.op == Op::fcmpsel;
      AGX_TRY(auto a, S(0, f_cmp));
      AGX_TRY(auto b, S(1, f_cmp));
      AGX_TRY(auto x, S(2));
      AGX_TRY(auto y, S(3));
      add(fmt::format("{} {}, {}, {}, {}, {}, {}", op_info(in.op).name, cond_name(in.cond, in.invert), d, a, b, x, y));
      return {};
    }
    case Op::ballot: {
      // Integer comparisons only (the translator materializes float ones).
      if (cond_is_float(in.cond)) return Error::unsupported("a float ballot condition");
      AGX_TRY(auto a, S(0));
      AGX_TRY(auto b, S(1));
      add(fmt::format("icmp_ballot {}, {}, {}, {}", d, cond_name(in.cond, in.invert), a, b));
      return {};
    }
    case Op::simd_shuffle: {
      AGX_TRY(auto a, S(0));
      Src idx = in.srcs[1];
      if (idx.is_value()) idx.bits = 16;
      AGX_TRY(auto b, p.src(idx, false));
      // Instr::imm: the variant (translate_subgroup.cpp).
      static constexpr const char* kVariants[] = {"simd_shuffle", "simd_shuffle_down", "simd_shuffle_up", "simd_shuffle_xor"};
      if (in.imm >= std::size(kVariants)) return Error::unsupported("simd_shuffle variant {}", in.imm);
      add(fmt::format("{} {}, {}, {}", kVariants[in.imm], d, a, b));
      return {};
    }
    case Op::convert: {
      static constexpr const char* kModes[] = {"u32_to_f", "s32_to_f", "f_to_u32", "f_to_s32"};
      if (in.imm > 3) return Error::invalid_argument("bad convert mode");
      AGX_TRY(auto a, S(0));
      // int -> float rounds to nearest even; float -> int truncates (GLSL).
      add(fmt::format("convert {}, {}, {}, {}", kModes[in.imm], d, a, in.imm < 2 ? "rte" : "rtz"));
      return {};
    }
    case Op::device_load: {
      const Value& dv = f.values[in.dest];
      static constexpr const char* kMasks[] = {"", "x", "xy", "xyz", "xyzw"};
      AGX_TRY(auto base, S(0));
      AGX_TRY(auto idx, S(1));
      std::string lsl = mem_shift(in.imm) ? fmt::format(", lsl {}", mem_shift(in.imm)) : "";
      add(fmt::format("device_load 0, {}, {}, {}, {}, {}, signed{}", mem_format(), kMasks[dv.comps], p.tuple(dv.reg, dv.comps), base, idx, lsl));
      return {};
    }
    case Op::device_store: {
      const Src& data = in.srcs[0];
      const Value& v = f.values[data.value];
      unsigned n = data.comp == 0 && data.bits == v.bits ? v.comps : 1;  // a 16-bit pair read as one word: 1
      static constexpr const char* kMasks[] = {"", "x", "xy", "xyz", "xyzw"};
      AGX_TRY(auto base, S(1));
      AGX_TRY(auto idx, S(2));
      std::string lsl = mem_shift(in.imm) ? fmt::format(", lsl {}", mem_shift(in.imm)) : "";
      add(fmt::format("device_store 0, {}, {}, {}, {}, {}, signed{}, 0", mem_format(), kMasks[n], data_tuple(data, n), base, idx, lsl));
      return {};
    }
    case Op::local_load: {
      const Value& dv = f.values[in.dest];
      static constexpr const char* kMasks[] = {"", "x", "xy", "xyz", "xyzw"};
      AGX_TRY(auto addr, local_address(in.srcs[0], mem_elem_B(in.imm)));
      add(fmt::format("threadgroup_load {}, {}, {}, {}", mem_format(), kMasks[dv.comps], p.tuple(dv.reg, dv.comps), addr));
      return {};
    }
    case Op::local_store: {
      const Src& data = in.srcs[0];
      const Value& v = f.values[data.value];
      unsigned n = data.comp == 0 && data.bits == v.bits ? v.comps : 1;  // a 16-bit pair read as one word: 1
      static constexpr const char* kMasks[] = {"", "x", "xy", "xyz", "xyzw"};
      AGX_TRY(auto addr, local_address(in.srcs[1], mem_elem_B(in.imm)));
      add(fmt::format("threadgroup_store {}, {}, {}, {}", mem_format(), kMasks[n], data_tuple(data, n), addr));
      return {};
    }
    case Op::atomic: {
      AGX_TRY(auto base, S(0));
      AGX_TRY(auto idx, S(1));
      const Src& data = in.srcs[2];
      unsigned n = static_cast<AtomicOp>(in.imm) == AtomicOp::cmpxchg ? 2 : 1;
      std::string s = n == 2 ? p.reg(p.half_of(data), 64) : p.reg(p.half_of(data), 32);
      add(fmt::format("atomic {}, 0, {}, {}, {}, signed, {}, 0, 0, 0, 0, 0", atomic_name(static_cast<AtomicOp>(in.imm)), d, base, idx, s));
      return {};
    }
    case Op::local_atomic: {
      AGX_TRY(auto addr, local_address(in.srcs[0]));
      const Src& data = in.srcs[1];
      unsigned n = static_cast<AtomicOp>(in.imm) == AtomicOp::cmpxchg ? 2 : 1;
      std::string s = n == 2 ? p.reg(p.half_of(data), 64) : p.reg(p.half_of(data), 32);
      add(fmt::format("threadgroup_atomic {}, {}, {}, {}, 0, 0, 0, 0", atomic_name(static_cast<AtomicOp>(in.imm)), d, addr, s));
      return {};
    }
    case Op::texture_load: case Op::texture_sample: {
      // applegpu operand order: compare, q3, slot, q6, mask, kill, R, U,
      // T, S, n, C, lod mode, D. The LOD is an immediate 0 with mode
      // auto_lod (texture_load then reads level 0; texture_sample in a
      // compute shader has no quad derivatives, so an explicit LOD always
      // comes as a register with lod_min).
      const uint32_t dim = image_dim(in.imm);
      if (dim >= std::size(kDims)) return Error::invalid_argument("texture dimension {}", dim);
      const Src& coords = in.srcs[0];
      if (!coords.is_value()) return Error::invalid_argument("texture coordinates must be registers");
      const Value& dv = f.values[in.dest];
      std::string lod;
      if (in.srcs[1].is_imm() && in.srcs[1].imm == 0) lod = "auto_lod, 0";
      else if (in.srcs[1].is_value() && f.values[in.srcs[1].value].comps > 1 && f.values[in.srcs[1].value].bits == 32) {
        // Gradients (ddx, ddy per coordinate, 32-bit): lod_grad; with
        // kTexGradMin the last word's low half is an fp16 minimum LOD.
        const Value& g = f.values[in.srcs[1].value];
        lod = std::string(in.imm & kTexGradMin ? "lod_grad_min, " : "lod_grad, ") +
              p.tuple(static_cast<unsigned>(g.reg), g.comps);
      } else {
        Src l = in.srcs[1];
        if (!l.is_value()) return Error::invalid_argument("texture LOD must be a register or 0");
        l.bits = 16;
        AGX_TRY(auto t, p.src(l, false));
        lod = "lod_min, " + t;
      }
      // O: the compare reference (r32) and/or the packed offset (the r16
      // after it, or alone).
      const bool compare = in.imm & kTexCompare, offset = in.imm & kTexOffset;
      std::string o;
      if (compare || offset) {
        if (in.srcs.size() < 3 || !in.srcs[2].is_value()) return Error::invalid_argument("texture compare/offset must be a register");
        const unsigned h = p.half_of(in.srcs[2]);
        if (compare && offset) o = fmt::format(", {}_{}", p.reg(h, 32), p.reg(h + 2, 16));
        else o = ", " + p.reg(h, compare ? 32 : 16);
      }
      static constexpr const char* kQ6[] = {"none", "compare", "gather_r", "gather_depth", "", "", "gather_g", "",
                                            "", "", "gather_b", "", "", "", "gather_a"};
      const uint32_t q6 = tex_q6(in.imm);
      if (q6 >= std::size(kQ6) || !*kQ6[q6]) return Error::invalid_argument("texture q6 value {}", q6);
      // T and S: state registers, or 16-bit registers holding their
      // numbers (kTexStateReg: the last two sources).
      std::string ts = fmt::format("ts{}", image_texture_state(in.imm)), ss = fmt::format("ss{}", image_sampler_state(in.imm));
      if (in.imm & kTexStateReg) {
        if (in.srcs.size() < 4 || !in.srcs[in.srcs.size() - 2].is_value() || !in.srcs.back().is_value())
          return Error::invalid_argument("texture state indices must be registers");
        ts = p.reg(p.half_of(in.srcs[in.srcs.size() - 2]), 16);
        ss = p.reg(p.half_of(in.srcs.back()), 16);
      }
      add(fmt::format("{} {}, {}0b0000, 0b0, {}, xyzw, 0b00, {}, None, {}, {}, {}, {}, {}{}", op_info(in.op).name,
                      compare ? 1 : 0, in.imm & kTexQueryLod ? "query_lod, " : "", kQ6[q6],
                      p.tuple(static_cast<unsigned>(dv.reg), dv.comps), ts, ss, kDims[dim],
                      coord_tuple(p.half_of(coords), dim), lod, o));
      return {};
    }
    case Op::image_write: {
      // applegpu operand order R, C, D, U, T, n, round, then u1 u2 u3 u5:
      // Mesa's image_write encoding sets bit 23 (u1) and 9 at bit 43 (u3)
      // (bminor/mesa-mesa src/asahi/compiler/agx_opcodes.py).
      const uint32_t dim = image_dim(in.imm);
      if (dim >= std::size(kDims)) return Error::invalid_argument("image dimension {}", dim);
      const Src& data = in.srcs[0];
      const Src& coords = in.srcs[1];
      if (!data.is_value() || !coords.is_value()) return Error::invalid_argument("image_write data and coordinates must be registers");
      AGX_TRY(auto lod, S(2));
      std::string ts = fmt::format("ts{}", image_texture_state(in.imm));
      if (in.imm & kTexStateReg) {  // the PBE descriptor's number in a 16-bit register (source 3)
        if (in.srcs.size() < 4 || !in.srcs[3].is_value()) return Error::invalid_argument("image_write state index must be a register");
        ts = p.reg(p.half_of(in.srcs[3]), 16);
      }
      add(fmt::format("image_write {}, {}, {}, None, {}, {}, rte, 1, 0, 9, 0", p.tuple(p.half_of(data), 4),
                      coord_tuple(p.half_of(coords), dim), lod, ts, kDims[dim]));
      return {};
    }
    case Op::uniform_store: {
      // Mesa's form (bminor/mesa-mesa src/asahi/compiler/agx_pack.c): i16
      // from 16-bit registers, a 32-bit value as its two halves, at the
      // offset in 16-bit units (u<N>l = 2N); two 32-bit components at most
      // per instruction (mask xyzw). A 16-bit scalar fills u<N>l.
      const Src& data = in.srcs[0];
      const Value& v = f.values[data.value];
      if (v.bits == 16) {
        if (v.comps != 1) return Error::unsupported("uniform_store of a 16-bit vector");
        add(fmt::format("uniform_store 2, i16, x, 0, {}, {}", p.reg(p.half_of(data), 16), 2 * in.imm));
        return {};
      }
      if (v.bits != 32) return Error::unsupported("uniform_store of a {}-bit value", v.bits);
      for (unsigned c = 0; c < v.comps; c += 2) {
        unsigned n = std::min(2u, v.comps - c);
        unsigned half = static_cast<unsigned>(v.reg) + 2 * c;
        std::string regs;
        for (unsigned h = 0; h < 2 * n; ++h) regs += fmt::format("{}r{}{}", h ? "_" : "", (half + h) / 2, (half + h) % 2 ? 'h' : 'l');
        add(fmt::format("uniform_store 2, i16, {}, 0, {}, {}", n == 2 ? "xyzw" : "xy", regs, 2 * (in.imm + c)));
      }
      return {};
    }
    case Op::stack_store: case Op::stack_load: {
      // applegpu operands: [R,] F, i1, i2, mask, i5, [R,] O, i6; O is the
      // byte offset in the thread's stack, an immediate or a 32-bit
      // register (Mesa's load/store_scratch and spills use it so). 32-bit
      // data moves as i32 words, 16-bit data as i16 halves.
      const bool store = in.op == Op::stack_store;
      const Src& data = store ? in.srcs[0] : Src::val(in.dest);
      if (!data.is_value() || data.comp != 0) return Error::invalid_argument("stack data must be a whole register value");
      const Value& v = f.values[data.value];
      const bool halves = v.bits == 16;
      const unsigned n = halves ? v.comps : v.halves() / 2;
      if (n < 1 || n > 4) return Error::unsupported("a stack access of {} elements (1-4)", n);
      static constexpr const char* kMasks[] = {"", "x", "xy", "xyz", "xyzw"};
      std::string regs;
      for (unsigned i = 0; i < n; ++i)
        regs += (i ? "_" : "") + (halves ? p.reg(static_cast<unsigned>(v.reg) + i, 16) : p.reg(static_cast<unsigned>(v.reg) + 2 * i, 32));
      AGX_TRY(auto off, S(store ? 1 : 0));
      const char* format = halves ? "i16" : "i32";
      if (store) add(fmt::format("stack_store {}, 0, 0, {}, 0, {}, {}, 0", format, kMasks[n], regs, off));
      else add(fmt::format("stack_load {}, {}, 0, 0, {}, 0, {}, 0", regs, format, kMasks[n], off));
      return {};
    }
    case Op::wait: add("wait 0"); return {};
    case Op::barrier: add("threadgroup_barrier"); return {};
    case Op::memory_barrier: return {};  // see docs/compiler.md: the emulator orders memory; no encoding is emitted
    case Op::if_: {
      bool f_cmp = cond_is_float(in.cond);
      AGX_TRY(auto a, S(0, f_cmp));
      AGX_TRY(auto b, S(1, f_cmp));
      add(fmt::format("{} r0l, {}, {}, {}, 1", f_cmp ? "if_fcmp" : "if_icmp", cond_name(in.cond, in.invert), a, b));
      return {};
    }
    case Op::else_: add("else_icmp r0l, ueq, 0, 0, 1"); return {};
    case Op::end_if: add("pop_exec r0l, 1"); return {};
    // Loops push one or two levels (lower_control_flow.cpp); a two-level
    // loop's whiles turn continued lanes (r0l 1) back on.
    case Op::loop:
      if (in.imm != 1 && in.imm != 2) return Error::invalid_argument("loop of {} levels (lower_control_flow did not run)", in.imm);
      add(fmt::format("push_exec r0l, {}", in.imm));
      loop_starts.push_back(out.size());
      return {};
    case Op::continue_join:
      if (in.imm == 2) add("while_icmp r0l, ueq, 0, 0, 2");
      return {};
    case Op::end_loop: {
      if (loop_starts.empty()) return Error::invalid_argument("end_loop without loop");
      if (in.imm == 2) add("while_icmp r0l, ueq, 0, 0, 2");
      add("jmp_exec_any {}", static_cast<int>(loop_starts.back()));
      loop_starts.pop_back();
      add(fmt::format("pop_exec r0l, {}", in.imm));
      return {};
    }
    case Op::break_: case Op::continue_:
      add(fmt::format("mov_imm r0l, {}", in.imm));
      add("pop_exec r0l, 0");
      return {};
    case Op::break_if: case Op::continue_if: {
      bool f_cmp = cond_is_float(in.cond);
      AGX_TRY(auto a, S(0, f_cmp));
      AGX_TRY(auto b, S(1, f_cmp));
      if (in.imm == 1) {
        // One level: `while` turns off the lanes where the condition
        // holds by itself (it keeps the ones where it fails).
        add(fmt::format("{} r0l, {}, {}, {}, 1", f_cmp ? "while_fcmp" : "while_icmp", cond_name(in.cond, !in.invert), a, b));
        return {};
      }
      if (in.imm > kMaxCmpselImmediate) {
        // The nesting value does not fit cmpsel's 8-bit immediate: the
        // if/break/end_if it came from (one more level inside the if).
        add(fmt::format("{} r0l, {}, {}, {}, 1", f_cmp ? "if_fcmp" : "if_icmp", cond_name(in.cond, in.invert), a, b));
        add(fmt::format("mov_imm r0l, {}", in.imm + 1));
        add("pop_exec r0l, 0");
        add("pop_exec r0l, 1");
        return {};
      }
      // cmpsel has no inverted conditions: an inverted test selects the
      // other way round.
      std::string x = fmt::format("{}", in.imm), y = "r0l";
      if (in.invert) std::swap(x, y);
      add(fmt::format("{} {}, r0l, {}, {}, {}, {}", f_cmp ? "fcmpsel" : "icmpsel", cond_name(in.cond), a, b, x, y));
      add("pop_exec r0l, 0");
      return {};
    }
    case Op::stop: add("stop"); return {};
    case Op::udiv: case Op::umod: case Op::sdiv: case Op::smod:
      return Error::unsupported("integer division reached the packer (lower_idiv did not run)");
  }
  return Error::invalid_argument("unknown IR op");
}

Result<std::vector<Line>> all_lines(const Function& f) {
  Printer p(f);
  std::vector<Line> lines;
  std::vector<size_t> loop_starts;
  // The else_/end_if that ends each if_/else_ region.
  std::vector<int> region_end(f.instrs.size(), -1);
  std::vector<size_t> open;
  for (size_t i = 0; i < f.instrs.size(); ++i) {
    Op op = f.instrs[i].op;
    if (op == Op::else_ || op == Op::end_if) {
      if (!open.empty()) { region_end[open.back()] = static_cast<int>(i); open.pop_back(); }
    }
    if (op == Op::if_ || op == Op::else_) open.push_back(i);
  }
  std::vector<size_t> first_line(f.instrs.size() + 1, 0);
  for (size_t i = 0; i < f.instrs.size(); ++i) {
    const Instr& in = f.instrs[i];
    first_line[i] = lines.size();
    if (auto st = lines_for(f, p, in, lines, loop_starts); !st) {
      std::string where = in.line ? fmt::format(" (source line {})", in.line) : "";
      return std::move(st).error().context(fmt::format("packing '{}'{}", print_instr(f, in), where));
    }
    // No lane left in the region: jump to its else/end (which update
    // r0l for every lane; the skipped instructions would change nothing).
    if ((in.op == Op::if_ || in.op == Op::else_) && region_end[i] > 0 &&
        static_cast<size_t>(region_end[i]) - i > kSkipRegionInstrs)
      lines.push_back(Line{"jmp_exec_none {}", -1, region_end[i]});
  }
  first_line[f.instrs.size()] = lines.size();
  for (Line& l : lines)
    if (l.target_ir >= 0) l.target = static_cast<int>(first_line[l.target_ir]);
  return lines;
}

}  // namespace

Result<std::vector<std::string>> pack_text(const Function& f) {
  AGX_TRY(auto lines, all_lines(f));
  std::vector<std::string> out;
  for (const Line& l : lines) out.push_back(l.target >= 0 ? fmt::format(fmt::runtime(l.text), "pc+0") : l.text);
  return out;
}

Result<std::vector<uint8_t>> pack(const Function& f, Stats& stats) {
  AGX_TRY(auto lines, all_lines(f));
  // Round 1: lengths (branches with a placeholder offset; their length
  // does not depend on it). Other instructions are final here: only a
  // branch's offset depends on where the others end up.
  std::vector<uint64_t> pc(lines.size() + 1, 0);
  std::vector<std::optional<isa::Encoded>> done(lines.size());
  for (size_t i = 0; i < lines.size(); ++i) {
    std::string text = lines[i].target >= 0 ? fmt::format(fmt::runtime(lines[i].text), "pc+0") : lines[i].text;
    auto enc = isa::assemble(text, pc[i]);
    if (!enc) return std::move(enc).error().context(fmt::format("assembling '{}'", text));
    pc[i + 1] = pc[i] + enc->length_B;
    if (lines[i].target < 0) done[i] = std::move(*enc);
  }
  std::vector<uint8_t> code;
  for (size_t i = 0; i < lines.size(); ++i) {
    if (done[i]) {
      code.insert(code.end(), done[i]->bytes.begin(), done[i]->bytes.begin() + done[i]->length_B);
      continue;
    }
    std::string text = lines[i].text;
    int64_t off = static_cast<int64_t>(pc[lines[i].target]) - static_cast<int64_t>(pc[i]);
    text = fmt::format(fmt::runtime(text), off < 0 ? fmt::format("pc-{}", -off) : fmt::format("pc+{}", off));
    auto enc = isa::assemble(text, pc[i]);
    if (!enc) return std::move(enc).error().context(fmt::format("assembling '{}'", text));
    if (enc->length_B != pc[i + 1] - pc[i]) return Error::invalid_argument("branch '{}' changed length", text);
    code.insert(code.end(), enc->bytes.begin(), enc->bytes.begin() + enc->length_B);
  }
  stats.instructions = static_cast<uint32_t>(lines.size());
  stats.bytes = static_cast<uint32_t>(code.size());
  return code;
}

}  // namespace agx::compiler
