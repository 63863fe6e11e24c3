// Every way a compute command faults: the fault names the address, the unit
// and (in its reason) the pc or the stream word; the job still completes and
// the queue, other queues and other files go on.
#include <cstring>

#include "gpu/tests/cdm_fixture.h"

namespace agx::gpu::test {
namespace AGX_UNITY_ID {

using CdmFault = CdmTest;

KernelLaunch store_index(uint64_t code, uint64_t out, uint32_t n) {
  KernelLaunch k;
  k.code = code;
  k.register_halves = 8;
  k.uniforms = {lo(out), hi(out)};
  k.grid = {n, 1, 1};
  return k;
}

constexpr const char* kStoreIndex = R"(get_sr r1, sr80
device_store 0, i32, x, r1, u0_u1, r1, unsigned, 0
stop)";

void expect_reason(const GpuFault& f, const std::string& text) {
  EXPECT_NE(f.reason.find(text), std::string::npos) << "reason: " << f.reason;
}

TEST_F(CdmFault, UnmappedStream) {
  ASSERT_EQ(session->run(0x7000'0000, 0x7000'0100).value(), 1u);
  EXPECT_EQ(fault().va, 0x7000'0000u);
  EXPECT_EQ(fault().unit, GpuUnit::cdm);
  expect_reason(fault(), "unmapped");
}

TEST_F(CdmFault, BadStreamWords) {
  // Block Type 7 names no block.
  uint64_t w = 0xE0000000u;
  std::vector<uint8_t> s(8, 0);
  std::memcpy(s.data(), &w, 4);
  ASSERT_EQ(run_stream(s), 1u);
  EXPECT_EQ(fault().unit, GpuUnit::cdm);
  expect_reason(fault(), "names no block");
  // A Launch Word 0 with a bit no field covers (bit 0).
  std::vector<uint8_t> t;
  ASSERT_TRUE(push_launch(t, *session, store_index(code(kStoreIndex), alloc(128), 32), 0));
  t[0] |= 1;
  uint64_t va = *session->upload(t);
  ASSERT_EQ(session->run(va, va + t.size()).value(), 1u);
  EXPECT_EQ(fault().va, va);
  expect_reason(fault(), "no field covers");
  // A Stream Return with no call, and the end of the stream without a
  // Stream Terminate.
  std::vector<uint8_t> r;
  ASSERT_TRUE(push(r, cmdstream::CdmStreamReturn{}));
  ASSERT_EQ(run_stream(r), 1u);
  expect_reason(fault(), "Stream Return at 0x");
  expect_reason(fault(), "with no call to return to");
  std::vector<uint8_t> b;
  ASSERT_TRUE(push_cdm_barrier(b));
  ASSERT_EQ(run_stream(b), 1u);
  expect_reason(fault(), "without a Stream Terminate");
}

// The stream walker (cmdstream/stream_walk.h) bounds the walk: a link loop
// is a cycle at once, a long stream stops at the block limit, calls nest 8
// deep, and a Barrier with Returns needs a call.
TEST_F(CdmFault, LinkLoopsAndDeepCalls) {
  make(options([](CdmOptions& o) { o.stream_block_limit = 100; }));
  uint64_t va = alloc(8);
  cmdstream::CdmStreamLink self;
  self.target_hi = va >> 32, self.target_lo = va & 0xFFFFFFFF;
  std::vector<uint8_t> s;
  ASSERT_TRUE(push(s, self));
  std::memcpy(session->host(va), s.data(), 8);
  ASSERT_EQ(session->run(va, va + 8).value(), 1u);
  EXPECT_EQ(fault().va, va);
  expect_reason(fault(), "link cycle: Stream Link at 0x");
  // 101 barriers before the terminate: longer than 100 blocks.
  std::vector<uint8_t> many;
  for (int i = 0; i < 101; ++i) ASSERT_TRUE(push_cdm_barrier(many));
  ASSERT_TRUE(push(many, cmdstream::CdmStreamTerminate{}));
  ASSERT_EQ(run_stream(many), 1u);
  expect_reason(fault(), "stream longer than 100 packets");
  EXPECT_EQ(executor->stats().barriers, 100u);
  // A Barrier with Returns and no call.
  cmdstream::CdmBarrier back;
  back.returns = true;
  std::vector<uint8_t> r;
  ASSERT_TRUE(push(r, back));
  ASSERT_EQ(run_stream(r), 1u);
  expect_reason(fault(), "Barrier with Returns at 0x");
  expect_reason(fault(), "with no call to return to");
  self.with_return = true;  // calls itself: deeper than 8
  s.clear();
  ASSERT_TRUE(push(s, self));
  std::memcpy(session->host(va), s.data(), 8);
  ASSERT_EQ(session->run(va, va + 8).value(), 1u);
  expect_reason(fault(), "call depth 9 exceeds the limit");
}

TEST_F(CdmFault, BadUscWords) {
  uint64_t out = alloc(128), k = code(kStoreIndex);
  // An unknown tag.
  uint64_t bad = alloc(64, 64);
  session->host(bad)[0] = 0x77;
  std::vector<uint8_t> s;
  ASSERT_TRUE(push_launch(s, *session, store_index(k, out, 32), bad));
  ASSERT_TRUE(push_cdm_terminate(s));
  ASSERT_EQ(run_stream(s), 1u);
  EXPECT_EQ(fault().va, bad);
  expect_reason(fault(), "tag 0x77 names no USC Control word");
  // Fragment Properties in a compute launch.
  cmdstream::UscFragmentProperties fp;
  std::vector<uint8_t> w;
  ASSERT_TRUE(push(w, fp));
  uint64_t wv = *session->upload(w, 64);
  s.clear();
  ASSERT_TRUE(push_launch(s, *session, store_index(k, out, 32), wv));
  ASSERT_TRUE(push_cdm_terminate(s));
  ASSERT_EQ(run_stream(s), 1u);
  expect_reason(fault(), "Fragment Properties");
  // No Shader word.
  w.clear();
  ASSERT_TRUE(push(w, cmdstream::UscNoPreshader{}));
  wv = *session->upload(w, 64);
  s.clear();
  ASSERT_TRUE(push_launch(s, *session, store_index(k, out, 32), wv));
  ASSERT_TRUE(push_cdm_terminate(s));
  ASSERT_EQ(run_stream(s), 1u);
  expect_reason(fault(), "no Shader word");
}

TEST_F(CdmFault, TooFewRegisters) {
  KernelLaunch k = store_index(code(kStoreIndex), alloc(128), 32);
  k.register_halves = 2;  // r1 needs halves 0..3 (one group of 8 is the least: use a kernel naming r9)
  k.code = code(R"(get_sr r9, sr80
device_store 0, i32, x, r9, u0_u1, r9, unsigned, 0
stop)");
  k.register_halves = 8;
  ASSERT_EQ(run({k}), 1u);
  EXPECT_EQ(fault().unit, GpuUnit::usc);
  EXPECT_EQ(fault().va, k.code);
  expect_reason(fault(), "uses 20 16-bit register halves (up to r9) but only 8 are allocated");
}

TEST_F(CdmFault, UnmappedAndReadOnlyStores) {
  uint64_t out = alloc(4 * 64);
  KernelLaunch k = store_index(code(kernel_text("fault")), out, 64);
  k.register_halves = 12;
  k.uniforms = {0, 0, lo(out), hi(out)};
  ASSERT_EQ(run({k}), 1u);
  EXPECT_EQ(fault().va, 0xdead0000u);
  EXPECT_EQ(fault().unit, GpuUnit::usc);
  EXPECT_EQ(fault().access, Access::write);
  expect_reason(fault(), "threadgroup (0,0,0) simdgroup 0");
  expect_reason(fault(), "pc 0x");
  EXPECT_EQ(session->host_as<uint32_t>(out)[0], 7u);

  // A read-only binding of another object.
  auto& f = session->transport();
  drm_asahi_gem_create gc{0x4000, 0, 0, 0, 0};
  ASSERT_EQ(f.ioctl(DRM_IOCTL_ASAHI_GEM_CREATE, &gc), 0);
  drm_asahi_gem_bind_op op{DRM_ASAHI_BIND_READ, gc.handle, 0, 0x4000, 0x2'0000'0000};
  drm_asahi_vm_bind vb{session->vm_id(), 1, sizeof op, 0, reinterpret_cast<uint64_t>(&op)};
  ASSERT_EQ(f.ioctl(DRM_IOCTL_ASAHI_VM_BIND, &vb), 0);
  KernelLaunch ro = store_index(code(kStoreIndex), 0x2'0000'0000, 32);
  ASSERT_EQ(run({ro}), 1u);
  EXPECT_EQ(fault().va, 0x2'0000'0000u);
  EXPECT_EQ(fault().access, Access::write);
  expect_reason(fault(), "not writable");
}

TEST_F(CdmFault, StuckShaderHitsTheStepLimit) {
  make(options([](CdmOptions& o) { o.step_limit = 5000; }));
  KernelLaunch k = store_index(code(R"(mov_imm r1, 1, 0b0
jmp_exec_any pc+0
stop)"),
                               alloc(64), 32);
  ASSERT_EQ(run({k}), 1u);
  EXPECT_EQ(fault().unit, GpuUnit::usc);
  EXPECT_EQ(fault().va, k.code + 6);  // the jump
  expect_reason(fault(), "step limit of 5000");
}

TEST_F(CdmFault, UndecodableCodeAndCodeRunningIntoUnmappedMemory) {
  uint64_t garbage = alloc(16, 128);
  std::memset(session->host(garbage), 0xFF, 16);
  KernelLaunch k = store_index(garbage, alloc(64), 32);
  ASSERT_EQ(run({k}), 1u);
  EXPECT_EQ(fault().va, garbage);
  expect_reason(fault(), "pc 0x");
  // An instruction at the end of the arena, no stop after it.
  auto add = isa::assemble("iadd r1, r1, 1");
  ASSERT_TRUE(add);
  session->reset_arena(session->arena_B() - add->length_B);
  uint64_t tail = *session->upload(add->span(), 2);
  session->reset_arena(32 << 20);
  k.code = tail;
  ASSERT_EQ(run({k}), 1u);
  EXPECT_EQ(fault().va, ComputeSession::kArenaVa + session->arena_B());
  expect_reason(fault(), "before a stop");
}

TEST_F(CdmFault, BadGrids) {
  make(options([](CdmOptions& o) { o.threadgroup_limit = 1000; }));
  KernelLaunch k = store_index(code(kStoreIndex), alloc(64), 32);
  k.local = {0, 1, 1};
  ASSERT_EQ(run({k}), 1u);
  expect_reason(fault(), "is not 1..1024 threads");
  k.local = {64, 32, 1};
  ASSERT_EQ(run({k}), 1u);
  expect_reason(fault(), "64x32x1 is not 1..1024 threads");
  k.local = {1, 1, 1};
  k.grid = {1001, 1, 1};
  ASSERT_EQ(run({k}), 1u);
  expect_reason(fault(), "1001 threadgroups exceed the limit of 1000");
  k.grid = {1, 1, 1};
  k.mode = cmdstream::CdmMode::kIndirectGlobal;
  k.indirect = 0x6000'0000;
  ASSERT_EQ(run({k}), 1u);
  EXPECT_EQ(fault().va, 0x6000'0000u);
  EXPECT_EQ(fault().unit, GpuUnit::cdm);
}

// The CDM alone (this fixture's executor) refuses render commands; the
// default executor (GpuExecutor) runs them (render_* tests).
TEST_F(CdmFault, TheCdmAloneRefusesRenderCommands) {
  drm_asahi_cmd_render r{};
  r.width_px = 64, r.height_px = 64, r.layers = 1, r.samples = 1, r.utile_width_px = 32, r.utile_height_px = 32;
  struct {
    drm_asahi_cmd_header h;
    drm_asahi_cmd_render r;
  } buf{{DRM_ASAHI_CMD_RENDER, sizeof r, DRM_ASAHI_BARRIER_NONE, DRM_ASAHI_BARRIER_NONE}, r};
  drm_syncobj_create sc{0, 0};
  ASSERT_EQ(session->transport().ioctl(DRM_IOCTL_SYNCOBJ_CREATE, &sc), 0);
  drm_asahi_sync out{DRM_ASAHI_SYNC_SYNCOBJ, sc.handle, 0};
  drm_asahi_submit sub{};
  sub.syncs = reinterpret_cast<uint64_t>(&out);
  sub.cmdbuf = reinterpret_cast<uint64_t>(&buf);
  sub.queue_id = session->queue_id();
  sub.out_sync_count = 1;
  sub.cmdbuf_size = sizeof buf;
  ASSERT_EQ(session->transport().ioctl(DRM_IOCTL_ASAHI_SUBMIT, &sub), 0);
  drm_syncobj_wait w{reinterpret_cast<uint64_t>(&sc.handle), INT64_MAX, 1, 0, 0, 0};
  ASSERT_EQ(session->transport().ioctl(DRM_IOCTL_SYNCOBJ_WAIT, &w), 0);
  auto faults = device->faults();
  ASSERT_EQ(faults.size(), 2u);  // the vertex and the fragment half
  EXPECT_NE(faults[0].fault.reason.find("the CDM executes compute commands only"), std::string::npos);
}

TEST_F(CdmFault, TheQueueOtherQueuesAndOtherFilesGoOn) {
  uint64_t out = alloc(4 * 64);
  KernelLaunch bad = store_index(code(kernel_text("fault")), out, 64);
  bad.register_halves = 12;
  bad.uniforms = {0, 0, lo(out), hi(out)};
  ASSERT_EQ(run({bad}), 1u);
  // The same queue.
  uint64_t good_out = alloc(4 * 32);
  ASSERT_EQ(run({store_index(code(kStoreIndex), good_out, 32)}), 0u);
  EXPECT_EQ(session->host_as<uint32_t>(good_out)[31], 31u);
  // Another file (its own VM and queue) on the same device.
  auto other = ComputeSession::open(*device, 1 << 20);
  ASSERT_TRUE(other);
  uint64_t o = *(*other)->alloc(4 * 32);
  KernelLaunch k = store_index(*(*other)->assemble(kStoreIndex), o, 32);
  std::vector<uint8_t> s;
  ASSERT_TRUE(push_launch(s, **other, k, *upload_usc_words(**other, k)));
  ASSERT_TRUE(push_cdm_terminate(s));
  uint64_t va = *(*other)->upload(s);
  ASSERT_EQ((*other)->run(va, va + s.size()).value(), 0u);
  EXPECT_EQ((*other)->host_as<uint32_t>(o)[17], 17u);
  EXPECT_EQ(executor->stats().faults, 1u);
}

}  // namespace
}  // namespace agx::gpu::test
