// A census of .shader_test files: which sections and [test] command kinds
// they use, how many parse, and where the others fail (file and line), so
// the runner's coverage of piglit's vertex/fragment files is measured.
// Model only: `agx shader-test --census DIR` prints it.
#pragma once

#include <cstddef>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "shadertest/shader_test.h"

namespace agx::shadertest {

// The kind a command counts as: "uniform", "draw rect ortho", "relative
// probe rect rgba", "enable", "clear color", ...
std::string command_kind(const CommandBody& body);
std::string graphics_kind(const GraphicsCommand& c);

// What a file is by its section headers (before parsing).
enum class FileClass { compute, vertex_fragment, geometry_tessellation, other };
FileClass classify_file(std::string_view text);

struct Census {
  size_t vertex_fragment_files = 0;        // counted: no compute, geometry or tessellation stage
  size_t geometry_tessellation_files = 0;  // SKIP "geometry/tessellation shaders are not supported"
  size_t other_files = 0;                  // compute files, or none of the above: not counted
  size_t parsed = 0;                       // vertex/fragment files that parse
  std::map<std::string, size_t> sections;  // section header -> files using it
  std::map<std::string, size_t> commands;  // command kind -> uses
  std::vector<std::string> failures;       // "PATH: line N: ..." of the files that do not parse
  // With `compile`: the files that parse are lowered and given to glslang
  // (graphics_program.h); `compiled` counts those whose every stage became
  // SPIR-V, `compile_failures` the others by kind (glslang's first error
  // without its line, or the lowering's reason).
  size_t compiled = 0;
  std::map<std::string, size_t> compile_failures;
  void add(const std::string& path, std::string_view text, bool compile = false);
};

}  // namespace agx::shadertest
