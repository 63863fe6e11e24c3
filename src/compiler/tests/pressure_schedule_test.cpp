// pressure_schedule.cpp: IR built with the builder, the pass run, the
// printed IR compared with the order that must come out.
#include <gtest/gtest.h>

#include <cmath>

#include <fmt/format.h>

#include "compiler/builder.h"
#include "compiler/passes.h"
#include "run_helpers.h"

namespace agx::compiler {
namespace AGX_UNITY_ID {

std::vector<std::string> lines(const Function& f) {
  std::vector<std::string> out;
  std::string text = print(f), cur;
  for (char c : text) {
    if (c == '\n') { out.push_back(cur); cur.clear(); } else { cur += c; }
  }
  return out;
}

// Three values computed up front and combined at the end keep four
// registers live (8 halves); each square computed next to its operand
// keeps at most three (6 halves).
TEST(PressureSchedule, InterleavesToLowerThePeak) {
  Function f;
  Builder b(f);
  ValueId x = b.def(Op::get_sr, {}, 32, 1, 80);
  ValueId a = b.def(Op::iadd, {Src::val(x), Src::immediate(1)});
  ValueId c = b.def(Op::iadd, {Src::val(x), Src::immediate(2)});
  ValueId d = b.def(Op::iadd, {Src::val(x), Src::immediate(3)});
  ValueId a2 = b.def(Op::imul, {Src::val(a), Src::val(a)});
  ValueId c2 = b.def(Op::imul, {Src::val(c), Src::val(c)});
  ValueId d2 = b.def(Op::imul, {Src::val(d), Src::val(d)});
  ValueId s1 = b.def(Op::iadd, {Src::val(a2), Src::val(c2)});
  ValueId s2 = b.def(Op::iadd, {Src::val(s1), Src::val(d2)});
  b.emit(Op::device_store, {Src::val(s2), Src::uniform(0, 64), Src::val(x)});
  b.emit(Op::stop);
  EXPECT_TRUE(pressure_schedule(f));
  EXPECT_EQ(lines(f), (std::vector<std::string>{
                          "%0:32 = get_sr sr80",
                          "%1:32 = iadd %0, #0x1",
                          "%4:32 = imul %1, %1",
                          "%2:32 = iadd %0, #0x2",
                          "%5:32 = imul %2, %2",
                          "%7:32 = iadd %4, %5",
                          "%3:32 = iadd %0, #0x3",
                          "%6:32 = imul %3, %3",
                          "%8:32 = iadd %7, %6",
                          "device_store %8, u0:64, %0",
                          "stop",
                      }));
  EXPECT_TRUE(validate(f).ok());
  EXPECT_FALSE(pressure_schedule(f));  // already best
}

// Loads, stores and phi-variable accesses keep their order; a block whose
// peak cannot drop is left as it is; values read after the block stay
// live (here: inside the if).
TEST(PressureSchedule, KeepsMemoryOrderAndBlocksWithoutGain) {
  Function f;
  Builder b(f);
  ValueId x = b.def(Op::get_sr, {}, 32, 1, 80);
  ValueId l1 = b.def(Op::device_load, {Src::uniform(0, 64), Src::val(x)});
  b.emit(Op::device_store, {Src::val(x), Src::uniform(0, 64), Src::immediate(4)});
  ValueId l2 = b.def(Op::device_load, {Src::uniform(0, 64), Src::immediate(8)});
  ValueId v = f.new_value(32, 1, true);
  b.def_into(v, Op::mov, {Src::val(l1)});
  ValueId s = b.def(Op::iadd, {Src::val(l1), Src::val(l2)});
  b.emit(Op::if_, {Src::val(s), Src::immediate(0)}, 0, Cond::ueq);
  b.def_into(v, Op::iadd, {Src::val(l2), Src::immediate(1)});
  b.emit(Op::end_if);
  b.emit(Op::device_store, {Src::val(v), Src::uniform(0, 64), Src::val(x)});
  b.emit(Op::stop);
  const std::string before = print(f);
  EXPECT_FALSE(pressure_schedule(f));
  EXPECT_EQ(print(f), before);
  EXPECT_TRUE(validate(f).ok());
}

// 64 values computed from the thread id in source order and combined
// pairwise from both ends: in source order all 64 are live at once (past
// Mesa's full-occupancy step of 104 halves); scheduled, each is computed
// just before its product. Both orders compute the same bits, near the
// C++ sum.
TEST(PressureSchedule, LowersTheKernelsRegistersAndKeepsItsResults) {
  constexpr int kValues = 64;
  std::string src = "#version 450\nlayout(local_size_x = 32) in;\n"
                    "layout(set = 0, binding = 0) buffer O { float o[]; };\n"
                    "void main() {\n  uint i = gl_GlobalInvocationID.x;\n  float x = float(i);\n";
  for (int k = 0; k < kValues; ++k) src += fmt::format("  float v{} = x * {}.0 + {}.0;\n", k, k + 1, k * k);
  src += "  float r = 0.0;\n";
  for (int k = 0; k < kValues / 2; ++k) src += fmt::format("  r = r * 0.5 + v{} * v{};\n", k, kValues - 1 - k);
  src += "  o[i] = r;\n}\n";
  Options o;
  o.file_name = "pressure.comp";
  auto scheduled = compile_glsl(src, o);
  o.pressure_schedule = false;
  auto plain = compile_glsl(src, o);
  ASSERT_TRUE(scheduled.ok() && plain.ok());
  EXPECT_GT(plain->stats.gprs, 104u);
  EXPECT_LT(scheduled->stats.gprs, plain->stats.gprs / 2);
  EXPECT_GT(scheduled->stats.threads_per_core, plain->stats.threads_per_core);
  EXPECT_EQ(scheduled->stats.instructions, plain->stats.instructions);
  test::Job a, b;
  a.buffers = b.buffers = {std::vector<uint32_t>(32)};
  ASSERT_OK(test::execute(*scheduled, a));
  ASSERT_OK(test::execute(*plain, b));
  EXPECT_EQ(a.buffers[0], b.buffers[0]);
  for (uint32_t i = 0; i < 32; ++i) {
    double r = 0, x = i;
    for (int k = 0; k < kValues / 2; ++k) {
      int m = kValues - 1 - k;
      r = r * 0.5 + (x * (k + 1) + k * k) * (x * (m + 1) + double(m) * m);
    }
    float got;
    std::memcpy(&got, &a.buffers[0][i], 4);
    EXPECT_NEAR(got, r, 1e-5 * std::fabs(r) + 1e-3) << i;
  }
}

}  // namespace
}  // namespace agx::compiler
