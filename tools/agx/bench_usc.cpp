// `agx bench usc`: lane-instructions per second of the USC emulator on an
// ALU-heavy loop (fmadd, fadd, fmul, fcmpsel, iadd chains) and a memory-heavy
// kernel (device_load, fadd, device_store), each beside the same computation
// written in plain C++ and compiled natively, measured in the same run.
#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <chrono>
#include <cmath>
#include <vector>

#include "command.h"
#include "isa/isa.h"
#include "usc/usc.h"

namespace {

using namespace agx;
using isa::Opcode;
using Clock = std::chrono::steady_clock;

std::vector<uint8_t>& operator<<(std::vector<uint8_t>& out, Result<isa::Encoded> e) {
  if (!e) cli::fail(e.error());
  auto s = e->span();
  out.insert(out.end(), s.begin(), s.end());
  return out;
}
Result<isa::Encoded> op(Opcode o, std::initializer_list<std::pair<std::string_view, uint32_t>> f) {
  std::vector<std::pair<std::string_view, uint32_t>> v(f);
  return isa::encode_fields(o, v);
}
constexpr uint32_t kR32 = 0b1001;

// Wraps `body` in: r20 = 0; do { body; r20 += 1 } while (r20 < r21).
std::vector<uint8_t> loop(const std::vector<uint8_t>& body, size_t& loop_instrs) {
  std::vector<uint8_t> head, tail;
  head << op(Opcode::mov_imm32, {{"Dt", 2}, {"D", 40}, {"imm32", 0}});
  tail << op(Opcode::iadd, {{"Dt", 2}, {"D", 40}, {"At", kR32}, {"A", 40}, {"Bt", 0}, {"B", 1}})
       << op(Opcode::while_icmp, {{"cc", 1}, {"At", kR32}, {"A", 40}, {"Bt", kR32}, {"B", 42}, {"n", 1}});
  uint32_t back = static_cast<uint32_t>(-static_cast<int64_t>(body.size() + tail.size()));
  tail << op(Opcode::jmp_exec_any, {{"off", back}});
  loop_instrs += 3;
  std::vector<uint8_t> code = head;
  code.insert(code.end(), body.begin(), body.end());
  code.insert(code.end(), tail.begin(), tail.end());
  code << op(Opcode::pop_exec, {{"n", 1}}) << op(Opcode::stop, {});
  return code;
}

struct Figures {
  double emu_rate, native_rate;
};

double seconds_since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

// Each figure is the best of kRepeats timed runs (least disturbed by other
// processes on the host); emulator and native code are measured alike.
constexpr int kRepeats = 5;
template <typename F>
double best_seconds(F&& run_once) {
  double best = 1e300;
  for (int i = 0; i < kRepeats; ++i) {
    auto t0 = Clock::now();
    run_once();
    best = std::min(best, seconds_since(t0));
  }
  return best;
}

// The native reference, compiled for the same host features the emulator's
// fast path uses and fully optimized, so the ratio is not flattered.
#if defined(__GNUC__) && !defined(__clang__)
#define AGX_NATIVE_OPT __attribute__((target("avx2,fma"), optimize("O3")))
#else
#define AGX_NATIVE_OPT __attribute__((target("avx2,fma")))
#endif
AGX_NATIVE_OPT uint32_t native_alu(uint32_t iters) {
  float r1[32], r2[32], r3[32], r4[32], r5[32], r6[32];
  uint32_t r7[32];
  for (unsigned l = 0; l < 32; ++l) {
    r1[l] = 0.5f + l; r2[l] = 0.999f; r3[l] = 0.25f; r4[l] = r5[l] = 1.0f; r6[l] = 0; r7[l] = 0;
  }
  for (uint32_t i = 0; i < iters; ++i)
    for (int rep = 0; rep < 4; ++rep)
      for (unsigned l = 0; l < 32; ++l) {
        r1[l] = r1[l] * r2[l] + r3[l];
        r4[l] = r4[l] + r1[l];
        r5[l] = r5[l] * r2[l];
        r6[l] = r1[l] < r4[l] ? r5[l] : r6[l];
        r7[l] += std::bit_cast<uint32_t>(r6[l]);
      }
  return r7[0] + r7[31];
}

// The ALU loop's five instructions (one row each, in loop order).
struct AluInstr {
  const char* name;
  std::vector<uint8_t> bytes;
};
std::vector<AluInstr> alu_instrs() {
  std::vector<AluInstr> v(5);
  v[0].name = "fmadd32";
  v[0].bytes << op(Opcode::fmadd32, {{"Dt", 2}, {"D", 2}, {"At", kR32}, {"A", 2}, {"Bt", kR32}, {"B", 4}, {"Ct", kR32}, {"C", 6}});
  v[1].name = "fadd32";
  v[1].bytes << op(Opcode::fadd32, {{"Dt", 2}, {"D", 8}, {"At", kR32}, {"A", 8}, {"Bt", kR32}, {"B", 2}});
  v[2].name = "fmul32";
  v[2].bytes << op(Opcode::fmul32, {{"Dt", 2}, {"D", 10}, {"At", kR32}, {"A", 10}, {"Bt", kR32}, {"B", 4}});
  v[3].name = "fcmpsel";
  v[3].bytes << op(Opcode::fcmpsel, {{"cc", 1}, {"Dt", 2}, {"D", 12}, {"At", kR32}, {"A", 2}, {"Bt", kR32}, {"B", 8},
                                     {"Xt", 1}, {"X", 10}, {"Yt", 1}, {"Y", 12}});
  v[4].name = "iadd";
  v[4].bytes << op(Opcode::iadd, {{"Dt", 2}, {"D", 14}, {"At", kR32}, {"A", 14}, {"Bt", kR32}, {"B", 12}});
  return v;
}

// The ALU loop's starting registers (r21 = iteration count).
usc::Core alu_core(uint32_t iters) {
  usc::Core core = usc::make_core();
  for (unsigned l = 0; l < usc::kLanes; ++l) {
    core.r[1][l] = std::bit_cast<uint32_t>(0.5f + l);
    core.r[2][l] = std::bit_cast<uint32_t>(0.999f);
    core.r[3][l] = std::bit_cast<uint32_t>(0.25f);
    core.r[4][l] = core.r[5][l] = std::bit_cast<uint32_t>(1.0f);
    core.r[21][l] = iters;
  }
  return core;
}

Figures alu_bench() {
  std::vector<uint8_t> body;
  size_t per_iter = 0;
  auto instrs = alu_instrs();
  for (int rep = 0; rep < 4; ++rep)
    for (const AluInstr& i : instrs) {
      body.insert(body.end(), i.bytes.begin(), i.bytes.end());
      ++per_iter;
    }
  auto code = loop(body, per_iter);
  auto prog = usc::compile(code, 0);
  if (!prog) cli::fail(prog.error());
  const uint32_t iters = 100000;
  usc::Core core = alu_core(iters);
  usc::RunOptions opt;
  opt.step_limit = UINT64_MAX;
  double emu_s = best_seconds([&] {
    usc::Core c = core;
    auto r = usc::run(*prog, c, {}, opt);
    if (!r) cli::fail(r.error());
  });
  double lane_instrs = double(iters) * per_iter * usc::kLanes;

  // The same computation in plain C++ (multiply-add, add, mul, select, add).
  double native_s = best_seconds([&] {
    volatile uint32_t sink = native_alu(iters);
    (void)sink;
  });
  return {lane_instrs / emu_s, lane_instrs / native_s};
}

// Each ALU-loop instruction alone: 64 copies and a stop in straight-line code, run 320
// times, so the figure is that instruction's cost plus dispatch, without the
// loop's branch and counter.
double instr_rate(const AluInstr& i) {
  constexpr size_t kCopies = 64, kRuns = 320;
  std::vector<uint8_t> code;
  for (size_t n = 0; n < kCopies; ++n) code.insert(code.end(), i.bytes.begin(), i.bytes.end());
  code << op(Opcode::stop, {});
  auto prog = usc::compile(code, 0);
  if (!prog) cli::fail(prog.error());
  usc::Core core = alu_core(0);
  usc::RunOptions opt;
  double s = best_seconds([&] {
    for (size_t run = 0; run < kRuns; ++run) {
      core.pc = 0;
      auto r = usc::run(*prog, core, {}, opt);
      if (!r) cli::fail(r.error());
    }
  });
  return double(kRuns) * (kCopies + 1) * usc::kLanes / s;
}

Figures mem_bench() {
  // r10 = load [u0_u1 + r12 * 4]; wait; r10 += 1.0; store [u2_u3 + r12 * 4]; r12 += 32
  std::vector<uint8_t> body;
  size_t per_iter = 5;
  body << op(Opcode::device_load, {{"F", 2}, {"mask", 1}, {"Rt", 1}, {"R", 20}, {"At", 1}, {"A", 0}, {"Ot", 0}, {"O", 24}, {"Ou", 1}})
       << op(Opcode::wait, {})
       << op(Opcode::fadd32, {{"Dt", 2}, {"D", 20}, {"At", kR32}, {"A", 20}, {"Bt", 0}, {"B", 0x30}})
       << op(Opcode::device_store, {{"F", 2}, {"mask", 1}, {"Rt", 1}, {"R", 20}, {"At", 1}, {"A", 4}, {"Ot", 0}, {"O", 24}, {"Ou", 1}})
       << op(Opcode::iadd, {{"Dt", 2}, {"D", 24}, {"At", kR32}, {"A", 24}, {"Bt", 0}, {"B", 32}});
  auto code = loop(body, per_iter);
  auto prog = usc::compile(code, 0);
  if (!prog) cli::fail(prog.error());
  const uint32_t iters = 32768, n = iters * 32;
  usc::RegionMemory mem;
  std::vector<uint8_t> src(n * 4);
  for (uint32_t i = 0; i < n; ++i) {
    float f = float(i);
    std::memcpy(&src[4 * i], &f, 4);
  }
  if (auto s = mem.map(0x100000000ull, src); !s) cli::fail(s.error());
  if (auto s = mem.map(0x200000000ull, std::vector<uint8_t>(n * 4)); !s) cli::fail(s.error());
  usc::Core core = usc::make_core();
  core.u[0] = 0; core.u[1] = 1; core.u[2] = 0; core.u[3] = 2;
  for (unsigned l = 0; l < usc::kLanes; ++l) {
    core.r[12][l] = l;
    core.r[21][l] = iters;
  }
  usc::RunOptions opt;
  opt.step_limit = UINT64_MAX;
  usc::Memories m;
  m.device = &mem;
  double emu_s = best_seconds([&] {
    usc::Core c = core;
    auto r = usc::run(*prog, c, m, opt);
    if (!r) cli::fail(r.error());
  });
  double lane_instrs = double(iters) * per_iter * usc::kLanes;

  std::vector<float> in(n), out(n);
  for (uint32_t i = 0; i < n; ++i) in[i] = float(i);
  double native_s = best_seconds([&] {
    for (uint32_t i = 0; i < n; ++i) out[i] = in[i] + 1.0f;
    volatile float sink = out[n - 1];
    (void)sink;
  });
  return {lane_instrs / emu_s, lane_instrs / native_s};
}

int run_bench(bool json) {
  Figures alu = alu_bench(), mem = mem_bench();
  // Per instruction, as a ratio to the native ALU loop's lane-operations/s.
  std::vector<std::pair<const char*, double>> per;
  for (const AluInstr& i : alu_instrs()) per.emplace_back(i.name, instr_rate(i));
  if (json) {
    std::string ops;
    for (const auto& [name, rate] : per)
      ops += fmt::format("{}\"{}\": {{\"lane_instr_per_s\": {:.4g}, \"native_ratio\": {:.4g}}}", ops.empty() ? "" : ", ",
                         name, rate, rate / alu.native_rate);
    fmt::print("{{\"alu_lane_instr_per_s\": {:.4g}, \"alu_native_ratio\": {:.4g}, "
               "\"mem_lane_instr_per_s\": {:.4g}, \"mem_native_ratio\": {:.4g}, \"per_instruction\": {{{}}}}}\n",
               alu.emu_rate, alu.emu_rate / alu.native_rate, mem.emu_rate, mem.emu_rate / mem.native_rate, ops);
  } else {
    fmt::print("usc ALU loop (fmadd/fadd/fmul/fcmpsel/iadd): {:.3g} lane-instr/s; native C++ {:.3g}/s; ratio {:.3g}\n",
               alu.emu_rate, alu.native_rate, alu.emu_rate / alu.native_rate);
    fmt::print("usc memory kernel (device_load/fadd/device_store): {:.3g} lane-instr/s; native C++ {:.3g}/s; ratio {:.3g}\n",
               mem.emu_rate, mem.native_rate, mem.emu_rate / mem.native_rate);
    for (const auto& [name, rate] : per)
      fmt::print("usc {:<8} alone: {:.3g} lane-instr/s ({:.1f} ns per 32-lane instruction); ratio to native ALU {:.3g}\n",
                 name, rate, 1e9 * usc::kLanes / rate, rate / alu.native_rate);
  }
  return 0;
}

agx::cli::Bench kBench{"usc", "USC emulator lane-instructions/s vs native C++ (ALU loop, memory kernel)", run_bench};

}  // namespace
