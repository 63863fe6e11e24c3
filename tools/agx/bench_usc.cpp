// `agx bench usc`: lane-instructions per second of the USC emulator on an
// ALU-heavy loop (fmadd, fadd, fmul, fcmpsel, iadd chains), a memory-heavy
// kernel (SAXPY: device_load, fmadd, device_store) and each ALU instruction
// alone, each beside the same computation written in plain C++ and compiled
// natively with the same flags, measured in the same run, with the results
// of both compared.
#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <ctime>
#include <cmath>
#include <cstring>
#include <vector>

#include "command.h"
#include "isa/isa.h"
#include "usc/usc.h"

namespace AGX_UNITY_ID {

using namespace agx;
using isa::Opcode;

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

// CPU time of this thread, for the emulator and the native code alike: the
// build machine is shared, and wall time would charge whichever side runs
// longer for the time other processes held the CPU.
struct Clock {
  using time_point = double;
  static double now() {
    timespec ts{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return double(ts.tv_sec) + 1e-9 * double(ts.tv_nsec);
  }
};
double seconds_since(Clock::time_point t) { return Clock::now() - t; }

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

// The native references. Every one is compiled with these same attributes
// (the host features the emulator's fast path uses, fully optimized), does
// exactly the work the emulated code does (same operations, same operands,
// same number of lane operations) and its result is compared with the
// emulator's, so the compiler can drop none of it and the ratio is not
// flattered or penalised by a different loop.
#if defined(__GNUC__) && !defined(__clang__)
#define AGX_NATIVE_OPT __attribute__((target("avx2,fma"), optimize("O3"), noinline))
#else
#define AGX_NATIVE_OPT __attribute__((target("avx2,fma"), noinline))
#endif

// The ALU loop's registers, lane by lane (r1, r2, r3, r4, r5, r6, r7 of the
// emulated loop: r2, r4, r6, r8, r10, r12, r14 in 32-bit numbering).
struct AluLanes {
  float r1[32], r2[32], r3[32], r4[32], r5[32], r6[32];
  uint32_t r7[32];
};
AluLanes alu_start() {
  AluLanes v{};
  for (unsigned l = 0; l < 32; ++l) {
    // Values that stay normal for the whole run (no subnormals, no
    // infinities): the emulator's flush-to-zero and the host agree bit for
    // bit, and the host pays no subnormal penalty.
    v.r1[l] = 0.5f + float(l);
    v.r2[l] = 1.0001f;
    v.r3[l] = 0.25f;
    v.r4[l] = v.r5[l] = 1.0f;
  }
  return v;
}

// The ALU loop body, in loop order, `iters` times: fmadd32 (fused, as the
// emulator's fmadd32), fadd32, fmul32, fcmpsel (lt), iadd.
AGX_NATIVE_OPT void native_alu(AluLanes& v, uint32_t iters) {
  for (uint32_t i = 0; i < iters; ++i)
    for (int rep = 0; rep < 4; ++rep)
      for (unsigned l = 0; l < 32; ++l) {
        v.r1[l] = std::fma(v.r1[l], v.r2[l], v.r3[l]);
        v.r4[l] = v.r4[l] + v.r1[l];
        v.r5[l] = v.r5[l] * v.r2[l];
        v.r6[l] = v.r1[l] < v.r4[l] ? v.r5[l] : v.r6[l];
        v.r7[l] += std::bit_cast<uint32_t>(v.r6[l]);
      }
}

// One ALU-loop instruction alone, `copies` times over the 32 lanes, `runs`
// times: what the straight-line emulated program does.
template <int kWhich>
AGX_NATIVE_OPT void native_one(AluLanes& v, size_t copies, size_t runs) {
  for (size_t run = 0; run < runs; ++run)
    for (size_t n = 0; n < copies; ++n)
      for (unsigned l = 0; l < 32; ++l) {
        if constexpr (kWhich == 0) v.r1[l] = std::fma(v.r1[l], v.r2[l], v.r3[l]);
        else if constexpr (kWhich == 1) v.r4[l] = v.r4[l] + v.r1[l];
        else if constexpr (kWhich == 2) v.r5[l] = v.r5[l] * v.r2[l];
        else if constexpr (kWhich == 3) v.r6[l] = v.r1[l] < v.r4[l] ? v.r5[l] : v.r6[l];
        else v.r7[l] += std::bit_cast<uint32_t>(v.r6[l]);
      }
}
void native_one(AluLanes& v, int which, size_t copies, size_t runs) {
  switch (which) {
    case 0: return native_one<0>(v, copies, runs);
    case 1: return native_one<1>(v, copies, runs);
    case 2: return native_one<2>(v, copies, runs);
    case 3: return native_one<3>(v, copies, runs);
    default: return native_one<4>(v, copies, runs);
  }
}

// y[i] = a * x[i] + y[i] over n floats (the memory kernel's work).
AGX_NATIVE_OPT void native_saxpy(float a, const float* x, float* y, size_t n) {
  for (size_t i = 0; i < n; ++i) y[i] = std::fma(a, x[i], y[i]);
}

// The emulator's registers against the native lanes: the two did the same
// work, or the benchmark reports an error instead of a figure.
void expect_same(const usc::Core& c, const AluLanes& v, const char* what) {
  auto bits = [](float f) { return std::bit_cast<uint32_t>(f); };
  for (unsigned l = 0; l < usc::kLanes; ++l) {
    if (c.r[1][l] == bits(v.r1[l]) && c.r[4][l] == bits(v.r4[l]) && c.r[5][l] == bits(v.r5[l]) &&
        c.r[6][l] == bits(v.r6[l]) && c.r[7][l] == v.r7[l])
      continue;
    cli::fail(Error::invalid_argument("bench usc: {}: the emulator and the native reference disagree in lane {} "
                              "(r1 0x{:08x}/0x{:08x}, r7 0x{:08x}/0x{:08x})",
                              what, l, c.r[1][l], bits(v.r1[l]), c.r[7][l], v.r7[l]));
  }
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
  AluLanes v = alu_start();
  for (unsigned l = 0; l < usc::kLanes; ++l) {
    core.r[1][l] = std::bit_cast<uint32_t>(v.r1[l]);
    core.r[2][l] = std::bit_cast<uint32_t>(v.r2[l]);
    core.r[3][l] = std::bit_cast<uint32_t>(v.r3[l]);
    core.r[4][l] = std::bit_cast<uint32_t>(v.r4[l]);
    core.r[5][l] = std::bit_cast<uint32_t>(v.r5[l]);
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
  size_t alu_per_iter = per_iter;
  auto code = loop(body, per_iter);
  auto prog = usc::compile(code, 0);
  if (!prog) cli::fail(prog.error());
  const uint32_t iters = 100000;
  usc::Core core = alu_core(iters);
  usc::RunOptions opt;
  opt.step_limit = UINT64_MAX;
  usc::Core last;
  double emu_s = best_seconds([&] {
    usc::Core c = core;
    auto r = usc::run(*prog, c, {}, opt);
    if (!r) cli::fail(r.error());
    last = c;
  });
  AluLanes v;
  double native_s = best_seconds([&] {
    v = alu_start();
    native_alu(v, iters);
  });
  expect_same(last, v, "ALU loop");
  // Rates in lane operations of the loop body (the native code has no loop
  // counter or branch per lane; the emulator's three loop instructions are
  // counted as the emulator's work, not the reference's).
  double body_ops = double(iters) * alu_per_iter * usc::kLanes;
  double lane_instrs = double(iters) * per_iter * usc::kLanes;
  return {lane_instrs / emu_s, body_ops / native_s};
}

// Each ALU-loop instruction alone: 64 copies and a stop in straight-line
// code, run 320 times, beside the same 64 x 320 operations natively.
Figures instr_rate(const AluInstr& i, int which) {
  constexpr size_t kCopies = 64, kRuns = 320;
  std::vector<uint8_t> code;
  for (size_t n = 0; n < kCopies; ++n) code.insert(code.end(), i.bytes.begin(), i.bytes.end());
  code << op(Opcode::stop, {});
  auto prog = usc::compile(code, 0);
  if (!prog) cli::fail(prog.error());
  usc::RunOptions opt;
  usc::Core core;
  double s = best_seconds([&] {
    core = alu_core(0);
    for (size_t run = 0; run < kRuns; ++run) {
      core.pc = 0;
      auto r = usc::run(*prog, core, {}, opt);
      if (!r) cli::fail(r.error());
    }
  });
  AluLanes v;
  double native_s = best_seconds([&] {
    v = alu_start();
    native_one(v, which, kCopies, kRuns);
  });
  expect_same(core, v, i.name);
  double ops = double(kRuns) * kCopies * usc::kLanes;
  return {ops / s, ops / native_s};
}

Figures mem_bench() {
  // SAXPY over n floats, one SIMD group walking the arrays 32 lanes at a
  // time: x = load [u0_u1 + r12 * 4]; y = load [u2_u3 + r12 * 4]; wait;
  // y = a (r30) * x + y; store y; r12 += 32.
  std::vector<uint8_t> body;
  size_t per_iter = 6;
  body << op(Opcode::device_load, {{"F", 2}, {"mask", 1}, {"Rt", 1}, {"R", 20}, {"At", 1}, {"A", 0}, {"Ot", 0}, {"O", 24}, {"Ou", 1}})
       << op(Opcode::device_load, {{"F", 2}, {"mask", 1}, {"Rt", 1}, {"R", 22}, {"At", 1}, {"A", 4}, {"Ot", 0}, {"O", 24}, {"Ou", 1}})
       << op(Opcode::wait, {})
       << op(Opcode::fmadd32, {{"Dt", 2}, {"D", 22}, {"At", kR32}, {"A", 60}, {"Bt", kR32}, {"B", 20}, {"Ct", kR32}, {"C", 22}})
       << op(Opcode::device_store, {{"F", 2}, {"mask", 1}, {"Rt", 1}, {"R", 22}, {"At", 1}, {"A", 4}, {"Ot", 0}, {"O", 24}, {"Ou", 1}})
       << op(Opcode::iadd, {{"Dt", 2}, {"D", 24}, {"At", kR32}, {"A", 24}, {"Bt", 0}, {"B", 32}});
  auto code = loop(body, per_iter);
  auto prog = usc::compile(code, 0);
  if (!prog) cli::fail(prog.error());
  const uint32_t iters = 32768, n = iters * 32;
  const float a = 1.5f;
  std::vector<float> x(n), y0(n);
  for (uint32_t i = 0; i < n; ++i) {
    x[i] = float(i % 1000) * 0.25f;
    y0[i] = float(i % 77) - 3.0f;
  }
  usc::RegionMemory mem;
  std::vector<uint8_t> xb(n * 4), yb(n * 4);
  std::memcpy(xb.data(), x.data(), n * 4);
  std::memcpy(yb.data(), y0.data(), n * 4);
  if (auto s = mem.map(0x100000000ull, xb); !s) cli::fail(s.error());
  if (auto s = mem.map(0x200000000ull, yb); !s) cli::fail(s.error());
  uint8_t* ymem = mem.host_pointer(0x200000000ull, n * 4, Access::write);
  usc::Core core = usc::make_core();
  core.u[0] = 0; core.u[1] = 1; core.u[2] = 0; core.u[3] = 2;
  for (unsigned l = 0; l < usc::kLanes; ++l) {
    core.r[12][l] = l;
    core.r[21][l] = iters;
    core.r[30][l] = std::bit_cast<uint32_t>(a);
  }
  usc::RunOptions opt;
  opt.step_limit = UINT64_MAX;
  usc::Memories m;
  m.device = &mem;
  double emu_s = 1e300;
  for (int i = 0; i < kRepeats; ++i) {  // y restored (untimed) before each run
    std::memcpy(ymem, y0.data(), n * 4);
    auto t0 = Clock::now();
    usc::Core c = core;
    auto r = usc::run(*prog, c, m, opt);
    emu_s = std::min(emu_s, seconds_since(t0));
    if (!r) cli::fail(r.error());
  }
  std::vector<float> y(n);
  double native_s = 1e300;
  for (int i = 0; i < kRepeats; ++i) {
    std::memcpy(y.data(), y0.data(), n * 4);
    auto t0 = Clock::now();
    native_saxpy(a, x.data(), y.data(), n);
    native_s = std::min(native_s, seconds_since(t0));
  }
  if (std::memcmp(ymem, y.data(), n * 4) != 0)
    cli::fail(Error::invalid_argument("bench usc: memory kernel: the emulator's y differs from the native SAXPY's"));
  // Both as lane-instructions of the kernel body per second (the native
  // code does the body's work for every element).
  double body_instrs = double(iters) * 6 * usc::kLanes;
  double lane_instrs = double(iters) * per_iter * usc::kLanes;
  return {lane_instrs / emu_s, body_instrs / native_s};
}

int run_bench(bool json) {
  Figures alu = alu_bench(), mem = mem_bench();
  // Per instruction, each beside the same instruction natively.
  std::vector<std::pair<const char*, Figures>> per;
  auto instrs = alu_instrs();
  for (size_t k = 0; k < instrs.size(); ++k) per.emplace_back(instrs[k].name, instr_rate(instrs[k], int(k)));
  if (json) {
    std::string ops;
    for (const auto& [name, f] : per)
      ops += fmt::format("{}\"{}\": {{\"lane_instr_per_s\": {:.4g}, \"native_lane_op_per_s\": {:.4g}, "
                         "\"native_ratio\": {:.4g}}}",
                         ops.empty() ? "" : ", ", name, f.emu_rate, f.native_rate, f.emu_rate / f.native_rate);
    fmt::print("{{\"alu_lane_instr_per_s\": {:.4g}, \"alu_native_ratio\": {:.4g}, "
               "\"mem_lane_instr_per_s\": {:.4g}, \"mem_native_ratio\": {:.4g}, \"per_instruction\": {{{}}}}}\n",
               alu.emu_rate, alu.emu_rate / alu.native_rate, mem.emu_rate, mem.emu_rate / mem.native_rate, ops);
  } else {
    fmt::print("usc ALU loop (fmadd/fadd/fmul/fcmpsel/iadd): {:.3g} lane-instr/s; native C++ {:.3g}/s; ratio {:.3g}\n",
               alu.emu_rate, alu.native_rate, alu.emu_rate / alu.native_rate);
    fmt::print("usc memory kernel (SAXPY: 2 device_load, fmadd32, device_store): {:.3g} lane-instr/s; native C++ "
               "{:.3g}/s; ratio {:.3g}\n",
               mem.emu_rate, mem.native_rate, mem.emu_rate / mem.native_rate);
    for (const auto& [name, f] : per)
      fmt::print("usc {:<8} alone: {:.3g} lane-instr/s ({:.1f} ns per 32-lane instruction); native {:.3g}/s; "
                 "ratio {:.3g}\n",
                 name, f.emu_rate, 1e9 * usc::kLanes / f.emu_rate, f.native_rate, f.emu_rate / f.native_rate);
  }
  return 0;
}

agx::cli::Bench kBench{"usc", "USC emulator lane-instructions/s vs native C++ (ALU loop, memory kernel)", run_bench};

}  // namespace AGX_UNITY_ID
