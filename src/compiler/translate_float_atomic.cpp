// 32-bit float atomics (SPV_EXT_shader_atomic_float_add OpAtomicFAddEXT,
// SPV_EXT_shader_atomic_float_min_max OpAtomicFMinEXT / OpAtomicFMaxEXT) on
// buffer and shared words. The AGX atomic instructions are integer only
// (dougallj/applegpu `atomic` / `threadgroup_atomic`: add, sub, xchg,
// cmpxchg, min, max, and, or, xor), so each becomes a compare-exchange
// loop on the word, as bminor/mesa-mesa src/compiler/nir/nir_lower_atomics.c
// lowers atomics the hardware lacks:
//   expected = load
//   loop: before = expected; new = before OP data
//         orig = cmpxchg(word, new, compare before); expected = orig
//         if orig == before (bits): result = orig, leave
// A lane leaves the loop in the iteration its exchange succeeds; the
// others retry with the value they saw. The compare is on bits, so a NaN
// in memory does not make the loop spin.
#include <fmt/format.h>

#include "compiler/translate.h"

namespace agx::compiler::detail {

using IrOp = agx::compiler::Op;
using Kind = spirv::Type::Kind;

// min/max for the atomics: a NaN loses to a number (fcmpsel ltn/gtn, the
// quiet-NaN rule of GL_INTEL_shader_atomic_float_minmax and IEEE 754's
// minNum/maxNum), and -0 orders below +0: when both words are zeros of
// either sign, min is their bitwise OR (-0 if one is), max their AND.
Src Translator::float_atomic_minmax(bool is_min, Src a, Src b) {
  Src pick = b_.select(is_min ? Cond::fltn : Cond::fgtn, false, a, b, a, b);
  Src both = Src::val(b_.def(IrOp::ior, {a, b}));
  Src magnitude = Src::val(b_.def(IrOp::iand, {both, Src::immediate(0x7FFFFFFFu)}));
  Src zero = is_min ? both : Src::val(b_.def(IrOp::iand, {a, b}));
  return b_.select(Cond::ueq, false, magnitude, Src::immediate(0), zero, pick);
}

// Image texel pointers (translate_image_atomic.cpp) are buffer pointers
// based at an image's atomic uniforms: float atomics on r32f texels run the
// same loop as on buffer words.
Status Translator::float_atomic(const spirv::Inst& in) {
  const auto& w = in.w;
  if (w.size() < 6) return Error::decode("{}: bad float atomic", o_.file_name);
  AGX_TRY(auto pv, get(w[2], in));
  if (pv->kind != TVal::Kind::ptr) return unsupported(in, "atomic on a non-pointer");
  const Ptr p = pv->ptr;
  if (type(p.type).kind != Kind::float_ || type(p.type).width != 32)
    return unsupported(in, fmt::format("float atomic on a {}-bit value (32-bit float only)", type(p.type).width));
  bool device = p.space == Ptr::Space::buffer;
  if (!device && p.space != Ptr::Space::shared) return unsupported(in, "float atomic on this storage class");
  AGX_TRY(auto data, scalar(w[5], in));
  AGX_TRY(Src addr, word_address(p, in));
  Src base = buffer_base(p);
  Function& f = b_.function();
  ValueId expected = f.new_value(32, 1, true), res = f.new_value(32, 1, true);
  ValueId first = device ? b_.def(IrOp::device_load, {base, addr}) : b_.def(IrOp::local_load, {addr});
  b_.def_into(expected, IrOp::mov, {Src::val(first)});
  b_.emit(IrOp::loop);
  Src before = Src::val(b_.def(IrOp::mov, {Src::val(expected)}));
  Src next;
  switch (in.op) {
    case spv::Op::OpAtomicFAddEXT: next = Src::val(b_.def(IrOp::fadd, {before, data})); break;
    case spv::Op::OpAtomicFMinEXT: next = float_atomic_minmax(true, before, data); break;
    case spv::Op::OpAtomicFMaxEXT: next = float_atomic_minmax(false, before, data); break;
    default: return unsupported(in, "float atomic operation");
  }
  // cmpxchg's register pair: the new value, then the compare value.
  Src pair = Src::val(b_.def(IrOp::collect, {next, before}, 32, 2));
  ValueId orig = f.new_value();
  std::vector<Src> srcs = device ? std::vector<Src>{base, addr, pair} : std::vector<Src>{addr, pair};
  f.instrs.push_back(Instr{device ? IrOp::atomic : IrOp::local_atomic, Cond::none, false, orig, std::move(srcs),
                           static_cast<uint64_t>(AtomicOp::cmpxchg), b_.line});
  b_.def_into(expected, IrOp::mov, {Src::val(orig)});
  b_.emit(IrOp::if_, {Src::val(orig), before}, 0, Cond::ueq, false);
  b_.def_into(res, IrOp::mov, {Src::val(orig)});
  b_.emit(IrOp::break_);
  b_.emit(IrOp::end_if);
  b_.emit(IrOp::end_loop);
  TVal out = TVal::data(w[0]);
  out.c.push_back(Src::val(b_.def(IrOp::mov, {Src::val(res)})));
  vals_[w[1]] = std::move(out);
  return {};
}

}  // namespace agx::compiler::detail
