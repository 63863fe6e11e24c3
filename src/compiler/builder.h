// Appends IR instructions to a function (ir.h); integer operations on
// immediates fold at once, so address arithmetic on constants costs nothing.
#pragma once

#include "compiler/ir.h"

namespace agx::compiler {

class Builder {
 public:
  explicit Builder(Function& f) : f_(f) {}
  Function& function() { return f_; }
  uint32_t line = 0;  // recorded on every instruction

  // An instruction with a new destination of `bits` x `comps`.
  ValueId def(Op op, std::vector<Src> srcs, uint8_t bits = 32, uint8_t comps = 1, uint64_t imm = 0,
              Cond cond = Cond::none, bool invert = false);
  // An instruction writing an existing value (a phi variable).
  void def_into(ValueId dest, Op op, std::vector<Src> srcs);
  // An instruction without a destination.
  void emit(Op op, std::vector<Src> srcs = {}, uint64_t imm = 0, Cond cond = Cond::none, bool invert = false);

  // 32-bit integer arithmetic, folded on immediates (results mod 2^32).
  Src iadd(Src a, Src b);
  Src imul(Src a, Src b);
  Src imad(Src a, Src b, Src c);  // a * b + c
  Src binary(Op op, Src a, Src b);  // any 2-source integer ALU op
  Src select(Cond cond, bool invert, Src a, Src b, Src x, Src y);  // icmpsel/fcmpsel

 private:
  Function& f_;
};

// Folds a 2-source integer op on 32-bit immediates; false if not foldable.
bool fold_binary(Op op, uint32_t a, uint32_t b, uint32_t& out);

}  // namespace agx::compiler
