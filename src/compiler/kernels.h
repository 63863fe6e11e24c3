// A fixed set of compute kernels: `agx bench compiler` times and counts
// them, and a test compiles every one.
#pragma once

#include <span>
#include <string_view>

#include "compiler/compiler.h"

namespace agx::compiler {

struct Kernel {
  std::string_view name;
  std::string_view glsl;
  TargetEnv env;
};
std::span<const Kernel> sample_kernels();

}  // namespace agx::compiler
