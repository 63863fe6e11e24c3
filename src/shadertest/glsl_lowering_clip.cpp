// User clip planes in the lowering (glsl_lowering.h): the code the
// appended vertex `main` runs after the shader's own to give the hardware
// its clip distances. The AGX has no clip-plane enable: it clips against
// every clip distance the vertex outputs hold (Output Select's plane bits,
// bminor/mesa-mesa src/asahi/genxml/cmdbuf.xml), so GL's enables become
// values the runner writes as uniforms at each draw (graphics_session.cpp):
// - gl_ClipVertex (GLSL 1.20 section 7.1): distance i = dot(plane i,
//   clip vertex), the rule of Mesa's nir_lower_clip_vs
//   (src/compiler/nir/nir_lower_clip.c), for the 8 planes of
//   piglit_ClipPlane, which holds each enabled plane in eye coordinates and
//   zeros for a disabled one (distance 0: inside, never clipped);
// - gl_ClipDistance written by the shader: the distances of the planes
//   piglit_ClipDistanceEnable's bits leave off are set to 0 (GL 3.0
//   section 2.17: a disabled plane does not clip);
// - neither, in a file that enables clip planes: gl_Position is the clip
//   vertex (GLSL 1.30 section 7.1: "the coordinate written to gl_Position
//   is used for comparison against the user clip planes").
#include <fmt/format.h>

#include <algorithm>
#include <regex>

#include "shadertest/glsl_lowering.h"
#include "shadertest/glsl_lowering_internal.h"

namespace agx::shadertest {

namespace lowering {

namespace {

// The distances of the 8 planes from `vertex`.
std::string plane_distances(const char* prec, std::string_view vertex) {
  std::string s = fmt::format("uniform {}vec4 piglit_ClipPlane[{}];\n", prec, kClipPlanes);
  std::string body;
  for (unsigned i = 0; i < kClipPlanes; ++i)
    body += fmt::format(" gl_ClipDistance[{0}] = dot(piglit_ClipPlane[{0}], {1});", i, vertex);
  return s + body;
}

}  // namespace

std::optional<unsigned> implicit_clip_distances(std::string_view text) {
  const std::string s = without_comments(text);
  static const std::regex kRedeclared(R"(\bfloat\s+gl_ClipDistance\s*\[)");
  if (std::regex_search(s, kRedeclared)) return std::nullopt;
  static const std::regex kIndex(R"(\bgl_ClipDistance\s*\[\s*([0-9]+)u?\s*\])");
  unsigned n = 0;
  for (auto it = std::sregex_iterator(s.begin(), s.end(), kIndex); it != std::sregex_iterator(); ++it)
    n = std::max(n, unsigned(std::stoul((*it)[1].str())) + 1);
  return std::min(n, kClipPlanes);
}

std::string Lowerer::clip_main(std::string_view body) const {
  if (stage_ != Stage::vertex) return "";
  const char* prec = es_ ? "highp " : "";
  std::string decl_and_body;
  if (used_.count("gl_ClipVertex")) {
    decl_and_body = plane_distances(prec, "piglit_ClipVertex");
  } else if (clip_distance_used_) {
    decl_and_body = fmt::format("uniform {}uint piglit_ClipDistanceEnable;\n", prec);
    const std::string off = "(piglit_ClipDistanceEnable & (1u << {0})) == 0u";
    if (auto n = implicit_clip_distances(body)) {
      for (unsigned i = 0; i < *n; ++i)
        decl_and_body += fmt::format(fmt::runtime(" if (" + off + ") gl_ClipDistance[{0}] = 0.0;"), i);
    } else {
      decl_and_body += fmt::format(
          fmt::runtime(" for (int i = 0; i < gl_ClipDistance.length(); ++i) if (" + off + ") gl_ClipDistance[i] = 0.0;"),
          "uint(i)");
    }
  } else if (state_.user_clip_planes) {
    decl_and_body = plane_distances(prec, "gl_Position");
  } else {
    return kClipZMain;
  }
  const size_t split = decl_and_body.find('\n') + 1;
  return fmt::format("\n{}void main() {{ piglit_main();{} gl_Position.z = (gl_Position.z + gl_Position.w) * 0.5; }}\n",
                     decl_and_body.substr(0, split), decl_and_body.substr(split));
}

}  // namespace lowering

}  // namespace agx::shadertest
