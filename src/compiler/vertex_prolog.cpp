// The vertex prolog: per attribute, the element index (vertex ID, or
// instance ID / divisor + base instance), clamped to the attribute's clamp
// uniform, one device_load into r(8 + 4L) with the usc unit's converting
// memory formats where one fits (docs/usc.md "Memory formats"); after one
// `wait`, the ALU conversions of the others and the missing components
// (0, 0, 0, 1). The facts (which formats the load converts, the bounds
// check on the element index, the load's shift for strides of 2 and 4
// elements) follow bminor/mesa-mesa src/asahi/lib/agx_nir_lower_vbo.c and
// agx_nir_lower_vbo.h; the code is machine instructions
// (vertex_prolog_code.h).
#include "compiler/vertex_prolog.h"

#include <algorithm>
#include <bit>
#include <cmath>

#include "compiler/compiler.h"
#include "compiler/lower_immediates.h"
#include "compiler/vertex_prolog_code.h"

namespace agx::compiler {
namespace {

using Type = VertexFormat::Type;
using Layout = VertexFormat::Layout;
using BaseType = VertexAttribute::BaseType;
using prolog::Code;
using prolog::Constants;
using prolog::MemFormat;

// The load of a format: the usc memory format and how many registers it
// writes. Mesa's interchange formats (agx_nir_lower_vbo.c
// agx_vbo_internal_format): 8/16-bit normalized and A2B10G10R10_UNORM
// and B10G11R11 load converted; other packed 10/10/10/2 formats as one
// word to unpack; everything else as raw integers of its component size
// (16-bit floats raw too, as f16, for the ALU to widen).
struct Load {
  MemFormat format;
  unsigned registers;
};
Load load_of(const VertexFormat& f) {
  if (f.bits == 64) return {MemFormat::i32, f.words()};  // doubles: raw words, low first
  if (f.layout == Layout::b10g11r11) return {MemFormat::rg11b10f, 3};
  if (f.layout == Layout::a2b10g10r10) return f.type == Type::unorm ? Load{MemFormat::rgb10a2, 4} : Load{MemFormat::i32, 1};
  const bool b8 = f.bits == 8;
  MemFormat m = f.bits == 32 ? MemFormat::i32 : b8 ? MemFormat::i8 : MemFormat::i16;
  if (f.bits < 32 && f.type == Type::unorm) m = b8 ? MemFormat::u8norm : MemFormat::u16norm;
  if (f.bits < 32 && f.type == Type::snorm) m = b8 ? MemFormat::s8norm : MemFormat::s16norm;
  if (f.bits == 16 && f.type == Type::sfloat) m = MemFormat::f16;
  return {m, f.components};
}

// The quotient instance ID / d (d > 1) into r0: a shift for powers of
// two, otherwise mulhi(n, m) (the high word of a 64-bit imadd into r0_r1)
// and (t + ((n - t) >> 1)) >> shift.
Status divide_instance(Code& c, uint32_t d) {
  const isa::Operand r0 = reg32(prolog::kIndex), id = reg32(kInstanceIdRegister), zero = imm_operand(0);
  if (std::has_single_bit(d)) return c.alu(kBfeil, r0, {zero, id, imm_operand(std::countr_zero(d))});
  const UdivMagic m = udiv_magic(d);
  const isa::Operand high = reg32(prolog::kHigh), t = reg32(prolog::kTemp);
  AGX_CHECK(c.mov_imm(prolog::kConst, m.multiplier));
  AGX_CHECK(c.alu(kImadd, reg64(prolog::kIndex), {id, reg32(prolog::kConst), zero}));
  AGX_CHECK(c.alu(kIadd, t, {id, high}, 0, true));
  AGX_CHECK(c.alu(kBfeil, t, {zero, t, imm_operand(1)}));
  AGX_CHECK(c.alu(kIadd, t, {t, high}));
  return c.alu(kBfeil, r0, {zero, t, imm_operand(m.shift)});
}

// The load's index operand and shift for attribute `a`: its element
// index, clamped (robustness: past the last valid element reads the last
// one, where Mesa's GL level reads element 0: both read "something from
// the array", agx_nir_lower_vbo.h), times the stride in load elements,
// in the attribute's own last register r(8 + 4L + 3): no register a load
// reads or writes is written by another attribute's code before the
// `wait`, whatever the order of the key. The stride's factors of 2 (up to
// 4) as device_load's shift where the format is not bit-packed (Mesa
// shifts strides of 2 and 4 elements of the maskable formats; a packed
// word's index is never shifted). Stride 0: the immediate 0.
struct Index {
  isa::Operand operand;
  uint32_t shift = 0;
};
Result<Index> emit_index(Code& c, const VertexPrologAttribute& a, const VertexPrologKey& k) {
  const uint32_t per = a.stride / a.format.element_bytes();
  if (per == 0) return Index{imm_operand(0), 0};
  const unsigned own = attribute_register(a.location, 3);
  const isa::Operand r0 = reg32(prolog::kIndex), ix = reg32(own), base = uniform32(k.base_instance_uniform);
  isa::Operand index = reg32(kVertexIdRegister);
  if (a.per_instance && a.divisor == 0) {
    index = base;
  } else if (a.per_instance) {
    if (a.divisor > 1) AGX_CHECK(divide_instance(c, a.divisor));
    AGX_CHECK(c.alu(kIadd, ix, {a.divisor > 1 ? r0 : reg32(kInstanceIdRegister), base}));
    index = ix;
  }
  const isa::Operand clamp = uniform32(k.clamp_uniform + a.location);
  AGX_CHECK(c.cmpsel(kIcmpsel, Cond::ult, own, index, clamp, index, clamp));
  const uint32_t shift = a.format.layout == Layout::plain ? std::min(std::countr_zero(per), 2) : 0;
  const uint32_t factor = per >> shift;
  if (factor > 255) {
    AGX_CHECK(c.mov_imm(prolog::kConst, factor));
    AGX_CHECK(c.alu(kImadd, ix, {ix, reg32(prolog::kConst), imm_operand(0)}));
  } else if (factor > 1) {
    AGX_CHECK(c.alu(kImadd, ix, {ix, imm_operand(factor), imm_operand(0)}));
  }
  return Index{ix, shift};
}

// A dvec3 / dvec4's words past the fourth (in location L + 1's registers)
// load first, 16 bytes on, with an index of their own in r(8 + 4(L+1) + 3)
// (that location belongs to the attribute); then the first four words,
// over the index in r(8 + 4L + 3).
Status emit_load(Code& c, const VertexPrologAttribute& a, const VertexPrologKey& k) {
  AGX_TRY(const Index index, emit_index(c, a, k));
  const Load l = load_of(a.format);
  const unsigned base = k.address_uniform + 2 * a.location;
  if (l.registers > 4) {
    const uint32_t step = 4u >> index.shift;  // 4 words in the load's (shifted) elements
    isa::Operand upper = imm_operand(index.operand.kind == isa::OperandKind::kImm ? 4 : 0);
    if (index.operand.kind != isa::OperandKind::kImm) {
      upper = reg32(attribute_register(a.location + 1, 3));
      AGX_CHECK(c.alu(kIadd, upper, {index.operand, imm_operand(step)}));
    }
    AGX_CHECK(c.device_load(l.format, l.registers - 4, attribute_register(a.location + 1, 0), base, upper,
                            index.operand.kind == isa::OperandKind::kImm ? 0 : index.shift));
  }
  return c.device_load(l.format, std::min(l.registers, 4u), attribute_register(a.location, 0), base, index.operand,
                       index.shift);
}

// Doubles arrive as they are; the components a double format lacks are
// (0, 0, 0, 1.0) as doubles, within the locations its words take.
Status fill_doubles(Code& c, const VertexPrologAttribute& a) {
  const unsigned r0 = attribute_register(a.location, 0), have = a.format.words(), want = have > 4 ? 8 : 4;
  for (unsigned w = have; w < want; ++w)
    AGX_CHECK(c.mov_imm(r0 + w, w == 7 ? static_cast<uint32_t>(std::bit_cast<uint64_t>(1.0) >> 32) : 0u));
  return {};
}

// The field of `bits` bits at `shift` of register `from` into r:
// zero-extended by one bfeil of that width, sign-extended by moving it to
// the top (bfi) and shifting it down (asr).
Status extract(Code& c, unsigned r, unsigned from, unsigned shift, unsigned bits, bool is_signed) {
  const isa::Operand zero = imm_operand(0);
  if (!is_signed) return c.alu(kBfeil, reg32(r), {zero, reg32(from), imm_operand(shift)}, bits);
  AGX_CHECK(c.alu(kBfi, reg32(r), {zero, reg32(from), imm_operand(32 - shift - bits)}));
  return c.alu(kAsr, reg32(r), {reg32(r), imm_operand(32 - bits)});
}

// Turns the integer of `bits` bits in r (sign-extended for signed types)
// into the format's value: scaled types to float; normalized ones times
// 1 / (2^b - 1) or 1 / (2^(b-1) - 1), snorm clamped to -1 (Vulkan
// "Fixed-Point Data Conversions"); integer types stay as they are.
Status convert_int(Code& c, Constants& k, unsigned r, const VertexFormat& f, unsigned bits) {
  if (f.integer()) return {};
  const bool is_signed = f.is_signed();
  AGX_CHECK(c.convert(r, is_signed ? prolog::ConvertMode::s32_to_f : prolog::ConvertMode::u32_to_f));
  if (f.type != Type::unorm && f.type != Type::snorm) return {};
  const float scale = static_cast<float>(1.0 / (std::ldexp(1.0, static_cast<int>(is_signed ? bits - 1 : bits)) - 1));
  if (scale != 1.0f) {
    AGX_TRY(const unsigned s, k.get(std::bit_cast<uint32_t>(scale)));
    AGX_CHECK(c.alu(kFmul32, reg32(r), {reg32(r), reg32(s)}));
  }
  if (!is_signed) return {};
  AGX_TRY(const unsigned m1, k.get(std::bit_cast<uint32_t>(-1.0f)));
  return c.cmpsel(kFcmpsel, Cond::flt, r, reg32(r), reg32(m1), reg32(m1), reg32(r));
}

Status emit_convert(Code& c, Constants& k, const VertexPrologAttribute& a) {
  const VertexFormat& f = a.format;
  if (f.bits == 64) return fill_doubles(c, a);
  const unsigned r0 = attribute_register(a.location, 0);
  if (f.layout == Layout::a2b10g10r10 && f.type != Type::unorm) {
    // Fields from the word in r0: alpha first, so r0 is read last.
    for (unsigned comp = 4; comp-- > 0;) {
      const unsigned bits = comp == 3 ? 2 : 10;
      AGX_CHECK(extract(c, r0 + comp, r0, 10 * comp, bits, f.is_signed()));
      AGX_CHECK(convert_int(c, k, r0 + comp, f, bits));
    }
  } else if (f.layout == Layout::plain) {
    const auto minus_zero = float_immediate_code(std::bit_cast<uint32_t>(-0.0f));
    for (unsigned comp = 0; comp < f.components; ++comp) {
      const unsigned r = r0 + comp;
      if (f.type == Type::sfloat && f.bits == 16) {
        isa::Operand z{isa::OperandKind::kFloatImm};
        z.value = minus_zero.value_or(0);
        AGX_CHECK(c.alu(kFadd32, reg32(r), {reg16(2 * r), z}));  // half to float: rl + -0.0
      }
      if (f.type == Type::sfloat || (f.bits < 32 && (f.type == Type::unorm || f.type == Type::snorm))) continue;
      if (f.is_signed() && f.bits < 32) AGX_CHECK(extract(c, r, r, 0, f.bits, true));
      AGX_CHECK(convert_int(c, k, r, f, f.bits));
    }
  }
  if (f.bgra) {  // components 0 and 2 swapped, through r0
    AGX_CHECK(c.mov(prolog::kIndex, r0));
    AGX_CHECK(c.mov(r0, r0 + 2));
    AGX_CHECK(c.mov(r0 + 2, prolog::kIndex));
  }
  const unsigned have = f.layout == Layout::plain ? f.components : (f.layout == Layout::b10g11r11 ? 3 : 4);
  for (unsigned comp = have; comp < 4; ++comp)
    AGX_CHECK(c.mov_imm(r0 + comp, comp < 3 ? 0 : (a.type == BaseType::float_ ? std::bit_cast<uint32_t>(1.0f) : 1u)));
  return {};
}

Status check(const VertexPrologAttribute& a, const std::vector<bool>& seen) {
  const std::string name = vertex_format_name(a.format);
  if (a.location >= kMaxVertexAttributes)
    return Error::invalid_argument("vertex prolog: attribute location {} (locations 0-{})", a.location,
                                   kMaxVertexAttributes - 1);
  if (seen[a.location]) return Error::invalid_argument("vertex prolog: location {} given twice", a.location);
  if (std::find(vertex_formats().begin(), vertex_formats().end(), a.format) == vertex_formats().end())
    return Error::invalid_argument("vertex prolog: location {}: not a vertex format ({})", a.location, name);
  if (a.stride % a.format.element_bytes())
    return Error::invalid_argument("vertex prolog: location {}: stride {} is not a multiple of {}'s {}-byte element",
                                   a.location, a.stride, name, a.format.element_bytes());
  const bool doubles = a.format.bits == 64;
  if (doubles != (a.type == BaseType::double_) || (!doubles && a.format.integer() != (a.type != BaseType::float_)))
    return Error::invalid_argument("vertex prolog: location {}: format {} does not give the shader's {} values",
                                   a.location, name, base_type_name(a.type));
  return {};
}

// The uniforms attribute `a` reads (its base pair, clamp, the base
// instance) must be registers u0-u255 (the USC's 256 uniforms) and, in
// the ABI's layout (2n address words, n clamps, base vertex, base
// instance), belong to its location: a location past the main shader's
// n would read the clamps, base vertex or the shader's own uniforms as
// its address and clamp.
Status check_uniforms(const VertexPrologAttribute& a, const VertexPrologKey& k) {
  constexpr uint64_t kUniformRegisters = 256;
  const uint64_t address = uint64_t{k.address_uniform} + 2 * a.location + 1;
  const uint64_t clamp = uint64_t{k.clamp_uniform} + a.location;
  for (const auto& [what, u] : {std::pair{"base address", address}, std::pair{"clamp", clamp},
                                std::pair{"base instance", uint64_t{k.base_instance_uniform}}})
    if (u >= kUniformRegisters)
      return Error::invalid_argument("vertex prolog: location {}: its {} uniform u{} is past u255", a.location, what, u);
  if (address >= k.clamp_uniform || clamp + 1 >= k.base_instance_uniform) {
    const uint32_t n = k.clamp_uniform > k.address_uniform ? (k.clamp_uniform - k.address_uniform) / 2 : 0;
    return Error::invalid_argument(
        "vertex prolog: location {} is past the main shader's attribute uniforms ({} locations: clamps from u{}, "
        "base instance u{}); key only the attributes the shader reads",
        a.location, n, k.clamp_uniform, k.base_instance_uniform);
  }
  return {};
}

}  // namespace

UdivMagic udiv_magic(uint32_t d) {
  const unsigned l = 32 - std::countl_zero(d - 1);  // ceil(log2 d)
  const uint64_t m = ((uint64_t{1} << 32) * ((uint64_t{1} << l) - d)) / d + 1;
  return {static_cast<uint32_t>(m), l - 1};
}

void set_prolog_uniforms(VertexPrologKey& key, const VertexAbi& abi) {
  key.address_uniform = abi.address_uniform;
  key.clamp_uniform = abi.clamp_uniform;
  key.base_instance_uniform = abi.base_instance_uniform;
}

namespace {
// Whether the prolog uses r0 as a temporary: the instance division of a
// per-instance attribute with a divisor above 1 (and a stride), and the
// BGRA swap.
bool uses_r0(const VertexPrologKey& key) {
  for (const VertexPrologAttribute& a : key.attributes) {
    if (a.format.bgra) return true;
    if (a.per_instance && a.divisor > 1 && a.stride >= a.format.element_bytes()) return true;
  }
  return false;
}
}  // namespace

Result<VertexProlog> compile_vertex_prolog(const VertexPrologKey& key) {
  std::vector<bool> seen(kMaxVertexAttributes, false);
  Code c;
  unsigned top = prolog::kLastTemporary + 1;
  for (const VertexPrologAttribute& a : key.attributes) {
    AGX_CHECK(check(a, seen));
    seen[a.location] = true;
  }
  // A dvec3 / dvec4 format's words go on into the next location's registers.
  for (const VertexPrologAttribute& a : key.attributes)
    if (a.format.words() > 4 && (a.location + 1 >= kMaxVertexAttributes || seen[a.location + 1]))
      return Error::invalid_argument("vertex prolog: location {}: {} takes location {} too, which {}", a.location,
                                     vertex_format_name(a.format), a.location + 1,
                                     a.location + 1 >= kMaxVertexAttributes ? "does not exist" : "another attribute has");
  for (const VertexPrologAttribute& a : key.attributes) AGX_CHECK(check_uniforms(a, key));
  for (const VertexPrologAttribute& a : key.attributes) {
    AGX_CHECK(emit_load(c, a, key));
    top = std::max(top, attribute_register(a.location, a.format.words() > 4 ? 7 : 3) + 1);
  }
  if (!key.attributes.empty()) AGX_CHECK(c.wait());
  Constants k(c);
  for (const VertexPrologAttribute& a : key.attributes) AGX_CHECK(emit_convert(c, k, a));
  // r0l is the main shader's exec-mask nesting counter, 0 when a program
  // starts (docs/compiler.md "Control flow: the exec-mask stack"): a
  // prolog that used r0 leaves it 0 again, or the main shader's first
  // `if` or loop would find lanes already disabled.
  if (uses_r0(key)) AGX_CHECK(c.mov_imm(prolog::kIndex, 0));
  std::vector<MachineInstr> code = c.instrs();
  AGX_TRY(auto bytes, encode_all(code));
  VertexProlog p;
  p.code = std::move(bytes);
  p.instructions = static_cast<uint32_t>(code.size());
  p.gprs = 2 * top;
  return p;
}

Result<Shader> link_vertex(const VertexProlog& prolog, const Shader& main) {
  if (prolog.code.size() % 2) return Error::invalid_argument("link_vertex: prolog code of odd size {}", prolog.code.size());
  Shader s = main;
  s.code.insert(s.code.begin(), prolog.code.begin(), prolog.code.end());
  s.stats.gprs = std::max(main.stats.gprs, prolog.gprs);
  s.stats.bytes = static_cast<uint32_t>(s.code.size());
  s.stats.instructions += prolog.instructions;
  return s;
}

}  // namespace agx::compiler
