// The [test] commands of piglit's vertex/fragment files, as typed commands:
// draws, depth clears, framebuffer probes and the fixed-function GL state
// shader_runner sets. Forms and meanings from X11Libre/mirror.fdo.piglit
// tests/shaders/shader_runner.c (piglit_display); parsing is pure.
//
// GL enum operands (modes, capabilities, faces) are kept as their names
// ("GL_TRIANGLES"), the values glEnable & co would be given: the runtime's
// graphics state maps them when draws run.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "util/result.h"

namespace agx::shadertest {

// draw rect [ortho] [patch] X Y W H, draw rect tex X Y W H TX TY TW TH,
// draw instanced rect [ortho] [patch] N X Y W H. `ortho`: X Y W H in window
// pixels (shader_runner maps them to -1 + 2 * X / width ...); otherwise in
// clip coordinates. `patch`: drawn as a 4-vertex GL_PATCHES primitive.
struct CmdDrawRect {
  bool ortho = false, patch = false, tex = false;
  uint32_t instances = 1;        // draw instanced rect: its count
  bool instanced = false;
  std::array<float, 4> rect{};   // x, y, w, h
  std::array<float, 4> tex_rect{};  // tex: tx, ty, tw, th
};
// draw arrays [instanced] MODE FIRST COUNT [INSTANCES],
// draw arrays instanced base MODE FIRST COUNT INSTANCES BASE_INSTANCE,
// draw elements MODE COUNT BASE_VERTEX, multidraw arrays MODE N FIRST... COUNT...
struct CmdDrawArrays {
  enum class Kind { arrays, instanced, instanced_base, elements, multi } kind = Kind::arrays;
  std::string mode;              // GL_TRIANGLES, GL_POINTS, ...
  std::vector<int32_t> first{0}; // one per draw (multidraw: several)
  std::vector<int32_t> count{0};
  uint32_t instances = 1, base_instance = 0;
  int32_t base_vertex = 0;       // elements
};
struct CmdClearDepth { float depth = 1.0f; };
// probe rect rgb|rgba (X, Y, W, H) (R, G, B[, A]) in pixels;
// relative probe rgb|rgba (X, Y) (...) and relative probe rect rgb|rgba
// [int] (X, Y, W, H) (...) as fractions of the read framebuffer's size.
struct CmdProbeRegion {
  bool relative = false, rect = false, alpha = false, integer = false;
  std::array<float, 4> where{};  // x, y (and w, h for rect)
  std::array<float, 4> rgba{0, 0, 0, 1};
  std::array<int32_t, 4> rgba_int{};  // relative probe rect rgba int
};
struct CmdProbeDepth { int x = 0, y = 0; float depth = 0; };
struct CmdProbeWarnAll { std::array<float, 4> rgba{}; };  // probe warn all rgba
// Fixed-function GL state, by what shader_runner calls:
//   enable|disable CAP, depthfunc FUNC, polygon mode FACE MODE, provoking
//   vertex first|last, hint TARGET MODE, shade model smooth|flat,
//   active shader program STAGE, newlist MODE / endlist / calllist /
//   deletelist, program binary save restore, blend barrier, fbfetch barrier,
//   viewport swizzle N X Y Z W, viewport indexed N X Y W H,
//   patch parameter ..., blit color|depth|stencil linear|nearest,
//   fb [draw|read] tex slice TARGET UNIT LEVEL LAYER, fb [draw|read] tex
//   layered UNIT, fb [draw|read] ms FORMAT W H SAMPLES (the layered and
//   multisampled attachments; `fb tex 2d` and `fb winsys` are CmdFbTex2d).
struct CmdGlState {
  enum class Kind {
    enable, disable, depth_func, polygon_mode, provoking_vertex, hint, shade_model,
    active_shader_program, display_list, program_binary, barrier, viewport_swizzle,
    viewport_indexed, patch_parameter, blit, fb_tex_slice, fb_tex_layered, fb_ms
  } kind = Kind::enable;
  std::vector<std::string> args;  // the operands, as written (GL enum names, numbers); fb: draw|read first if given
};
// Vertex data given without arrays: ortho / frustum projections (compat
// profile matrices), clip plane N A B C D, color R G B A, texcoord N (S, T, R, Q),
// light N NAME TYPE VALUES, parameter TARGET N (X, Y, Z, W).
struct CmdFixedFunction {
  enum class Kind { ortho, frustum, clip_plane, color, texcoord, light, parameter } kind = Kind::ortho;
  int index = 0;                 // clip plane / texcoord unit / light / parameter index
  std::string name;              // light's parameter name, parameter's target (local_vp ...)
  std::vector<double> values;    // ortho: empty (the window) or L R B T
};
// Queries answered from the program: active uniform NAME PNAME VALUE,
// verify program_interface_query IFACE NAME PNAME VALUE, verify query_object
// PNAME N, subuniform STAGE NAME FUNCTION, vertex attrib handle ...
struct CmdProgramQuery {
  enum class Kind { active_uniform, interface_query, query_object, subuniform, vertex_attrib } kind =
      Kind::active_uniform;
  std::vector<std::string> args;
};
// Transform feedback: xfb buffer object N SIZE, xfb draw arrays MODE FIRST
// COUNT, probe xfb buffer float|double N INDEX VALUE.
struct CmdXfb {
  enum class Kind { buffer_object, draw_arrays, probe } kind = Kind::buffer_object;
  std::vector<std::string> args;
};
// texture checkerboard UNIT LEVEL (W, H) (C0) (C1);
// texture quads UNIT LEVEL (W, H) (X, Y) (C0) (C1) (C2) (C3).
struct CmdTexturePattern {
  bool quads = false;
  int unit = 0, level = 0;
  uint32_t width_px = 0, height_px = 0;
  int32_t split_x = 0, split_y = 0;  // quads: where the four colours meet
  std::vector<std::array<float, 4>> colors;
};

using GraphicsCommand =
    std::variant<CmdDrawRect, CmdDrawArrays, CmdClearDepth, CmdProbeRegion, CmdProbeDepth, CmdProbeWarnAll,
                 CmdGlState, CmdFixedFunction, CmdProgramQuery, CmdXfb, CmdTexturePattern>;

// One [test] line of a graphics command, or nullopt when the line is not one
// (the compute commands' parser tries it). Errors name what was wrong.
std::optional<Result<GraphicsCommand>> parse_graphics_command(std::string_view line);

// The command's kind as the census counts it ("draw rect ortho", "relative
// probe rect rgba", "enable", ...).
std::string graphics_kind(const GraphicsCommand& c);

}  // namespace agx::shadertest
