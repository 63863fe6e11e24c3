// One test per pass: IR built with the builder, the pass run, the printed
// IR (or the allocation / waits) compared with what the pass must produce.
#include <gtest/gtest.h>

#include <algorithm>

#include "compiler/builder.h"
#include "compiler/passes.h"
#include "compiler/regs.h"
#include "compiler/tests/ir_lines.h"

namespace agx::compiler {
namespace AGX_UNITY_ID {

using test::lines;

TEST(Passes, BuilderFoldsImmediates) {
  Function f;
  Builder b(f);
  Src s = b.imad(Src::immediate(3), Src::immediate(4), Src::immediate(5));
  EXPECT_TRUE(s.is_imm());
  EXPECT_EQ(s.imm, 17u);
  EXPECT_TRUE(f.instrs.empty());
  EXPECT_EQ(b.binary(Op::ishl, Src::immediate(1), Src::immediate(31)).imm, 0x80000000u);
}

TEST(Passes, CopyPropReadsTheSource) {
  Function f;
  Builder b(f);
  ValueId x = b.def(Op::get_sr, {}, 32, 1, 80);
  ValueId m = b.def(Op::mov, {Src::val(x)});
  ValueId y = b.def(Op::iadd, {Src::val(m), Src::immediate(1)});
  b.emit(Op::device_store, {Src::val(y), Src::uniform(0, 64), Src::val(m)});
  b.emit(Op::stop);
  EXPECT_TRUE(opt_copy_prop(f));
  EXPECT_EQ(lines(f)[2], "%2:32 = iadd %0, #0x1");
  EXPECT_EQ(lines(f)[3], "device_store %2, u0:64, %0");
  ASSERT_TRUE(validate(f).ok());
}

TEST(Passes, CseReusesDominatingResultsOnly) {
  Function f;
  Builder b(f);
  ValueId x = b.def(Op::get_sr, {}, 32, 1, 80);
  ValueId a = b.def(Op::iadd, {Src::val(x), Src::immediate(1)});
  ValueId a2 = b.def(Op::iadd, {Src::val(x), Src::immediate(1)});
  b.emit(Op::if_, {Src::val(x), Src::immediate(0)}, 0, Cond::ueq);
  ValueId c = b.def(Op::imul, {Src::val(x), Src::val(x)});
  b.emit(Op::device_store, {Src::val(c), Src::uniform(0, 64), Src::val(a2)});
  b.emit(Op::else_);
  ValueId c2 = b.def(Op::imul, {Src::val(x), Src::val(x)});  // not dominated by the then part
  b.emit(Op::device_store, {Src::val(c2), Src::uniform(0, 64), Src::val(a)});
  b.emit(Op::end_if);
  b.emit(Op::stop);
  EXPECT_TRUE(opt_cse(f));
  auto l = lines(f);
  EXPECT_EQ(l[5], "  device_store %3, u0:64, %1");  // a2 -> a
  EXPECT_EQ(l[7], "  %4:32 = imul %0, %0");         // stays
  EXPECT_EQ(l[8], "  device_store %4, u0:64, %1");
  ASSERT_TRUE(validate(f).ok());
}

TEST(Passes, DceRemovesDeadValuesAndAtomicResults) {
  Function f;
  Builder b(f);
  ValueId x = b.def(Op::get_sr, {}, 32, 1, 80);
  b.def(Op::iadd, {Src::val(x), Src::immediate(1)});  // dead
  ValueId l = b.def(Op::device_load, {Src::uniform(0, 64), Src::val(x)});  // dead load
  (void)l;
  ValueId one = b.def(Op::mov, {Src::immediate(1)});
  f.instrs.push_back(Instr{Op::atomic, Cond::none, false, f.new_value(), {Src::uniform(0, 64), Src::val(x), Src::val(one)},
                           static_cast<uint64_t>(AtomicOp::add), 0});
  b.emit(Op::stop);
  EXPECT_TRUE(dce(f));
  auto ls = lines(f);
  ASSERT_EQ(ls.size(), 4u);
  EXPECT_EQ(ls[0], "%0:32 = get_sr sr80");
  EXPECT_EQ(ls[2], "atomic.add u0:64, %0, %3");  // no destination: the no-return form
  ASSERT_TRUE(validate(f).ok());
}

TEST(Passes, CseReadsOfAVariableMatchOnlyTheSameVersion) {
  Function f;
  Builder b(f);
  ValueId v = f.new_value(32, 1, true);
  b.def_into(v, Op::mov, {Src::immediate(0)});
  ValueId l0 = b.def(Op::device_load, {Src::uniform(0, 64), Src::val(v)});      // %1
  b.emit(Op::loop);
  ValueId l1 = b.def(Op::device_load, {Src::uniform(0, 64), Src::val(v)});      // %2: v changes in the loop
  ValueId l2 = b.def(Op::device_load, {Src::uniform(0, 64), Src::val(v)});      // %3: same version as %2
  ValueId s = b.def(Op::iadd, {Src::val(l1), Src::val(l2)});
  b.def_into(v, Op::iadd, {Src::val(v), Src::immediate(1)});
  ValueId l3 = b.def(Op::device_load, {Src::uniform(0, 64), Src::val(v)});      // %5: after the new definition
  b.emit(Op::device_store, {Src::val(s), Src::uniform(2, 64), Src::val(l3)});
  b.emit(Op::break_);
  b.emit(Op::end_loop);
  b.emit(Op::device_store, {Src::val(l0), Src::uniform(2, 64), Src::immediate(0)});
  b.emit(Op::stop);
  EXPECT_TRUE(opt_cse(f));
  auto l = lines(f);
  EXPECT_EQ(l[3], "  %2:32 = device_load u0:64, %0");
  EXPECT_EQ(l[5], "  %4:32 = iadd %2, %2");  // %3 reads %2
  EXPECT_EQ(l[7], "  %5:32 = device_load u0:64, %0");
  EXPECT_EQ(l[8], "  device_store %4, u2:64, %5");
  auto st = validate(f);
  ASSERT_TRUE(st.ok()) << st.error().message();
}

TEST(Passes, EmptyElseGoes) {
  Function f;
  Builder b(f);
  ValueId x = b.def(Op::get_sr, {}, 32, 1, 80);
  b.emit(Op::if_, {Src::val(x), Src::immediate(4)}, 0, Cond::ult);  // empty then part
  b.emit(Op::else_);
  b.emit(Op::device_store, {Src::val(x), Src::uniform(0, 64), Src::immediate(0)});
  b.emit(Op::end_if);
  b.emit(Op::if_, {Src::val(x), Src::immediate(9)}, 0, Cond::flt);  // empty else part
  b.emit(Op::device_store, {Src::val(x), Src::uniform(0, 64), Src::immediate(1)});
  b.emit(Op::else_);
  b.emit(Op::end_if);
  b.emit(Op::if_, {Src::val(x), Src::immediate(2)}, 0, Cond::ugt);  // empty once the inner one goes
  b.emit(Op::if_, {Src::val(x), Src::immediate(3)}, 0, Cond::ugt);
  b.emit(Op::else_);
  b.emit(Op::end_if);
  b.emit(Op::end_if);
  b.emit(Op::stop);
  EXPECT_TRUE(opt_empty_else(f));
  EXPECT_EQ(lines(f), (std::vector<std::string>{"%0:32 = get_sr sr80", "if_.ugte %0, #0x4",
                                                "  device_store %0, u0:64, #0x0", "end_if", "if_.lt %0, #0x9",
                                                "  device_store %0, u0:64, #0x1", "end_if", "stop"}));
  EXPECT_FALSE(opt_empty_else(f));
  ASSERT_TRUE(validate(f).ok());
}

TEST(Passes, BreakIfFusesConditionalJumpsAndHoistsExitCopies) {
  Function f;
  Builder b(f);
  ValueId i = f.new_value(32, 1, true), out = f.new_value(32, 1, true), inner = f.new_value(32, 1, true);
  b.def_into(i, Op::mov, {Src::immediate(0)});
  b.emit(Op::loop);
  ValueId t = b.def(Op::iadd, {Src::val(i), Src::immediate(5)});
  b.emit(Op::if_, {Src::val(i), Src::uniform(4)}, 0, Cond::ult, true);  // if (!(i < u4)) { out = t; break; }
  b.def_into(out, Op::mov, {Src::val(t)});
  b.emit(Op::break_);
  b.emit(Op::end_if);
  b.emit(Op::if_, {Src::val(t), Src::immediate(7)}, 0, Cond::ueq);     // if (t == 7) continue;
  b.emit(Op::continue_);
  b.emit(Op::end_if);
  b.emit(Op::if_, {Src::val(t), Src::immediate(9)}, 0, Cond::ueq);     // inner is read in the loop: stays
  b.def_into(inner, Op::mov, {Src::val(t)});
  b.def_into(out, Op::mov, {Src::val(i)});
  b.emit(Op::break_);
  b.emit(Op::end_if);
  b.emit(Op::device_store, {Src::val(inner), Src::uniform(0, 64), Src::val(i)});
  b.emit(Op::if_, {Src::val(t), Src::immediate(11)}, 0, Cond::ueq);    // writes out at the second exit
  b.def_into(out, Op::mov, {Src::val(i)});
  b.emit(Op::break_);
  b.emit(Op::end_if);
  b.def_into(i, Op::mov, {Src::val(t)});
  b.emit(Op::end_loop);
  b.emit(Op::device_store, {Src::val(out), Src::uniform(0, 64), Src::val(inner)});
  b.emit(Op::stop);
  EXPECT_TRUE(opt_break_if(f));
  EXPECT_EQ(lines(f), (std::vector<std::string>{
                          "%0:32 = mov #0x0", "loop", "  %3:32 = iadd %0, #0x5", "  %1:32 = mov %3",
                          "  break_if.ugte %0, u4", "  continue_if.ueq %3, #0x7", "  if_.ueq %3, #0x9",
                          "    %2:32 = mov %3", "    %1:32 = mov %0", "    break_", "  end_if", "  device_store %2, u0:64, %0",
                          "  %1:32 = mov %0", "  break_if.ueq %3, #0xb", "  %0:32 = mov %3", "end_loop",
                          "device_store %1, u0:64, %2", "stop"}));
  auto st = validate(f);
  ASSERT_TRUE(st.ok()) << st.error().message();
  // lower_control_flow gives the fused jumps the nesting values of a
  // break/continue with no if around them.
  ASSERT_TRUE(lower_control_flow(f).ok());
  EXPECT_EQ(f.instrs[4].imm, 2u);
  EXPECT_EQ(f.instrs[5].imm, 1u);
  EXPECT_EQ(f.instrs[9].imm, 3u);
}

TEST(Passes, BreakIfKeepsCopiesALaterExitDoesNotMake) {
  // Two exits: only the first writes `out`, so a lane that stays in the
  // loop and leaves by the second must keep out's old value.
  Function f;
  Builder b(f);
  ValueId x = b.def(Op::get_sr, {}, 32, 1, 80);
  ValueId out = f.new_value(32, 1, true);
  b.def_into(out, Op::mov, {Src::immediate(1)});
  b.emit(Op::loop);
  b.emit(Op::if_, {Src::val(x), Src::immediate(3)}, 0, Cond::ueq);
  b.def_into(out, Op::mov, {Src::val(x)});
  b.emit(Op::break_);
  b.emit(Op::end_if);
  b.emit(Op::if_, {Src::val(x), Src::immediate(5)}, 0, Cond::ugt);
  b.emit(Op::break_);
  b.emit(Op::end_if);
  b.emit(Op::end_loop);
  b.emit(Op::device_store, {Src::val(out), Src::uniform(0, 64), Src::immediate(0)});
  b.emit(Op::stop);
  EXPECT_TRUE(opt_break_if(f));  // the second site only
  auto l = lines(f);
  EXPECT_EQ(l[3], "  if_.ueq %0, #0x3");
  EXPECT_EQ(l[7], "  break_if.ugt %0, #0x5");
  ASSERT_TRUE(validate(f).ok());
}

TEST(Passes, PackBreakIfBeyondTheCmpselImmediate) {
  // 300 ifs open around a fused break: its nesting value (301 in a loop
  // of one level) does not fit cmpsel's 8-bit immediate, so it is packed
  // as the if/break it came from; with 2 ifs it is the cmpsel pair, with
  // none the loop's one-level while.
  for (int depth : {0, 2, 300}) {
    Function f;
    Builder b(f);
    b.emit(Op::loop);
    for (int d = 0; d < depth; ++d) b.emit(Op::if_, {Src::uniform(4), Src::immediate(d % 200)}, 0, Cond::ugt);
    b.emit(Op::break_if, {Src::uniform(5), Src::immediate(9)}, 0, Cond::ult, true);
    for (int d = 0; d < depth; ++d) b.emit(Op::end_if);
    b.emit(Op::end_loop);
    b.emit(Op::stop);
    ASSERT_TRUE(lower_control_flow(f).ok());
    auto text = pack_text(f);
    ASSERT_TRUE(text.ok()) << text.error().message();
    // The jump's lines: from its comparison of u5 on.
    const std::vector<std::string>& t = *text;
    auto first = std::find_if(t.begin(), t.end(), [](const std::string& l) { return l.find("u5") != std::string::npos; });
    ASSERT_NE(first, t.end());
    const std::vector<std::string> jump(first, std::min(first + 4, t.end()));
    if (depth == 0) {
      ASSERT_GE(jump.size(), 2u);
      EXPECT_EQ(jump[0], "while_icmp r0l, ult, u5, 9, 1");  // lanes where u5 < 9 stay
      EXPECT_EQ(jump[1], "jmp_exec_any pc-6");  // back to the while (the loop's start), 6 bytes long
    } else if (depth == 2) {
      ASSERT_GE(jump.size(), 2u);
      EXPECT_EQ(jump[0], "icmpsel ult, r0l, u5, 9, r0l, 3");  // inverted: r0l kept where u5 < 9
      EXPECT_EQ(jump[1], "pop_exec r0l, 0");
    } else {
      ASSERT_GE(jump.size(), 4u);
      EXPECT_EQ(jump[0], "if_icmp r0l, ugte, u5, 9, 1");
      EXPECT_EQ(jump[1], "mov_imm r0l, 302");
      EXPECT_EQ(jump[2], "pop_exec r0l, 0");
      EXPECT_EQ(jump[3], "pop_exec r0l, 1");
    }
  }
}

TEST(Passes, CoalescePhisWritesTheVariableDirectly) {
  Function f;
  Builder b(f);
  ValueId acc = f.new_value(32, 1, true);
  b.def_into(acc, Op::mov, {Src::immediate(0)});
  b.emit(Op::loop);
  ValueId t = b.def(Op::iadd, {Src::val(acc), Src::immediate(3)});
  ValueId u = b.def(Op::imul, {Src::val(t), Src::val(t)});  // t read before the copy: fine
  b.def_into(acc, Op::mov, {Src::val(t)});
  ValueId w = b.def(Op::iadd, {Src::val(u), Src::immediate(1)});
  ValueId k = b.def(Op::iadd, {Src::val(acc), Src::immediate(1)});
  b.emit(Op::if_, {Src::val(w), Src::immediate(100)}, 0, Cond::ugt);
  b.emit(Op::end_if);
  ValueId acc2 = f.new_value(32, 1, true);
  b.def_into(acc2, Op::mov, {Src::val(k)});  // control flow between: stays
  b.emit(Op::break_);
  b.emit(Op::end_loop);
  b.emit(Op::device_store, {Src::val(acc), Src::uniform(0, 64), Src::val(acc2)});
  b.emit(Op::stop);
  EXPECT_TRUE(opt_coalesce_phis(f));
  auto l = lines(f);
  EXPECT_EQ(l[2], "  %0:32 = iadd %0, #0x3");
  EXPECT_EQ(l[3], "  %2:32 = imul %0, %0");
  EXPECT_EQ(l[4], "  %3:32 = iadd %2, #0x1");
  EXPECT_EQ(l[8], "  %5:32 = mov %4");
  auto st = validate(f);
  ASSERT_TRUE(st.ok()) << st.error().message();
}

TEST(Passes, LowerImmediatesMovesWhatCannotBeEncoded) {
  Function f;
  Builder b(f);
  ValueId x = b.def(Op::get_sr, {}, 32, 1, 80);
  ValueId a = b.def(Op::iadd, {Src::val(x), Src::immediate(300)});        // > 8 bits
  ValueId c = b.def(Op::iadd, {Src::val(a), Src::immediate(200)});        // fits
  ValueId fl = b.def(Op::fmul, {Src::val(c), Src::immediate(0x3f800000)}); // 1.0 has a code
  ValueId fl2 = b.def(Op::fmul, {Src::val(fl), Src::immediate(0x3dcccccd)}); // 0.1 has none
  b.emit(Op::device_store, {Src::immediate(5), Src::uniform(0, 64), Src::immediate(70000)});
  b.emit(Op::device_store, {Src::val(fl2), Src::uniform(0, 64), Src::immediate(12)});
  b.emit(Op::stop);
  ASSERT_TRUE(lower_immediates(f).ok());
  auto l = lines(f);
  EXPECT_EQ(l[1], "%5:32 = mov #0x12c");
  EXPECT_EQ(l[2], "%1:32 = iadd %0, %5");
  EXPECT_EQ(l[3], "%2:32 = iadd %1, #0xc8");
  EXPECT_EQ(l[4], "%3:32 = fmul %2, #0x3f800000");
  EXPECT_EQ(l[5], "%6:32 = mov #0x3dcccccd");
  EXPECT_EQ(l[7], "%7:32 = mov #0x5");
  EXPECT_EQ(l[8], "%8:32 = mov #0x11170");
  EXPECT_EQ(l[9], "device_store %7, u0:64, %8");
  EXPECT_EQ(l[10], "device_store %4, u0:64, #0xc");
  ASSERT_TRUE(validate(f).ok());
}

// cmpsel's selected values X and Y reach u0..u127 only (an 8-bit index of
// halves): u128 moves into a register (u127 and the compared u200 stay),
// and the result packs.
TEST(Passes, LowerImmediatesMovesHighUniformsOutOfCmpselValues) {
  Function f;
  Builder b(f);
  ValueId x = b.def(Op::get_sr, {}, 32, 1, 80);
  ValueId s = b.def(Op::icmpsel, {Src::val(x), Src::uniform(200), Src::uniform(128), Src::uniform(127)}, 32, 1, 0,
                    Cond::ueq);
  ValueId t = b.def(Op::fcmpsel, {Src::val(s), Src::val(x), Src::val(s), Src::uniform(300)}, 32, 1, 0, Cond::flt);
  b.emit(Op::device_store, {Src::val(t), Src::uniform(0, 64), Src::immediate(0)});
  b.emit(Op::stop);
  ASSERT_TRUE(lower_immediates(f).ok());
  auto l = lines(f);
  ASSERT_GE(l.size(), 6u);
  EXPECT_EQ(l[1], "%3:32 = mov u128");
  EXPECT_EQ(l[2], "%1:32 = icmpsel.ueq %0, u200, %3, u127");
  EXPECT_EQ(l[3], "%4:32 = mov u300");
  EXPECT_EQ(l[4], "%2:32 = fcmpsel.lt %1, %0, %1, %4");
  ASSERT_TRUE(validate(f).ok());
  Stats st;
  ASSERT_TRUE(register_allocate(f, st).ok());
  auto text = pack_text(f);
  ASSERT_TRUE(text.ok()) << text.error().message();
}

TEST(Passes, LowerIdivByPowerOfTwoIsAShift) {
  Function f;
  Builder b(f);
  ValueId x = b.def(Op::get_sr, {}, 32, 1, 80);
  ValueId q = b.def(Op::udiv, {Src::val(x), Src::immediate(8)});
  ValueId r = b.def(Op::umod, {Src::val(x), Src::immediate(8)});
  b.emit(Op::device_store, {Src::val(q), Src::uniform(0, 64), Src::val(r)});
  b.emit(Op::stop);
  ASSERT_TRUE(lower_idiv(f).ok());
  auto l = lines(f);
  EXPECT_EQ(l[1], "%3:32 = ushr %0, #0x3");
  EXPECT_EQ(l[2], "%1:32 = mov %3");
  EXPECT_EQ(l[3], "%4:32 = iand %0, #0x7");
  ASSERT_TRUE(validate(f).ok());
}

TEST(Passes, RegisterAllocationKeepsLoopCarriedValuesAlive) {
  Function f;
  Builder b(f);
  ValueId acc = f.new_value(32, 1, true);
  b.def_into(acc, Op::mov, {Src::immediate(0)});
  ValueId x = b.def(Op::get_sr, {}, 32, 1, 80);
  b.emit(Op::loop);
  ValueId t = b.def(Op::iadd, {Src::val(acc), Src::val(x)});  // x: defined before, used inside
  b.def_into(acc, Op::mov, {Src::val(t)});
  ValueId tmp = b.def(Op::imul, {Src::val(t), Src::val(t)});  // dies inside the loop
  b.emit(Op::if_, {Src::val(tmp), Src::immediate(100)}, 0, Cond::ugt);
  b.emit(Op::break_);
  b.emit(Op::end_if);
  b.emit(Op::end_loop);
  ValueId v4 = b.def(Op::collect, {Src::val(acc), Src::val(acc), Src::val(acc), Src::val(acc)}, 32, 4);
  b.emit(Op::device_store, {Src::val(v4), Src::uniform(0, 64), Src::immediate(0)});
  b.emit(Op::stop);
  Stats st;
  ASSERT_TRUE(register_allocate(f, st).ok());
  ASSERT_TRUE(validate(f, true).ok());
  auto overlap = [&](ValueId a, ValueId c) {
    const Value &p = f.values[a], &q = f.values[c];
    return p.reg < q.reg + int(q.halves()) && q.reg < p.reg + int(p.halves());
  };
  EXPECT_FALSE(overlap(acc, x));
  EXPECT_FALSE(overlap(acc, tmp));
  EXPECT_FALSE(overlap(x, tmp));
  EXPECT_FALSE(overlap(x, t));
  EXPECT_EQ(f.values[v4].reg % 2, 0);
  EXPECT_GE(f.values[acc].reg, int(kFirstAllocatableHalf));
  EXPECT_GE(st.gprs, 12u);
  EXPECT_EQ(st.threads_per_core, 1024u);
}

TEST(Passes, LowerControlFlowCountsIfsInsideTheLoop) {
  Function f;
  Builder b(f);
  ValueId x = b.def(Op::get_sr, {}, 32, 1, 80);
  b.emit(Op::loop);
  b.emit(Op::if_, {Src::val(x), Src::immediate(1)}, 0, Cond::ueq);
  b.emit(Op::if_, {Src::val(x), Src::immediate(2)}, 0, Cond::ugt);
  b.emit(Op::break_);
  b.emit(Op::end_if);
  b.emit(Op::continue_);
  b.emit(Op::end_if);
  b.emit(Op::break_);
  b.emit(Op::end_loop);
  b.emit(Op::stop);
  ASSERT_TRUE(lower_control_flow(f).ok());
  EXPECT_EQ(f.instrs[4].imm, 4u);  // two ifs + 2
  EXPECT_EQ(f.instrs[6].imm, 2u);  // one if + 1
  EXPECT_EQ(f.instrs[8].imm, 2u);  // no if + 2
}

TEST(Passes, InsertWaitsBeforeTheFirstUseOfALoad) {
  Function f;
  Builder b(f);
  ValueId x = b.def(Op::get_sr, {}, 32, 1, 80);
  ValueId l = b.def(Op::device_load, {Src::uniform(0, 64), Src::val(x)}, 32, 2);
  ValueId y = b.def(Op::iadd, {Src::val(x), Src::immediate(1)});
  ValueId z = b.def(Op::iadd, {Src::val(l, 32, 1), Src::val(y)});
  b.emit(Op::device_store, {Src::val(z), Src::uniform(0, 64), Src::val(x)});
  b.emit(Op::stop);
  Stats st;
  ASSERT_TRUE(register_allocate(f, st).ok());
  ASSERT_TRUE(insert_waits(f).ok());
  auto ls = lines(f);
  ASSERT_EQ(ls.size(), 7u);
  EXPECT_NE(ls[2].find("iadd"), std::string::npos);  // independent work runs before the wait
  EXPECT_EQ(ls[3], "wait");
  EXPECT_NE(ls[4].find("iadd"), std::string::npos);
}

TEST(Passes, ValidatorRejectsBrokenIr) {
  Function f;
  Builder b(f);
  ValueId x = f.new_value();
  b.def(Op::iadd, {Src::val(x), Src::immediate(1)});  // x never defined
  b.emit(Op::stop);
  EXPECT_FALSE(validate(f).ok());
  Function g;
  Builder c(g);
  c.emit(Op::if_, {Src::immediate(0), Src::immediate(0)}, 0, Cond::ueq);
  c.emit(Op::stop);
  EXPECT_FALSE(validate(g).ok());
  Function h;
  Builder d(h);
  d.emit(Op::if_, {Src::immediate(0), Src::immediate(0)}, 0, Cond::ueq);
  ValueId v = d.def(Op::get_sr, {}, 32, 1, 80);
  d.emit(Op::end_if);
  d.def(Op::iadd, {Src::val(v), Src::immediate(1)});  // then-part value used after the join
  d.emit(Op::stop);
  EXPECT_FALSE(validate(h).ok());
}

}  // namespace
}  // namespace agx::compiler
