// Fixed-function instructions go to the FixedFunction hook with their
// decoded operands; what the hook writes is visible to the next
// instruction; its errors stop the group naming the pc; without a hook the
// error names the instruction.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "helpers.h"
#include "util/hex.h"

namespace agx::usc::test {
namespace AGX_UNITY_ID {

// Encodings printed by dougallj/applegpu (commit 4c5bae61) as listed in
// src/isa/tests/data/applegpu_oracle.tsv.
struct Case {
  const char* hex;
  const char* mnemonic;
};
constexpr Case kFixed[] = {
    {"3100000100020800", "texture_sample"},
    {"7100024460c00880", "texture_load"},
    {"21402010", "iter"},
    {"11a4a3f4", "st_var"},
    {"0940208190000041", "st_tile"},
    {"c1000088", "sample_mask"},
    {"411042c0", "zs_emit"},
    {"f110a6340000", "image_write"},
    {"51200000", "no_var"},
    {"48010000", "wait_pix"},
    {"58010000", "signal_pix"},
};

std::vector<uint8_t> bytes(const char* hex) {
  auto b = parse_hex(hex);
  EXPECT_TRUE(b.ok());
  return b.ok() ? *b : std::vector<uint8_t>{};
}

// Records each call; for iter it writes lane + 100 to its first register,
// as a varying unit would.
class Recorder : public FixedFunction {
 public:
  Status execute(const isa::Instr& in, Core& core) override {
    calls.push_back(std::string(isa::op_info(in.op).mnemonic));
    pcs.push_back(in.pc);
    if (in.op == isa::Opcode::iter) {
      const isa::Operand& d = in.operands[0];
      EXPECT_EQ(d.kind, isa::OperandKind::kReg16);
      EXPECT_EQ(d.index, 32u);  // r16l
      EXPECT_EQ(d.count, 4u);
      for (unsigned l = 0; l < kLanes; ++l) core.r[16][l] = 100 + l;
    }
    if (fail_at == calls.size()) return Error::unsupported("texture unit offline");
    return {};
  }
  std::vector<std::string> calls;
  std::vector<uint64_t> pcs;
  size_t fail_at = 0;
};

TEST(FixedFunction, EveryHookInstructionReachesTheHookInOrder) {
  std::vector<uint8_t> code;
  std::vector<uint64_t> want_pcs;
  for (const Case& k : kFixed) {
    want_pcs.push_back(code.size());
    auto b = bytes(k.hex);
    code.insert(code.end(), b.begin(), b.end());
  }
  Recorder hook;
  Memories mem;
  mem.fixed_function = &hook;
  Core c = make_core();
  ASSERT_TRUE(run_code(code, c, mem).ok());
  ASSERT_EQ(hook.calls.size(), std::size(kFixed));
  for (size_t i = 0; i < std::size(kFixed); ++i) {
    EXPECT_EQ(hook.calls[i], kFixed[i].mnemonic) << i;
    EXPECT_EQ(hook.pcs[i], want_pcs[i]) << i;
  }
  for (unsigned l = 0; l < kLanes; ++l) EXPECT_EQ(c.r[16][l], 100 + l);
}

TEST(FixedFunction, HookResultFeedsTheNextInstruction) {
  // iter writes r16; `mov` via iadd r20 = r16 + 0 must see it.
  auto add = enc(isa::Opcode::iadd, {{"Dt", 2}, {"D", 40}, {"At", 0b1001}, {"A", 32}, {"Bt", 0}, {"B", 0}});
  auto code = cat({bytes("21402010"), add});
  Recorder hook;
  Memories mem;
  mem.fixed_function = &hook;
  Core c = make_core();
  ASSERT_TRUE(run_code(code, c, mem).ok());
  for (unsigned l = 0; l < kLanes; ++l) EXPECT_EQ(c.r[20][l], 100 + l);
}

TEST(FixedFunction, HookErrorNamesThePc) {
  auto code = cat({bytes("21402010"), bytes("3100000100020800")});
  Recorder hook;
  hook.fail_at = 2;
  Memories mem;
  mem.fixed_function = &hook;
  Core c = make_core();
  Status st = run_code(code, c, mem);
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.error().message(), "pc 0x4: texture unit offline");
}

// execute_in gets the SIMD group's memories (image_write_block reads the
// threadgroup memory through it); a hook that overrides only execute() is
// called through the default execute_in (the tests above).
class MemoryRecorder : public FixedFunction {
 public:
  Status execute(const isa::Instr&, Core&) override { return Error::unsupported("execute() called"); }
  Status execute_in(const isa::Instr& in, Core&, const Memories& m) override {
    op = in.op;
    threadgroup = m.threadgroup;
    return {};
  }
  isa::Opcode op{};
  const std::vector<uint8_t>* threadgroup = nullptr;
};

TEST(FixedFunction, ExecuteInSeesTheThreadgroupMemory) {
  MemoryRecorder hook;
  std::vector<uint8_t> shared(256);
  Memories mem;
  mem.fixed_function = &hook;
  mem.threadgroup = &shared;
  Core c = make_core();
  ASSERT_TRUE(run_code(bytes("b10086400012"), c, mem).ok());  // image_write_block (applegpu oracle)
  EXPECT_EQ(hook.op, isa::Opcode::image_write_block);
  EXPECT_EQ(hook.threadgroup, &shared);
}

TEST(FixedFunction, WithoutAHookEachOneIsAClearError) {
  for (const Case& k : kFixed) {
    Core c = make_core();
    Status st = run_code(bytes(k.hex), c);
    ASSERT_FALSE(st.ok()) << k.mnemonic;
    EXPECT_NE(st.error().message().find("no fixed-function unit attached"), std::string::npos)
        << st.error().message();
    EXPECT_NE(st.error().message().find(k.mnemonic), std::string::npos) << st.error().message();
  }
}

}  // namespace
}  // namespace agx::usc::test
