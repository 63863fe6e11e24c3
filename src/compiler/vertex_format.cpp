// Vertex format names and the table of supported formats: the vertex
// formats of Vulkan's VkFormat list (KhronosGroup/Vulkan-Docs,
// chapters/formats.adoc "Required Format Support", vertex buffer column)
// and OpenGL's glVertexAttribPointer types (8/16/32-bit integers, half,
// float, the packed 2_10_10_10 and 10F_11F_11F_REV ones) and
// glVertexAttribLPointer's GL_DOUBLE (ARB_vertex_attrib_64bit: R64 ..
// R64G64B64A64_SFLOAT, also Vulkan's), named as VkFormat.
#include "compiler/vertex_format.h"

#include <array>

namespace agx::compiler {
namespace {

using Type = VertexFormat::Type;
using Layout = VertexFormat::Layout;

// Vulkan's numeric-format suffixes, by Type.
constexpr std::array<std::string_view, 8> kTypeNames{"UNORM", "SNORM", "USCALED", "SSCALED",
                                                     "UINT",  "SINT",  "SFLOAT",  "UFLOAT"};

std::vector<VertexFormat> build_table() {
  std::vector<VertexFormat> out;
  for (uint8_t bits : {8, 16, 32})
    for (uint8_t n = 1; n <= 4; ++n)
      for (unsigned t = 0; t < 7; ++t) {
        const Type type = static_cast<Type>(t);
        if (bits == 8 && type == Type::sfloat) continue;
        out.push_back({type, Layout::plain, bits, n, false});
        if (bits == 8 && n >= 3) out.push_back({type, Layout::plain, bits, n, true});
      }
  for (bool bgra : {false, true})
    for (unsigned t = 0; t < 6; ++t) out.push_back({static_cast<Type>(t), Layout::a2b10g10r10, 32, 4, bgra});
  out.push_back({Type::ufloat, Layout::b10g11r11, 32, 3, false});
  for (uint8_t n = 1; n <= 4; ++n) out.push_back({Type::sfloat, Layout::plain, 64, n, false});
  return out;
}

}  // namespace

const std::vector<VertexFormat>& vertex_formats() {
  static const std::vector<VertexFormat> table = build_table();
  return table;
}

std::string vertex_format_name(const VertexFormat& f) {
  const std::string_view type = kTypeNames[static_cast<size_t>(f.type)];
  if (f.layout == Layout::b10g11r11) return "B10G11R11_UFLOAT_PACK32";
  if (f.layout == Layout::a2b10g10r10)
    return std::string(f.bgra ? "A2R10G10B10_" : "A2B10G10R10_") + std::string(type) + "_PACK32";
  std::string name;
  const char* order = f.bgra ? "BGRA" : "RGBA";
  for (unsigned c = 0; c < f.components; ++c) name += order[c] + std::to_string(f.bits);
  return name + "_" + std::string(type);
}

Result<VertexFormat> parse_vertex_format(std::string_view name) {
  for (const VertexFormat& f : vertex_formats())
    if (vertex_format_name(f) == name) return f;
  return Error::invalid_argument("unknown vertex format '{}' (Vulkan-style names, e.g. R8G8B8A8_UNORM)", name);
}

}  // namespace agx::compiler
