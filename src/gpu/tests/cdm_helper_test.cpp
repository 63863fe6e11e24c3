// The helper program's stack bookkeeping (shader/helper.cpp): a kernel with
// scratch takes stack blocks from the per-core records of the header at
// helper.data as Mesa's helper (src/asahi/libagx/helper.cl) keeps them
// (struct agx_helper_header / agx_helper_core of helper.h: subgroups at 0,
// cores from byte 8, 88 bytes each: alloc_cur at 8, alloc_max at 12,
// alloc_failed at 16, alloc_count[16] from 24), gives them back at the end,
// and a refused allocation faults.
#include "cdm_fixture.h"

namespace agx::gpu::test {
namespace AGX_UNITY_ID {

constexpr uint64_t kHeader_B = 8 + 128 * 88;

struct Core {
  uint32_t cur, max, failed, count1;
};

class CdmHelper : public CdmTest {
 public:
  void SetUp() override { make(options([](CdmOptions& o) { o.threads = 1; })); }
  Core core(uint64_t header, unsigned c) {
    const uint32_t* rec = session->host_as<uint32_t>(header + 8 + 88 * c);
    return {rec[2], rec[3], rec[4], rec[6 + 1]};
  }
  // 256 threads in threadgroups of 128 (4 SIMD groups each), 32 bytes of
  // scratch per thread (bucket 1): each thread stores and reloads lane + 100.
  KernelLaunch scratch_kernel(uint64_t out) {
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
    k.spill_bucket = 1;
    k.uniforms = {lo(out), hi(out)};
    k.grid = {256, 1, 1};
    k.local = {128, 1, 1};
    return k;
  }
};

TEST_F(CdmHelper, StackBlocksAreTakenPerCoreAndGivenBack) {
  uint64_t out = alloc(4 * 256), header = alloc(kHeader_B, 8);
  session->host_as<uint32_t>(header)[0] = 4;  // subgroups: blocks for 4 SIMD groups per core
  drm_asahi_cmd_compute extra{};
  extra.helper.binary = 0x1000;
  extra.helper.data = header;
  auto s = stream_of({scratch_kernel(out)});
  ASSERT_EQ(run_stream(s, &extra), 0u) << fault().reason;
  ASSERT_EQ(run_stream(s, &extra), 0u) << fault().reason;
  for (uint32_t i = 0; i < 256; ++i) ASSERT_EQ(session->host_as<uint32_t>(out)[i], i + 100);
  // Threadgroups 0 and 1 run on cores 0 and 1 (sr20), 4 SIMD groups each,
  // twice; nothing stays allocated; the other cores are untouched.
  for (unsigned c = 0; c < 128; ++c) {
    Core r = core(header, c);
    bool used = c < 2;
    EXPECT_EQ(r.cur, 0u) << c;
    EXPECT_EQ(r.max, used ? 4u : 0u) << c;
    EXPECT_EQ(r.count1, used ? 8u : 0u) << c;
    EXPECT_EQ(r.failed, 0u) << c;
  }
}

TEST_F(CdmHelper, ARefusedAllocationFaults) {
  uint64_t out = alloc(4 * 256), header = alloc(kHeader_B, 8);
  session->host_as<uint32_t>(header)[0] = 3;  // fewer blocks than a threadgroup's SIMD groups
  drm_asahi_cmd_compute extra{};
  extra.helper.binary = 0x1000;
  extra.helper.data = header;
  ASSERT_EQ(run_stream(stream_of({scratch_kernel(out)}), &extra), 1u);
  EXPECT_NE(fault().reason.find("refused a stack allocation on core 0"), std::string::npos) << fault().reason;
  EXPECT_EQ(fault().va, header + 8 + 8);  // core 0's alloc_cur
  Core r = core(header, 0);
  EXPECT_EQ(r.failed, 1u);
  EXPECT_EQ(r.cur, 0u);  // the abandoned threadgroup's blocks went back
  EXPECT_EQ(r.max, 3u);
  // With enough blocks the next command runs (the fault was the command's).
  session->host_as<uint32_t>(header)[0] = 64;
  ASSERT_EQ(run_stream(stream_of({scratch_kernel(out)}), &extra), 0u) << fault().reason;
}

TEST_F(CdmHelper, AnUnmappedHeaderFaultsAtItsAddress) {
  uint64_t out = alloc(4 * 256);
  drm_asahi_cmd_compute extra{};
  extra.helper.binary = 0x1000;
  extra.helper.data = 0x7F00'0000'0000;
  ASSERT_EQ(run_stream(stream_of({scratch_kernel(out)}), &extra), 1u);
  EXPECT_EQ(fault().va, 0x7F00'0000'0000u) << fault().reason;
}

}  // namespace
}  // namespace agx::gpu::test
