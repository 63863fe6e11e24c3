// The vertex stage's ABI (docs/compiler.md, "Vertex shaders"): Mesa's
// non-monolithic vertex ABI (bminor/mesa-mesa src/asahi/compiler/README.md,
// section "ABI"; src/asahi/lib/agx_abi.h). Included by compiler.h.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "varyings/varyings.h"

namespace agx::compiler {

// Preloaded registers of a vertex shader, in 32-bit registers (agx_abi.h:
// AGX_ABI_VIN_VERTEX_ID = 2 * 5, AGX_ABI_VIN_INSTANCE_ID = 2 * 6, and
// AGX_ABI_VIN_ATTRIB(i) = 2 * (8 + i) in 16-bit halves).
inline constexpr unsigned kVertexIdRegister = 5;    // index + bias, or first vertex + i
inline constexpr unsigned kInstanceIdRegister = 6;  // 0-based, no base instance
inline constexpr unsigned kFirstAttributeRegister = 8;
// Attribute locations a vertex shader may read (Mesa's AGX_MAX_ATTRIBS).
inline constexpr unsigned kMaxVertexAttributes = 16;
// The 32-bit register of component `comp` of the attribute at `location`.
inline constexpr unsigned attribute_register(unsigned location, unsigned comp) {
  return kFirstAttributeRegister + 4 * location + comp;
}

// What a vertex shader's main part reads and writes.
// A double attribute (double_, GL_ARB_vertex_attrib_64bit) takes two
// 32-bit registers per component, low word first: a double or dvec2 at
// location L is r(8 + 4L) .. r(8 + 4L + 3); a dvec3 or dvec4 goes on into
// location L + 1's registers (it takes two locations, as in GL), which no
// other attribute may use.
struct VertexAttribute {
  enum class BaseType : uint8_t { float_, int_, uint_, double_ };
  uint32_t location = 0;
  uint32_t components = 0;  // highest component read + 1 (1..4; doubles for double_)
  BaseType type = BaseType::float_;
};
const char* base_type_name(VertexAttribute::BaseType t);  // "float", "int", "uint", "double"

struct VertexAbi {
  std::vector<VertexAttribute> attributes;  // by location, the ones declared
  uint32_t attribute_slots = 0;  // n: highest location declared + 1
  // The prolog's uniforms (32-bit u<N>): attribute i's base address pair
  // at address_uniform + 2i, its clamp at clamp_uniform + i, then base
  // vertex, base instance, draw ID (low 16 bits).
  uint32_t address_uniform = 0, clamp_uniform = 0;
  uint32_t base_vertex_uniform = 0, base_instance_uniform = 0, draw_id_uniform = 0;
  uint32_t first_shader_uniform = 0;  // the main shader's own uniforms from here (even)
  // What the shader writes and where: the interface laid out by
  // varyings::layout_vertex_outputs and its hardware words.
  varyings::Interface outputs;
  varyings::VertexOutputLayout layout;
  // The Location of each entry of outputs.varyings.
  std::vector<uint32_t> output_locations;
};

}  // namespace agx::compiler
