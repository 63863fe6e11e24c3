// Words of the push constant / loose uniform area (uniform registers) at a
// pointer with run-time indices. Uniform registers cannot be indexed, so a
// read is a select chain over every word the offset can reach inside the
// loose uniform the pointer starts in (or, for Vulkan push constants, the
// block): `m[i]` of a loose dmat3, `a[i].v` of a uniform struct array.
// An index past the end reads element 0's word, or another word of the
// same uniform when only an inner index is out of range: never another
// uniform (robust buffer access lets a read land anywhere in the resource).
// A block too big for the uniform file is in memory (memory_view): the
// same offsets from its address, loaded with device_load.
#include <bit>
#include <numeric>

#include <fmt/format.h>

#include "compiler/translate.h"

namespace agx::compiler::detail {

using IrOp = agx::compiler::Op;

Result<Src> Translator::push_word(const Ptr& p, uint32_t off_B, const spirv::Inst& in) {
  const uint32_t at_B = p.const_B + off_B;
  if (at_B % 4) return unsupported(in, "unaligned uniform access");
  if (in_push_memory(p)) {
    Ptr q = p;
    q.const_B = at_B;
    AGX_TRY(const Ptr m, memory_view(q, in));
    AGX_TRY(auto idx, buffer_index(m, 4, in));
    return Src::val(b_.def(IrOp::device_load, {buffer_base(m), idx}));
  }
  if (p.terms.empty()) return Src::uniform(p.uniform + at_B / 4);
  AGX_TRY(auto end_B, push_end_B(p, in));
  if (at_B + 4 > end_B) return unsupported(in, "dynamic index into push constants / loose uniforms out of range");
  uint32_t step = 0;
  Src dyn = push_dynamic_offset(p, &step);
  if (step % 4) return unsupported(in, "dynamic index into push constants / loose uniforms with a stride that is not whole words");
  Src r = Src::uniform(p.uniform + at_B / 4);
  for (uint32_t d = step; step && at_B + d + 4 <= end_B; d += step)
    r = b_.select(Cond::ueq, false, dyn, Src::immediate(d), Src::uniform(p.uniform + (at_B + d) / 4), r);
  return r;
}

// The block in memory (Abi::push_memory_uniform): the same byte offset
// from the block's address. A run-time offset d reads there when the
// pointer's first byte at d is inside the loose uniform (the block for
// Vulkan), else at d = 0, as the select chains above: an element is in
// range as a whole or not at all, so no read leaves the loose uniform.
Result<Ptr> Translator::memory_view(const Ptr& p, const spirv::Inst& in) {
  if (!in_push_memory(p)) return p;
  Ptr q = p;
  q.space = Ptr::Space::buffer;
  q.uniform = abi_.push_memory_uniform;
  q.const_B = (p.uniform - abi_.push_constants_uniform) * 4 + p.const_B;
  q.terms.clear();
  if (p.terms.empty()) return q;
  AGX_TRY(auto end_B, push_end_B(p, in));
  if (p.const_B >= end_B) return unsupported(in, "dynamic index into push constants / loose uniforms out of range");
  uint32_t step = 0;
  Src dyn = push_dynamic_offset(p, &step);
  dyn = b_.select(Cond::ult, false, dyn, Src::immediate(end_B - p.const_B), dyn, Src::immediate(0));
  // The offset in units of the largest power of two dividing every stride,
  // so buffer_index scales it back without a multiply.
  const uint32_t unit = step ? step & (~step + 1) : 1;
  if (unit > 1) dyn = b_.binary(IrOp::ushr, dyn, Src::immediate(std::countr_zero(unit)));
  q.terms.push_back({dyn, unit});
  return q;
}

// The end of the loose uniform holding the pointer's first element, else
// of the push constant block (bytes from p.uniform).
Result<uint32_t> Translator::push_end_B(const Ptr& p, const spirv::Inst& in) {
  uint32_t end_B = abi_.push_constants_size_B;
  const uint32_t first_u = p.uniform + p.const_B / 4;
  bool found = p.uniform == abi_.push_constants_uniform && abi_.loose_uniforms.empty();
  for (const LooseUniform& lu : abi_.loose_uniforms)
    if (first_u >= lu.uniform && first_u < lu.uniform + (lu.size_B + 3) / 4) {
      end_B = (lu.uniform - p.uniform) * 4 + lu.size_B;
      found = true;
    }
  if (!found) return unsupported(in, "dynamic index into push constants / loose uniforms out of range");
  return end_B;
}

// sum(index * stride) of the pointer's run-time terms; *step: their gcd.
Src Translator::push_dynamic_offset(const Ptr& p, uint32_t* step) {
  Src dyn = Src::immediate(0);
  *step = 0;
  for (const auto& [idx, stride] : p.terms) {
    *step = std::gcd(*step, stride);
    dyn = b_.imad(idx.bits == 64 ? lo32(idx) : idx, Src::immediate(stride), dyn);
  }
  return dyn;
}

// An 8/16-bit element at a pointer with run-time indices, zero-extended.
// Steps of whole words: the select chain over the element's word, shifted
// by its constant place in the word. Other steps (a uint16_t or int8_t
// array): the chain over the words the byte offset B can reach, picked by
// B / 4, shifted right by (B % 4) * 8.
Result<Src> Translator::push_small(const Ptr& p, uint32_t off_B, unsigned bits, const spirv::Inst& in) {
  const uint32_t at_B = p.const_B + off_B, elem_B = bits / 8;
  if (at_B % elem_B) return unsupported(in, "unaligned uniform access");
  AGX_TRY(auto end_B, push_end_B(p, in));
  if (at_B + elem_B > end_B) return unsupported(in, "dynamic index into push constants / loose uniforms out of range");
  uint32_t step = 0;
  Src dyn = push_dynamic_offset(p, &step);
  if (step % elem_B) return unsupported(in, "dynamic index into 8/16-bit push constants with a stride not a multiple of the element size");
  const uint32_t last_word = (end_B - 1) / 4;
  Src r = Src::uniform(p.uniform + at_B / 4), shift = Src::immediate(at_B % 4 * 8);
  if (step % 4 == 0) {
    for (uint32_t d = step; step && at_B + d + elem_B <= end_B; d += step)
      r = b_.select(Cond::ueq, false, dyn, Src::immediate(d), Src::uniform(p.uniform + (at_B + d) / 4), r);
  } else {
    Src byte = b_.iadd(dyn, Src::immediate(at_B));
    Src word = b_.binary(IrOp::ushr, byte, Src::immediate(2));
    for (uint32_t k = at_B / 4 + 1; k <= last_word; ++k)
      r = b_.select(Cond::ueq, false, word, Src::immediate(k), Src::uniform(p.uniform + k), r);
    shift = b_.binary(IrOp::ishl, b_.binary(IrOp::iand, byte, Src::immediate(3)), Src::immediate(3));
  }
  if (!(shift.is_imm() && shift.imm == 0)) r = b_.binary(IrOp::ushr, r, shift);
  if (shift.is_imm() && shift.imm + bits == 32) return r;
  return truncate(r, bits);
}

}  // namespace agx::compiler::detail
