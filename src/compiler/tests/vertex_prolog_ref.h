// The vertex prolog tests' shared pieces: the reference conversions
// written from the format rules (Vulkan "Fixed-Point Data Conversions", the
// 16-bit and unsigned 10/11-bit float encodings), a fixture that draws a
// main shader linked with the prolog of a key on the software GPU's vertex
// half, and main shaders that write the attributes they read out as bits.
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "compiler/compiler.h"
#include "compiler/tests/buffer_words.h"
#include "compiler/tests/vertex_run.h"
#include "compiler/vertex_prolog.h"

namespace agx::compiler::test {

using Type = VertexFormat::Type;
using Layout = VertexFormat::Layout;
using BaseType = VertexAttribute::BaseType;

// An unsigned float of `mb` mantissa bits and a 5-bit exponent (bias 15),
// or IEEE half when `sign`.
inline float small_float(uint32_t v, unsigned mb, bool sign) {
  const uint32_t m = v & ((1u << mb) - 1), e = (v >> mb) & 31;
  const double mag = e == 0 ? std::ldexp(m, -14 - static_cast<int>(mb))
                            : std::ldexp(1.0 + std::ldexp(m, -static_cast<int>(mb)), static_cast<int>(e) - 15);
  return static_cast<float>(sign && (v >> (mb + 5)) & 1 ? -mag : mag);
}

inline int64_t sext(uint32_t v, unsigned bits) {
  return bits == 32 ? int64_t{static_cast<int32_t>(v)} : (int64_t{v} ^ (int64_t{1} << (bits - 1))) - (int64_t{1} << (bits - 1));
}

// Component value of `v` (the raw field of `bits` bits) as the shader sees it.
inline uint32_t reference(const VertexFormat& f, uint32_t v, unsigned bits) {
  const int64_t s = sext(v, bits);
  switch (f.type) {
    case Type::unorm: return fbits(static_cast<float>(v / (std::ldexp(1.0, bits) - 1)));
    case Type::snorm: return fbits(static_cast<float>(std::max(s / (std::ldexp(1.0, bits - 1) - 1), -1.0)));
    case Type::uscaled: return fbits(static_cast<float>(v));
    case Type::sscaled: return fbits(static_cast<float>(s));
    case Type::uint: return v;
    case Type::sint: return static_cast<uint32_t>(s);
    case Type::sfloat: return bits == 16 ? fbits(small_float(v, 10, true)) : v;
    case Type::ufloat: return fbits(small_float(v, bits - 5, false));
  }
  return 0;
}

// The four registers the prolog leaves for the element at `p`.
inline std::array<uint32_t, 4> expected(const VertexFormat& f, const uint8_t* p) {
  std::array<uint32_t, 4> out{0, 0, 0, f.integer() ? 1u : fbits(1.0f)};
  // A packed format's element is one 32-bit word; a plain one may be
  // smaller (the last element of a buffer ends there).
  uint32_t word = 0;
  if (f.layout != Layout::plain) std::memcpy(&word, p, 4);
  if (f.layout == Layout::b10g11r11) {
    for (unsigned c = 0; c < 3; ++c) out[c] = reference(f, (word >> (11 * c)) & (c < 2 ? 0x7FF : 0x3FF), c < 2 ? 11 : 10);
  } else if (f.layout == Layout::a2b10g10r10) {
    for (unsigned c = 0; c < 4; ++c) out[c] = reference(f, (word >> (10 * c)) & (c < 3 ? 0x3FF : 3), c < 3 ? 10 : 2);
  } else {
    for (unsigned c = 0; c < f.components; ++c) {
      uint32_t v = 0;
      std::memcpy(&v, p + c * f.bits / 8, f.bits / 8);
      out[c] = reference(f, v, f.bits);
    }
  }
  if (f.bgra) std::swap(out[0], out[2]);
  return out;
}

// Keeps float data finite: the top exponent bit of each float field
// clear, in every element-aligned slot of the `n` bytes at `p` (so
// elements at any stride, overlapping ones too, hold finite values).
inline void finite(const VertexFormat& f, uint8_t* p, size_t n) {
  const size_t e = f.element_bytes();
  for (size_t at = 0; at + e <= n; at += e) {
    if (f.layout == Layout::b10g11r11) {
      uint32_t word;
      std::memcpy(&word, p + at, 4);
      word &= ~((1u << 10) | (1u << 21) | (1u << 31));
      std::memcpy(p + at, &word, 4);
    } else if (f.type == Type::sfloat) {
      p[at + e - 1] &= 0xBF;
    }
  }
}

inline BaseType base_type(const VertexFormat& f) {
  if (f.bits == 64) return BaseType::double_;
  return f.type == Type::uint ? BaseType::uint_ : f.type == Type::sint ? BaseType::int_ : BaseType::float_;
}

// The formats of at most 32-bit components (one register each; the
// double formats have tests of their own).
inline std::vector<VertexFormat> word_formats() {
  std::vector<VertexFormat> out;
  for (const VertexFormat& f : vertex_formats())
    if (f.bits <= 32) out.push_back(f);
  return out;
}

// Whether the prolog converts `f` with ALU code that rounds twice (integer
// to float, times the reciprocal of 2^b - 1): within one f32 ulp there.
inline bool alu_normalized(const VertexFormat& f) {
  return (f.type == Type::unorm || f.type == Type::snorm) &&
         ((f.layout == Layout::plain && f.bits == 32) || (f.layout == Layout::a2b10g10r10 && f.type == Type::snorm));
}

class PrologRun : public VertexRun {
 public:
  // `shader` linked with a prolog of `attrs` (uniforms from its Abi), drawn
  // with each attribute's buffer and clamp; true when the draw ran.
  bool draw(const Shader& main, std::vector<VertexPrologAttribute> attrs, const std::vector<std::vector<uint8_t>>& buffers,
            const std::vector<uint32_t>& clamps, uint32_t count, uint32_t instances = 1, uint32_t base_instance = 0,
            uint32_t first = 0) {
    VertexPrologKey key;
    key.attributes = std::move(attrs);
    set_prolog_uniforms(key, main.abi.vertex);
    auto p = compile_vertex_prolog(key);
    EXPECT_TRUE(p.ok()) << p.error().message();
    if (!p.ok()) return false;
    auto linked = link_vertex(*p, main);
    EXPECT_TRUE(linked.ok()) << linked.error().message();
    if (!linked.ok()) return false;
    const VertexAbi& v = main.abi.vertex;
    std::vector<uint32_t> u(main.abi.uniform_count, 0);
    for (size_t i = 0; i < key.attributes.size(); ++i) {
      const uint32_t loc = key.attributes[i].location;
      const GpuVa va = put(buffers[i]);
      u[v.address_uniform + 2 * loc] = static_cast<uint32_t>(va);
      u[v.address_uniform + 2 * loc + 1] = static_cast<uint32_t>(va >> 32);
      u[v.clamp_uniform + loc] = clamps[i];
    }
    u[v.base_instance_uniform] = base_instance;
    return draw_points(*linked, u, count, instances, first);
  }
};

// A main shader that reads `inputs` (location, declared vec4 / ivec4 /
// uvec4) and writes each out as bits to flat uvec4 output i (interface
// varying i), then the vertex and instance IDs (gl_VertexIndex,
// gl_InstanceIndex) to varying inputs.size(). Compiled once per input list.
inline const Shader& attribute_reader(const std::vector<std::pair<uint32_t, BaseType>>& inputs) {
  static std::map<std::vector<std::pair<uint32_t, BaseType>>, Shader> cache;
  auto it = cache.find(inputs);
  if (it != cache.end()) return it->second;
  std::string decls, body;
  for (size_t i = 0; i < inputs.size(); ++i) {
    const auto [location, t] = inputs[i];
    const char* decl = t == BaseType::float_ ? "vec4" : t == BaseType::int_ ? "ivec4" : "uvec4";
    const std::string a = "a" + std::to_string(i), o = "o" + std::to_string(i);
    decls += "layout(location = " + std::to_string(location) + ") in " + decl + " " + a + ";\n";
    decls += "layout(location = " + std::to_string(i) + ") flat out uvec4 " + o + ";\n";
    body += "  " + o + " = " + (t == BaseType::float_ ? "floatBitsToUint(" + a + ")" : "uvec4(" + a + ")") + ";\n";
  }
  decls += "layout(location = " + std::to_string(inputs.size()) + ") flat out uvec2 ids;\n";
  const std::string src = "#version 450\n" + decls + "void main() {\n  gl_Position = vec4(0.0, 0.0, 0.5, 1.0);\n" + body +
                          "  ids = uvec2(gl_VertexIndex, gl_InstanceIndex);\n}\n";
  auto s = compile_vs(src);
  EXPECT_TRUE(s.ok()) << s.error().message() << "\n" << src;
  return cache.emplace(inputs, s.ok() ? *s : Shader{}).first->second;
}

// The main shaders of one attribute: location 2 read as vec4 / ivec4 /
// uvec4, written out as bits (varying 0), with the vertex and instance IDs
// (varying 1).
inline const Shader& reader(BaseType t) { return attribute_reader({{2, t}}); }

}  // namespace agx::compiler::test
