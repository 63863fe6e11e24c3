// GL_NV_compute_shader_derivatives: with no derivative_group_*NV layout,
// every derivative in a compute shader is 0. glslang still emits OpDPdx &
// co. then, which SPIR-V only allows under a DerivativeGroup*NV execution
// mode (the validator rejects the module), so each becomes
// `OpCopyObject %type %result %null` of an OpConstantNull of its type:
// the same word count, rewritten in place, the constants declared just
// before the first function.
#include <spirv/unified1/spirv.hpp11>

#include "compiler/passes.h"

namespace agx::compiler {

namespace {
bool is_derivative(spv::Op op) {
  switch (op) {
    case spv::Op::OpDPdx: case spv::Op::OpDPdy: case spv::Op::OpFwidth:
    case spv::Op::OpDPdxFine: case spv::Op::OpDPdyFine: case spv::Op::OpFwidthFine:
    case spv::Op::OpDPdxCoarse: case spv::Op::OpDPdyCoarse: case spv::Op::OpFwidthCoarse: return true;
    default: return false;
  }
}
constexpr uint32_t kHeaderWords = 5;
}  // namespace

std::vector<uint32_t> zero_ungrouped_derivatives(std::span<const uint32_t> words) {
  std::vector<uint32_t> out(words.begin(), words.end());
  if (out.size() < kHeaderWords) return out;
  bool grouped = false, any = false;
  size_t first_function = 0;
  for (size_t i = kHeaderWords; i < out.size();) {
    uint32_t count = out[i] >> 16;
    auto op = static_cast<spv::Op>(out[i] & 0xFFFF);
    if (count == 0 || i + count > out.size()) return {words.begin(), words.end()};  // malformed: the validator says where
    if ((op == spv::Op::OpExecutionMode || op == spv::Op::OpExecutionModeId) && count >= 3 &&
        (out[i + 2] == static_cast<uint32_t>(spv::ExecutionMode::DerivativeGroupQuadsNV) ||
         out[i + 2] == static_cast<uint32_t>(spv::ExecutionMode::DerivativeGroupLinearNV)))
      grouped = true;
    if (op == spv::Op::OpFunction && !first_function) first_function = i;
    if (is_derivative(op) && count == 4) any = true;
    i += count;
  }
  if (grouped || !any || !first_function) return out;
  uint32_t& bound = out[3];
  std::vector<std::pair<uint32_t, uint32_t>> nulls;  // type -> OpConstantNull id
  for (size_t i = first_function; i < out.size(); i += out[i] >> 16) {
    if (!is_derivative(static_cast<spv::Op>(out[i] & 0xFFFF)) || (out[i] >> 16) != 4) continue;
    uint32_t type = out[i + 1], null = 0;
    for (auto& [t, id] : nulls)
      if (t == type) null = id;
    if (!null) nulls.push_back({type, null = bound++});
    out[i] = (4u << 16) | static_cast<uint32_t>(spv::Op::OpCopyObject);
    out[i + 3] = null;
  }
  std::vector<uint32_t> decls;
  for (auto& [type, id] : nulls) {
    decls.push_back((3u << 16) | static_cast<uint32_t>(spv::Op::OpConstantNull));
    decls.push_back(type);
    decls.push_back(id);
  }
  out.insert(out.begin() + static_cast<std::ptrdiff_t>(first_function), decls.begin(), decls.end());
  return out;
}

}  // namespace agx::compiler
