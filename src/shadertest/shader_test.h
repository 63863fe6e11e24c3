// piglit's .shader_test format as a model: the sections of a file and the
// typed commands of its [test] section, as far as compute tests use them.
//
// The format is piglit's shader_runner input (X11Libre/mirror.fdo.piglit
// tests/shaders/shader_runner.c): a [require] section (GLSL/GL versions,
// extensions, SPIRV), shader sections ([compute shader], [compute shader
// spirv]) and a [test] section, one command per line. Parsing is pure: no
// GPU, no compiler; `parse_shader_test` returns an Error naming the line of
// the first thing it does not understand.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <map>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "shadertest/glsl_value.h"
#include "shadertest/graphics_commands.h"
#include "shadertest/vertex_data.h"
#include "util/result.h"

namespace agx::shadertest {

// "GLSL >= 4.30" is {api=glsl, es=false, cmp=ge, num=430};
// "GL ES >= 3.1" is {api=gl, es=true, cmp=ge, num=31}.
enum class Api { gl, glsl };
struct VersionRequirement {
  Api api = Api::glsl;
  bool es = false;
  Compare cmp = Compare::ge;
  unsigned num = 0;  // GLSL: major*100+minor; GL: major*10+minor
};

// "INT GL_MAX_COMPUTE_SHARED_MEMORY_SIZE >= 32768" (glGetIntegerv) or one of
// the limits shader_runner reads at start-up, "GL_MAX_VERTEX_ATTRIBS >= 16".
struct LimitRequirement {
  bool int_query = false;  // written with "INT"
  std::string name;
  Compare cmp = Compare::ge;
  int64_t value = 0;
};

struct Requirements {
  std::vector<VersionRequirement> versions;
  std::vector<std::string> extensions;          // must be supported
  std::vector<std::string> absent_extensions;   // "!GL_ARB_x": must not be
  std::vector<LimitRequirement> limits;
  std::optional<std::array<uint32_t, 2>> window_px;  // "SIZE W H": the window's size
  bool depthbuffer = false;                     // a depth buffer on the window
  bool sso = false;                             // "SSO ENABLED"
  bool separable_program = false;               // "SEPARABLE PROGRAM ENABLED"
  bool ignore_missing_uniforms = false;         // `uniform` of an inactive name is not an error
  std::vector<std::string> other;               // "rlimit N": kept verbatim, not honoured
  enum class Spirv { no, yes, only } spirv = Spirv::no;
  bool spirv_never = false;                     // "SPIRV NO": not for SPIR-V mode
  std::optional<unsigned> glsl_num() const;     // the GLSL version asked for
  bool glsl_es() const;
};

// vertex_passthrough: [vertex shader passthrough], shader_runner's built-in
// `gl_Position = piglit_vertex` shader (the section has no text).
enum class ShaderKind { compute_glsl, compute_spirv, vertex_glsl, vertex_passthrough, fragment_glsl, other };
bool is_compute(ShaderKind k);
struct ShaderSection {
  ShaderKind kind = ShaderKind::compute_glsl;
  std::string header;      // "compute shader", "vertex shader", ...
  std::string text;        // the section's lines, verbatim
  unsigned first_line = 0; // 1-based line of the first text line
};

// ---- [test] commands -------------------------------------------------------

struct CmdUniform {            // uniform TYPE NAME VALUES
  GlslType type;
  std::string name;
  std::vector<uint8_t> data;   // the values, packed as the type's components
};
struct CmdUniformHandle {      // uniform handle NAME UNIT (ARB_bindless_texture)
  std::string name;
  int unit = 0;
};
struct CmdSsbo { int index = 0; uint32_t size_B = 0; };         // ssbo N SIZE
struct CmdSsboSubdata {        // ssbo N subdata TYPE OFFSET VALUE
  int index = 0;
  uint64_t offset_B = 0;
  std::vector<uint8_t> data;
};
struct CmdAtomicCounters { uint32_t count = 0; };               // atomic counters N
struct CmdAtomicCounterBuffer { uint32_t binding = 0, count = 0; };
struct CmdAtomicCounterSet { uint32_t binding = 0, index = 0, value = 0; };
struct CmdCompute { uint32_t x = 1, y = 1, z = 1; };            // compute X Y Z
struct CmdComputeGroupSize {   // compute group size X Y Z LX LY LZ
  std::array<uint32_t, 3> groups{}, local{};
};
enum class ProbeType { uint32, int32, uint64, int64, float32, float64 };
struct CmdProbeSsbo {          // probe ssbo TYPE N OFFSET OP VALUE
  ProbeType type = ProbeType::uint32;
  int index = 0;
  uint64_t offset_B = 0;
  Compare cmp = Compare::eq;
  uint64_t bits = 0;           // the reference, as the type's bits
};
struct CmdProbeAtomicCounter { // probe atomic counter [buffer B] N OP VALUE
  bool by_buffer = false;      // "buffer B OFFSET": OFFSET in bytes
  uint32_t binding = 0;
  uint32_t index = 0;          // counter index, or byte offset with by_buffer
  Compare cmp = Compare::eq;
  uint32_t value = 0;
};
struct CmdTextureRgbw {        // texture rgbw UNIT (W, H) [FORMAT]
  int unit = 0;
  uint32_t width_px = 0, height_px = 0;
  std::string format = "GL_RGBA";
};
struct CmdTextureInteger {     // texture integer UNIT (W, H) (B, A) FORMAT
  int unit = 0;
  uint32_t width_px = 0, height_px = 0;
  int b = 0, a = 0;
  std::string format;
};
struct CmdTextureMiptree { int unit = 0; };                     // 8x8, 4 levels
// Textures of other shapes (shader_runner.c's forms):
//   texture rgbw 1D UNIT | texture rgbw 3D UNIT (piglit's fixed 4-texel 1D
//   and 2x2x2 textures), texture rgbw 2DArray UNIT (W, H, L), texture rgbw
//   1DArray UNIT (W, L), texture junk 2DArray UNIT (W, H, L),
//   texture shadow2D|shadowRect UNIT (W, H), shadow1D UNIT (W),
//   shadow1DArray UNIT (W, L), shadow2DArray UNIT (W, H, L),
//   texture storage UNIT TARGET FORMAT (LEVELS W [H [D]]).
struct CmdTextureShaped {
  enum class Kind { rgbw, junk, shadow, storage } kind = Kind::rgbw;
  std::string target;  // 1D, 1DArray, 2D, 2DArray, 3D, Cube, CubeArray, Rect
  int unit = 0;
  uint32_t width_px = 1, height_px = 1, depth = 1;  // depth: layers, slices (storage: its D)
  uint32_t levels = 1;
  std::string format = "GL_RGBA";
};
struct CmdTexParameter { std::string target, name; std::vector<std::string> values; };
struct CmdImageTexture {       // [resident] image texture UNIT FORMAT
  int unit = 0;
  std::string format;
  bool resident = false;
};
// fb [draw|read] tex 2d N... (color attachments 0.., -1 for none) or
// fb [draw|read] winsys.
struct CmdFbTex2d {
  enum class Target { both, draw, read } target = Target::both;
  bool winsys = false;
  std::vector<int> units;
};
struct CmdClearColor { std::array<float, 4> rgba{}; };
struct CmdClear {};
struct CmdProbeRgba {          // probe rgb X Y R G B / probe rgba X Y R G B A
  int x = 0, y = 0;
  bool alpha = false;
  std::array<float, 4> rgba{};
};
struct CmdProbeAll { bool alpha = false; std::array<float, 4> rgba{}; };
struct CmdTolerance { std::array<float, 4> values{}; };
struct CmdMemoryBarrier { std::string bits; };
struct CmdLinkError {};
struct CmdLinkSuccess {};
struct CmdVerifyProgramQuery { std::string name; std::string value; };
// shader_runner's block_data, which `uniform` uses for members of uniform
// blocks: "ubo array index N" / "block array index N", "block binding N",
// "block offset N", "block matrix stride N", "block row major N".
enum class BlockField { array_index, binding, offset, matrix_stride, row_major };
struct CmdBlockIndex { BlockField field = BlockField::array_index; std::string what; int value = 0; };
// A command of vertex/fragment files (graphics_commands.h): draws, depth
// clears, framebuffer probes, fixed-function state.
struct CmdGraphics { GraphicsCommand command; };

using CommandBody = std::variant<
    CmdUniform, CmdUniformHandle, CmdSsbo, CmdSsboSubdata, CmdAtomicCounters,
    CmdAtomicCounterBuffer, CmdAtomicCounterSet, CmdCompute, CmdComputeGroupSize,
    CmdProbeSsbo, CmdProbeAtomicCounter, CmdTextureRgbw, CmdTextureInteger,
    CmdTextureMiptree, CmdTextureShaped, CmdTexParameter, CmdImageTexture, CmdFbTex2d, CmdClearColor,
    CmdClear, CmdProbeRgba, CmdProbeAll, CmdTolerance, CmdMemoryBarrier, CmdLinkError,
    CmdLinkSuccess, CmdVerifyProgramQuery, CmdBlockIndex, CmdGraphics>;

struct Command {
  unsigned line = 0;     // 1-based line in the file
  std::string text;      // the line, trimmed
  CommandBody body;
};

struct ShaderTest {
  Requirements require;
  std::vector<ShaderSection> shaders;
  // [compute shader specializations]: `uint ID VALUE` / `float ID VALUE`
  // lines (piglit's shader_runner.c process_specialization), as the 32
  // bits glSpecializeShader gets, by SpecId. Applied to the SPIR-V section.
  std::map<uint32_t, uint32_t> compute_specializations;
  std::optional<VertexData> vertex_data;  // [vertex data]
  std::vector<Command> commands;
  // Unknown sections are an error at parse time; the stages the runner
  // cannot run (geometry, tessellation, ARB programs, SPIR-V of graphics
  // stages) are kept as ShaderKind::other for the reason of a SKIP.
  bool has_non_compute_stage() const;
  bool has_stage(ShaderKind k) const;
};

Result<ShaderTest> parse_shader_test(std::string_view text);

// The names of a file's section headers, in order ("require", "vertex
// shader", ...), as parse_shader_test sees them; for files it may reject.
std::vector<std::string> section_headers(std::string_view text);

// One [test] line (without comments); `line` is used in the error.
Result<CommandBody> parse_command(std::string_view text, unsigned line);

}  // namespace agx::shadertest
