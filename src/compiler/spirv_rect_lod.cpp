// glslang (OpenGL target) turns an implicit-LOD `texture()` of a
// sampler2DRect outside the fragment stage into OpImageSample*ExplicitLod
// with `Lod 0`, which SPIR-V forbids for Dim Rect (the Lod image operand
// needs 1D, 2D, 3D or Cube: spirv-val "Image Operand Lod requires 'Dim'
// parameter to be 1D, 2D, 3D or Cube"). A rectangle texture has one level,
// so the lookup is the same with `Grad` and zero gradients (LOD -inf:
// level 0, magnification), which SPIR-V allows for Rect; the rewrite
// replaces the Lod operand by two zero vec2s before validation.
#include <map>
#include <set>

#include <spirv/unified1/spirv.hpp11>

#include "compiler/passes.h"

namespace agx::compiler {

namespace {

uint32_t word(spv::Op op, size_t count) { return static_cast<uint32_t>(count) << 16 | static_cast<uint32_t>(op); }

constexpr uint32_t kLod = 0x2, kGrad = 0x4;

}  // namespace

std::vector<uint32_t> rect_lod_to_grad(std::span<const uint32_t> words) {
  std::vector<uint32_t> in(words.begin(), words.end());
  if (in.size() < 5) return in;
  uint32_t bound = in[3];
  std::set<uint32_t> rect_images, rect_sampled, rect_values;
  uint32_t float32 = 0, vec2 = 0, zero2 = 0;
  size_t first_function = 0;
  bool any = false;
  for (size_t i = 5; i < in.size();) {
    uint32_t n = in[i] >> 16;
    auto op = static_cast<spv::Op>(in[i] & 0xFFFF);
    if (n == 0 || i + n > in.size()) return in;  // malformed: left to the validator's verdict
    std::span<const uint32_t> w(in.data() + i + 1, n - 1);
    switch (op) {
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
        if (!first_function) first_function = i;
        break;
      case spv::Op::OpLoad: case spv::Op::OpSampledImage: case spv::Op::OpCopyObject: case spv::Op::OpFunctionParameter:
        if (w.size() >= 2 && rect_sampled.count(w[0])) rect_values.insert(w[1]);
        break;
      case spv::Op::OpImageSampleExplicitLod: case spv::Op::OpImageSampleDrefExplicitLod: {
        size_t mask_at = op == spv::Op::OpImageSampleExplicitLod ? 4 : 5;
        if (w.size() > mask_at && rect_values.count(w[2]) && (w[mask_at] & kLod) && !(w[mask_at] & kGrad)) any = true;
        break;
      }
      default: break;
    }
    i += n;
  }
  if (!any || !first_function || !float32) return in;
  std::vector<uint32_t> decls, body;
  if (!vec2) {
    vec2 = bound++;
    decls.insert(decls.end(), {word(spv::Op::OpTypeVector, 4), vec2, float32, 2});
  }
  if (!zero2) {
    zero2 = bound++;
    decls.insert(decls.end(), {word(spv::Op::OpConstantNull, 3), vec2, zero2});
  }
  for (size_t i = first_function; i < in.size();) {
    uint32_t n = in[i] >> 16;
    auto op = static_cast<spv::Op>(in[i] & 0xFFFF);
    std::span<const uint32_t> w(in.data() + i + 1, n - 1);
    size_t mask_at = op == spv::Op::OpImageSampleExplicitLod ? 4 : 5;
    bool sample = op == spv::Op::OpImageSampleExplicitLod || op == spv::Op::OpImageSampleDrefExplicitLod;
    if (!sample || w.size() <= mask_at + 1 || !rect_values.count(w[2]) || !(w[mask_at] & kLod) || (w[mask_at] & kGrad)) {
      body.insert(body.end(), in.begin() + i, in.begin() + i + n);
      i += n;
      continue;
    }
    // Image operands follow in mask-bit order; Bias (0x1) cannot come with
    // Lod, so the Lod id is the first one and Grad's pair takes its place.
    std::vector<uint32_t> ops(w.begin(), w.end());
    ops[mask_at] = (ops[mask_at] & ~kLod) | kGrad;
    ops[mask_at + 1] = zero2;
    ops.insert(ops.begin() + static_cast<std::ptrdiff_t>(mask_at + 2), zero2);
    body.push_back(word(op, ops.size() + 1));
    body.insert(body.end(), ops.begin(), ops.end());
    i += n;
  }
  std::vector<uint32_t> out(in.begin(), in.begin() + static_cast<std::ptrdiff_t>(first_function));
  out[3] = bound;
  out.insert(out.end(), decls.begin(), decls.end());
  out.insert(out.end(), body.begin(), body.end());
  return out;
}

}  // namespace agx::compiler
