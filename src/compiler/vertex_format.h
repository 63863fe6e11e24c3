// Vertex attribute formats (docs/compiler.md, "Vertex prolog"): the GL and
// Vulkan vertex formats the vertex prolog fetches and converts, with
// Vulkan-style names (VkFormat without the VK_FORMAT_ prefix) for tools.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "util/result.h"

namespace agx::compiler {

struct VertexFormat {
  // How each component's bits become a value (Vulkan "Numeric Format").
  enum class Type : uint8_t { unorm, snorm, uscaled, sscaled, uint, sint, sfloat, ufloat };
  // plain: `components` elements of `bits` each, one after the other;
  // a2b10g10r10: one 32-bit word, R in bits 0-9, G 10-19, B 20-29, A 30-31
  // (bgra: A2R10G10B10, B in bits 0-9); b10g11r11: one 32-bit word of
  // unsigned floats, R 11 bits at 0, G 11 at 11, B 10 at 22.
  enum class Layout : uint8_t { plain, a2b10g10r10, b10g11r11 };
  Type type = Type::sfloat;
  Layout layout = Layout::plain;
  uint8_t bits = 32;       // plain: 8, 16, 32 or 64 (sfloat) per component; packed: 32 (the word)
  uint8_t components = 4;  // 1-4 (packed: 4, b10g11r11: 3)
  bool bgra = false;       // components 0 and 2 swapped in memory (B8G8R8A8, A2R10G10B10)

  bool integer() const { return type == Type::uint || type == Type::sint; }
  bool is_signed() const { return type == Type::snorm || type == Type::sscaled || type == Type::sint; }
  // Bytes a device_load element of this format covers: the component for
  // plain formats of 8-32 bits, the 32-bit word for packed ones and for
  // doubles (loaded as two words each, low first).
  uint32_t element_bytes() const { return layout == Layout::plain && bits <= 32 ? bits / 8u : 4u; }
  // 32-bit registers the components take (a double two).
  uint32_t words() const { return bits == 64 ? 2u * components : components; }
  bool operator==(const VertexFormat&) const = default;
};

// "R8G8B8A8_UNORM", "A2R10G10B10_SNORM_PACK32", "B10G11R11_UFLOAT_PACK32".
std::string vertex_format_name(const VertexFormat& f);
// The inverse; unknown names are errors naming the format.
Result<VertexFormat> parse_vertex_format(std::string_view name);
// Every supported format, in name-table order.
const std::vector<VertexFormat>& vertex_formats();

}  // namespace agx::compiler
