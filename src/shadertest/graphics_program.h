// A vertex/fragment file's program: each stage's GLSL lowered
// (glsl_lowering.h) and turned into OpenGL SPIR-V by glslang, then compiled
// by the compiler for its stage; and the verdict a file gets before draws
// run (link results, files without draws).
#pragma once

#include <cstdint>
#include <map>
#include <span>
#include <optional>
#include <variant>
#include <string>
#include <vector>

#include "shadertest/glsl_lowering.h"
#include "shadertest/runner.h"
#include "shadertest/shader_test.h"
#include "util/result.h"

namespace agx::shadertest {

// shader_runner's [vertex shader passthrough]: gl_Position = piglit_vertex
// (X11Libre/mirror.fdo.piglit tests/shaders/shader_runner.c
// passthrough_vertex_shader_source; written here for GLSL 4.50, with the
// lowering's GL clip volume: z stored as (z + w) / 2, glsl_lowering.h).
inline constexpr const char* kPassthroughVertexShader =
    "#version 450\nlayout(location = 0) in vec4 piglit_vertex;\n"
    "void main() { gl_Position = piglit_vertex; gl_Position.z = (gl_Position.z + gl_Position.w) * 0.5; }\n";

struct StageProgram {
  compiler::Stage stage = compiler::Stage::vertex;
  LoweredShader lowered;
  std::vector<uint32_t> spirv;
};

struct GraphicsProgram {
  std::vector<StageProgram> stages;  // vertex first, then fragment
};

// Why a program did not become SPIR-V: the lowering refused it
// (unsupported), glslang reported an error (the GLSL is invalid, or uses a
// compatibility feature the lowering leaves), or the file has more than one
// shader object of a stage (GL links them; glslang's SPIR-V path takes one).
struct ProgramError {
  // link: the stages break a GL linking rule check_linking makes.
  enum class Kind { lowering, glslang, several_units, link } kind = Kind::glslang;
  std::string message;
};

// The GL linking rules between the stages the runner checks (the others
// are not made): GLSL 1.30 section 4.3.7, the colour built-ins a program
// statically uses (gl_FrontColor, gl_BackColor and gl_Color; the secondary
// ones likewise) take one interpolation qualifier, or none.
std::optional<std::string> check_linking(const GraphicsProgram& program);

// Lowers and runs glslang on the file's vertex and fragment sections.
std::variant<GraphicsProgram, ProgramError> build_graphics_program(const ShaderTest& test);

// Runs a vertex/fragment file: glslang's rejection PASSes a `link error`
// file and FAILs another (SKIP when it names a compatibility built-in the
// lowering leaves: the feature is missing, the file is not wrong); a stage
// the compiler cannot compile SKIPs with the compiler's message; a file
// whose [test] only says `link success` PASSes once both stages compile;
// the others run their commands in a GraphicsSession (graphics_session.h):
// a failed probe FAILs, a command the runner cannot do yet SKIPs naming
// its line (FAIL when a probe failed before it).
Verdict run_graphics_test(const ShaderTest& test, const RunOptions& options = {});

// What a stage's SPIR-V says of its interface: the inputs by name and
// Location (glGetAttribLocation of the linked program, for a vertex
// shader), and the loose uniforms GLSL initializes (`uniform bool b =
// true;`: the value GL gives them at link time), as 32-bit words,
// components in order, a matrix column after column.
struct StageInterface {
  std::map<std::string, uint32_t> inputs;
  std::map<std::string, std::vector<uint32_t>> uniform_initializers;
};
StageInterface stage_interface(std::span<const uint32_t> spirv);

// The first error line of a glslang log, without file and line: what the
// census groups failures by ("'gl_LightSource' : undeclared identifier").
std::string glslang_error_kind(const std::string& message);

}  // namespace agx::shadertest
