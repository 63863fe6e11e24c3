// The CDM executor running kernels through SUBMIT: grids, the USC word
// list, special registers, streams with links and returns, the preshader,
// scratch, and results that do not depend on the worker count.
#include <cmath>
#include <cstring>
#include <numeric>

#include "gpu/tests/cdm_fixture.h"

namespace agx::gpu::test {
namespace AGX_UNITY_ID {

using Cdm = CdmTest;

KernelLaunch saxpy(uint64_t code, uint64_t x, uint64_t y, float a, uint32_t n, uint32_t local) {
  KernelLaunch k;
  k.code = code;
  k.register_halves = 8;
  uint32_t a_bits;
  std::memcpy(&a_bits, &a, 4);
  k.uniforms = {lo(x), hi(x), lo(y), hi(y), a_bits, n};
  k.grid = {n, 1, 1};
  k.local = {local, 1, 1};
  return k;
}

TEST_F(Cdm, SaxpyWithAnEdgeThreadgroup) {
  const uint32_t n = 1000;  // not a multiple of 64: the last threadgroup has 40 threads
  uint64_t x = alloc(4 * n), y = alloc(4 * n + 64), k = code(kernel_text("saxpy"));
  float *hx = session->host_as<float>(x), *hy = session->host_as<float>(y);
  for (uint32_t i = 0; i < n; ++i) {
    hx[i] = float(i) * 0.5f;
    hy[i] = 3.0f - float(i);
  }
  hy[n] = 123.0f;  // past the grid: untouched
  ASSERT_EQ(run({saxpy(k, x, y, 1.5f, n, 64)}), 0u);
  for (uint32_t i = 0; i < n; ++i) ASSERT_EQ(hy[i], std::fmaf(1.5f, float(i) * 0.5f, 3.0f - float(i))) << i;
  EXPECT_EQ(hy[n], 123.0f);
  CdmStats st = executor->stats();
  EXPECT_EQ(st.launches, 1u);
  EXPECT_EQ(st.threadgroups, 16u);
  EXPECT_EQ(st.simdgroups, 15u * 2 + 2);
  EXPECT_EQ(st.barriers, 1u);
}

// A kernel that writes special registers of every thread: out[16 * i + k].
constexpr const char* kSpecials = R"(get_sr r1, sr51
get_sr r2, sr0
get_sr r3, sr1
imadd r4, r3, u4, r2
imadd r5, r4, u5, r1
iadd r5, 0, r5, lsl 4
get_sr r7, sr0
device_store 0, i32, x, r7, u0_u1, r5, unsigned, 0
iadd r5, r5, 1
get_sr r7, sr4
device_store 0, i32, x, r7, u0_u1, r5, unsigned, 0
iadd r5, r5, 1
get_sr r7, sr8
device_store 0, i32, x, r7, u0_u1, r5, unsigned, 0
iadd r5, r5, 1
get_sr r7, sr48
device_store 0, i32, x, r7, u0_u1, r5, unsigned, 0
iadd r5, r5, 1
get_sr r7, sr49
device_store 0, i32, x, r7, u0_u1, r5, unsigned, 0
iadd r5, r5, 1
get_sr r7, sr51
device_store 0, i32, x, r7, u0_u1, r5, unsigned, 0
iadd r5, r5, 1
get_sr r7, sr52
device_store 0, i32, x, r7, u0_u1, r5, unsigned, 0
iadd r5, r5, 1
get_sr r7, sr53
device_store 0, i32, x, r7, u0_u1, r5, unsigned, 0
iadd r5, r5, 1
get_sr r7, sr80
device_store 0, i32, x, r7, u0_u1, r5, unsigned, 0
iadd r5, r5, 1
get_sr r7, sr81
device_store 0, i32, x, r7, u0_u1, r5, unsigned, 0
iadd r5, r5, 1
get_sr r7, sr20
device_store 0, i32, x, r7, u0_u1, r5, unsigned, 0
iadd r5, r5, 1
get_sr r7, sr1
device_store 0, i32, x, r7, u0_u1, r5, unsigned, 0
stop)";

TEST_F(Cdm, SpecialRegistersOfA2DGridWithEdges) {
  // 50x3 threads in threadgroups of 16x2: 4x2 threadgroups, the last column
  // 2 wide and the last row 1 high.
  const uint32_t gx = 50, gy = 3, lx = 16, ly = 2, tgx = 4, tgy = 2;
  const uint32_t slots = tgx * tgy * lx * ly;
  uint64_t out = alloc(16 * 4 * slots);
  std::memset(session->host(out), 0xFF, 16 * 4 * slots);
  KernelLaunch k;
  k.code = code(kSpecials);
  k.register_halves = 16;
  k.uniforms = {lo(out), hi(out), 0, 0, tgx, lx * ly};
  k.grid = {gx, gy, 1};
  k.local = {lx, ly, 1};
  ASSERT_EQ(run({k}), 0u) << fault().reason;
  const uint32_t* h = session->host_as<uint32_t>(out);
  for (uint32_t ty = 0; ty < tgy; ++ty)
    for (uint32_t tx = 0; tx < tgx; ++tx) {
      uint32_t w = std::min(lx, gx - tx * lx), hgt = std::min(ly, gy - ty * ly);
      for (uint32_t t = 0; t < lx * ly; ++t) {
        const uint32_t* v = h + 16 * ((ty * tgx + tx) * lx * ly + t);
        if (t >= w * hgt) {
          EXPECT_EQ(v[0], 0xFFFFFFFFu) << "thread " << t << " of a smaller threadgroup ran";
          continue;
        }
        uint32_t px = t % w, py = t / w;
        EXPECT_EQ(v[0], tx);
        EXPECT_EQ(v[1], w);           // threads_per_threadgroup.x: this one
        EXPECT_EQ(v[2], lx);          // dispatch_threads_per_threadgroup.x
        EXPECT_EQ(v[3], px);
        EXPECT_EQ(v[4], py);
        EXPECT_EQ(v[5], t);
        EXPECT_EQ(v[6], t % 32);
        EXPECT_EQ(v[7], t / 32);
        EXPECT_EQ(v[8], tx * lx + px);  // thread_position_in_grid
        EXPECT_EQ(v[9], ty * ly + py);
        EXPECT_EQ(v[10], (ty * tgx + tx) % 8);  // core_index
        EXPECT_EQ(v[11], ty);
      }
    }
}

std::vector<uint32_t> prefix_and_reduce(CdmTest& t) {
  const uint32_t n = 1024, blocks = n / 32;  // scan_totals scans one SIMD group of totals
  uint64_t in = t.alloc(4 * n), out = t.alloc(4 * n), tot = t.alloc(4 * blocks), sums = t.alloc(4 * n / 64);
  uint32_t* h = t.session->host_as<uint32_t>(in);
  for (uint32_t i = 0; i < n; ++i) h[i] = i * 2654435761u >> 9;
  KernelLaunch k1, k2, k3, r;
  k1.code = t.code(kernel_text("scan_block"));
  k2.code = t.code(kernel_text("scan_totals"));
  k3.code = t.code(kernel_text("scan_add"));
  r.code = t.code(kernel_text("reduce"));
  k1.uniforms = k3.uniforms = {lo(in), hi(in), lo(out), hi(out), lo(tot), hi(tot)};
  k2.uniforms = {lo(tot), hi(tot)};
  r.uniforms = {lo(in), hi(in), lo(sums), hi(sums)};
  k1.grid = k3.grid = r.grid = {n, 1, 1};
  k2.grid = {blocks, 1, 1};
  r.local = {64, 1, 1};
  r.shared_B = 256;
  k1.register_halves = k2.register_halves = k3.register_halves = 16;
  r.register_halves = 24;
  EXPECT_EQ(t.run({k1, k2, k3, r}), 0u) << t.fault().reason;
  std::vector<uint32_t> result(t.session->host_as<uint32_t>(out), t.session->host_as<uint32_t>(out) + n);
  result.insert(result.end(), t.session->host_as<uint32_t>(sums), t.session->host_as<uint32_t>(sums) + n / 64);
  uint32_t acc = 0;
  for (uint32_t i = 0; i < n; ++i) {
    acc += h[i];
    EXPECT_EQ(result[i], acc) << i;
  }
  for (uint32_t g = 0; g < n / 64; ++g)
    EXPECT_EQ(result[n + g], std::accumulate(h + 64 * g, h + 64 * g + 64, 0u)) << g;
  return result;
}

TEST_F(Cdm, ResultsDoNotDependOnTheWorkerCount) {
  make(options([](CdmOptions& o) { o.threads = 1; }));
  auto one = prefix_and_reduce(*this);
  make(options([](CdmOptions& o) { o.threads = 3; }));
  EXPECT_EQ(executor->threads(), 3u);
  auto three = prefix_and_reduce(*this);
  EXPECT_EQ(one, three);
}

TEST_F(Cdm, AtomicHistogramOnManyWorkers) {
  make(options([](CdmOptions& o) { o.threads = 4; }));
  const uint32_t n = 5000;
  uint64_t in = alloc(4 * n), hist = alloc(64);
  uint32_t* h = session->host_as<uint32_t>(in);
  uint32_t ref[16] = {};
  for (uint32_t i = 0; i < n; ++i) ref[(h[i] = i * 40503u) & 15]++;
  KernelLaunch k;
  k.code = code(kernel_text("histogram"));
  k.uniforms = {lo(in), hi(in), lo(hist), hi(hist), n};
  k.grid = {n, 1, 1};
  k.local = {96, 1, 1};
  k.register_halves = 10;
  ASSERT_EQ(run({k}), 0u) << fault().reason;
  EXPECT_EQ(std::memcmp(session->host(hist), ref, sizeof ref), 0);
}

TEST_F(Cdm, IndirectGlobalAndIndirectLocal) {
  const uint32_t n = 640;
  uint64_t x = alloc(4 * n), y = alloc(4 * n), grid = alloc(24), k = code(kernel_text("saxpy"));
  float *hx = session->host_as<float>(x), *hy = session->host_as<float>(y);
  for (uint32_t i = 0; i < n; ++i) hx[i] = float(i), hy[i] = 0.0f;
  uint32_t* g = session->host_as<uint32_t>(grid);
  // Indirect global: threadgroup counts (10 x 64 threads).
  g[0] = 10, g[1] = 1, g[2] = 1;
  KernelLaunch a = saxpy(k, x, y, 1.0f, n, 64);
  a.mode = cs::CdmMode::kIndirectGlobal;
  a.indirect = grid;
  ASSERT_EQ(run({a}), 0u) << fault().reason;
  for (uint32_t i = 0; i < n; ++i) ASSERT_EQ(hy[i], float(i));
  // Indirect local: 6 words, grid in threads then the threadgroup size.
  g[0] = 300, g[1] = 1, g[2] = 1, g[3] = 32, g[4] = 1, g[5] = 1;
  KernelLaunch b = saxpy(k, x, y, 1.0f, n, 64);
  b.mode = cs::CdmMode::kIndirectLocal;
  b.indirect = grid;
  ASSERT_EQ(run({b}), 0u) << fault().reason;
  for (uint32_t i = 0; i < n; ++i) ASSERT_EQ(hy[i], i < 300 ? 2.0f * float(i) : float(i)) << i;
  EXPECT_EQ(executor->stats().threadgroups, 10u + 10u);
}

TEST_F(Cdm, StreamLinksCallsAndReturns) {
  // main: call A; link B.  A: launch (double), Return.  B: barrier, launch
  // (increment), Terminate.
  const uint32_t n = 64;
  uint64_t a = alloc(4 * n), b = alloc(4 * n), c = alloc(4 * n);
  for (uint32_t i = 0; i < n; ++i) session->host_as<uint32_t>(a)[i] = i;
  KernelLaunch k1, k2;
  k1.code = code(kernel_text("double"));
  k2.code = code(kernel_text("increment"));
  k1.uniforms = {lo(a), hi(a), lo(b), hi(b)};
  k2.uniforms = {lo(b), hi(b), lo(c), hi(c)};
  k1.grid = k2.grid = {n, 1, 1};
  k1.register_halves = k2.register_halves = 8;
  std::vector<uint8_t> sa, sb, main;
  ASSERT_TRUE(push_launch(sa, *session, k1, words(k1)));
  ASSERT_TRUE(push(sa, cs::CdmStreamReturn{}));
  ASSERT_TRUE(push_cdm_barrier(sb));
  ASSERT_TRUE(push_launch(sb, *session, k2, words(k2)));
  ASSERT_TRUE(push_cdm_terminate(sb));
  uint64_t va = *session->upload(sa), vb = *session->upload(sb);
  cs::CdmStreamLink call, jump;
  call.target_hi = va >> 32, call.target_lo = va & 0xFFFFFFFF, call.with_return = true;
  jump.target_hi = vb >> 32, jump.target_lo = vb & 0xFFFFFFFF;
  ASSERT_TRUE(push(main, call));
  ASSERT_TRUE(push(main, jump));
  ASSERT_EQ(run_stream(main), 0u) << fault().reason;
  for (uint32_t i = 0; i < n; ++i) ASSERT_EQ(session->host_as<uint32_t>(c)[i], 2 * i + 1);
  EXPECT_EQ(executor->stats().launches, 2u);
}

// The preshader runs once per launch: it counts itself in a device counter
// (u2_u3) and stores 0x2a into u6, which the main kernel writes out.
TEST_F(Cdm, PreshaderRunsOncePerLaunchAndSetsUniforms) {
  make(options([](CdmOptions& o) { o.threads = 2; }));
  const uint32_t n = 256;
  uint64_t counter = alloc(4), out = alloc(4 * n);
  uint64_t pre = code(R"(mov_imm r1, 1, 0b0
mov_imm r2, 0, 0b0
atomic add, 0, None, u2_u3, r2, unsigned, r1, 1, 0, 0, 0, 0
mov_imm r3, 42, 0b0
uniform_store 2, i16, xy, 0, r3l_r3h, 12
stop)");
  uint64_t main_code = code(R"(get_sr r1, sr80
mov_imm r2, 0, 0b0
iadd r2, r2, u6
device_store 0, i32, x, r2, u0_u1, r1, unsigned, 0
stop)");
  KernelLaunch k;
  k.code = main_code;
  k.preshader = pre;
  k.preshader_halves = 16;
  k.register_halves = 8;
  k.uniforms = {lo(out), hi(out), lo(counter), hi(counter), 0, 0, 7};
  k.grid = {n, 1, 1};
  ASSERT_EQ(run({k, k}), 0u) << fault().reason;
  EXPECT_EQ(*session->host_as<uint32_t>(counter), 2u);  // two launches, eight threadgroups each
  for (uint32_t i = 0; i < n; ++i) ASSERT_EQ(session->host_as<uint32_t>(out)[i], 42u);
  EXPECT_EQ(executor->stats().preshader_runs, 2u);
}

TEST_F(Cdm, ScratchReachedByStackInstructions) {
  const uint32_t n = 64;
  uint64_t out = alloc(4 * n);
  KernelLaunch k;
  k.code = code(R"(get_sr r1, sr80
iadd r2, r1, 100
stack_store i32, 0, 0, x, 0, r2, 8, 0
mov_imm r2, 0, 0b0
stack_load r3, i32, 0, 0, x, 0, 8, 0
wait 0
device_store 0, i32, x, r3, u0_u1, r1, unsigned, 0
stop)");
  k.register_halves = 8;
  k.spill_bucket = 1;  // 32 bytes per thread
  k.uniforms = {lo(out), hi(out)};
  k.grid = {n, 1, 1};
  drm_asahi_cmd_compute extra{};
  extra.helper.binary = 0x1000;  // a helper program is named
  ASSERT_EQ(run_stream(stream_of({k}), &extra), 0u) << fault().reason;
  for (uint32_t i = 0; i < n; ++i) ASSERT_EQ(session->host_as<uint32_t>(out)[i], i + 100);
  // Without a helper program the scratch cannot be allocated.
  ASSERT_EQ(run_stream(stream_of({k})), 1u);
  EXPECT_NE(fault().reason.find("no helper program"), std::string::npos) << fault().reason;
}

TEST_F(Cdm, EmptyAndZeroSizedLaunches) {
  KernelLaunch k;
  k.code = code("stop");
  k.register_halves = 8;
  k.grid = {0, 5, 1};
  ASSERT_EQ(run({k, k}), 0u);
  EXPECT_EQ(executor->stats().threadgroups, 0u);
  EXPECT_EQ(executor->stats().launches, 2u);
}

TEST_F(Cdm, TimestampsAroundTheCommand) {
  auto& f = session->transport();
  drm_asahi_gem_create gc{0x4000, 0, 0, 0, 0};
  ASSERT_EQ(f.ioctl(DRM_IOCTL_ASAHI_GEM_CREATE, &gc), 0);
  drm_asahi_gem_bind_object b{DRM_ASAHI_BIND_OBJECT_OP_BIND, DRM_ASAHI_BIND_OBJECT_USAGE_TIMESTAMPS, gc.handle, 0, 0,
                              0x4000, 0, 0};
  ASSERT_EQ(f.ioctl(DRM_IOCTL_ASAHI_GEM_BIND_OBJECT, &b), 0);
  drm_asahi_gem_mmap_offset mo{gc.handle, 0, 0};
  ASSERT_EQ(f.ioctl(DRM_IOCTL_ASAHI_GEM_MMAP_OFFSET, &mo), 0);
  int err = 0;
  auto* ts = static_cast<uint64_t*>(f.mmap(mo.offset, 0x4000, &err));
  ASSERT_NE(ts, nullptr);
  const uint32_t n = 4096;
  uint64_t x = alloc(4 * n), y = alloc(4 * n);
  drm_asahi_cmd_compute extra{};
  extra.ts = {{b.object_handle, 16}, {b.object_handle, 24}};
  uint64_t before = device->time_ns();
  ASSERT_EQ(run_stream(stream_of({saxpy(code(kernel_text("saxpy")), x, y, 2.0f, n, 64)}), &extra), 0u);
  uint64_t after = device->time_ns();
  EXPECT_LE(before, ts[2]);
  EXPECT_LT(ts[2], ts[3]);  // the kernel ran between them
  EXPECT_LE(ts[3], after);
  f.munmap(ts, 0x4000);
}

TEST(CdmDefault, DevicesGetTheCdmExecutorAndTheCompletingOneOnRequest) {
  // agx_gpu_default is linked into this test: a new Device runs kernels.
  kmd::Device device;
  auto s = ComputeSession::open(device, 1 << 20);
  ASSERT_TRUE(s);
  auto& session = **s;
  uint64_t out = *session.alloc(4 * 32);
  KernelLaunch k;
  k.code = *session.assemble(R"(get_sr r1, sr80
device_store 0, i32, x, r1, u0_u1, r1, unsigned, 0
stop)");
  k.register_halves = 4;
  k.uniforms = {lo(out), hi(out)};
  k.grid = {32, 1, 1};
  std::vector<uint8_t> st;
  ASSERT_TRUE(push_launch(st, session, k, *upload_usc_words(session, k)));
  ASSERT_TRUE(push_cdm_terminate(st));
  uint64_t va = *session.upload(st);
  std::memset(session.host(out), 0xEE, 4 * 32);
  device.set_executor(kmd::completing_executor());
  ASSERT_EQ(*session.run(va, va + st.size()), 0u);
  EXPECT_EQ(session.host_as<uint32_t>(out)[5], 0xEEEEEEEEu);  // nothing ran
  device.set_executor(nullptr);  // back to the default: the CDM executor
  ASSERT_EQ(*session.run(va, va + st.size()), 0u);
  EXPECT_EQ(session.host_as<uint32_t>(out)[5], 5u);
}

}  // namespace
}  // namespace agx::gpu::test
