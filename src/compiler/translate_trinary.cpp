// SPV_AMD_shader_trinary_minmax (GL_AMD_shader_trinary_minmax's min3,
// max3, mid3) -> IR. The AGX has no three-source min/max: two selects for
// min3/max3, and mid3 as max(min(max(a, b), c), min(a, b)) (the median
// NIR's nir_opt_algebraic.py lowers fmed3/imed3/umed3 to).
#include <spirv/unified1/AMD_shader_trinary_minmax.h>

#include <fmt/format.h>

#include "compiler/translate.h"

namespace agx::compiler::detail {

Status Translator::ext_amd_trinary(const spirv::Inst& in) {
  const auto& w = in.w;
  if (w.size() != 7) return unsupported(in, "SPV_AMD_shader_trinary_minmax operand count");
  uint32_t rtype = w[0];
  unsigned n = components(rtype);
  // 8/16-bit: widened, through translate_small_lanes.cpp.
  if (!n || (type(scalar_type(rtype)).width != 32 && !(small_active_ && small_width(rtype))))
    return unsupported(in, "trinary min/max on a 64-bit type");
  auto inst = static_cast<AMD_shader_trinary_minmaxInstructions>(w[3]);
  Cond lt, gt;
  switch (inst) {
    case AMD_shader_trinary_minmaxFMin3AMD: case AMD_shader_trinary_minmaxFMax3AMD: case AMD_shader_trinary_minmaxFMid3AMD:
      lt = Cond::fltn; gt = Cond::fgtn; break;  // the non-NaN operand wins, as GLSL's min/max may
    case AMD_shader_trinary_minmaxUMin3AMD: case AMD_shader_trinary_minmaxUMax3AMD: case AMD_shader_trinary_minmaxUMid3AMD:
      lt = Cond::ult; gt = Cond::ugt; break;
    case AMD_shader_trinary_minmaxSMin3AMD: case AMD_shader_trinary_minmaxSMax3AMD: case AMD_shader_trinary_minmaxSMid3AMD:
      lt = Cond::slt; gt = Cond::sgt; break;
    default:
      return unsupported(in, fmt::format("SPV_AMD_shader_trinary_minmax instruction {} is not supported", w[3]));
  }
  auto min = [&](Src a, Src b) { return b_.select(lt, false, a, b, a, b); };
  auto max = [&](Src a, Src b) { return b_.select(gt, false, a, b, a, b); };
  TVal out = TVal::data(rtype);
  for (unsigned i = 0; i < n; ++i) {
    AGX_TRY(auto a, scalar(w[4], in, i));
    AGX_TRY(auto b, scalar(w[5], in, i));
    AGX_TRY(auto c, scalar(w[6], in, i));
    switch (inst) {
      case AMD_shader_trinary_minmaxFMin3AMD: case AMD_shader_trinary_minmaxUMin3AMD: case AMD_shader_trinary_minmaxSMin3AMD:
        out.c.push_back(min(min(a, b), c));
        break;
      case AMD_shader_trinary_minmaxFMax3AMD: case AMD_shader_trinary_minmaxUMax3AMD: case AMD_shader_trinary_minmaxSMax3AMD:
        out.c.push_back(max(max(a, b), c));
        break;
      default:
        {
          Src upper = min(max(a, b), c);
          out.c.push_back(max(upper, min(a, b)));
        }
        break;
    }
  }
  vals_[w[1]] = std::move(out);
  return {};
}

}  // namespace agx::compiler::detail
