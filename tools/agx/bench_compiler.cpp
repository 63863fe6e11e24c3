// `agx bench compiler [--json]`: shaders compiled per second over the
// fixed kernel sets (src/compiler/kernels.cpp: compute kernels;
// kernels_graphics.cpp: vertex and fragment shaders, each with its prolog
// or epilog compiled and linked, as a draw needs them), beside the same GLSL taken only
// through the front end (glslang + SPIRV-Tools validation and optimization)
// in the same run, the ratio, and each shader's instruction count, bytes
// and registers.
#include <fmt/format.h>

#include <chrono>

#include "bench_timing.h"
#include "command.h"
#include "compiler/compiler.h"
#include "compiler/kernels.h"

namespace AGX_UNITY_ID {

using agx::cli::best_seconds;
using agx::compiler::Kernel;
using agx::compiler::Shader;
using agx::compiler::Stage;

constexpr int kRounds = 4;

agx::compiler::Options options_of(const Kernel& k) {
  agx::compiler::Options o;
  o.env = k.env;
  o.stage = k.stage;
  o.file_name = std::string(k.name);
  return o;
}

struct SetFigures {
  std::span<const Kernel> kernels;
  std::vector<Shader> shaders;
  std::vector<uint32_t> unscheduled_gprs;  // the same kernel without pressure_schedule
  double rate = 0, front_rate = 0;         // shaders per second
};

// Compiles the set once for its figures, then times it against the front end.
agx::Result<SetFigures> measure(std::span<const Kernel> kernels, size_t& sink) {
  SetFigures f{kernels, {}, {}};
  for (const Kernel& k : kernels) {
    agx::compiler::Options o = options_of(k);
    auto s = agx::compiler::compile_sample(k, o);
    if (!s) return agx::Error::invalid_argument("{}: {}", k.name, s.error().message());
    o.pressure_schedule = false;
    auto u = agx::compiler::compile_sample(k, o);
    if (!u) return agx::Error::invalid_argument("{}: {}", k.name, u.error().message());
    f.shaders.push_back(std::move(*s));
    f.unscheduled_gprs.push_back(u->stats.gprs);
  }
  double full_s = best_seconds(3, [&] {
    for (int r = 0; r < kRounds; ++r)
      for (const Kernel& k : kernels) {
        auto s = agx::compiler::compile_sample(k, options_of(k));
        sink += s ? s->code.size() : 0;
      }
  });
  double front_s = best_seconds(3, [&] {
    for (int r = 0; r < kRounds; ++r)
      for (const Kernel& k : kernels) {
        agx::compiler::Options o = options_of(k);
        auto w = agx::compiler::glsl_to_spirv(k.glsl, o);
        if (!w) continue;
        auto opt = agx::compiler::optimize_spirv(*w, o);
        sink += opt ? opt->size() : 0;
      }
  });
  double n = static_cast<double>(kRounds * kernels.size());
  f.rate = n / full_s;
  f.front_rate = n / front_s;
  return f;
}

std::string kernels_json(const SetFigures& f) {
  std::string per;
  for (size_t i = 0; i < f.kernels.size(); ++i) {
    const auto& st = f.shaders[i].stats;
    per += fmt::format("{}\"{}\":{{\"stage\":\"{}\",\"instructions\":{},\"preamble_instructions\":{},\"bytes\":{},"
                       "\"gprs\":{},\"gprs_unscheduled\":{}}}",
                       i ? "," : "", f.kernels[i].name, agx::compiler::stage_name(f.kernels[i].stage), st.instructions,
                       st.preamble_instructions, st.bytes, st.gprs, f.unscheduled_gprs[i]);
  }
  return per;
}

void print_text(const SetFigures& f, std::string_view what) {
  fmt::print("compiler: {} {}, GLSL to AGX machine code\n", f.kernels.size(), what);
  fmt::print("  full compile   {:8.1f} shaders/s\n", f.rate);
  fmt::print("  front end only {:8.1f} shaders/s (reference: glslang + SPIRV-Tools, same GLSL)\n", f.front_rate);
  fmt::print("  ratio          {:.4f} of the reference (the back end's share is the rest)\n", f.rate / f.front_rate);
  for (size_t i = 0; i < f.kernels.size(); ++i) {
    const auto& st = f.shaders[i].stats;
    fmt::print("  {:<20} {:<8} {:4} instructions ({:3} main + {:2} preamble) {:5} bytes {:4} halfregs ({} unscheduled)\n",
               f.kernels[i].name, agx::compiler::stage_name(f.kernels[i].stage), st.instructions,
               st.instructions - st.preamble_instructions, st.preamble_instructions, st.bytes, st.gprs,
               f.unscheduled_gprs[i]);
  }
}

int run(bool json) {
  size_t sink = 0;
  auto compute = measure(agx::compiler::sample_kernels(), sink);
  auto graphics = compute ? measure(agx::compiler::sample_graphics_kernels(), sink) : compute;
  if (!compute || !graphics) {
    fmt::print(stderr, "agx bench compiler: {}\n", (compute ? graphics : compute).error().message());
    return 1;
  }
  const SetFigures& c = *compute;
  const SetFigures& g = *graphics;
  if (json) {
    fmt::print("{{\"unit\":\"compiler\",\"shaders\":{},\"shaders_per_s\":{:.1f},\"reference\":\"front_end_only\","
               "\"reference_shaders_per_s\":{:.1f},\"ratio_to_reference\":{:.4f},\"kernels\":{{{}}},"
               "\"graphics_shaders\":{},\"graphics_shaders_per_s\":{:.1f},\"graphics_reference_shaders_per_s\":{:.1f},"
               "\"graphics_ratio_to_reference\":{:.4f},\"graphics_kernels\":{{{}}},\"sink\":{}}}\n",
               c.kernels.size(), c.rate, c.front_rate, c.rate / c.front_rate, kernels_json(c), g.kernels.size(),
               g.rate, g.front_rate, g.rate / g.front_rate, kernels_json(g), sink);
    return 0;
  }
  print_text(c, "compute kernels");
  print_text(g, "vertex and fragment shaders (linked with their prolog / epilog)");
  fmt::print("  (checksum {})\n", sink);
  return 0;
}

agx::cli::Bench kBench{"compiler",
                       "Shaders compiled per second and instruction counts of fixed compute, vertex and fragment sets",
                       run};

}  // namespace AGX_UNITY_ID
