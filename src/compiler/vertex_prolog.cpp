// The vertex prolog: per attribute, the element index (vertex ID, or
// instance ID / divisor + base instance), clamped to the attribute's clamp
// uniform, one device_load into r(8 + 4L) with the usc unit's converting
// memory formats where one fits (docs/usc.md "Memory formats") and ALU code
// after one `wait` otherwise, then the missing components (0, 0, 0, 1).
// The facts (robustness by clamping, which formats convert where) follow
// bminor/mesa-mesa src/asahi/lib/agx_nir_lower_vbo.c and agx_vbo.h; the
// code is written as assembly text for isa::assemble_program.
#include "compiler/vertex_prolog.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <string>

#include <fmt/format.h>

#include "compiler/compiler.h"
#include "isa/isa.h"

namespace agx::compiler {
namespace {

using Type = VertexFormat::Type;
using Layout = VertexFormat::Layout;
using BaseType = VertexAttribute::BaseType;

// Temporaries the ABI leaves to the prolog: r0-r4 and r7 (r5, r6 are the
// vertex and instance IDs the main shader reads too).
constexpr const char* kIndex = "r0";   // element index, then offset in elements
constexpr const char* kTemp = "r2";
constexpr const char* kConst = "r7";
constexpr unsigned kLastTemporary = 7;

uint32_t float_bits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}

std::string reg(unsigned r) { return fmt::format("r{}", r); }

struct Emitter {
  std::string text;
  template <typename... Args>
  void line(fmt::format_string<Args...> f, Args&&... args) {
    text += fmt::format(f, std::forward<Args>(args)...);
    text += '\n';
  }
  void mov_imm(const std::string& d, uint32_t v) { line("mov_imm {}, 0x{:x}, 0b0", d, v); }
};

// The usc memory format the load uses: a converting one when it gives the
// final value, otherwise the raw load the ALU code converts.
const char* memory_format(const VertexFormat& f) {
  if (f.layout == Layout::b10g11r11) return "rg11b10f";
  if (f.layout == Layout::a2b10g10r10) return f.type == Type::unorm ? "rgb10a2" : "i32";
  if (f.bits == 32) return "i32";
  const bool b8 = f.bits == 8;
  switch (f.type) {
    case Type::unorm: return b8 ? "u8norm" : "u16norm";
    case Type::snorm: return b8 ? "s8norm" : "s16norm";
    case Type::sfloat: return "f16";
    default: return b8 ? "i8" : "i16";
  }
}

// r0 = the element index of `a`, clamped, in elements of the load.
void emit_index(Emitter& e, const VertexPrologAttribute& a, const VertexPrologKey& k) {
  const uint32_t base_instance = k.base_instance_uniform;
  std::string index = reg(kVertexIdRegister);
  if (a.per_instance && a.divisor == 0) {
    index = fmt::format("u{}", base_instance);
  } else if (a.per_instance) {
    const uint32_t d = a.divisor;
    const std::string id = reg(kInstanceIdRegister);
    if (d == 1) {
      e.line("iadd {}, {}, u{}", kIndex, id, base_instance);
    } else if (std::has_single_bit(d)) {
      e.line("bfeil {}, 0, {}, {}", kIndex, id, std::countr_zero(d));
      e.line("iadd {}, {}, u{}", kIndex, kIndex, base_instance);
    } else {
      const UdivMagic m = udiv_magic(d);
      e.mov_imm(kConst, m.multiplier);
      e.line("imadd r0_r1, {}, {}, 0", id, kConst);  // r1 = mulhi(n, m)
      e.line("isub {}, {}, r1", kTemp, id);
      e.line("bfeil {}, 0, {}, 1", kTemp, kTemp);
      e.line("iadd {}, {}, r1", kTemp, kTemp);
      e.line("bfeil {}, 0, {}, {}", kIndex, kTemp, m.shift);
      e.line("iadd {}, {}, u{}", kIndex, kIndex, base_instance);
    }
    index = kIndex;
  }
  // Robustness: past the last valid element reads the last one.
  const std::string clamp = fmt::format("u{}", k.clamp_uniform + a.location);
  e.line("icmpsel ult, {}, {}, {}, {}, {}", kIndex, index, clamp, index, clamp);
  const uint32_t per = a.stride / a.format.element_bytes();
  if (per != 1) {
    e.mov_imm(kConst, per);
    e.line("imadd {}, {}, {}, 0", kIndex, kIndex, kConst);
  }
}

void emit_load(Emitter& e, const VertexPrologAttribute& a, const VertexPrologKey& k) {
  emit_index(e, a, k);
  const VertexFormat& f = a.format;
  const unsigned r0 = attribute_register(a.location, 0);
  const bool packed = f.layout != Layout::plain;
  const unsigned n = packed ? (f.layout == Layout::b10g11r11 ? 3 : 4) : f.components;
  const bool word = packed && f.type != Type::unorm && f.layout == Layout::a2b10g10r10;
  std::string regs;
  for (unsigned c = 0; c < (word ? 1 : n); ++c) regs += (c ? "_" : "") + reg(r0 + c);
  static constexpr const char* kMasks[] = {"x", "xy", "xyz", "xyzw"};
  e.line("device_load 0, {}, {}, {}, u{}_u{}, {}, unsigned", memory_format(f), kMasks[(word ? 1 : n) - 1], regs,
         k.address_uniform + 2 * a.location, k.address_uniform + 2 * a.location + 1, kIndex);
}

// The field of `bits` bits at `shift` of register `from` into r,
// sign-extended or zero-extended: moved to the top, then shifted down.
void extract(Emitter& e, unsigned r, unsigned from, unsigned shift, unsigned bits, bool is_signed) {
  e.line("bfi {}, 0, {}, {}", reg(r), reg(from), 32 - shift - bits);
  if (is_signed) {
    e.line("asr {}, {}, {}", reg(r), reg(r), 32 - bits);
  } else {
    e.line("bfeil {}, 0, {}, {}", reg(r), reg(r), 32 - bits);
  }
}

// r = max(r * scale, -1.0) (snorm), or r * scale.
void scale(Emitter& e, unsigned r, float s, bool clamp_low) {
  if (s != 1.0f) {
    e.mov_imm(kConst, float_bits(s));
    e.line("fmul32 {}, {}, {}", reg(r), reg(r), kConst);
  }
  if (clamp_low) {
    e.mov_imm(kConst, float_bits(-1.0f));
    e.line("fcmpsel lt, {}, {}, {}, {}, {}", reg(r), reg(r), kConst, kConst, reg(r));
  }
}

// Turns the raw integer of `bits` bits in r (zero-extended; sign-extended
// already for signed types) into the format's value.
void convert_int(Emitter& e, unsigned r, const VertexFormat& f, unsigned bits) {
  switch (f.type) {
    case Type::uscaled:
    case Type::unorm:
      e.line("convert u32_to_f, {}, {}, rte", reg(r), reg(r));
      if (f.type == Type::unorm) scale(e, r, static_cast<float>(1.0 / (std::ldexp(1.0, bits) - 1)), false);
      break;
    case Type::sscaled:
    case Type::snorm:
      e.line("convert s32_to_f, {}, {}, rte", reg(r), reg(r));
      if (f.type == Type::snorm) scale(e, r, static_cast<float>(1.0 / (std::ldexp(1.0, bits - 1) - 1)), true);
      break;
    default: break;
  }
}

void emit_convert(Emitter& e, const VertexPrologAttribute& a) {
  const VertexFormat& f = a.format;
  const unsigned r0 = attribute_register(a.location, 0);
  if (f.layout == Layout::a2b10g10r10 && f.type != Type::unorm) {
    // Fields from the word in r0: alpha first, so r0 is read last.
    for (unsigned c = 4; c-- > 0;) {
      const unsigned bits = c == 3 ? 2 : 10, shift = 10 * c;
      extract(e, r0 + c, r0, shift, bits, f.is_signed());
      convert_int(e, r0 + c, f, bits);
    }
  } else if (f.layout == Layout::plain) {
    for (unsigned c = 0; c < f.components; ++c) {
      const unsigned r = r0 + c;
      if (f.type == Type::sfloat && f.bits == 16) e.line("fadd32 {}, {}l, -0.0", reg(r), reg(r));
      if (f.type == Type::sfloat || (f.bits < 32 && (f.type == Type::unorm || f.type == Type::snorm))) continue;
      if (f.is_signed() && f.bits < 32) extract(e, r, r, 0, f.bits, true);
      convert_int(e, r, f, f.bits);
    }
  }
  if (f.bgra) {
    e.line("iadd {}, {}, 0", kConst, reg(r0));
    e.line("iadd {}, {}, 0", reg(r0), reg(r0 + 2));
    e.line("iadd {}, {}, 0", reg(r0 + 2), kConst);
  }
  const unsigned have = f.layout == Layout::plain ? f.components : (f.layout == Layout::b10g11r11 ? 3 : 4);
  for (unsigned c = have; c < 4; ++c)
    e.mov_imm(reg(r0 + c), c < 3 ? 0 : (a.type == BaseType::float_ ? float_bits(1.0f) : 1u));
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
  if (a.format.integer() != (a.type != BaseType::float_))
    return Error::invalid_argument("vertex prolog: location {}: format {} does not give the shader's {} values",
                                   a.location, name, base_type_name(a.type));
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

Result<VertexProlog> compile_vertex_prolog(const VertexPrologKey& key) {
  std::vector<bool> seen(kMaxVertexAttributes, false);
  Emitter e;
  unsigned top = kLastTemporary + 1;
  for (const VertexPrologAttribute& a : key.attributes) {
    if (auto s = check(a, seen); !s.ok()) return s.error();
    seen[a.location] = true;
    emit_load(e, a, key);
    top = std::max(top, attribute_register(a.location, 3) + 1);
  }
  if (!key.attributes.empty()) e.line("wait 0");
  for (const VertexPrologAttribute& a : key.attributes) emit_convert(e, a);
  VertexProlog p;
  if (!e.text.empty()) {
    auto code = isa::assemble_program(e.text);
    if (!code.ok()) return code.error().context("vertex prolog");
    p.code = std::move(*code);
    p.instructions = static_cast<uint32_t>(std::count(e.text.begin(), e.text.end(), '\n'));
  }
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
