#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include "kmd/tests/fixture.h"

namespace agx::kmd::test {
namespace AGX_UNITY_ID {

using Ioctl = KmdTest;

TEST_F(Ioctl, VersionNamesAsahi) {
  char name[16] = {}, date[4] = {};
  drm_version v{};
  v.name_len = sizeof name;
  v.name = name;
  v.date_len = sizeof date;  // shorter than the date: truncated, full length returned
  v.date = date;
  ASSERT_EQ(io(DRM_IOCTL_VERSION, v), 0);
  EXPECT_STREQ(name, "asahi");
  EXPECT_EQ(v.name_len, 5u);
  EXPECT_EQ(v.date_len, 8u);
  EXPECT_EQ(std::string(date, 4), "2025");
}

TEST_F(Ioctl, Caps) {
  drm_get_cap c{DRM_CAP_SYNCOBJ_TIMELINE, 0};
  ASSERT_EQ(io(DRM_IOCTL_GET_CAP, c), 0);
  EXPECT_EQ(c.value, 1u);
  c = {DRM_CAP_PRIME, 0};
  ASSERT_EQ(io(DRM_IOCTL_GET_CAP, c), 0);
  EXPECT_EQ(c.value, 3u);
  c = {DRM_CAP_DUMB_BUFFER, 0};
  EXPECT_EQ(io(DRM_IOCTL_GET_CAP, c), -EINVAL);
}

TEST_F(Ioctl, ParamsAreTheG13gProfile) {
  drm_asahi_params_global p{};
  drm_asahi_get_params g{0, 0, reinterpret_cast<uint64_t>(&p), sizeof p};
  ASSERT_EQ(io(DRM_IOCTL_ASAHI_GET_PARAMS, g), 0);
  EXPECT_EQ(p.gpu_generation, 13u);
  EXPECT_EQ(p.gpu_variant, uint32_t('G'));
  EXPECT_EQ(p.chip_id, 0x8103u);
  EXPECT_EQ(p.num_clusters_total, 1u);
  EXPECT_EQ(p.core_masks[0], 0xffu);
  EXPECT_EQ(p.vm_start, 0x4000u);
  EXPECT_EQ(p.vm_end, 0x7fffff8000u);
  EXPECT_EQ(p.vm_kernel_min_size, 0x20000000u);
  EXPECT_EQ(p.max_commands_per_submission, 64u);
  EXPECT_EQ(p.command_timestamp_frequency_hz, 1000000000u);
}

TEST_F(Ioctl, ShortParamsBufferGetsOnlyItsBytes) {
  uint8_t buf[12];
  std::memset(buf, 0xAA, sizeof buf);
  drm_asahi_get_params g{0, 0, reinterpret_cast<uint64_t>(buf), 8};
  ASSERT_EQ(io(DRM_IOCTL_ASAHI_GET_PARAMS, g), 0);
  EXPECT_EQ(buf[8], 0xAA);  // features (8 bytes) written, nothing after
  uint64_t features;
  std::memcpy(&features, buf, 8);
  EXPECT_EQ(features, 0u);
}

TEST_F(Ioctl, GetTimeIsMonotonic) {
  drm_asahi_get_time a{0, 0}, b{0, 0};
  ASSERT_EQ(io(DRM_IOCTL_ASAHI_GET_TIME, a), 0);
  ASSERT_EQ(io(DRM_IOCTL_ASAHI_GET_TIME, b), 0);
  EXPECT_LE(a.gpu_timestamp, b.gpu_timestamp);
  EXPECT_GT(a.gpu_timestamp, 0u);
}

TEST_F(Ioctl, MmapSharesPagesWithTheGpuVm) {
  uint32_t v = vm(), bo = gem(2 * kPage);
  uint8_t* cpu = map(bo, 2 * kPage);
  ASSERT_NE(cpu, nullptr);
  ASSERT_EQ(bind(v, bo, 0, 2 * kPage, kUserVa), 0);
  std::strcpy(reinterpret_cast<char*>(cpu) + kPage - 3, "hello");
  // Submit a compute command whose executor reads through the VM.
  struct Reader : Executor {
    std::string seen;
    bool execute(const FirmwareCommand& c, GpuFault* f) override {
      char buf[6];
      if (!c.memory->read(kUserVa + kPage - 3, buf, 6, GpuUnit::cdm, f)) return false;
      seen = buf;
      return c.memory->write(kUserVa, "gpu", 4, GpuUnit::cdm, f);
    }
  };
  auto reader = std::make_shared<Reader>();
  device.set_executor(reader);
  uint32_t q = queue(v), done = syncobj();
  std::vector<uint8_t> cmds;
  append(cmds, DRM_ASAHI_CMD_COMPUTE, drm_asahi_cmd_compute{});
  ASSERT_EQ(submit(q, cmds, {}, {binary(done)}), 0);
  ASSERT_EQ(wait(done), 0);
  EXPECT_EQ(reader->seen, "hello");
  EXPECT_STREQ(reinterpret_cast<char*>(cpu), "gpu");
  EXPECT_EQ(file->munmap(cpu, 2 * kPage), 0);
  EXPECT_EQ(file->munmap(cpu, 2 * kPage), -EINVAL);
}

TEST_F(Ioctl, BindAndUnbindAnySubRange) {
  uint32_t v = vm(), bo = gem(4 * kPage);
  uint8_t* cpu = map(bo, 4 * kPage);
  for (int i = 0; i < 4; i++) cpu[i * kPage] = uint8_t(10 + i);
  // Pages 1..2 of the object at kUserVa, then unbind the middle page of a
  // full bind elsewhere.
  ASSERT_EQ(bind(v, bo, kPage, 2 * kPage, kUserVa), 0);
  ASSERT_EQ(bind(v, bo, 0, 4 * kPage, 2 * kUserVa), 0);
  ASSERT_EQ(bind(v, 0, 0, kPage, 2 * kUserVa + kPage, DRM_ASAHI_BIND_UNBIND), 0);
  struct Probe : Executor {
    std::vector<int> got;
    bool execute(const FirmwareCommand& c, GpuFault* f) override {
      for (uint64_t va : {kUserVa, kUserVa + kPage, 2 * kUserVa, 2 * kUserVa + kPage, 2 * kUserVa + 3 * kPage}) {
        uint8_t b = 0;
        got.push_back(c.memory->read(va, &b, 1, GpuUnit::usc, f) ? b : -1);
      }
      return true;
    }
  };
  auto probe = std::make_shared<Probe>();
  device.set_executor(probe);
  uint32_t q = queue(v), done = syncobj();
  std::vector<uint8_t> cmds;
  append(cmds, DRM_ASAHI_CMD_COMPUTE, drm_asahi_cmd_compute{});
  ASSERT_EQ(submit(q, cmds, {}, {binary(done)}), 0);
  ASSERT_EQ(wait(done), 0);
  EXPECT_EQ(probe->got, (std::vector<int>{11, 12, 10, -1, 13}));
}

TEST_F(Ioctl, SinglePageBindRepeatsOnePage) {
  uint32_t v = vm(), bo = gem(2 * kPage);
  ASSERT_EQ(bind(v, bo, kPage, 16 * kPage, kUserVa, DRM_ASAHI_BIND_READ | DRM_ASAHI_BIND_SINGLE_PAGE), 0);
  // The object is only 2 pages, but SINGLE_PAGE uses one.
  EXPECT_EQ(bind(v, bo, 2 * kPage, 4 * kPage, kUserVa, DRM_ASAHI_BIND_READ | DRM_ASAHI_BIND_SINGLE_PAGE), -EINVAL);
}

TEST_F(Ioctl, ObjectStaysMappedAfterGemClose) {
  uint32_t v = vm(), bo = gem(kPage);
  uint8_t* cpu = map(bo, kPage);
  cpu[0] = 42;
  ASSERT_EQ(bind(v, bo, 0, kPage, kUserVa), 0);
  drm_gem_close c{bo, 0};
  ASSERT_EQ(io(DRM_IOCTL_GEM_CLOSE, c), 0);
  EXPECT_EQ(io(DRM_IOCTL_GEM_CLOSE, c), -EINVAL);
  EXPECT_EQ(cpu[0], 42);  // the CPU mapping keeps its pages
  EXPECT_EQ(file->munmap(cpu, kPage), 0);
}

TEST_F(Ioctl, PrivateObjectBindsOnlyToItsVm) {
  uint32_t v1 = vm(), v2 = vm(), bo = gem(kPage, DRM_ASAHI_GEM_VM_PRIVATE, v1);
  EXPECT_EQ(bind(v2, bo, 0, kPage, kUserVa), -EINVAL);
  EXPECT_EQ(bind(v1, bo, 0, kPage, kUserVa), 0);
  drm_prime_handle p{bo, DRM_CLOEXEC, -1};
  EXPECT_EQ(io(DRM_IOCTL_PRIME_HANDLE_TO_FD, p), -EINVAL);
}

TEST_F(Ioctl, PrimeExportImportAcrossFiles) {
  uint32_t bo = gem(kPage);
  uint8_t* cpu = map(bo, kPage);
  cpu[5] = 77;
  drm_prime_handle p{bo, DRM_CLOEXEC, -1};
  ASSERT_EQ(io(DRM_IOCTL_PRIME_HANDLE_TO_FD, p), 0);
  ASSERT_GE(p.fd, 0);
  auto other = open_file(device);
  drm_prime_handle imp{0, 0, p.fd};
  ASSERT_EQ(other->ioctl(DRM_IOCTL_PRIME_FD_TO_HANDLE, &imp), 0);
  drm_asahi_gem_mmap_offset m{imp.handle, 0, 0};
  ASSERT_EQ(other->ioctl(DRM_IOCTL_ASAHI_GEM_MMAP_OFFSET, &m), 0);
  int err;
  auto* other_cpu = static_cast<uint8_t*>(other->mmap(m.offset, kPage, &err));
  ASSERT_NE(other_cpu, nullptr);
  EXPECT_EQ(other_cpu[5], 77);
  // Importing again in the same file gives the same handle.
  drm_prime_handle again{0, 0, p.fd};
  ASSERT_EQ(other->ioctl(DRM_IOCTL_PRIME_FD_TO_HANDLE, &again), 0);
  EXPECT_EQ(again.handle, imp.handle);
  // A file without a handle cannot map the object.
  auto third = open_file(device);
  EXPECT_EQ(third->mmap(m.offset, kPage, &err), nullptr);
  EXPECT_EQ(err, -EACCES);
  other->munmap(other_cpu, kPage);
  file->munmap(cpu, kPage);
  ::close(p.fd);
}

TEST_F(Ioctl, ExportedFdKeepsTheObjectAlive) {
  uint32_t bo = gem(kPage);
  uint8_t* cpu = map(bo, kPage);
  cpu[9] = 99;
  ASSERT_EQ(file->munmap(cpu, kPage), 0);
  drm_prime_handle p{bo, DRM_CLOEXEC, -1};
  ASSERT_EQ(io(DRM_IOCTL_PRIME_HANDLE_TO_FD, p), 0);
  drm_gem_close c{bo, 0};
  ASSERT_EQ(io(DRM_IOCTL_GEM_CLOSE, c), 0);  // the last handle: the object dies
  drm_prime_handle imp{0, 0, p.fd};
  ASSERT_EQ(io(DRM_IOCTL_PRIME_FD_TO_HANDLE, imp), 0);
  uint8_t* again = map(imp.handle, kPage);
  ASSERT_NE(again, nullptr);
  EXPECT_EQ(again[9], 99);
  file->munmap(again, kPage);
  ::close(p.fd);
  drm_prime_handle bad{0, 0, p.fd};
  EXPECT_EQ(io(DRM_IOCTL_PRIME_FD_TO_HANDLE, bad), -EBADF);
}

TEST_F(Ioctl, TimestampsWrittenAroundCommands) {
  uint32_t v = vm(), bo = gem(kPage);
  uint64_t* ts = reinterpret_cast<uint64_t*>(map(bo, kPage));
  drm_asahi_gem_bind_object b{DRM_ASAHI_BIND_OBJECT_OP_BIND, DRM_ASAHI_BIND_OBJECT_USAGE_TIMESTAMPS, bo, 0, 0, kPage, 0, 0};
  ASSERT_EQ(io(DRM_IOCTL_ASAHI_GEM_BIND_OBJECT, b), 0);
  drm_asahi_cmd_render r = valid_render();
  r.ts_vtx = {{b.object_handle, 0}, {b.object_handle, 8}};
  r.ts_frag = {{b.object_handle, 16}, {b.object_handle, 24}};
  drm_asahi_cmd_compute c{};
  c.ts = {{b.object_handle, 32}, {b.object_handle, 40}};
  std::vector<uint8_t> cmds;
  append(cmds, DRM_ASAHI_CMD_RENDER, r);
  append(cmds, DRM_ASAHI_CMD_COMPUTE, c);
  uint32_t q = queue(v), done = syncobj();
  ASSERT_EQ(submit(q, cmds, {}, {binary(done)}), 0);
  ASSERT_EQ(wait(done), 0);
  for (int i = 0; i < 6; i++) EXPECT_NE(ts[i], 0u) << i;
  EXPECT_LE(ts[0], ts[1]);
  EXPECT_LE(ts[1], ts[2]);  // fragment half after vertex half
  EXPECT_LE(ts[2], ts[3]);
  EXPECT_LE(ts[4], ts[5]);
  drm_asahi_gem_bind_object u{DRM_ASAHI_BIND_OBJECT_OP_UNBIND, 0, 0, 0, 0, 0, b.object_handle, 0};
  EXPECT_EQ(io(DRM_IOCTL_ASAHI_GEM_BIND_OBJECT, u), 0);
  EXPECT_EQ(io(DRM_IOCTL_ASAHI_GEM_BIND_OBJECT, u), -ENOENT);
}

TEST_F(Ioctl, ShortIoctlStructIsZeroExtended) {
  // An older client passing only the first 16 bytes of drm_asahi_vm_create
  // gets vm_id back only if the struct holds it; here the id is past its
  // size, so nothing is copied out, but the call succeeds.
  drm_asahi_vm_create c{kKernelStart, kKernelEnd, 0, 0};
  unsigned long short_req = _IOC(_IOC_READ | _IOC_WRITE, DRM_IOCTL_BASE, DRM_COMMAND_BASE + DRM_ASAHI_VM_CREATE, 16);
  EXPECT_EQ(file->ioctl(short_req, &c), 0);
  EXPECT_EQ(c.vm_id, 0u);
}

}  // namespace
}  // namespace agx::kmd::test
