// Running one piglit .shader_test file on the stack: requirements, shader
// preparation, the [test] commands, and a verdict.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "shadertest/framebuffer.h"
#include "shadertest/shader_test.h"

namespace agx::shadertest {

enum class Outcome { pass, fail, skip, crash };
const char* to_string(Outcome o);        // "pass", "fail", "skip", "crash"
const char* to_upper_string(Outcome o);  // "PASS", ...

struct Verdict {
  // {outcome, detail} builds most verdicts (a constructor, not an aggregate,
  // so the probe records need not be spelled out).
  Verdict(Outcome o = Outcome::fail, std::string d = {}, std::vector<ProbeFailure> probes = {})
      : outcome(o), detail(std::move(d)), probe_failures(std::move(probes)) {}
  Outcome outcome = Outcome::fail;
  std::string detail;  // why (FAIL/SKIP/CRASH); empty for PASS
  // A vertex/fragment file's failed probes as values (their text is in
  // `detail`), for `agx shader-test --report`. Not carried from the child
  // process by run_isolated: the caller's `run` saves what it needs.
  std::vector<ProbeFailure> probe_failures;
};

// What the stack offers to [require] lines. Extensions are the GL names whose
// compute-shader features glslang and the compiler translate.
struct Capabilities {
  unsigned glsl_num = 0, glsl_es_num = 0;  // 460, 320
  unsigned gl_num = 0, gl_es_num = 0;      // 46, 32
  std::vector<std::string> extensions;
  static const Capabilities& stack();
  bool has_extension(std::string_view name) const;
};

// What is missing for an extension the stack refuses, when known.
std::optional<std::string_view> refused_extension_reason(std::string_view name);

// The reason a file is skipped, or nothing when the stack can run it.
std::optional<std::string> skip_reason(const ShaderTest& test, const Capabilities& caps);

// The GLSL text of a [compute shader] section as glslang is given it: a
// `#version` line from [require] when piglit leaves it implicit, and GLSL
// versions below 4.20 (compute through GL_ARB_compute_shader) raised to 4.30,
// which glslang needs for compute shaders. `notes` says what changed.
std::string adapt_glsl(const ShaderTest& test, const ShaderSection& section,
                       std::vector<std::string>* notes);

// What a run writes besides the verdict: `png_path` (empty: nothing) gets
// a vertex/fragment file's final window as a PNG (`agx shader-test --png`).
struct RunOptions {
  std::string png_path;
};

// Parses, checks requirements and runs the file. Never throws; a crash of
// the stack is what the caller's child process turns into CRASH.
Verdict run_shader_test(std::string_view text, const RunOptions& options = {});

}  // namespace agx::shadertest
