// Fixed sets of shaders: compute kernels, and vertex and fragment shaders
// of the kinds a renderer has. `agx bench compiler` times and counts them,
// and tests compile every one.
#pragma once

#include <span>
#include <string_view>

#include "compiler/compiler.h"

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

}  // namespace agx::compiler
