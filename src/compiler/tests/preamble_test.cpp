// The preamble (opt_preamble.cpp): the split on IR built with the builder
// (preamble IR and main IR compared line by line), and kernels run with
// their preamble first, as the CDM runs the Preshader (run_helpers.h),
// against the same computation in C++.
#include <gtest/gtest.h>

#include <cmath>

#include "compiler/builder.h"
#include "compiler/passes.h"
#include "run_helpers.h"

namespace agx::compiler {
namespace AGX_UNITY_ID {

using test::execute;
using test::Job;
using test::must_compile;

std::vector<std::string> lines(const Function& f) {
  std::vector<std::string> out;
  std::string text = print(f), cur;
  for (char c : text) {
    if (c == '\n') { out.push_back(cur); cur.clear(); } else { cur += c; }
  }
  return out;
}

uint32_t fbits(float f) { uint32_t u; std::memcpy(&u, &f, 4); return u; }
float bitsf(uint32_t u) { float f; std::memcpy(&f, &u, 4); return f; }

// Uniform arithmetic and a top-level uniform-buffer word move; the thread
// id, a storage-buffer load, a uniform-buffer load under an `if`, and a
// value whose only reader would need a `mov` from its uniform (no saving)
// stay.
TEST(Preamble, SplitsUniformWorkFromTheMainShader) {
  Abi abi;
  abi.resources = {{Resource::Kind::storage_buffer, 0, 0, 0, "S"}, {Resource::Kind::uniform_buffer, 0, 1, 2, "U"}};
  abi.uniform_count = 8;
  Function f;
  Builder b(f);
  ValueId id = b.def(Op::get_sr, {}, 32, 1, 80);
  ValueId cu = b.def(Op::convert, {Src::uniform(4)}, 32, 1, static_cast<uint64_t>(Conv::u32_to_f));
  ValueId r = b.def(Op::rcp, {Src::val(cu)});
  ValueId cid = b.def(Op::convert, {Src::val(id)}, 32, 1, static_cast<uint64_t>(Conv::u32_to_f));
  ValueId scaled = b.def(Op::fmul, {Src::val(cid), Src::val(r)});
  ValueId word = b.def(Op::device_load, {Src::uniform(2, 64), Src::immediate(0)});
  ValueId data = b.def(Op::device_load, {Src::uniform(0, 64), Src::val(id)});
  ValueId sum = b.def(Op::iadd, {Src::val(data), Src::val(word)});
  ValueId sq = b.def(Op::imul, {Src::uniform(5), Src::uniform(5)});
  b.emit(Op::device_store, {Src::val(sum), Src::uniform(0, 64), Src::val(sq)});
  b.emit(Op::device_store, {Src::val(scaled), Src::uniform(0, 64), Src::val(id)});
  b.emit(Op::if_, {Src::val(id), Src::immediate(0)}, 0, Cond::ueq);
  ValueId guarded = b.def(Op::device_load, {Src::uniform(2, 64), Src::immediate(1)});
  b.emit(Op::device_store, {Src::val(guarded), Src::uniform(0, 64), Src::val(id)});
  b.emit(Op::end_if);
  b.emit(Op::stop);
  ASSERT_TRUE(validate(f).ok());

  auto pre = opt_preamble(f, abi);
  ASSERT_TRUE(pre.ok()) << pre.error().message();
  EXPECT_EQ(pre->first_uniform, 8u);
  EXPECT_EQ(pre->uniform_count, 2u);
  EXPECT_EQ(lines(pre->function), (std::vector<std::string>{
                                      "%0:32 = convert.0 u4",
                                      "%1:32 = rcp %0",
                                      "uniform_store u8 %1",
                                      "%2:32 = device_load u2:64, #0x0",
                                      "uniform_store u9 %2",
                                      "stop",
                                  }));
  EXPECT_EQ(lines(f), (std::vector<std::string>{
                          "%0:32 = get_sr sr80",
                          "%3:32 = convert.0 %0",
                          "%4:32 = fmul %3, u8",
                          "%6:32 = device_load u0:64, %0",
                          "%7:32 = iadd %6, u9",
                          "%8:32 = imul u5, u5",
                          "device_store %7, u0:64, %8",
                          "device_store %4, u0:64, %0",
                          "if_.ueq %0, #0x0",
                          "  %9:32 = device_load u2:64, #0x1",
                          "  device_store %9, u0:64, %0",
                          "end_if",
                          "stop",
                      }));
  EXPECT_TRUE(validate(f).ok());
  EXPECT_TRUE(validate(pre->function).ok());
}

// Pure work inside a loop moves too (it cannot fault); a uniform that
// every thread reads through a register-only source is not worth a store.
TEST(Preamble, LoopInvariantUniformWorkMovesOnlyWhenItSaves) {
  Abi abi;
  abi.uniform_count = 4;
  Function f;
  Builder b(f);
  ValueId id = b.def(Op::get_sr, {}, 32, 1, 80);
  ValueId n = f.new_value(32, 1, true);
  b.def_into(n, Op::mov, {Src::immediate(0)});
  b.emit(Op::loop);
  ValueId limit = b.def(Op::iadd, {Src::uniform(2), Src::uniform(3)});
  b.emit(Op::if_, {Src::val(n), Src::val(limit)}, 0, Cond::ult, true);
  b.emit(Op::break_);
  b.emit(Op::end_if);
  b.def_into(n, Op::iadd, {Src::val(n), Src::immediate(1)});
  b.emit(Op::end_loop);
  ValueId c = b.def(Op::iadd, {Src::uniform(2), Src::immediate(5)});
  b.emit(Op::device_store, {Src::val(c), Src::uniform(0, 64), Src::val(id)});
  b.emit(Op::device_store, {Src::val(n), Src::uniform(0, 64), Src::val(id)});
  b.emit(Op::stop);
  ASSERT_TRUE(validate(f).ok());
  auto pre = opt_preamble(f, abi);
  ASSERT_TRUE(pre.ok()) << pre.error().message();
  EXPECT_EQ(lines(pre->function), (std::vector<std::string>{"%0:32 = iadd u2, u3", "uniform_store u4 %0", "stop"}));
  auto l = lines(f);
  ASSERT_GE(l.size(), 5u);
  EXPECT_NE(l[3].find("if_"), std::string::npos) << l[3];
  EXPECT_NE(l[3].find("%1, u4"), std::string::npos) << l[3];
  // This add's only reader is store data (a register): a `mov` from its
  // uniform would cost what the add does, so it stays.
  EXPECT_NE(print(f).find("iadd u2, #0x5"), std::string::npos) << print(f);
  EXPECT_TRUE(validate(f).ok());
}

TEST(Preamble, NothingMovesWithoutUniformWork) {
  Abi abi;
  abi.uniform_count = 2;
  Function f;
  Builder b(f);
  ValueId id = b.def(Op::get_sr, {}, 32, 1, 80);
  ValueId x = b.def(Op::iadd, {Src::val(id), Src::immediate(3)});
  b.emit(Op::device_store, {Src::val(x), Src::uniform(0, 64), Src::val(id)});
  b.emit(Op::stop);
  const std::string before = print(f);
  auto pre = opt_preamble(f, abi);
  ASSERT_TRUE(pre.ok());
  EXPECT_TRUE(pre->function.instrs.empty());
  EXPECT_EQ(pre->uniform_count, 0u);
  EXPECT_EQ(print(f), before);
}

// Uniform float and integer arithmetic (a square root, a division by a
// uniform: 32 steps of restoring division) runs once in the preamble.
TEST(PreambleExec, UniformArithmetic) {
  Shader s = must_compile(R"(#version 450
layout(local_size_x = 64) in;
layout(push_constant) uniform P { float a; uint n; uint d; } pc;
layout(set = 0, binding = 0) buffer O { float o[]; };
void main() {
  uint i = gl_GlobalInvocationID.x;
  float k = sqrt(pc.a) * 3.0 + 1.0;
  o[i] = float(i) * k;
}
)");
  ASSERT_FALSE(s.code.empty());
  EXPECT_FALSE(s.preamble.empty());
  EXPECT_GT(s.stats.preamble_instructions, 0u);
  EXPECT_EQ(s.abi.preamble_uniform, s.abi.uniform_count - s.abi.preamble_uniform_count);
  EXPECT_EQ(s.preamble_ir_text.find("get_sr"), std::string::npos);
  for (float a : {4.0f, 2.0f, 0.0f, 1e6f}) {
    Job r;
    r.groups = {2, 1, 1};
    r.push = {fbits(a), 0, 0};
    r.buffers = {std::vector<uint32_t>(128)};
    ASSERT_OK(execute(s, r));
    const float k = std::sqrt(a) * 3.0f + 1.0f;
    for (uint32_t i = 0; i < 128; ++i) EXPECT_NEAR(bitsf(r.buffers[0][i]), float(i) * k, 1e-5f * (1 + float(i) * k)) << a << " " << i;
  }
  Shader d = must_compile(R"(#version 450
layout(local_size_x = 32) in;
layout(push_constant) uniform P { uint n; uint d; } pc;
layout(set = 0, binding = 0) buffer O { uint q[]; };
void main() {
  uint i = gl_GlobalInvocationID.x;
  q[i] = i + pc.n / pc.d + pc.n % pc.d * 1000u;
}
)");
  ASSERT_FALSE(d.preamble.empty());
  for (auto [n, dv] : {std::pair{1000u, 7u}, {0xFFFFFFFFu, 3u}, {5u, 9u}}) {
    Job r;
    r.push = {n, dv};
    r.buffers = {std::vector<uint32_t>(32)};
    ASSERT_OK(execute(d, r));
    for (uint32_t i = 0; i < 32; ++i) EXPECT_EQ(r.buffers[0][i], i + n / dv + n % dv * 1000u) << n << " " << dv;
  }
}

// Words of a uniform buffer at constant indices are read once by the
// preamble; a storage buffer is never (the kernel may write it).
TEST(PreambleExec, UniformBufferWords) {
  Shader s = must_compile(R"(#version 450
layout(local_size_x = 32) in;
layout(std140, set = 0, binding = 1) uniform U { uint k; float scale; uvec2 mask; } u;
layout(set = 0, binding = 0) buffer O { uint o[]; };
void main() {
  uint i = gl_GlobalInvocationID.x;
  o[i] = (i * u.k + uint(u.scale * 4.0)) & (u.mask.x | u.mask.y);
}
)");
  ASSERT_FALSE(s.preamble.empty());
  EXPECT_NE(s.preamble_ir_text.find("device_load"), std::string::npos) << s.preamble_ir_text;
  EXPECT_EQ(s.ir_text.find("device_load"), std::string::npos) << s.ir_text;
  ASSERT_EQ(s.abi.resources.size(), 2u);
  Job r;
  r.buffers = {std::vector<uint32_t>(32), {7, fbits(2.5f), 0xF0, 0x0F}};
  ASSERT_OK(execute(s, r));
  for (uint32_t i = 0; i < 32; ++i) EXPECT_EQ(r.buffers[0][i], (i * 7 + 10) & 0xFF) << i;
}

// Everything depends on the thread or on data the kernel loads (from a
// storage buffer it writes): no preamble.
TEST(PreambleExec, NothingMovesForThreadOrLoadedValues) {
  Shader s = must_compile(R"(#version 450
layout(local_size_x = 32) in;
layout(set = 0, binding = 0) buffer A { uint a[]; };
void main() {
  uint i = gl_GlobalInvocationID.x;
  uint first = a[0];
  barrier();
  a[i] = a[i] * first + gl_LocalInvocationID.x;
}
)");
  EXPECT_TRUE(s.preamble.empty());
  EXPECT_EQ(s.stats.preamble_instructions, 0u);
  EXPECT_EQ(s.abi.preamble_uniform_count, 0u);
  Job r;
  r.buffers = {std::vector<uint32_t>(32)};
  for (uint32_t i = 0; i < 32; ++i) r.buffers[0][i] = i + 3;
  ASSERT_OK(execute(s, r));
  for (uint32_t i = 0; i < 32; ++i) EXPECT_EQ(r.buffers[0][i], (i + 3) * 3 + i) << i;
}

}  // namespace
}  // namespace agx::compiler
