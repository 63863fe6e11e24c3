// Primitive assembly: a run of elements (no restart inside) into points,
// lines and triangles. Vertex orders within strips and fans and the
// provoking vertex follow the Vulkan specification's "Primitive
// Topologies" (the API bminor/mesa-mesa src/asahi/vulkan/hk_cmd_draw.c
// maps straight onto Index List's Primitive): with the last vertex
// provoking, a strip's odd triangles swap their first two vertices instead
// of their last two, so the provoking vertex stays last and the winding
// alternates the same way.
#include "cmdstream/enums.h"
#include "gpu/ppp/ppp_internal.h"

namespace agx::gpu::detail {

namespace cs = cmdstream;

unsigned provoking_rule(const cs::Cull& cull) {
  // cmdbuf.xml "PPP Vertex": 1, 2, 3 name vertices 0, 1, 2. The all-zero
  // word (no Cull update yet) reads as vertex 0 (our choice).
  switch (static_cast<uint32_t>(cull.flat_shading_vertex)) {
    case 2: return 1;
    case 3: return 2;
    default: return 0;
  }
}

Status assemble_run(cs::Primitive topology, uint32_t count, unsigned provoking,
                    const std::function<Status(const Assembled&)>& emit) {
  const bool last = provoking == 2;
  auto line = [&](uint32_t a, uint32_t b) {
    return emit({PrimitiveKind::line, {a, b, 0}, 2, static_cast<uint8_t>(provoking ? 1 : 0)});
  };
  auto triangle = [&](uint32_t a, uint32_t b, uint32_t c) {
    return emit({PrimitiveKind::triangle, {a, b, c}, 3, static_cast<uint8_t>(provoking)});
  };
  // A quad (a, b, c, d), corners in order around its edge, as two
  // triangles sharing the provoking corner: a with the first vertex (or
  // vertex 1) provoking, d with the last (our choice: the split of Mesa's
  // gallium index translation, bminor/mesa-mesa src/gallium/auxiliary/
  // indices/u_indices_gen.py, do_quad and quadstrip; the hardware's own
  // split is not public).
  auto quad = [&](uint32_t a, uint32_t b, uint32_t c, uint32_t d) -> Status {
    if (last) {
      AGX_CHECK(triangle(a, b, d));
      return triangle(b, c, d);
    }
    AGX_CHECK(triangle(a, b, c));
    return triangle(a, c, d);
  };
  switch (topology) {
    case cs::Primitive::kPoints:
      for (uint32_t i = 0; i < count; ++i) AGX_CHECK(emit({PrimitiveKind::point, {i, 0, 0}, 1, 0}));
      return {};
    case cs::Primitive::kLines:
      for (uint32_t i = 0; i + 1 < count; i += 2) AGX_CHECK(line(i, i + 1));
      return {};
    case cs::Primitive::kLineStrip:
    case cs::Primitive::kLineLoop:
      for (uint32_t i = 0; i + 1 < count; ++i) AGX_CHECK(line(i, i + 1));
      if (topology == cs::Primitive::kLineLoop && count >= 2) AGX_CHECK(line(count - 1, 0));
      return {};
    case cs::Primitive::kTriangles:
      for (uint32_t i = 0; i + 2 < count; i += 3) AGX_CHECK(triangle(i, i + 1, i + 2));
      return {};
    case cs::Primitive::kTriangleStrip:
      for (uint32_t i = 0; i + 2 < count; ++i) {
        const uint32_t odd = i & 1;
        if (last) AGX_CHECK(triangle(i + odd, i + 1 - odd, i + 2));
        else AGX_CHECK(triangle(i, i + 1 + odd, i + 2 - odd));
      }
      return {};
    case cs::Primitive::kTriangleFan:
      for (uint32_t i = 0; i + 2 < count; ++i) {
        if (last) AGX_CHECK(triangle(0, i + 1, i + 2));
        else AGX_CHECK(triangle(i + 1, i + 2, 0));
      }
      return {};
    case cs::Primitive::kQuads:
      for (uint32_t i = 0; i + 3 < count; i += 4) AGX_CHECK(quad(i, i + 1, i + 2, i + 3));
      return {};
    case cs::Primitive::kQuadStrip:
      // Quad i of a strip is (2i, 2i+1, 2i+3, 2i+2) around its edge; with
      // the last vertex provoking it starts at 2i+2 so 2i+3 stays last.
      for (uint32_t i = 0; i + 3 < count; i += 2) {
        if (last) AGX_CHECK(quad(i + 2, i, i + 1, i + 3));
        else AGX_CHECK(quad(i, i + 1, i + 3, i + 2));
      }
      return {};
  }
  return Error::decode("Index List Primitive {} names no topology", static_cast<uint32_t>(topology));
}

}  // namespace agx::gpu::detail
