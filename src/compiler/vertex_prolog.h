// The vertex prolog (docs/compiler.md, "Vertex prolog"): code compiled from
// a fixed-function key that fetches and converts the vertex attributes into
// r(8 + 4L + c) and falls through into the main vertex shader, linked by
// concatenation as Mesa's non-monolithic ABI does (bminor/mesa-mesa
// src/asahi/compiler/README.md, "ABI"; src/asahi/lib/agx_linker.c).
#pragma once

#include <cstdint>
#include <vector>

#include "compiler/vertex.h"
#include "compiler/vertex_format.h"
#include "util/result.h"

namespace agx::compiler {

struct Shader;

// One attribute the prolog fetches.
struct VertexPrologAttribute {
  uint32_t location = 0;  // 0-15
  VertexFormat format;
  uint32_t stride = 0;    // bytes between elements (0: every vertex reads element 0)
  // Per-instance (Vulkan VK_VERTEX_INPUT_RATE_INSTANCE, GL divisor > 0):
  // element = instance ID / divisor + base instance; divisor 0 (Vulkan
  // only): every instance reads element `base instance`.
  bool per_instance = false;
  uint32_t divisor = 1;
  // The main shader's declared type (VertexAbi::attributes): float formats
  // (norm, scaled, float) need float, integer formats int or uint.
  VertexAttribute::BaseType type = VertexAttribute::BaseType::float_;
};

struct VertexPrologKey {
  std::vector<VertexPrologAttribute> attributes;  // distinct locations
  // The main shader's VertexAbi uniform indices (attribute base addresses,
  // clamps, base instance): Shader::abi.vertex of the main shader.
  uint32_t address_uniform = 0, clamp_uniform = 0, base_instance_uniform = 0;
};
// The key's uniforms from a main shader's VertexAbi.
void set_prolog_uniforms(VertexPrologKey& key, const VertexAbi& abi);

struct VertexProlog {
  std::vector<uint8_t> code;  // no stop: falls through
  uint32_t gprs = 0;          // 16-bit register halves used, r0 included
  uint32_t instructions = 0;
};

Result<VertexProlog> compile_vertex_prolog(const VertexPrologKey& key);
// One program: prolog code then the main shader's; register halves the
// larger of both; instruction and byte counts include the prolog; the main
// shader's preamble and Abi unchanged.
Result<Shader> link_vertex(const VertexProlog& prolog, const Shader& main);

// Unsigned division by a constant as the prolog does it:
// n / d = (t + ((n - t) >> 1)) >> shift with t = mulhi(n, multiplier)
// (d > 1, not a power of two); exposed for the tests.
struct UdivMagic {
  uint32_t multiplier = 0, shift = 0;
};
UdivMagic udiv_magic(uint32_t d);

}  // namespace agx::compiler
