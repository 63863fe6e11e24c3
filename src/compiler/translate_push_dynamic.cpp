// Words of the push constant / loose uniform area (uniform registers) at a
// pointer with run-time indices. Uniform registers cannot be indexed, so a
// read is a select chain over every word the offset can reach inside the
// loose uniform the pointer starts in (or, for Vulkan push constants, the
// block): `m[i]` of a loose dmat3, `a[i].v` of a uniform struct array.
// An index past the end reads element 0's word, or another word of the
// same uniform when only an inner index is out of range: never another
// uniform (robust buffer access lets a read land anywhere in the resource).
#include <numeric>

#include <fmt/format.h>

#include "compiler/translate.h"

namespace agx::compiler::detail {

Result<Src> Translator::push_word(const Ptr& p, uint32_t off_B, const spirv::Inst& in) {
  const uint32_t at_B = p.const_B + off_B;
  if (at_B % 4) return unsupported(in, "unaligned uniform access");
  if (p.terms.empty()) return Src::uniform(p.uniform + at_B / 4);
  // The end of the loose uniform holding the pointer's first element, else
  // of the push constant block.
  uint32_t end_B = abi_.push_constants_size_B;
  const uint32_t first_u = p.uniform + p.const_B / 4;
  bool found = p.uniform == abi_.push_constants_uniform && abi_.loose_uniforms.empty();
  for (const LooseUniform& lu : abi_.loose_uniforms)
    if (first_u >= lu.uniform && first_u < lu.uniform + (lu.size_B + 3) / 4) {
      end_B = (lu.uniform - p.uniform) * 4 + lu.size_B;
      found = true;
    }
  if (!found || at_B + 4 > end_B) return unsupported(in, "dynamic index into push constants / loose uniforms out of range");
  uint32_t step = 0;
  Src dyn = Src::immediate(0);
  for (const auto& [idx, stride] : p.terms) {
    step = std::gcd(step, stride);
    dyn = b_.imad(idx.bits == 64 ? lo32(idx) : idx, Src::immediate(stride), dyn);
  }
  if (step % 4) return unsupported(in, "dynamic index into push constants / loose uniforms with a stride that is not whole words");
  Src r = Src::uniform(p.uniform + at_B / 4);
  for (uint32_t d = step; step && at_B + d + 4 <= end_B; d += step)
    r = b_.select(Cond::ueq, false, dyn, Src::immediate(d), Src::uniform(p.uniform + (at_B + d) / 4), r);
  return r;
}

}  // namespace agx::compiler::detail
