// `agx bench compiler [--json]`: compute shaders compiled per second over
// the fixed kernel set (src/compiler/kernels.cpp), beside the same GLSL
// taken only through the front end (glslang + SPIRV-Tools validation and
// optimization) in the same run, the ratio, and each kernel's instruction
// count, bytes and registers.
#include <fmt/format.h>

#include <chrono>

#include "bench_timing.h"
#include "command.h"
#include "compiler/compiler.h"
#include "compiler/kernels.h"

namespace {

using agx::cli::best_seconds;

int run(bool json) {
  auto kernels = agx::compiler::sample_kernels();
  std::vector<agx::compiler::Shader> shaders;
  std::vector<uint32_t> unscheduled_gprs;  // the same kernel without pressure_schedule
  for (const auto& k : kernels) {
    agx::compiler::Options o;
    o.env = k.env;
    o.file_name = std::string(k.name);
    auto s = agx::compiler::compile_glsl(k.glsl, o);
    o.pressure_schedule = false;
    auto u = agx::compiler::compile_glsl(k.glsl, o);
    if (!s || !u) {
      fmt::print(stderr, "agx bench compiler: {}: {}\n", k.name, (s ? u : s).error().message());
      return 1;
    }
    shaders.push_back(std::move(*s));
    unscheduled_gprs.push_back(u->stats.gprs);
  }
  constexpr int kRounds = 4;
  size_t sink = 0;
  double full_s = best_seconds(3, [&] {
    for (int r = 0; r < kRounds; ++r)
      for (const auto& k : kernels) {
        agx::compiler::Options o;
        o.env = k.env;
        auto s = agx::compiler::compile_glsl(k.glsl, o);
        sink += s ? s->code.size() : 0;
      }
  });
  double front_s = best_seconds(3, [&] {
    for (int r = 0; r < kRounds; ++r)
      for (const auto& k : kernels) {
        agx::compiler::Options o;
        o.env = k.env;
        auto w = agx::compiler::glsl_to_spirv(k.glsl, o);
        if (w) {
          auto opt = agx::compiler::optimize_spirv(*w, o);
          sink += opt ? opt->size() : 0;
        }
      }
  });
  double n = static_cast<double>(kRounds * kernels.size());
  double full_rate = n / full_s, front_rate = n / front_s;
  if (json) {
    std::string per;
    for (size_t i = 0; i < kernels.size(); ++i)
      per += fmt::format(
          "{}\"{}\":{{\"instructions\":{},\"preamble_instructions\":{},\"bytes\":{},\"gprs\":{},\"gprs_unscheduled\":{}}}",
          i ? "," : "", kernels[i].name, shaders[i].stats.instructions, shaders[i].stats.preamble_instructions,
          shaders[i].stats.bytes, shaders[i].stats.gprs, unscheduled_gprs[i]);
    fmt::print("{{\"unit\":\"compiler\",\"shaders\":{},\"shaders_per_s\":{:.1f},\"reference\":\"front_end_only\","
               "\"reference_shaders_per_s\":{:.1f},\"ratio_to_reference\":{:.4f},\"kernels\":{{{}}},\"sink\":{}}}\n",
               kernels.size(), full_rate, front_rate, full_rate / front_rate, per, sink);
  } else {
    fmt::print("compiler: {} kernels, GLSL to AGX machine code\n", kernels.size());
    fmt::print("  full compile   {:8.1f} shaders/s\n", full_rate);
    fmt::print("  front end only {:8.1f} shaders/s (reference: glslang + SPIRV-Tools, same GLSL)\n", front_rate);
    fmt::print("  ratio          {:.4f} of the reference (the back end's share is the rest)\n", full_rate / front_rate);
    for (size_t i = 0; i < kernels.size(); ++i)
      fmt::print("  {:<20} {:4} instructions ({:3} main + {:2} preamble) {:5} bytes {:4} halfregs ({} unscheduled)\n",
                 kernels[i].name, shaders[i].stats.instructions,
                 shaders[i].stats.instructions - shaders[i].stats.preamble_instructions,
                 shaders[i].stats.preamble_instructions, shaders[i].stats.bytes, shaders[i].stats.gprs,
                 unscheduled_gprs[i]);
    fmt::print("  (checksum {})\n", sink);
  }
  return 0;
}

agx::cli::Bench kBench{"compiler", "Compute shaders compiled per second and instruction counts of a fixed kernel set", run};

}  // namespace
