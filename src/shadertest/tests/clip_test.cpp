// User clip planes end to end: `clip plane`, `enable`/`disable
// GL_CLIP_PLANEi` (and GL_CLIP_DISTANCEi) with gl_ClipVertex, with
// gl_ClipDistance and with neither (gl_Position is the clip vertex),
// through the lowering's uniforms and the hardware's clip distances.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include "shadertest/graphics_session.h"
#include "shadertest/runner.h"

namespace agx::shadertest {
namespace AGX_UNITY_ID {

const std::string kWhite = "[fragment shader]\nvoid main() { gl_FragColor = vec4(1.0); }\n";

std::string file(const std::string& glsl, const std::string& vertex_main, const std::string& test) {
  return "[require]\nGLSL >= " + glsl + "\n[vertex shader]\nvoid main() {\n" + vertex_main + "\n}\n" + kWhite +
         "[test]\n" + test;
}

// Probes of the 250x250 window: (x, y) from its lower left.
std::string white(int x, int y) { return fmt::format("probe rgba {} {} 1.0 1.0 1.0 1.0\n", x, y); }
std::string black(int x, int y) { return fmt::format("probe rgba {} {} 0.0 0.0 0.0 0.0\n", x, y); }

TEST(Clip, ClipVertexAgainstThePlanesThatAreEnabled) {
  const std::string draw = "clear\ndraw rect -1 -1 2 2\n";
  // Plane 0 keeps x >= 0, plane 1 (set, never enabled) would keep y >= 0.
  auto v = run_shader_test(file("1.20", "gl_Position = gl_Vertex; gl_ClipVertex = gl_Vertex;",
                                "clip plane 0 1 0 0 0\nclip plane 1 0 1 0 0\nenable GL_CLIP_PLANE0\n" + draw +
                                    black(50, 50) + white(200, 50) + white(200, 200) +
                                    "disable GL_CLIP_PLANE0\n" + draw + white(50, 50)),
                           {});
  EXPECT_EQ(v.outcome, Outcome::pass) << v.detail;
  // A plane enabled before it is set clips by the plane in force at the draw.
  v = run_shader_test(file("1.20", "gl_Position = gl_Vertex; gl_ClipVertex = gl_Vertex;",
                           "enable GL_CLIP_PLANE3\nclip plane 3 0 -1 0 0\n" + draw + white(50, 50) + black(50, 200)),
                      {});
  EXPECT_EQ(v.outcome, Outcome::pass) << v.detail;
}

TEST(Clip, ClipDistancesOfDisabledPlanesDoNotClip) {
  const std::string vs = "gl_Position = gl_Vertex; gl_ClipDistance[0] = gl_Vertex.x; gl_ClipDistance[1] = -gl_Vertex.y;";
  const std::string draw = "clear\ndraw rect -1 -1 2 2\n";
  auto v = run_shader_test(file("1.30", vs,
                                draw + white(50, 200) + "enable GL_CLIP_PLANE1\n" + draw + white(50, 50) +
                                    black(50, 200) + "enable GL_CLIP_DISTANCE0\ndisable GL_CLIP_PLANE1\n" + draw +
                                    black(50, 50) + white(200, 200)),
                           {});
  EXPECT_EQ(v.outcome, Outcome::pass) << v.detail;
}

TEST(Clip, WithoutClipOutputsThePositionIsClipped) {
  auto v = run_shader_test(file("1.30", "gl_Position = gl_Vertex;",
                                "clip plane 2 -1 0 0 0\nenable GL_CLIP_PLANE2\ndraw rect -1 -1 2 2\n" + white(50, 50) +
                                    black(200, 50)),
                           {});
  EXPECT_EQ(v.outcome, Outcome::pass) << v.detail;
}

TEST(Clip, PlaneNames) {
  EXPECT_EQ(clip_plane_enum("GL_CLIP_PLANE0"), 0u);
  EXPECT_EQ(clip_plane_enum("GL_CLIP_PLANE7"), 7u);
  EXPECT_EQ(clip_plane_enum("GL_CLIP_DISTANCE5"), 5u);
  EXPECT_FALSE(clip_plane_enum("GL_CLIP_PLANE8").has_value());
  EXPECT_FALSE(clip_plane_enum("GL_CLIP_PLANE").has_value());
  EXPECT_FALSE(clip_plane_enum("GL_CLIP_PLANE10").has_value());
  // A ninth plane is a capability the runner does not have.
  auto v = run_shader_test(file("1.30", "gl_Position = gl_Vertex;", "enable GL_CLIP_PLANE8\n"), {});
  EXPECT_EQ(v.outcome, Outcome::skip);
  EXPECT_NE(v.detail.find("GL_CLIP_PLANE8"), std::string::npos) << v.detail;
}

}  // namespace
}  // namespace agx::shadertest
