// `compute X Y Z` and `compute group size X Y Z W H D`: the errors GL raises
// before a dispatch (GL 4.6 section 19 DispatchCompute; ARB_compute_variable_
// group_size DispatchComputeGroupSizeARB) end the file naming the GL error;
// shader_runner itself does not check them, but a dispatch that GL refuses
// runs nothing, so going on would only probe stale buffers.
#include "runtime/encoder.h"
#include "runtime/limits.h"
#include "shadertest/session.h"

namespace agx::shadertest {

Status Session::dispatch(std::array<uint32_t, 3> groups, std::optional<std::array<uint32_t, 3>> local,
                         const Command& at) {
  for (int i = 0; i < 3; ++i) {
    if (groups[i] > runtime::kMaxComputeWorkGroupCount[i])
      return Error::invalid_argument("GL_INVALID_VALUE: {} work groups on axis {} (GL_MAX_COMPUTE_WORK_GROUP_COUNT is {})",
                                     groups[i], i, runtime::kMaxComputeWorkGroupCount[i]);
  }
  if (!local) {
    if (variable_group_size_)
      return Error::invalid_argument(
          "GL_INVALID_OPERATION: 'compute' with a program of variable local size (it takes 'compute group size')");
    return launch(shader_, groups, at);
  }
  if (!variable_group_size_)
    return Error::invalid_argument(
        "GL_INVALID_OPERATION: 'compute group size' with a program of fixed local size");
  uint64_t invocations = 1;
  for (int i = 0; i < 3; ++i) {
    if ((*local)[i] == 0 || (*local)[i] > runtime::kMaxComputeVariableGroupSize[i])
      return Error::invalid_argument("GL_INVALID_VALUE: local size {} on axis {} is not 1..{}", (*local)[i], i,
                                     runtime::kMaxComputeVariableGroupSize[i]);
    invocations *= (*local)[i];
  }
  if (invocations > runtime::kMaxThreadsPerThreadgroup)
    return Error::invalid_argument(
        "GL_INVALID_VALUE: {} invocations per group (GL_MAX_COMPUTE_VARIABLE_GROUP_INVOCATIONS_ARB is {})",
        invocations, runtime::kMaxThreadsPerThreadgroup);
  auto shader = variable_group_size_(*local);
  if (!shader.ok())
    return std::move(shader).error().context(fmt::format("local size {}x{}x{}", (*local)[0], (*local)[1], (*local)[2]));
  sized_shaders_.push_back(*shader);
  return launch(**shader, groups, at);
}

}  // namespace agx::shadertest
