// Differential vectors from dougallj/applegpu's own exec (applegpu.py at
// commit 4c5bae61086b8067231120c98b4756d7696d399c): each line of
// tests/data/applegpu_exec.jsonl is one instruction, a small 32-lane state
// and the state applegpu's exec left (see tests/data/applegpu_exec.README).
// Each case runs exactly one instruction at pc 0, as `agx emu --batch` does,
// and every register and the exec mask must match.
#include <fstream>
#include <map>
#include <set>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "usc/usc.h"
#include "util/hex.h"

namespace agx::usc::test {
namespace AGX_UNITY_ID {

constexpr const char* kVectors = "tests/data/applegpu_exec.jsonl";

// Every mnemonic (as applegpu prints it) whose descriptor has an exec at
// 4c5bae61, except get_sr (applegpu models only sr80) and fcmp_ballot (its
// exec is a placeholder that always compares true).
const std::set<std::string> kApplegpuExecutes = {
    "mov_imm", "iadd", "isub", "imadd", "imsub", "bfi", "bfeil", "extr", "shlhi", "shrhi", "asr", "asrh",
    "bitop", "bitop_mov_a", "and", "or", "xor", "nand", "nor", "xnor", "not", "mov", "bitrev", "popcount",
    "ffs", "fmadd32", "fmadd16", "fadd32", "fadd16", "fmul32", "fmul16", "pop_exec", "update_exec",
    "if_icmp", "if_fcmp", "while_icmp", "while_fcmp", "else_icmp", "else_fcmp", "icmpsel", "fcmpsel",
    "icmp_ballot", "simd_shuffle", "simd_shuffle_down", "simd_shuffle_up", "simd_shuffle_rotate_up",
    "simd_shuffle_xor", "wait", "device_load"};

struct Case {
  size_t line = 0;
  std::string hex, text, error;  // error: applegpu raised (an active lane read an undefined operand)
  nlohmann::json before, after;
};

std::vector<Case> load_cases() {
  std::ifstream in(kVectors);
  EXPECT_TRUE(in.good()) << "cannot open " << kVectors;
  std::vector<Case> cases;
  std::string line;
  for (size_t n = 1; std::getline(in, line); ++n) {
    if (line.empty()) continue;
    auto j = nlohmann::json::parse(line, nullptr, false);
    if (j.is_discarded() || !j.contains("hex") || !j.contains("text") || !j.contains("before") ||
        (!j.contains("after") && !j.contains("error"))) {
      ADD_FAILURE() << kVectors << ":" << n << ": malformed case";
      continue;
    }
    Case c{n, j["hex"].get<std::string>(), j["text"].get<std::string>(), "", j["before"], {}};
    if (j.contains("error")) c.error = j["error"].get<std::string>();
    else c.after = j["after"];
    cases.push_back(std::move(c));
  }
  return cases;
}

std::string mnemonic_of(const std::string& text) {
  return text.substr(0, text.find_first_of(" ."));
}

// Runs the case's instruction once on its before-state, like `agx emu --batch`.
Status run_one(const Case& c, State& st) {
  auto code = parse_hex(c.hex);
  if (!code) return code.error();
  auto prog = compile(*code, 0);
  if (!prog) return prog.error();
  st.core.pc = 0;
  Memories mem;
  mem.device = &st.memory;
  std::vector<uint8_t> threadgroup(32 * 1024);
  mem.threadgroup = &threadgroup;
  auto r = run(*prog, st.core, mem, RunOptions{}, 1);
  if (!r) return r.error();
  return {};
}

// Registers the after-state lists must match; every other register keeps its
// before value (0 when the before-state does not list it either).
void expect_same(const Case& c, const State& before, const Core& ours) {
  auto want = parse_state(c.after.dump());
  ASSERT_TRUE(want.ok()) << c.hex << ": after: " << want.error().message();
  std::string where = fmt::format("{}:{} {} `{}`", kVectors, c.line, c.hex, c.text);
  EXPECT_EQ(ours.exec, want->core.exec) << where << ": exec ours 0x" << std::hex << ours.exec << " applegpu 0x"
                                        << want->core.exec;
  for (unsigned r = 0; r < kRegisters; ++r) {
    const LaneArray& expected = want->listed[r] ? want->core.r[r] : before.core.r[r];
    for (unsigned l = 0; l < kLanes; ++l) {
      if (ours.r[r][l] == expected[l]) continue;
      ADD_FAILURE() << where << ": r" << r << " lane " << l << fmt::format(": ours 0x{:08x} applegpu 0x{:08x}",
                                                                             ours.r[r][l], expected[l]);
      break;  // one lane per register is enough to point at the difference
    }
  }
}

TEST(ApplegpuExec, EveryCaseMatchesApplegpu) {
  auto cases = load_cases();
  ASSERT_GT(cases.size(), 200u);
  size_t ran = 0, refused = 0;
  for (const auto& c : cases) {
    auto before = parse_state(c.before.dump());
    ASSERT_TRUE(before.ok()) << c.hex << ": before: " << before.error().message();
    State st = std::move(*before);
    auto again = parse_state(c.before.dump());  // an untouched copy to compare against
    ASSERT_TRUE(again.ok());
    Status s = run_one(c, st);
    if (!c.error.empty()) {
      // applegpu raised because an active lane evaluated an undefined operand
      // or condition: the emulator must refuse too, naming it.
      EXPECT_FALSE(s.ok()) << c.hex << " `" << c.text << "`: applegpu raises (" << c.error << "), we ran it";
      if (!s.ok()) {
        EXPECT_NE(s.error().message().find("undefined"), std::string::npos) << c.hex << ": " << s.error().message();
      }
      ++refused;
      continue;
    }
    if (!s.ok()) {
      ADD_FAILURE() << c.hex << " `" << c.text << "`: " << s.error().message();
      continue;
    }
    expect_same(c, *again, st.core);
    ++ran;
  }
  EXPECT_GT(ran, 180u);
  EXPECT_GT(refused, 10u);
}

TEST(ApplegpuExec, EveryExecutedMnemonicHasCases) {
  std::map<std::string, int> per;
  for (const auto& c : load_cases()) ++per[mnemonic_of(c.text)];
  for (const auto& m : kApplegpuExecutes) EXPECT_GE(per[m], 1) << "no vector for " << m;
  for (const auto& [m, n] : per) EXPECT_TRUE(kApplegpuExecutes.count(m)) << m << " is not in the list";
  // About six forms per isa row; aliases of one row share them.
  for (const char* m : {"iadd", "fmadd32", "fcmpsel", "while_icmp", "simd_shuffle", "pop_exec", "device_load"})
    EXPECT_GE(per[m], 4) << m;
}

}  // namespace
}  // namespace agx::usc::test
