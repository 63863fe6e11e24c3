// The whole compiled output (main shader and preamble bytes) of a fixed set
// of shaders -- the sample kernels and tests/data/code_bytes/*.comp (the
// ones named gl_* as OpenGL, the others as Vulkan) -- against the bytes
// recorded in tests/data/code_bytes.tsv (NAME, code hex, preamble hex).
// They were recorded when the backend still went through assembly text
// (isa::assemble): the direct encoder gives the same bytes. A deliberate
// change of code generation rewrites the file (each failure prints the
// row it got).
//
// The code does not depend on the host compiler that built ours: every
// call of the lowering that emits instructions as two or more of its
// arguments is sequenced (named locals, in source order), since C++ leaves
// the order of argument evaluation unspecified (g++ evaluates right to
// left, clang left to right). The test runs in the g++ build and in the
// clang sanitizer build against the same rows; wide.comp and
// wide_math.comp cover the int64 / fp64 lowering.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "compiler/compiler.h"
#include "compiler/kernels.h"
#include "util/hex.h"

namespace agx::compiler {
namespace AGX_UNITY_ID {

struct Shader {
  std::string name, source;
  TargetEnv env;
};

std::vector<Shader> shaders() {
  std::vector<Shader> v;
  for (const Kernel& k : sample_kernels()) v.push_back({std::string(k.name), std::string(k.glsl), k.env});
  std::vector<std::filesystem::path> files;
  for (const auto& e : std::filesystem::directory_iterator("tests/data/code_bytes"))
    if (e.path().extension() == ".comp") files.push_back(e.path());
  std::sort(files.begin(), files.end());
  for (const auto& p : files) {
    std::ifstream in(p);
    std::stringstream text;
    text << in.rdbuf();
    const std::string name = p.stem().string();
    v.push_back({name, text.str(), name.starts_with("gl_") ? TargetEnv::opengl : TargetEnv::vulkan});
  }
  return v;
}

using Rows = std::map<std::string, std::pair<std::string, std::string>>;

void read_rows(const char* path, Rows& rows) {
  std::ifstream in(path);
  EXPECT_TRUE(in.good()) << path;
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream fields(line);
    std::string name, code, preamble;
    std::getline(fields, name, '\t');
    std::getline(fields, code, '\t');
    std::getline(fields, preamble, '\t');
    rows[name] = {code, preamble == "-" ? "" : preamble};
  }
}

Rows recorded() {
  Rows rows;
  read_rows("tests/data/code_bytes.tsv", rows);
  return rows;
}

TEST(CodeBytes, EveryShaderCompilesToItsRecordedBytes) {
  const auto want = recorded();
  const auto all = shaders();
  ASSERT_GE(all.size(), 20u);
  EXPECT_EQ(want.size(), all.size()) << "tests/data/code_bytes.tsv has a row per shader";
  for (const Shader& s : all) {
    Options o;
    o.env = s.env;
    auto shader = compile_glsl(s.source, o);
    EXPECT_TRUE(shader.ok()) << s.name << ": " << shader.error().message();
    if (!shader.ok()) continue;
    const std::string code = to_hex(shader->code), preamble = to_hex(shader->preamble);
    auto it = want.find(s.name);
    const bool same = it != want.end() && it->second.first == code && it->second.second == preamble;
    EXPECT_TRUE(same) << "got: " << s.name << '\t' << code << '\t' << (preamble.empty() ? "-" : preamble);
  }
}

}  // namespace
}  // namespace agx::compiler
