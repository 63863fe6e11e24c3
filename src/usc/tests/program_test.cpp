// The decoded program and the trace (issue 15): a 1 MB program used to take
// about 350 MB once decoded (a full isa::Instr beside every step), and
// `agx emu --trace` kept the whole trace in memory. The program now keeps
// compact steps plus its bytes, and the trace can be streamed.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include "helpers.h"

namespace agx::usc::test {
namespace AGX_UNITY_ID {

using isa::Opcode;

TEST(Program, DecodedProgramIsCompact) {
  std::vector<uint8_t> code = isa::random_stream(200000, 5);  // about 1 MB
  ASSERT_GT(code.size(), 900000u);
  auto p = compile(code, 0x1000);
  ASSERT_TRUE(p.ok());
  // Steps (under 200 bytes each), a copy of the bytes and the pc lookup:
  // well under 48 bytes per byte of code (it was about 350).
  double per_byte = double(p->footprint_B()) / double(code.size());
  EXPECT_LT(per_byte, 48.0) << p->footprint_B() << " bytes for " << code.size();
  // Instructions still come back decoded, identical to a fresh decode.
  for (size_t i = 0; i < p->size(); i += 997) {
    isa::Instr in = p->instr(i);
    if (in.length_B == 0) continue;
    auto again = isa::decode(std::span(code).subspan(in.pc - 0x1000), in.pc);
    if (!again.ok()) continue;
    EXPECT_EQ(in, *again) << "instruction " << i;
  }
}

TEST(Program, ErrorsAreKeptBesideTheSteps) {
  // An unsupported instruction reports why when reached, with its pc.
  auto code = cat({enc(Opcode::mov_imm32, {{"Dt", 2}, {"D", 2}, {"imm32", 5}}), enc(Opcode::doorbell, {})});
  auto p = compile(code, 0);
  ASSERT_TRUE(p.ok());
  EXPECT_EQ(p->error_at(0), "");
  EXPECT_NE(p->error_at(code.size() - 2).find("not supported by the emulator: doorbell"), std::string::npos);
  Core c = make_core();
  Status s = run_code(code, c);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.error().message().find(fmt::format("pc 0x{:x}: not supported by the emulator: doorbell", code.size() - 2)),
            std::string::npos)
      << s.error().message();
}

TEST(Program, TraceStreamsEachEntryAsItHappens) {
  // r2 = 0; loop: r2 += 1 while r2 < 200: 600-odd entries, none kept.
  auto code = cat({enc(Opcode::mov_imm32, {{"Dt", 2}, {"D", 4}, {"imm32", 0}})});
  auto body = cat({enc(Opcode::iadd, {{"Dt", 2}, {"D", 4}, {"At", 0b1001}, {"A", 4}, {"Bt", 0}, {"B", 1}}),
                   enc(Opcode::while_icmp, {{"cc", 1}, {"At", 0b1001}, {"A", 4}, {"Bt", 0}, {"B", 200}, {"n", 1}})});
  uint32_t back = static_cast<uint32_t>(-static_cast<int64_t>(body.size()));
  code = cat({code, body, enc(Opcode::jmp_exec_any, {{"off", back}}), enc(Opcode::pop_exec, {{"n", 1}})});
  auto p = compile(code, 0);
  ASSERT_TRUE(p.ok());
  size_t streamed = 0, changes = 0;
  uint64_t last_pc = 0;
  RunOptions opt;
  opt.on_trace = [&](const TraceEntry& e) {
    ++streamed;
    changes += e.changes.size();
    last_pc = e.pc;
  };
  Core c = make_core();
  ASSERT_TRUE(run(*p, c, {}, opt).ok());
  EXPECT_EQ(streamed, 1u + 3u * 200u + 1u);
  EXPECT_GT(changes, 200u);  // every iadd changes r2
  EXPECT_EQ(last_pc, code.size() - 6);  // the pop_exec
  // The collecting form sees the same entries.
  std::vector<TraceEntry> kept;
  RunOptions opt2;
  opt2.trace = &kept;
  Core d = make_core();
  ASSERT_TRUE(run(*p, d, {}, opt2).ok());
  EXPECT_EQ(kept.size(), streamed);
}

}  // namespace
}  // namespace agx::usc::test
