// CDM executor tests: a kmd Device with the executor, the runtime's thin
// ComputeSession on it, and helpers that build streams with the runtime's
// encoder (the one packer of CDM launches and USC word lists).
#pragma once

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "gpu/gpu.h"
#include "runtime/compute_session.h"
#include "runtime/encoder.h"

namespace agx::gpu::test {

namespace cs = cmdstream;
using runtime::ComputeSession;
using runtime::KernelLaunch;
using runtime::push;
using runtime::push_cdm_barrier;
using runtime::push_cdm_terminate;
using runtime::push_launch;
using runtime::upload_usc_words;

inline std::string kernel_text(const std::string& name) {
  std::ifstream f("tests/c_client/kernels/" + name + ".s");
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

// Options with some fields changed: options([](CdmOptions& o) { o.threads = 2; }).
template <class F>
CdmOptions options(F&& change) {
  CdmOptions o;
  change(o);
  return o;
}

inline uint32_t lo(uint64_t v) { return static_cast<uint32_t>(v); }
inline uint32_t hi(uint64_t v) { return static_cast<uint32_t>(v >> 32); }

class CdmTest : public ::testing::Test {
 public:
  void SetUp() override { make(CdmOptions{}); }

  void make(CdmOptions o) {
    session.reset();
    device = std::make_unique<kmd::Device>();
    executor = std::make_shared<CdmExecutor>(std::move(o));
    device->set_executor(executor);
    auto s = ComputeSession::open(*device, 64 << 20);
    ASSERT_TRUE(s) << s.error().message();
    session = std::move(*s);
  }

  uint64_t alloc(uint64_t size, uint64_t align = 64) {
    auto r = session->alloc(size, align);
    EXPECT_TRUE(r) << r.error().message();
    return r ? *r : 0;
  }
  uint64_t code(const std::string& text) {
    auto r = session->assemble(text);
    EXPECT_TRUE(r) << r.error().message();
    return r ? *r : 0;
  }
  uint64_t words(const KernelLaunch& k) {
    auto r = upload_usc_words(*session, k);
    EXPECT_TRUE(r) << r.error().message();
    return r ? *r : 0;
  }
  // A stream of launches (each followed by Mesa's barrier) and a Terminate.
  std::vector<uint8_t> stream_of(const std::vector<KernelLaunch>& ks) {
    std::vector<uint8_t> s;
    for (const auto& k : ks) {
      EXPECT_TRUE(push_launch(s, *session, k, words(k)));
      EXPECT_TRUE(push_cdm_barrier(s));
    }
    EXPECT_TRUE(push_cdm_terminate(s));
    return s;
  }
  // Uploads a stream and runs it; returns the number of faults.
  size_t run_stream(const std::vector<uint8_t>& s, const drm_asahi_cmd_compute* extra = nullptr) {
    auto va = session->upload(s, 64);
    EXPECT_TRUE(va);
    auto r = session->run(*va, *va + s.size(), extra);
    EXPECT_TRUE(r) << r.error().message();
    return r ? *r : 99;
  }
  size_t run(const std::vector<KernelLaunch>& ks) { return run_stream(stream_of(ks)); }
  GpuFault fault() const { return session->last_fault(); }

  std::unique_ptr<kmd::Device> device;
  std::shared_ptr<CdmExecutor> executor;
  std::unique_ptr<ComputeSession> session;
};

}  // namespace agx::gpu::test
