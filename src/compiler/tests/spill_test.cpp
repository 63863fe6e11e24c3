// Spilling: the rewrite on IR built with the builder (IR in, expected IR
// out), the furthest-next-read choice, and kernels under heavy register
// pressure -- many live vec4s, 64-bit values, loop-carried phis, a local
// array beside spill slots -- run on the usc emulator against C++.
#include <bit>
#include <cstring>
#include <random>

#include "compiler/builder.h"
#include "compiler/passes.h"
#include "compiler/regs.h"
#include "compiler/spill.h"
#include "buffer_words.h"
#include "ir_lines.h"
#include "run_helpers.h"

namespace agx::compiler::test {
namespace AGX_UNITY_ID {

TEST(SpillPass, VectorPairAndPhiVariableGoThroughTheirSlots) {
  Function f;
  Builder b(f);
  ValueId x = b.def(Op::get_sr, {}, 32, 1, 80);                               // %0
  ValueId v = b.def(Op::device_load, {Src::uniform(0, 64), Src::val(x)}, 32, 4);  // %1: vec4
  ValueId p = b.def(Op::umul_wide, {Src::val(x), Src::val(x)}, 32, 2);         // %2: 64-bit pair
  f.values[p].pair = true;
  ValueId var = f.new_value(32, 1, true);                                      // %3: a phi variable
  b.def_into(var, Op::mov, {Src::immediate(0)});
  b.emit(Op::loop);
  ValueId s = b.def(Op::fadd, {Src::val(var), Src::val(v, 32, 2)});           // %4
  b.def_into(var, Op::mov, {Src::val(s)});
  b.emit(Op::if_, {Src::val(var), Src::val(p, 32, 1)}, 0, Cond::ult);
  b.emit(Op::break_);
  b.emit(Op::end_if);
  b.emit(Op::end_loop);
  b.emit(Op::device_store, {Src::val(var), Src::uniform(0, 64), Src::val(p, 64)});
  b.emit(Op::stop);
  ASSERT_TRUE(validate(f).ok());
  std::vector<uint8_t> pinned;
  Stats st;
  detail::spill_value(f, v, 0, pinned, st);
  detail::spill_value(f, p, 16, pinned, st);
  detail::spill_value(f, var, 24, pinned, st);
  ASSERT_TRUE(validate(f).ok()) << validate(f).error().message();
  const std::vector<std::string> want = {
      "%0:32 = get_sr sr80",
      "%5:32x4 = device_load u0:64, %0",
      "stack_store %5, #0x0",
      "%7:32x2 = umul_wide %0, %0",
      "stack_store %7, #0x10",
      "%10:32 = mov #0x0",
      "stack_store %10, #0x18",
      "loop",
      "  %6:32x4 = stack_load #0x0",
      "  %11:32 = stack_load #0x18",
      "  %4:32 = fadd %11, %6.z",
      "  %12:32 = mov %4",
      "  stack_store %12, #0x18",
      "  %8:32x2 = stack_load #0x10",
      "  %13:32 = stack_load #0x18",
      "  if_.ult %13, %8.y",
      "    break_",
      "  end_if",
      "end_loop",
      "%9:32x2 = stack_load #0x10",
      "%14:32 = stack_load #0x18",
      "device_store %14, u0:64, %9:64",
      "stop",
  };
  EXPECT_EQ(lines(f), want);
  EXPECT_EQ(st.spills, 4u);  // one store per definition: vec4, pair, two of the variable
  EXPECT_EQ(st.fills, 6u);
  EXPECT_TRUE(f.values[8].pair);  // a reloaded pair keeps its even register
  EXPECT_FALSE(f.values[11].variable);
}

TEST(SpillPass, ChoosesTheValueReadFurthestAhead) {
  Function f;
  Builder b(f);
  ValueId a = b.def(Op::get_sr, {}, 32, 1, 80);
  ValueId c = b.def(Op::get_sr, {}, 32, 1, 81);
  ValueId d = b.def(Op::get_sr, {}, 32, 1, 82);
  b.emit(Op::loop);
  ValueId e = b.def(Op::iadd, {Src::val(d), Src::immediate(1)});  // at: 4; d read here
  ValueId g = b.def(Op::iadd, {Src::val(a), Src::val(e)});       // a read 1 ahead
  b.emit(Op::device_store, {Src::val(g), Src::uniform(0, 64), Src::val(a)});
  b.emit(Op::end_loop);
  b.emit(Op::device_store, {Src::val(c), Src::uniform(0, 64), Src::val(a)});  // c read after the loop
  b.emit(Op::stop);
  std::vector<uint8_t> pinned(f.values.size(), 0);
  // At instruction 4 a, c, d hold registers: d is read there, a next, c last.
  EXPECT_EQ(detail::choose_spill(f, 4, {a, c, d}, pinned), c);
  pinned[c] = 1;
  EXPECT_EQ(detail::choose_spill(f, 4, {a, c, d}, pinned), a);
  // At instruction 6 (the store), a is read there; d only over the back
  // edge, 1 + 1 instructions away; c after the loop, 2 away: c then d.
  pinned[c] = 0;
  EXPECT_EQ(detail::choose_spill(f, 6, {a, c, d}, pinned), c);
  pinned[c] = 1;
  EXPECT_EQ(detail::choose_spill(f, 6, {a, c, d}, pinned), d);
}

TEST(SpillPass, AllocationSpillsAboveTheLocalArrays) {
  // 70 live vec4s (280 registers) and the local arrays' 48 bytes: spill
  // slots start at 48, 16-byte aligned; everything allocates and validates.
  Function f;
  f.stack_B = 40;
  Builder b(f);
  ValueId x = b.def(Op::get_sr, {}, 32, 1, 80);
  std::vector<ValueId> vs;
  for (int i = 0; i < 70; ++i)
    vs.push_back(b.def(Op::device_load, {Src::uniform(0, 64), b.iadd(Src::val(x), Src::immediate(i * 4))}, 32, 4));
  for (ValueId v : vs) b.emit(Op::device_store, {Src::val(v), Src::uniform(0, 64), Src::val(x)});
  b.emit(Op::stop);
  Stats st;
  ASSERT_TRUE(register_allocate(f, st).ok());
  ASSERT_TRUE(validate(f, true).ok()) << validate(f, true).error().message();
  EXPECT_GT(st.spills, 0u);
  EXPECT_EQ(st.fills, st.spills);  // each spilled vec4 is read once
  EXPECT_EQ(st.scratch_B, 48 + 16 * st.spills);
  for (const Instr& in : f.instrs) {
    if (in.op != Op::stack_store) continue;
    EXPECT_EQ(in.srcs[1].imm % 16, 0u);
    EXPECT_GE(in.srcs[1].imm, 48u);
  }
}

TEST(SpillPass, StackAccessesPackAsApplegpuForms) {
  // What spill_value and the local arrays emit, after allocation, as the
  // assembly text isa::assemble takes: a vec4 at a register offset, a
  // 64-bit pair, 16-bit halves (format i16) and a 16-bit scalar.
  Function f;
  Builder b(f);
  ValueId x = b.def(Op::get_sr, {}, 32, 1, 80);
  ValueId v = b.def(Op::device_load, {Src::uniform(0, 64), Src::val(x)}, 32, 4);
  b.emit(Op::stack_store, {Src::val(v), Src::val(x)});
  ValueId p = b.def(Op::umul_wide, {Src::val(x), Src::val(x)}, 32, 2);
  f.values[p].pair = true;
  b.emit(Op::stack_store, {Src::val(p), Src::immediate(16)});
  ValueId h2 = b.def(Op::collect, {Src::immediate(1, 16), Src::immediate(2, 16)}, 16, 2);
  b.emit(Op::stack_store, {Src::val(h2), Src::immediate(24)});
  ValueId h1 = b.def(Op::stack_load, {Src::immediate(26)}, 16, 1);
  ValueId w = b.def(Op::stack_load, {Src::val(x)}, 32, 3);
  b.emit(Op::device_store, {Src::val(w), Src::uniform(0, 64), Src::val(x)});
  b.emit(Op::device_store, {Src::val(b.def(Op::collect, {Src::val(h1, 16), Src::val(h1, 16)}, 16, 2), 32),
                            Src::uniform(0, 64), Src::val(x)});
  b.emit(Op::stop);
  Stats st;
  ASSERT_TRUE(register_allocate(f, st).ok());
  ASSERT_TRUE(insert_waits(f).ok());
  auto text = pack_text(f);
  ASSERT_TRUE(text.ok()) << text.error().message();
  std::vector<std::string> stack;
  for (const std::string& t : *text)
    if (t.rfind("stack_", 0) == 0) stack.push_back(t);
  const std::vector<std::string> want = {
      "stack_store i32, 0, 0, xyzw, 0, r3_r4_r5_r6, r2, 0",
      "stack_store i32, 0, 0, xy, 0, r8_r9, 16, 0",  // a pair on an even register
      "stack_store i16, 0, 0, xy, 0, r3l_r3h, 24, 0",
      "stack_load r4l, i16, 0, 0, x, 0, 26, 0",
      "stack_load r5_r6_r7, i32, 0, 0, xyz, 0, r2, 0",
  };
  EXPECT_EQ(stack, want);
  auto code = pack(f, st);
  ASSERT_TRUE(code.ok()) << code.error().message();
}

TEST(SpillExec, SixteenBitHalvesRoundTripThroughTheStack) {
  // i16 stores and loads (what a spilled 16-bit value becomes) against i32
  // ones of the same bytes, run on the emulator.
  Function f;
  Builder b(f);
  ValueId x = b.def(Op::get_sr, {}, 32, 1, 80);
  ValueId h2 = b.def(Op::collect, {Src::immediate(0x1234, 16), Src::val(x, 16)}, 16, 2);
  b.emit(Op::stack_store, {Src::val(h2), Src::immediate(8)});
  ValueId r2 = b.def(Op::stack_load, {Src::immediate(8)}, 16, 2);
  ValueId wd = b.def(Op::stack_load, {Src::immediate(8)}, 32, 1);
  ValueId hi = b.def(Op::stack_load, {Src::immediate(10)}, 16, 1);
  ValueId idx = b.def(Op::imul, {Src::val(x), Src::immediate(3)});
  b.emit(Op::device_store, {Src::val(r2, 32), Src::uniform(0, 64), Src::val(idx)});
  b.emit(Op::device_store, {Src::val(wd), Src::uniform(0, 64), b.iadd(Src::val(idx), Src::immediate(1))});
  ValueId hw = b.def(Op::collect, {Src::val(hi, 16), Src::immediate(0xABCD, 16)}, 16, 2);
  b.emit(Op::device_store, {Src::val(hw, 32), Src::uniform(0, 64), b.iadd(Src::val(idx), Src::immediate(2))});
  b.emit(Op::stop);
  Stats st;
  ASSERT_TRUE(lower_immediates(f).ok());
  ASSERT_TRUE(register_allocate(f, st).ok());
  ASSERT_TRUE(insert_waits(f).ok());
  auto code = pack(f, st);
  ASSERT_TRUE(code.ok()) << code.error().message();
  Shader sh;
  sh.code = *code;
  // What the compiler would report: the registers, u0..u4 (the buffer and
  // the workgroup count) and a frame covering the stack words at 8..11.
  sh.stats = st;
  sh.stats.scratch_B = std::max<uint32_t>(st.scratch_B, 12);
  sh.abi.resources.push_back(Resource{Resource::Kind::storage_buffer, 0, 0, 0, "O"});
  sh.abi.workgroup_count_uniform = 2;
  sh.abi.uniform_count = 5;
  sh.abi.workgroup_size = {32, 1, 1};
  Job r;
  r.buffers = {std::vector<uint32_t>(96)};
  ASSERT_OK(execute(sh, r));
  for (uint32_t t = 0; t < 32; ++t) {
    EXPECT_EQ(r.buffers[0][t * 3], t << 16 | 0x1234u) << t;
    EXPECT_EQ(r.buffers[0][t * 3 + 1], t << 16 | 0x1234u) << t;
    EXPECT_EQ(r.buffers[0][t * 3 + 2], 0xABCD0000u | t) << t;
  }
}

TEST(SpillExec, ManyLiveVec4s) {
  // 48 vec4s (192 registers) all live until the end.
  std::string src = many_live_values("vec4", 48);
  src += "  vec4 s = vec4(0.0);\n";
  for (int i = 0; i < 48; ++i) src += "  s = s * 0.5 + v" + std::to_string(47 - i) + ".wzyx;\n";
  for (int i = 0; i < 48; i += 8) src += "  o[b / 48u * 7u + " + std::to_string(i / 8) + "u] = v" + std::to_string(i) + " - s;\n";
  src += "  o[b / 48u * 7u + 6u] = s;\n}\n";
  Shader s = must_compile(src);
  ASSERT_FALSE(s.code.empty());
  EXPECT_GT(s.stats.spills, 0u);
  EXPECT_LE(s.stats.gprs, 256u);
  Job r;
  auto a = random_words(32 * 48 * 4, 41, 1000);
  for (auto& w : a) w = std::bit_cast<uint32_t>(float(w) * 0.125f);
  r.buffers = {a, std::vector<uint32_t>(32 * 7 * 4)};
  ASSERT_OK(execute(s, r));
  for (uint32_t t = 0; t < 32; ++t) {
    auto v = [&](int i, int c) { return std::bit_cast<float>(a[(t * 48 + i) * 4 + c]); };
    float sum[4] = {};
    for (int i = 0; i < 48; ++i)
      for (int c = 0; c < 4; ++c) sum[c] = sum[c] * 0.5f + v(47 - i, 3 - c);
    for (int k = 0; k < 6; ++k)
      for (int c = 0; c < 4; ++c)
        EXPECT_EQ(std::bit_cast<float>(r.buffers[1][(t * 7 + k) * 4 + c]), v(k * 8, c) - sum[c]) << t << " " << k;
    for (int c = 0; c < 4; ++c) EXPECT_EQ(std::bit_cast<float>(r.buffers[1][(t * 7 + 6) * 4 + c]), sum[c]) << t;
  }
}

TEST(SpillExec, Many64BitValues) {
  // 72 uint64 values (144 registers in pairs) live at once.
  std::string src = many_live_values("uint64_t", 72, "#extension GL_ARB_gpu_shader_int64 : require\n", " + 1ul");
  src += "  uint64_t s = 0ul;\n";
  for (int i = 0; i < 72; ++i) src += "  s = (s ^ v" + std::to_string(71 - i) + ") + (s << 3);\n";
  src += "  o[gl_GlobalInvocationID.x * 2u] = s;\n  o[gl_GlobalInvocationID.x * 2u + 1u] = v0 + v71;\n}\n";
  Shader s = must_compile(src);
  ASSERT_FALSE(s.code.empty());
  EXPECT_GT(s.stats.spills, 0u);
  Job r;
  auto a = random_words(32 * 72 * 2, 43);
  r.buffers = {a, std::vector<uint32_t>(32 * 4)};
  ASSERT_OK(execute(s, r));
  for (uint32_t t = 0; t < 32; ++t) {
    auto v = [&](int i) { return (uint64_t{a[(t * 72 + i) * 2 + 1]} << 32 | a[(t * 72 + i) * 2]) + 1; };
    uint64_t sum = 0;
    for (int i = 0; i < 72; ++i) sum = (sum ^ v(71 - i)) + (sum << 3);
    uint64_t both = v(0) + v(71);
    EXPECT_EQ(r.buffers[1][t * 4], uint32_t(sum)) << t;
    EXPECT_EQ(r.buffers[1][t * 4 + 1], uint32_t(sum >> 32)) << t;
    EXPECT_EQ(r.buffers[1][t * 4 + 2], uint32_t(both)) << t;
    EXPECT_EQ(r.buffers[1][t * 4 + 3], uint32_t(both >> 32)) << t;
  }
}

TEST(SpillExec, LoopCarriedPhis) {
  // 40 vec4 accumulators carried around a loop with a per-thread trip
  // count: 160 phi variables live across the back edge.
  std::string src = "#version 450\nlayout(local_size_x = 32) in;\n"
                    "layout(set = 0, binding = 0) buffer A { uvec4 a[]; };\n"
                    "layout(set = 0, binding = 1) buffer O { uvec4 o[]; };\nvoid main() {\n"
                    "  uint t = gl_GlobalInvocationID.x;\n";
  for (int i = 0; i < 40; ++i) src += "  uvec4 c" + std::to_string(i) + " = a[" + std::to_string(i) + "u] + uvec4(t);\n";
  src += "  for (uint k = 0u; k < 3u + t % 4u; ++k) {\n";
  for (int i = 0; i < 40; ++i)
    src += "    c" + std::to_string(i) + " = c" + std::to_string(i) + " * 3u + c" + std::to_string((i + 1) % 40) + ".yzwx + uvec4(k);\n";
  src += "  }\n";
  for (int i = 0; i < 40; ++i) src += "  o[t * 40u + " + std::to_string(i) + "u] = c" + std::to_string(i) + ";\n";
  src += "}\n";
  Shader s = must_compile(src);
  ASSERT_FALSE(s.code.empty());
  EXPECT_GT(s.stats.spills, 0u);
  EXPECT_GT(s.stats.fills, 0u);
  Job r;
  auto a = random_words(40 * 4, 47);
  r.buffers = {a, std::vector<uint32_t>(32 * 40 * 4)};
  ASSERT_OK(execute(s, r));
  for (uint32_t t = 0; t < 32; ++t) {
    uint32_t c[40][4];
    for (int i = 0; i < 40; ++i)
      for (int j = 0; j < 4; ++j) c[i][j] = a[i * 4 + j] + t;
    for (uint32_t k = 0; k < 3 + t % 4; ++k) {
      uint32_t n[40][4];
      // GLSL updates c0..c39 in order: c39 reads the new c0.
      for (int i = 0; i < 40; ++i)
        for (int j = 0; j < 4; ++j) n[i][j] = c[i][j];
      for (int i = 0; i < 40; ++i) {
        const uint32_t* next = i + 1 < 40 ? c[i + 1] : n[0];
        for (int j = 0; j < 4; ++j) n[i][j] = c[i][j] * 3 + next[(j + 1) % 4] + k;
      }
      std::memcpy(c, n, sizeof c);
    }
    for (int i = 0; i < 40; ++i)
      for (int j = 0; j < 4; ++j) ASSERT_EQ(r.buffers[1][(t * 40 + i) * 4 + j], c[i][j]) << t << " " << i << " " << j;
  }
}

TEST(SpillExec, LocalArrayBesideSpillSlots) {
  // A stack array and spills share one frame: arrays at the bottom.
  std::string src = "#version 450\nlayout(local_size_x = 32) in;\n"
                    "layout(set = 0, binding = 0) buffer A { uint a[]; };\n"
                    "layout(set = 0, binding = 1) buffer O { uint o[]; };\nvoid main() {\n"
                    "  uint t = gl_GlobalInvocationID.x;\n  uint h[32];\n"
                    "  for (uint i = 0u; i < 32u; ++i) h[i] = a[t * 200u + i] % 32u;\n";
  for (int i = 0; i < 160; ++i) src += "  uint v" + std::to_string(i) + " = a[t * 200u + " + std::to_string(i + 32) + "u];\n";
  src += "  uint s = 0u;\n";
  for (int i = 0; i < 160; ++i) src += "  s = s * 5u + v" + std::to_string(159 - i) + " + h[v" + std::to_string(i) + " % 32u];\n";
  src += "  o[t] = s;\n}\n";
  Shader s = must_compile(src);
  ASSERT_FALSE(s.code.empty());
  EXPECT_GT(s.stats.spills, 0u);
  EXPECT_GT(s.stats.scratch_B, 128u);  // the array's 128 bytes, then the slots
  Job r;
  auto a = random_words(32 * 200, 53);
  r.buffers = {a, std::vector<uint32_t>(32)};
  ASSERT_OK(execute(s, r));
  for (uint32_t t = 0; t < 32; ++t) {
    uint32_t h[32], sum = 0;
    for (int i = 0; i < 32; ++i) h[i] = a[t * 200 + i] % 32;
    auto v = [&](int i) { return a[t * 200 + 32 + i]; };
    for (int i = 0; i < 160; ++i) sum = sum * 5 + v(159 - i) + h[v(i) % 32];
    EXPECT_EQ(r.buffers[1][t], sum) << t;
  }
}

}  // namespace
}  // namespace agx::compiler::test
