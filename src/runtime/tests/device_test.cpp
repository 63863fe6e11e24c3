// The runtime's device layer on the in-process device: open, buffers (GEM,
// VM_BIND, mmap), compute submits, and errors that leave nothing behind.
#include <gtest/gtest.h>

#include "kmd/kmd.h"
#include "runtime/runtime.h"

namespace agx::runtime {
namespace AGX_UNITY_ID {

TEST(Device, OpensTheInProcessDevice) {
  auto d = Device::open_in_process();
  ASSERT_TRUE(d.ok()) << d.error().message();
  EXPECT_EQ((*d)->params().gpu_generation, 13u);
  EXPECT_EQ((*d)->params().chip_id, 0x8103u);
}

TEST(Device, BuffersAreMappedZeroedAndApart) {
  kmd::Device kdev;
  auto d = Device::open(in_process_transport(kdev));
  ASSERT_TRUE(d.ok()) << d.error().message();
  auto a = (*d)->create_buffer(100, "a");
  auto b = (*d)->create_buffer(0x4000, "b");
  auto code = (*d)->create_buffer(64, "code", /*usc=*/true);
  ASSERT_TRUE(a.ok() && b.ok() && code.ok());
  EXPECT_EQ((*a)->size_B(), 100u);
  EXPECT_EQ((*a)->host()[99], 0);
  (*a)->host()[0] = 0x5a;
  EXPECT_EQ((*a)->gpu_va() % 0x4000, 0u);
  // a guard page between buffers
  EXPECT_GE((*b)->gpu_va(), (*a)->gpu_va() + 2 * 0x4000);
  const auto& l = (*d)->va_layout();
  EXPECT_GE((*code)->gpu_va(), l.usc_base + 0x4000);
  EXPECT_LT((*code)->gpu_va(), l.usc_base + (uint64_t{1} << 32));
  EXPECT_GE((*a)->gpu_va(), l.general_base);
}

TEST(Device, BadRequestsFailCleanly) {
  kmd::Device kdev;
  auto d = Device::open(in_process_transport(kdev));
  ASSERT_TRUE(d.ok());
  auto z = (*d)->create_buffer(0, "empty");
  ASSERT_FALSE(z.ok());
  EXPECT_NE(z.error().message().find("empty"), std::string::npos);
  EXPECT_FALSE((*d)->create_buffer(uint64_t{1} << 40, "huge").ok());
  auto r = Device::open_render_node("/nonexistent/renderD999");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().kind(), ErrorKind::io);
}

TEST(Device, SubmitsAndWaits) {
  kmd::Device kdev;
  kdev.set_recording(true);
  kdev.set_executor(kmd::completing_executor());  // an empty command: firmware only
  auto d = Device::open(in_process_transport(kdev));
  ASSERT_TRUE(d.ok());
  drm_asahi_cmd_compute c{};
  auto st = (*d)->submit_compute(c, "dispatch 1");
  ASSERT_TRUE(st.ok()) << st.error().message();
  auto events = kdev.take_events();
  ASSERT_FALSE(events.empty());
  EXPECT_EQ(events[0].text, "RUN C1");
}

// An executor that faults every command: the runtime's error names the dispatch.
struct Faulting : kmd::Executor {
  bool execute(const kmd::FirmwareCommand&, GpuFault* fault) override {
    fault->va = 0x1234;
    fault->access = Access::read;
    fault->unit = GpuUnit::usc;
    fault->reason = "unmapped";
    return false;
  }
};

TEST(Device, FaultsNameTheDispatch) {
  kmd::Device kdev;
  kdev.set_executor(std::make_shared<Faulting>());
  auto d = Device::open(in_process_transport(kdev));
  ASSERT_TRUE(d.ok());
  auto st = (*d)->submit_compute(drm_asahi_cmd_compute{}, "line 27: compute 1 1 1");
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.error().kind(), ErrorKind::fault);
  EXPECT_NE(st.error().message().find("line 27: compute 1 1 1"), std::string::npos) << st.error().message();
  EXPECT_NE(st.error().message().find("0x"), std::string::npos) << st.error().message();
}

}  // namespace
}  // namespace agx::runtime
