// glslang (OpenGL target) turns an implicit-LOD `texture()` of a
// sampler2DRect outside the fragment stage into OpImageSample*ExplicitLod
// with `Lod 0`, which SPIR-V forbids for Dim Rect (the Lod image operand
// needs 1D, 2D, 3D or Cube: spirv-val "Image Operand Lod requires 'Dim'
// parameter to be 1D, 2D, 3D or Cube"). A rectangle texture has one level,
// so the lookup is the same with `Grad` and zero gradients (LOD -inf:
// level 0, magnification), which SPIR-V allows for Rect; the rewrite
// replaces the Lod operand by two zero vec2s before validation.
#include <set>

#include <spirv/unified1/spirv.hpp11>

#include "compiler/passes.h"
#include "compiler/spirv_walk.h"

namespace agx::compiler {

namespace {


constexpr uint32_t kLod = 0x2, kGrad = 0x4;

}  // namespace

std::vector<uint32_t> rect_lod_to_grad(std::span<const uint32_t> words) {
  std::vector<uint32_t> in(words.begin(), words.end());
  std::set<uint32_t> rect_images, rect_sampled, rect_values;
  uint32_t float32 = 0, vec2 = 0, zero2 = 0;
  size_t first_function = 0;
  bool any = false;
  // An image sample of a Rect image with Lod and without Grad.
  auto lod_of_rect = [&](const spirv::SpirvInstruction& i) {
    if (i.op != spv::Op::OpImageSampleExplicitLod && i.op != spv::Op::OpImageSampleDrefExplicitLod) return false;
    const size_t mask_at = i.op == spv::Op::OpImageSampleExplicitLod ? 4 : 5;
    return i.w.size() > mask_at + 1 && rect_values.count(i.w[2]) && (i.w[mask_at] & kLod) && !(i.w[mask_at] & kGrad);
  };
  Status walked = spirv::for_each_instruction(in, [&](const spirv::SpirvInstruction& i) -> Status {
    const auto& w = i.w;
    switch (i.op) {
      case spv::Op::OpTypeImage:
        if (w.size() >= 3 && spv::Dim(w[2]) == spv::Dim::Rect) rect_images.insert(w[0]);
        break;
      case spv::Op::OpTypeSampledImage:
        if (w.size() >= 2 && rect_images.count(w[1])) rect_sampled.insert(w[0]);
        break;
      case spv::Op::OpTypeFloat:
        if (w.size() >= 2 && w[1] == 32 && !float32) float32 = w[0];
        break;
      case spv::Op::OpTypeVector:
        if (w.size() >= 3 && float32 && w[1] == float32 && w[2] == 2 && !vec2) vec2 = w[0];
        break;
      case spv::Op::OpConstantNull:
        if (w.size() >= 2 && vec2 && w[0] == vec2 && !zero2) zero2 = w[1];
        break;
      case spv::Op::OpFunction:
        if (!first_function) first_function = i.at;
        break;
      case spv::Op::OpLoad: case spv::Op::OpSampledImage: case spv::Op::OpCopyObject: case spv::Op::OpFunctionParameter:
        if (w.size() >= 2 && rect_sampled.count(w[0])) rect_values.insert(w[1]);
        break;
      default: any |= lod_of_rect(i); break;
    }
    return {};
  });
  // Malformed input is left to the validator's verdict.
  if (!walked || !any || !first_function || !float32) return in;
  uint32_t bound = in[3];
  std::vector<uint32_t> decls, body;
  if (!vec2) {
    vec2 = bound++;
    decls.insert(decls.end(), {spirv::opcode_word(spv::Op::OpTypeVector, 4), vec2, float32, 2});
  }
  if (!zero2) {
    zero2 = bound++;
    decls.insert(decls.end(), {spirv::opcode_word(spv::Op::OpConstantNull, 3), vec2, zero2});
  }
  (void)spirv::for_each_instruction(in, [&](const spirv::SpirvInstruction& i) -> Status {
    if (i.at < first_function) return {};
    if (!lod_of_rect(i)) {
      body.insert(body.end(), in.begin() + static_cast<std::ptrdiff_t>(i.at),
                  in.begin() + static_cast<std::ptrdiff_t>(i.at + 1 + i.w.size()));
      return {};
    }
    // Image operands follow in mask-bit order; Bias (0x1) cannot come with
    // Lod, so the Lod id is the first one and Grad's pair takes its place.
    const size_t mask_at = i.op == spv::Op::OpImageSampleExplicitLod ? 4 : 5;
    std::vector<uint32_t> ops(i.w.begin(), i.w.end());
    ops[mask_at] = (ops[mask_at] & ~kLod) | kGrad;
    ops[mask_at + 1] = zero2;
    ops.insert(ops.begin() + static_cast<std::ptrdiff_t>(mask_at + 2), zero2);
    body.push_back(spirv::opcode_word(i.op, ops.size() + 1));
    body.insert(body.end(), ops.begin(), ops.end());
    return {};
  });
  std::vector<uint32_t> out(in.begin(), in.begin() + static_cast<std::ptrdiff_t>(first_function));
  out[3] = bound;
  out.insert(out.end(), decls.begin(), decls.end());
  out.insert(out.end(), body.begin(), body.end());
  return out;
}

}  // namespace agx::compiler
