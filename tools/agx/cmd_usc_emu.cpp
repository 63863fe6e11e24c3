// `agx emu`: run AGX machine code on one emulated SIMD group (usc unit).
//   agx emu PROGRAM.bin --state IN.json [--trace] [--debug]
//   agx emu --hex 62010a00 --state IN.json
//   agx emu --asm "mov_imm r0, 5" --state IN.json
//   agx emu --batch CASES.jsonl   (one instruction per line, JSON lines out)
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include <sstream>

#include "command.h"
#include "usc/usc.h"
#include "util/hex.h"

namespace AGX_UNITY_ID {

using namespace agx;

struct EmuArgs {
  std::string program, hex, asm_text, state, batch;
  bool trace = false, debug = false;
  uint64_t step_limit = 1'000'000;
};

Result<std::vector<uint8_t>> load_code(const EmuArgs& a) {
  int sources = !a.program.empty() + !a.hex.empty() + !a.asm_text.empty();
  if (sources != 1) return Error::invalid_argument("give exactly one of PROGRAM, --hex or --asm");
  if (!a.hex.empty()) {
    auto bytes = parse_hex(a.hex);
    if (!bytes) return std::move(bytes).error().context("--hex");
    return bytes;
  }
  if (!a.asm_text.empty()) return isa::assemble_program(a.asm_text, 0);
  return cli::read_binary(a.program);
}

// Printed as each instruction runs: a long run's trace is never held whole.
void print_trace_entry(const usc::TraceEntry& e) {
  fmt::print("0x{:x}: {}\n", e.pc, e.text);
  for (const auto& ch : e.changes) fmt::print("    {}\n", ch);
}

void run_one(const EmuArgs& a) {
  auto code = load_code(a);
  if (!code) cli::fail(code.error());
  std::string state_text = "{}";
  if (!a.state.empty()) {
    auto t = cli::read_file(a.state);
    if (!t) cli::fail(t.error());
    state_text = *t;
  }
  auto st = usc::parse_state(state_text);
  if (!st) cli::fail(std::move(st).error().context(a.state.empty() ? "state" : a.state));
  auto prog = usc::compile(*code, 0);
  if (!prog) cli::fail(prog.error());
  std::vector<std::string> warnings;
  usc::RunOptions opt;
  opt.step_limit = a.step_limit;
  opt.debug = a.debug;
  opt.warnings = &warnings;
  if (a.trace) opt.on_trace = print_trace_entry;
  usc::Memories mem;
  mem.device = &st->memory;
  std::vector<uint8_t> threadgroup(32 * 1024);
  mem.threadgroup = &threadgroup;
  auto r = usc::run(*prog, st->core, mem, opt);
  for (const auto& w : warnings) fmt::print(stderr, "agx emu: warning: {}\n", w);
  if (!r) cli::fail(r.error());
  if (*r == usc::StopReason::barrier)
    fmt::print(stderr, "agx emu: stopped at a threadgroup_barrier (one SIMD group runs alone)\n");
  fmt::print("{}\n", usc::format_state(*st, false));
}

// One JSON line: {"hex": ..., "before": STATE} -> {"after": STATE} or {"error": ...}.
std::string batch_line(const std::string& line, uint64_t step_limit) {
  using nlohmann::json;
  auto error = [](const std::string& m) { return json{{"error", m}}.dump(); };
  json j;
  try {
    j = json::parse(line);
  } catch (const json::exception& e) {
    return error(fmt::format("input line is not JSON: {}", e.what()));
  }
  if (!j.is_object() || !j.contains("hex") || !j["hex"].is_string())
    return error("input line needs a \"hex\" string");
  auto code = parse_hex(j["hex"].get<std::string>());
  if (!code) return error("hex: " + code.error().message());
  if (code->empty()) return error("hex: empty; expected the bytes of one instruction");
  auto st = usc::parse_state(j.contains("before") ? j["before"].dump() : "{}");
  if (!st) return error(st.error().message());
  auto prog = usc::compile(*code, 0);
  if (!prog) return error(prog.error().message());
  st->core.pc = 0;
  usc::RunOptions opt;
  opt.step_limit = step_limit;
  usc::Memories mem;
  mem.device = &st->memory;
  std::vector<uint8_t> threadgroup(32 * 1024);
  mem.threadgroup = &threadgroup;
  auto r = usc::run(*prog, st->core, mem, opt, 1);
  if (!r) return error(r.error().message());
  return "{\"after\":" + usc::format_state(*st, true) + "}";
}

void run_batch(const EmuArgs& a) {
  auto text = cli::read_file(a.batch);
  if (!text) cli::fail(text.error());
  std::istringstream in(*text);
  std::string line;
  while (std::getline(in, line)) {
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    fmt::print("{}\n", batch_line(line, a.step_limit));
  }
}

void setup_emu(agx::cli::Args& sub) {
  auto a = std::make_shared<EmuArgs>();
  sub.add_option("PROGRAM", a->program, "Machine code file (raw bytes)");
  sub.add_option("--hex", a->hex, "Machine code as hex text");
  sub.add_option("--asm", a->asm_text, "Assembly text (instructions separated by ';' or newlines)");
  sub.add_option("--state", a->state, "Initial state JSON file ('-' for stdin); default: all zero");
  sub.add_option("--batch", a->batch, "JSON lines {\"hex\",\"before\"}: run one instruction each");
  sub.add_flag("--trace", a->trace, "Print each executed instruction and the registers it changed");
  sub.add_flag("--debug", a->debug, "Warn when a register is read before `wait` for its load");
  sub.add_option("--step-limit", a->step_limit, "Instructions before a stuck-loop error (default 1000000)");
  sub.callback([a] {
    if (!a->batch.empty()) run_batch(*a);
    else run_one(*a);
  });
}

agx::cli::Command kEmu{"emu", "Run AGX machine code on an emulated SIMD group (JSON state in/out)", setup_emu};

}  // namespace AGX_UNITY_ID
