// Fixed sets of shaders: compute kernels, and vertex and fragment shaders
// of the kinds a renderer has. `agx bench compiler` times and counts them,
// and tests compile every one.
#pragma once

#include <span>
#include <string_view>

#include "compiler/compiler.h"
#include "compiler/vertex_prolog.h"

namespace agx::compiler {

struct Kernel {
  std::string_view name;
  std::string_view glsl;
  TargetEnv env;
  Stage stage = Stage::compute;
};
std::span<const Kernel> sample_kernels();  // compute
// Vertex and fragment shaders: a transform-and-lighting vertex shader, a
// textured fragment shader with alpha test and blending, and a deferred
// renderer's G-buffer fragment shader writing four render targets.
std::span<const Kernel> sample_graphics_kernels();
// The fragment epilog a fragment kernel is linked with (its render
// targets' formats, blending); the default key for a vertex kernel's name.
Result<FragmentEpilogKey> sample_epilog_key(std::string_view kernel);
// The vertex prolog a vertex kernel is linked with: the default state Mesa's
// compiler figures use, every attribute the shader declares fetched as
// R32G32B32A32_SFLOAT (_SINT, _UINT for integer inputs) from its own buffer
// (stride 16, per vertex).
Result<VertexPrologKey> sample_prolog_key(const Shader& main);
// A kernel compiled as a draw needs it: a vertex shader linked after its
// prolog, a fragment shader before its epilog, a compute kernel alone.
Result<Shader> compile_sample(const Kernel& kernel, const Options& options);

}  // namespace agx::compiler
