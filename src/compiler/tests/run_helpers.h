// Compiles GLSL compute kernels and runs them on the usc emulator's
// dispatch with buffers at fixed addresses (docs/compiler.md's ABI).
#pragma once

#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "compiler/compiler.h"
#include "usc/usc.h"

namespace agx::compiler::test {

struct Job {
  std::vector<std::vector<uint32_t>> buffers;  // by resource, in Abi order
  std::vector<uint32_t> push;                  // push constants / loose uniforms, in words
  std::array<uint32_t, 3> groups{1, 1, 1};
};

inline constexpr uint64_t kBufferBase = 0x10'0000'0000ull;
inline constexpr uint64_t kBufferStride = 0x100'0000ull;

inline Result<Shader> compile(const std::string& glsl, TargetEnv env = TargetEnv::vulkan) {
  Options o;
  o.env = env;
  o.file_name = "test.comp";
  return compile_glsl(glsl, o);
}

// The start of a spilling test kernel: buffers A (in) and O (out) of
// `type`, and `count` values v0.. loaded from a[b + i] (then `load_suffix`),
// all live until the caller's uses; `extensions` lines go after #version.
inline std::string many_live_values(const std::string& type, int count, const std::string& extensions = "",
                                    const std::string& load_suffix = "") {
  std::string src = "#version 450\n" + extensions + "layout(local_size_x = 32) in;\n" +
                    "layout(set = 0, binding = 0) buffer A { " + type + " a[]; };\n" +
                    "layout(set = 0, binding = 1) buffer O { " + type + " o[]; };\nvoid main() {\n" +
                    "  uint b = gl_GlobalInvocationID.x * " + std::to_string(count) + "u;\n";
  for (int i = 0; i < count; ++i)
    src += "  " + type + " v" + std::to_string(i) + " = a[b + " + std::to_string(i) + "u]" + load_suffix + ";\n";
  return src;
}

// Runs `shader`; on return run.buffers hold what the kernel left there.
// Status/Result checks that print the error's message.
#define ASSERT_OK(expr)                                              \
  do {                                                               \
    auto agx_st_ = (expr);                                           \
    ASSERT_TRUE(agx_st_.ok()) << agx_st_.error().message();          \
  } while (0)

inline Shader must_compile(const std::string& src, TargetEnv env = TargetEnv::vulkan) {
  auto s = compile(src, env);
  EXPECT_TRUE(s.ok()) << (s.ok() ? "" : s.error().message());
  if (s.ok() && getenv("AGX_COMPILER_DUMP")) fprintf(stderr, "%s\n%s", s->ir_text.c_str(), disassemble(s->code).c_str());
  if (!s.ok()) return {};
  return std::move(*s);
}

// The preamble as the CDM runs the USC Preshader (docs/gpu.md): once, as
// one SIMD group with only lane 0 active, on the dispatch's uniform file;
// the uniform file it leaves at `stop` is what the dispatch starts with.
inline Status run_preamble(const Shader& shader, std::array<uint32_t, usc::kUniforms>& uniforms, GpuMemory& mem) {
  if (shader.preamble.empty()) return {};
  AGX_TRY(auto program, usc::compile(shader.preamble, 0));
  auto core = std::make_unique<usc::Core>();
  usc::place(*core, usc::Placement{});
  core->exec = core->present = 1;
  core->u = uniforms;
  std::vector<uint8_t> shared(16);
  usc::Memories m{&mem, &shared, nullptr, 0};
  AGX_TRY(auto stop, usc::run(program, *core, m, usc::RunOptions{}));
  if (stop != usc::StopReason::finished) return Error::invalid_argument("the preamble stopped at a barrier");
  uniforms = core->u;
  return {};
}

inline Status execute(const Shader& shader, Job& run) {
  usc::RegionMemory mem;
  usc::Dispatch d;
  d.threadgroups = run.groups;
  d.threads_per_threadgroup = shader.abi.workgroup_size;
  d.threadgroup_memory_B = std::max<uint32_t>(shader.abi.threadgroup_memory_B, 16);
  if (run.buffers.size() < shader.abi.resources.size())
    return Error::invalid_argument("the shader has {} resources, the test gives {}", shader.abi.resources.size(), run.buffers.size());
  for (size_t i = 0; i < shader.abi.resources.size(); ++i) {
    uint64_t va = kBufferBase + i * kBufferStride;
    std::vector<uint8_t> bytes(std::max<size_t>(run.buffers[i].size() * 4, 4));
    std::memcpy(bytes.data(), run.buffers[i].data(), run.buffers[i].size() * 4);
    AGX_CHECK(mem.map(va, std::move(bytes)));
    uint32_t u = shader.abi.resources[i].uniform;
    d.uniforms[u] = static_cast<uint32_t>(va);
    d.uniforms[u + 1] = static_cast<uint32_t>(va >> 32);
    if (shader.abi.resources[i].size_uniform != Resource::kNoUniform)
      d.uniforms[shader.abi.resources[i].size_uniform] = static_cast<uint32_t>(run.buffers[i].size() * 4);
  }
  if (shader.abi.atomic_lock_uniform != UINT32_MAX) {
    // The 64-bit buffer atomics' lock word, after the buffers.
    uint64_t va = kBufferBase + shader.abi.resources.size() * kBufferStride;
    AGX_CHECK(mem.map(va, std::vector<uint8_t>(4)));
    d.uniforms[shader.abi.atomic_lock_uniform] = static_cast<uint32_t>(va);
    d.uniforms[shader.abi.atomic_lock_uniform + 1] = static_cast<uint32_t>(va >> 32);
  }
  for (int i = 0; i < 3; ++i) d.uniforms[shader.abi.workgroup_count_uniform + i] = run.groups[i];
  for (size_t i = 0; i < run.push.size(); ++i) d.uniforms[shader.abi.push_constants_uniform + i] = run.push[i];
  AGX_CHECK(run_preamble(shader, d.uniforms, mem));
  AGX_TRY(auto program, usc::compile(shader.code, 0));
  usc::RunOptions opt;
  opt.step_limit = 50'000'000;
  AGX_CHECK(usc::dispatch(program, d, mem, opt));
  for (size_t i = 0; i < shader.abi.resources.size(); ++i) {
    uint64_t va = kBufferBase + i * kBufferStride;
    GpuFault fault;
    if (!run.buffers[i].empty() && !mem.read(va, run.buffers[i].data(), run.buffers[i].size() * 4, GpuUnit::usc, &fault))
      return Error::fault("reading back buffer {}", i);
  }
  return {};
}

}  // namespace agx::compiler::test
