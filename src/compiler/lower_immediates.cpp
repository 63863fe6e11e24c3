// Sources the encodings cannot hold move into registers first. Integer ALU
// sources take 8-bit immediates, float sources the 8-bit float codes of
// isa::float_immediate, memory offsets signed 16-bit immediates; data to
// store and atomic operands must be registers (dougallj/applegpu's
// operand descriptors, as the isa unit's table encodes them). The selected
// values X and Y of icmpsel / fcmpsel (applegpu's CmpselSrcDesc: an 8-bit
// index, no extension bits) reach only the uniforms u0..u127 (halves
// 0..255); a higher uniform there moves into a register, as Mesa's
// agx_lower_uniform_sources.c does for sources that cannot take every
// uniform (bminor/mesa-mesa src/asahi/compiler).
#include <bit>
#include <cstring>
#include <optional>

#include "compiler/passes.h"
#include "compiler/lower_immediates.h"
#include "isa/isa.h"

namespace agx::compiler {

std::optional<uint8_t> float_immediate_code(uint32_t bits) {
  static const auto table = [] {
    std::array<uint32_t, 256> t{};
    for (unsigned c = 0; c < 256; ++c) {
      float v = static_cast<float>(isa::float_immediate(static_cast<uint8_t>(c)));
      std::memcpy(&t[c], &v, 4);
    }
    return t;
  }();
  for (unsigned c = 0; c < 256; ++c)
    if (table[c] == bits) return static_cast<uint8_t>(c);
  return std::nullopt;
}

namespace {

enum class Slot { any, int8, float8, select_value, reg, reg_or_uniform, mem_index, local_address, zero_or_reg };

// The uniforms a cmpsel X / Y source can name: 8 bits of 16-bit halves.
constexpr uint64_t kSelectValueUniforms = 128;

Slot slot_of(const Instr& in, size_t i) {
  switch (in.op) {
    case Op::mov: case Op::collect: case Op::reg_write: return Slot::any;  // moves take any immediate (mov_imm)
    case Op::fadd: case Op::fmul: case Op::fmadd: case Op::floor: case Op::ceil: case Op::trunc: case Op::rint:
    case Op::rcp: case Op::rsqrt: case Op::rsqrt_special: case Op::log2: case Op::exp2: case Op::sin_pt_1: case Op::sin_pt_2:
    case Op::dfdx: case Op::dfdy:
      return Slot::float8;
    case Op::fcmpsel: return i < 2 ? Slot::float8 : Slot::select_value;
    case Op::icmpsel: return i < 2 ? Slot::int8 : Slot::select_value;
    case Op::if_: return cond_is_float(in.cond) ? Slot::float8 : Slot::int8;
    case Op::device_load: return i == 0 ? Slot::reg_or_uniform : Slot::mem_index;
    case Op::device_store: return i == 0 ? Slot::reg : i == 1 ? Slot::reg_or_uniform : Slot::mem_index;
    case Op::atomic: return i == 0 ? Slot::reg_or_uniform : i == 1 ? Slot::mem_index : Slot::reg;
    case Op::local_load: return Slot::local_address;
    case Op::local_store: return i == 0 ? Slot::reg : Slot::local_address;
    case Op::local_atomic: return i == 0 ? Slot::local_address : Slot::reg;
    case Op::convert: return Slot::reg;
    case Op::stack_store: return i == 0 ? Slot::reg : Slot::mem_index;
    case Op::stack_load: return Slot::mem_index;
    case Op::uniform_store: case Op::store_output: return Slot::reg;
    case Op::image_write: return i == 2 ? Slot::int8 : Slot::reg;  // data, coordinates, LOD, [T]
    // texture_load's LOD may be the immediate 0 (auto_lod); texture_sample
    // takes an explicit fp16 LOD in a register, or with kTexAutoLod (the
    // fragment quad's LOD) the immediate 0 or a bias register.
    case Op::texture_load: return i == 1 ? Slot::zero_or_reg : Slot::reg;
    case Op::texture_sample: return i == 1 && (in.imm & kTexAutoLod) ? Slot::zero_or_reg : Slot::reg;
    default: return Slot::int8;
  }
}

bool fits(const Src& s, Slot slot) {
  if (s.is_value()) return true;
  switch (slot) {
    case Slot::any: return true;
    case Slot::reg: return false;
    case Slot::reg_or_uniform: return s.kind == Src::Kind::uniform;
    case Slot::int8: return s.kind == Src::Kind::uniform || (s.is_imm() && s.imm < 256);
    case Slot::select_value:
      return (s.kind == Src::Kind::uniform && s.imm < kSelectValueUniforms) || (s.is_imm() && s.imm < 256);
    case Slot::float8: return s.kind == Src::Kind::uniform || (s.is_imm() && float_immediate_code(static_cast<uint32_t>(s.imm)));
    case Slot::mem_index: {
      if (!s.is_imm()) return false;
      auto v = static_cast<int32_t>(static_cast<uint32_t>(s.imm));
      return v >= -32768 && v <= 32767;
    }
    case Slot::local_address: return s.is_imm() && s.imm % 4 == 0 && s.imm / 4 <= 32767;
    case Slot::zero_or_reg: return s.is_imm() && s.imm == 0;
  }
  return false;
}

}  // namespace

bool takes_uniform(const Instr& in, size_t i) { return fits(Src::uniform(0), slot_of(in, i)); }

Status lower_immediates(Function& f) {
  std::vector<Instr> out;
  out.reserve(f.instrs.size());
  for (Instr& in : f.instrs) {
    for (size_t i = 0; i < in.srcs.size(); ++i) {
      Src& s = in.srcs[i];
      if (fits(s, slot_of(in, i))) continue;
      if (s.kind == Src::Kind::imm && s.bits == 64) return Error::unsupported("64-bit immediate operands are not supported");
      ValueId t = f.new_value(s.bits == 64 ? 64 : 32);
      Src plain = s;
      plain.neg = plain.abs = false;
      out.push_back(Instr{Op::mov, Cond::none, false, t, {plain}, 0, in.line});
      Src r = Src::val(t, s.bits == 64 ? 64 : 32);
      r.neg = s.neg;
      r.abs = s.abs;
      s = r;
    }
    out.push_back(std::move(in));
  }
  f.instrs = std::move(out);
  return {};
}

}  // namespace agx::compiler
