// Copies the back end removes: variables written once become SSA values
// (opt_demote_variables), a collect that rebuilds a vector reads the
// vector (opt_copy_prop), and the allocator puts copies in their sources'
// registers and values in the output register a reg_write fills, so their
// moves disappear (register_allocate with register_hints).
#include <gtest/gtest.h>

#include "compiler/builder.h"
#include "compiler/passes.h"
#include "compiler/regs.h"
#include "compiler/tests/ir_lines.h"

namespace agx::compiler {
namespace AGX_UNITY_ID {

using test::lines;

// The machine code's moves, and the code itself for failure messages.
unsigned moves_in(const std::vector<std::string>& code, std::string& text) {
  unsigned n = 0;
  for (const std::string& line : code) {
    n += line.rfind("mov", 0) == 0;
    text += line + "\n";
  }
  return n;
}

TEST(Copies, VariablesWrittenOnceAtTheTopBecomeSsa) {
  Function f;
  Builder b(f);
  ValueId x = b.def(Op::get_sr, {}, 32, 1, 80);
  ValueId once = f.new_value(32, 1, true), twice = f.new_value(32, 1, true), nested = f.new_value(32, 1, true);
  b.def_into(once, Op::mov, {Src::val(x)});
  b.def_into(twice, Op::mov, {Src::val(x)});
  b.def_into(twice, Op::mov, {Src::immediate(1)});
  b.emit(Op::if_, {Src::val(x), Src::immediate(0)}, 0, Cond::ueq);
  b.def_into(nested, Op::iadd, {Src::val(x), Src::immediate(2)});
  b.emit(Op::end_if);
  b.emit(Op::device_store, {Src::val(once), Src::uniform(0, 64), Src::val(twice)});
  b.emit(Op::device_store, {Src::val(nested), Src::uniform(0, 64), Src::immediate(0)});
  b.emit(Op::stop);
  EXPECT_TRUE(opt_demote_variables(f));
  EXPECT_FALSE(f.values[once].variable);
  EXPECT_TRUE(f.values[twice].variable);
  EXPECT_TRUE(f.values[nested].variable);
  ASSERT_TRUE(validate(f).ok());
  // The copy is now an SSA move: its reader reads the source.
  EXPECT_TRUE(opt_copy_prop(f));
  EXPECT_EQ(lines(f)[7], "device_store %0, u0:64, %2");
  EXPECT_FALSE(opt_demote_variables(f));
}

TEST(Copies, VariablesThatCopyOneValueOnEveryPathReadIt) {
  Function f;
  Builder b(f);
  ValueId x = b.def(Op::get_sr, {}, 32, 1, 80);
  ValueId v = b.def(Op::device_load, {Src::uniform(0, 64), Src::val(x)}, 32, 2);
  ValueId same = f.new_value(32, 1, true), mixed = f.new_value(32, 1, true), inner = f.new_value(32, 1, true);
  b.emit(Op::if_, {Src::val(x), Src::immediate(0)}, 0, Cond::ueq);
  b.def_into(same, Op::mov, {Src::val(v, 32, 1)});
  b.def_into(mixed, Op::mov, {Src::val(x)});
  b.emit(Op::else_);
  b.def_into(same, Op::mov, {Src::val(v, 32, 1)});
  b.def_into(mixed, Op::iadd, {Src::val(x), Src::immediate(1)});
  b.emit(Op::end_if);
  b.emit(Op::if_, {Src::val(x), Src::immediate(1)}, 0, Cond::ueq);
  ValueId x2 = b.def(Op::iadd, {Src::val(x), Src::immediate(2)});  // not defined on every path
  b.def_into(inner, Op::mov, {Src::val(x2)});
  b.emit(Op::end_if);
  b.emit(Op::device_store, {Src::val(mixed), Src::uniform(0, 64), Src::val(same)});
  b.emit(Op::device_store, {Src::val(inner), Src::uniform(0, 64), Src::immediate(4)});
  b.emit(Op::stop);
  EXPECT_EQ(lines(f)[13], "device_store %3, u0:64, %2");
  EXPECT_TRUE(opt_demote_variables(f));
  auto l = lines(f);
  EXPECT_EQ(l[13], "device_store %3, u0:64, %1.y");  // the copies' source; mixed stays
  EXPECT_EQ(l[14], "device_store %4, u0:64, #0x4");   // inner stays
  auto valid = validate(f);
  ASSERT_TRUE(valid.ok()) << valid.error().message();
  EXPECT_TRUE(dce(f));
  EXPECT_EQ(lines(f)[3], "  %3:32 = mov %0");  // the writes of `same` went
}

TEST(Copies, CopyPropReadsTheVectorACollectRebuilds) {
  Function f;
  Builder b(f);
  ValueId x = b.def(Op::get_sr, {}, 32, 1, 80);
  ValueId v = b.def(Op::device_load, {Src::uniform(0, 64), Src::val(x)}, 32, 2);
  ValueId same = b.def(Op::collect, {Src::val(v, 32, 0), Src::val(v, 32, 1)}, 32, 2);
  ValueId swapped = b.def(Op::collect, {Src::val(v, 32, 1), Src::val(v, 32, 0)}, 32, 2);
  b.emit(Op::device_store, {Src::val(same), Src::uniform(0, 64), Src::val(same, 32, 1)});
  b.emit(Op::device_store, {Src::val(swapped), Src::uniform(0, 64), Src::immediate(0)});
  b.emit(Op::stop);
  const auto before = lines(f);
  EXPECT_EQ(before[4], "device_store %2, u0:64, %2.y");
  EXPECT_TRUE(opt_copy_prop(f));
  const auto after = lines(f);
  EXPECT_EQ(after[4], "device_store %1, u0:64, %1.y");
  EXPECT_EQ(after[5], "device_store %3, u0:64, #0x0");  // another vector: stays
  ASSERT_TRUE(validate(f).ok());
}

TEST(Copies, AllocationPutsCopiesInTheirSourcesRegisters) {
  Function f;
  Builder b(f);
  ValueId x = b.def(Op::get_sr, {}, 32, 1, 80);
  ValueId v = b.def(Op::device_load, {Src::uniform(0, 64), Src::val(x)}, 32, 2);
  ValueId y = b.def(Op::iadd, {Src::val(v, 32, 1), Src::immediate(1)});
  // v's words and y in place: only the immediate moves.
  ValueId c = b.def(Op::collect, {Src::val(v, 32, 0), Src::val(v, 32, 1), Src::val(y), Src::immediate(7)}, 32, 4);
  ValueId m = b.def(Op::mov, {Src::val(v, 32, 1)});
  b.emit(Op::device_store, {Src::val(c), Src::uniform(0, 64), Src::val(m)});
  b.emit(Op::device_store, {Src::val(v), Src::uniform(0, 64), Src::immediate(0)});  // v outlives its copies
  b.emit(Op::stop);
  Stats st;
  ASSERT_TRUE(register_allocate(f, st).ok());
  ASSERT_TRUE(validate(f, true).ok());
  EXPECT_EQ(f.values[c].reg, f.values[v].reg);
  EXPECT_EQ(f.values[m].reg, f.values[v].reg + 2);
  EXPECT_EQ(f.values[y].reg, f.values[v].reg + 4);  // allocated right after v: c's third word
  auto code = pack_text(f);
  ASSERT_TRUE(code.ok()) << code.error().message();
  std::string text;
  EXPECT_EQ(moves_in(*code, text), 1u) << text;  // #7 into c's last word
}

TEST(Copies, ValuesGoBesideTheOtherSourcesOfTheirCollect) {
  Function f;
  Builder b(f);
  ValueId x = b.def(Op::get_sr, {}, 32, 1, 80);
  ValueId y = b.def(Op::iadd, {Src::val(x), Src::immediate(1)});
  ValueId a = b.def(Op::iadd, {Src::val(y), Src::immediate(2)});
  ValueId late = b.def(Op::iadd, {Src::val(a), Src::immediate(3)});  // x's register is free again: the lowest
  ValueId c = b.def(Op::collect, {Src::val(a), Src::val(late)}, 32, 2);
  b.emit(Op::device_store, {Src::val(c), Src::uniform(0, 64), Src::immediate(0)});
  b.emit(Op::stop);
  Stats st;
  ASSERT_TRUE(register_allocate(f, st).ok());
  ASSERT_TRUE(validate(f, true).ok());
  EXPECT_EQ(f.values[x].reg, 4);
  EXPECT_EQ(f.values[late].reg, f.values[a].reg + 2);
  EXPECT_EQ(f.values[c].reg, f.values[a].reg);
  auto code = pack_text(f);
  ASSERT_TRUE(code.ok()) << code.error().message();
  std::string text;
  EXPECT_EQ(moves_in(*code, text), 0u) << text;
}

TEST(Copies, OutputValuesGoToTheirRegWriteRegisters) {
  Function f;
  f.first_free_half = 16;  // r2..r7: depth, stencil and one colour target
  Builder b(f);
  ValueId x = b.def(Op::get_sr, {}, 32, 1, 80);
  ValueId v = b.def(Op::device_load, {Src::uniform(0, 64), Src::val(x)}, 32, 4);
  ValueId other = b.def(Op::iadd, {Src::val(x), Src::immediate(1)});
  for (uint8_t c = 0; c < 4; ++c) b.emit(Op::reg_write, {Src::val(v, 32, c)}, 2 * (4 + c));
  b.emit(Op::reg_write, {Src::val(other)}, 2 * 2);
  b.emit(Op::reg_write, {Src::val(x)}, 2 * 3);
  b.emit(Op::reg_write, {Src::val(x)}, 2 * 3);  // written twice: nothing lives in r3
  b.emit(Op::stop);
  Stats st;
  ASSERT_TRUE(register_allocate(f, st).ok());
  auto valid = validate(f, true);
  ASSERT_TRUE(valid.ok()) << valid.error().message();
  EXPECT_EQ(f.values[v].reg, 8);
  EXPECT_EQ(f.values[other].reg, 4);
  EXPECT_GE(f.values[x].reg, 16);
  auto code = pack_text(f);
  ASSERT_TRUE(code.ok()) << code.error().message();
  std::string text;
  EXPECT_EQ(moves_in(*code, text), 2u) << text;  // the two writes of r3
}

TEST(Copies, ValidatorRejectsValuesInReservedRegistersNoRegWriteFills) {
  Function f;
  f.first_free_half = 16;
  Builder b(f);
  ValueId x = b.def(Op::get_sr, {}, 32, 1, 80);
  b.emit(Op::reg_write, {Src::val(x)}, 2 * 4);
  b.emit(Op::stop);
  f.values[x].reg = 8;  // r4: the reg_write's own register
  EXPECT_TRUE(validate(f, true).ok());
  f.values[x].reg = 10;  // r5: nothing writes it
  EXPECT_FALSE(validate(f, true).ok());
}

}  // namespace AGX_UNITY_ID
}  // namespace agx::compiler
