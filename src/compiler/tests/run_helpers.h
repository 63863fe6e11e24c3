// Compiles GLSL compute kernels and runs them as a driver would: launched
// by the runtime's encoder through the Asahi UAPI on the software GPU's CDM
// executor (which runs the preamble as the USC Preshader), one buffer per
// resource bound where docs/compiler.md's ABI says.
#pragma once

#include <gtest/gtest.h>

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "compiler/compiler.h"
#include "gpu/gpu.h"
#include "kmd/kmd.h"
#include "runtime/encoder.h"
#include "runtime/runtime.h"
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

// Each loose uniform's bytes (`values` by name) at the words the Abi gives
// it in the push constant / loose uniform block `push`.
inline void fill_loose(const Shader& shader, const std::map<std::string, const void*>& values,
                       std::vector<uint32_t>& push) {
  for (const LooseUniform& lu : shader.abi.loose_uniforms) {
    auto it = values.find(lu.name);
    ASSERT_NE(it, values.end()) << lu.name;
    const uint32_t at_w = lu.uniform - shader.abi.push_constants_uniform;
    ASSERT_LE(at_w + lu.size_B / 4, push.size()) << lu.name;
    std::memcpy(push.data() + at_w, it->second, lu.size_B);
  }
}

// The device every kernel of a test binary runs on: an in-process kmd
// Device whose executor is the CDM with the texture unit attached (as the
// default executor; a step limit that ends runaway loops), opened by the
// runtime. Made once and kept until the process exits.
inline Result<runtime::Device*> gpu_device() {
  struct Gpu {
    kmd::Device kmd;
    std::unique_ptr<runtime::Device> device;
    std::string error;
  };
  static Gpu* gpu = [] {
    auto* g = new Gpu;
    gpu::CdmOptions o;
    o.step_limit = 50'000'000;
    o.fixed_function = gpu::texture_unit_factory();
    g->kmd.set_executor(std::make_shared<gpu::CdmExecutor>(o));
    auto d = runtime::Device::open(runtime::in_process_transport(g->kmd));
    if (d.ok()) g->device = std::move(*d);
    else g->error = d.error().message();
    return g;
  }();
  if (!gpu->device) return Error::io("the in-process device did not open: {}", gpu->error);
  return gpu->device.get();
}

inline Status execute(const Shader& shader, Job& run) {
  AGX_TRY(runtime::Device * device, gpu_device());
  if (run.buffers.size() < shader.abi.resources.size())
    return Error::invalid_argument("the shader has {} resources, the test gives {}", shader.abi.resources.size(), run.buffers.size());
  // The list as if the block were pushed: a block in memory sits past the
  // file, and the runtime moves it into a buffer (runtime/push_memory.h).
  const uint32_t push_end = shader.abi.push_constants_uniform + static_cast<uint32_t>(run.push.size());
  std::vector<uint32_t> u(std::max({shader.abi.uniform_count, usc::kUniforms, push_end}), 0);
  auto set64 = [&](uint32_t at, uint64_t va) {
    u[at] = static_cast<uint32_t>(va);
    u[at + 1] = static_cast<uint32_t>(va >> 32);
  };
  std::vector<std::unique_ptr<runtime::Buffer>> buffers;
  for (size_t i = 0; i < shader.abi.resources.size(); ++i) {
    AGX_TRY(auto b, device->create_buffer(std::max<size_t>(run.buffers[i].size() * 4, 4), fmt::format("buffer {}", i)));
    std::memcpy(b->host().data(), run.buffers[i].data(), run.buffers[i].size() * 4);
    set64(shader.abi.resources[i].uniform, b->gpu_va());
    if (shader.abi.resources[i].size_uniform != Resource::kNoUniform)
      u[shader.abi.resources[i].size_uniform] = static_cast<uint32_t>(run.buffers[i].size() * 4);
    buffers.push_back(std::move(b));
  }
  std::unique_ptr<runtime::Buffer> lock;
  if (shader.abi.atomic_lock_uniform != UINT32_MAX) {
    // The 64-bit buffer atomics' lock word.
    AGX_TRY(lock, device->create_buffer(4, "atomic lock"));
    set64(shader.abi.atomic_lock_uniform, lock->gpu_va());
  }
  for (int i = 0; i < 3; ++i) u[shader.abi.workgroup_count_uniform + i] = run.groups[i];
  for (size_t i = 0; i < run.push.size(); ++i) u[shader.abi.push_constants_uniform + i] = run.push[i];
  const bool in_memory = shader.abi.push_memory_uniform != Resource::kNoUniform;
  u.resize(in_memory ? push_end : std::max<uint32_t>(shader.abi.uniform_count, 1));
  runtime::LaunchDesc l = runtime::shader_launch(shader, run.groups);
  l.uniforms = u;
  if (run.groups[0] && run.groups[1] && run.groups[2]) {
    AGX_TRY(runtime::EncodedLaunch e, runtime::encode_launch(*device, l));
    AGX_CHECK(device->submit_compute(e.command, "the test kernel"));
  }
  for (size_t i = 0; i < shader.abi.resources.size(); ++i)
    std::memcpy(run.buffers[i].data(), buffers[i]->host().data(), run.buffers[i].size() * 4);
  return {};
}

}  // namespace agx::compiler::test
