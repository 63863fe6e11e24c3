// A faulted command fails its job's fence with -EIO (seen through
// SYNC_IOC_FILE_INFO of an exported sync file), writes a crash dump, and
// AGX_TRACE captures every accepted submit with the pages its job touched.
#include <linux/sync_file.h>
#include <unistd.h>
#include <zlib.h>

#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>

#include "kmd/tests/fixture.h"
#include "kmd/trace_format.h"

namespace agx::kmd::test {
namespace AGX_UNITY_ID {

using FaultCapture = KmdTest;

std::vector<uint8_t> one_compute(uint64_t stream = 0) {
  std::vector<uint8_t> b;
  drm_asahi_cmd_compute c{};
  c.cdm_ctrl_stream_base = stream;
  append(b, DRM_ASAHI_CMD_COMPUTE, c);
  return b;
}

// Faults on the first compute command whose stream base is 0xdead0000,
// after reading 4 bytes at kUserVa + 16 when `touch` is set.
struct FaultOnDead : Executor {
  bool touch = false;
  bool execute(const FirmwareCommand& c, GpuFault* f) override {
    if (!c.compute || c.compute->cdm_ctrl_stream_base != 0xdead0000) return true;
    uint32_t x;
    if (touch && !c.memory->read(kUserVa + 16, &x, 4, GpuUnit::usc, f)) return false;
    return c.memory->read(0xdead0000, &x, 4, GpuUnit::cdm, f);
  }
};

// Reads the stream's first word and writes `value` at `write_va`.
struct ReadStreamWrite : Executor {
  uint64_t write_va = 0;
  uint32_t value = 0;
  bool execute(const FirmwareCommand& c, GpuFault* f) override {
    uint32_t x;
    if (!c.memory->read(c.compute->cdm_ctrl_stream_base, &x, 4, GpuUnit::cdm, f)) return false;
    return c.memory->write(write_va, &value, 4, GpuUnit::usc, f);
  }
};

std::filesystem::path temp_dir(const char* name) {
  auto dir = std::filesystem::temp_directory_path() / fmt::format("agx-{}-{}", name, ::getpid());
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

std::vector<uint8_t> read_file(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), {}};
}

// The chunk tags of a trace file in order, with their payloads.
std::vector<std::pair<uint32_t, std::vector<uint8_t>>> chunks(const std::vector<uint8_t>& f, uint32_t* kind) {
  std::vector<std::pair<uint32_t, std::vector<uint8_t>>> out;
  trace::FileHeader h;
  EXPECT_GE(f.size(), sizeof h);
  std::memcpy(&h, f.data(), sizeof h);
  EXPECT_EQ(std::memcmp(h.magic, trace::kMagic, 8), 0);
  EXPECT_EQ(h.version, trace::kVersion);
  *kind = h.kind;
  size_t off = sizeof h;
  while (off + sizeof(trace::ChunkHeader) <= f.size()) {
    trace::ChunkHeader c;
    std::memcpy(&c, f.data() + off, sizeof c);
    off += sizeof c;
    EXPECT_LE(c.size_B, f.size() - off);
    std::vector<uint8_t> payload(f.begin() + off, f.begin() + off + c.size_B);
    if (c.flags == trace::kChunkZlib) {  // u64 raw size, then the zlib stream
      uint64_t raw_B = 0;
      std::memcpy(&raw_B, payload.data(), sizeof raw_B);
      std::vector<uint8_t> raw(raw_B);
      uLongf n = uLongf(raw_B);
      EXPECT_EQ(uncompress(raw.data(), &n, payload.data() + 8, uLong(payload.size() - 8)), Z_OK);
      EXPECT_EQ(n, raw_B);
      EXPECT_LT(payload.size(), raw_B);  // compressed only when smaller
      payload = std::move(raw);
    } else {
      EXPECT_EQ(c.flags, 0u);
    }
    out.emplace_back(c.tag, std::move(payload));
    off += (c.size_B + 7) / 8 * 8;
  }
  EXPECT_EQ(off, f.size());
  return out;
}

int sync_file_status(Device& device, int fd) {
  sync_file_info info{};
  EXPECT_EQ(sync_file_ioctl(device, fd, SYNC_IOC_FILE_INFO, &info), 0);
  EXPECT_EQ(info.num_fences, 1u);
  sync_fence_info fi{};
  info.sync_fence_info = reinterpret_cast<uint64_t>(&fi);
  EXPECT_EQ(sync_file_ioctl(device, fd, SYNC_IOC_FILE_INFO, &info), 0);
  EXPECT_EQ(fi.status, info.status);
  EXPECT_STREQ(fi.driver_name, "asahi");
  return info.status;
}

TEST_F(FaultCapture, FaultedJobSignalsWithEioAndCleanJobWithout) {
  device.set_executor(std::make_shared<FaultOnDead>());
  uint32_t v = vm(), q = queue(v), bad = syncobj(), good = syncobj();
  ASSERT_EQ(submit(q, one_compute(0xdead0000), {}, {binary(bad)}), 0);
  ASSERT_EQ(submit(q, one_compute(0), {}, {binary(good)}), 0);
  // Syncobj waits succeed whatever the fence error (as in the DRM core).
  ASSERT_EQ(wait(bad), 0);
  ASSERT_EQ(wait(good), 0);
  auto export_fd = [&](uint32_t s) {
    drm_syncobj_handle h{s, DRM_SYNCOBJ_HANDLE_TO_FD_FLAGS_EXPORT_SYNC_FILE, -1, 0};
    EXPECT_EQ(io(DRM_IOCTL_SYNCOBJ_HANDLE_TO_FD, h), 0);
    return h.fd;
  };
  int bad_fd = export_fd(bad), good_fd = export_fd(good);
  EXPECT_TRUE(is_sync_file(device, bad_fd));
  EXPECT_EQ(sync_file_status(device, bad_fd), -EIO);
  EXPECT_EQ(sync_file_status(device, good_fd), 1);
  // Bad requests: flags, too small an array, an fd that is not a sync file.
  sync_file_info info{};
  info.flags = 1;
  EXPECT_EQ(sync_file_ioctl(device, bad_fd, SYNC_IOC_FILE_INFO, &info), -EINVAL);
  EXPECT_EQ(sync_file_ioctl(device, bad_fd, 0x1234, &info), -ENOTTY);
  EXPECT_FALSE(is_sync_file(device, 0));
  EXPECT_EQ(sync_file_ioctl(device, 0, SYNC_IOC_FILE_INFO, &info), -EINVAL);
  ::close(bad_fd);
  ::close(good_fd);
  EXPECT_EQ(device.faults().size(), 1u);
}

TEST_F(FaultCapture, ActiveFenceReportsZero) {
  struct Hold : Executor {
    std::mutex m;
    std::condition_variable cv;
    bool open = false;
    bool execute(const FirmwareCommand&, GpuFault*) override {
      std::unique_lock l(m);
      cv.wait(l, [&] { return open; });
      return true;
    }
  };
  auto hold = std::make_shared<Hold>();
  device.set_executor(hold);
  uint32_t v = vm(), q = queue(v), s = syncobj();
  ASSERT_EQ(submit(q, one_compute(), {}, {binary(s)}), 0);
  drm_syncobj_handle h{s, DRM_SYNCOBJ_HANDLE_TO_FD_FLAGS_EXPORT_SYNC_FILE, -1, 0};
  ASSERT_EQ(io(DRM_IOCTL_SYNCOBJ_HANDLE_TO_FD, h), 0);
  EXPECT_EQ(sync_file_status(device, h.fd), 0);
  {
    std::lock_guard l(hold->m);
    hold->open = true;
  }
  hold->cv.notify_all();
  ASSERT_EQ(wait(s), 0);
  EXPECT_EQ(sync_file_status(device, h.fd), 1);
  ::close(h.fd);
}

// The dump holds the pages the job touched before the fault (kUserVa), not
// the other bound ones.
TEST_F(FaultCapture, FaultWritesACrashDumpWithFaultAndMemory) {
  auto dir = temp_dir("crash");
  device.set_crash_dir(dir.string());
  auto exec = std::make_shared<FaultOnDead>();
  exec->touch = true;
  device.set_executor(exec);
  uint32_t v = vm(), q = queue(v), bo = gem(kPage), done = syncobj();
  uint8_t* p = map(bo, kPage);
  std::memset(p, 0x5a, kPage);
  ASSERT_EQ(bind(v, bo, 0, kPage, kUserVa), 0);
  ASSERT_EQ(bind(v, gem(kPage), 0, kPage, kUserVa + 8 * kPage), 0);  // never touched
  auto cmdbuf = one_compute(0xdead0000);
  ASSERT_EQ(submit(q, cmdbuf, {}, {binary(done)}), 0);
  ASSERT_EQ(wait(done), 0);
  auto dumps = device.crash_dumps();
  ASSERT_EQ(dumps.size(), 1u);
  EXPECT_NE(dumps[0].find("agx-crash-"), std::string::npos);
  uint32_t kind = 0;
  auto cs = chunks(read_file(dumps[0]), &kind);
  EXPECT_EQ(kind, uint32_t(trace::FileKind::crash_dump));
  std::vector<uint32_t> tags;
  for (auto& [t, _] : cs) tags.push_back(t);
  EXPECT_EQ(tags, (std::vector<uint32_t>{trace::kTagParams, trace::kTagSubmit, trace::kTagCmdbuf, trace::kTagSyncs,
                                         trace::kTagFault, trace::kTagMapping}));
  EXPECT_EQ(cs[2].second, cmdbuf);
  trace::FaultInfo f;
  std::memcpy(&f, cs[4].second.data(), sizeof f);
  EXPECT_EQ(f.va, 0xdead0000u);
  EXPECT_EQ(f.unit, uint8_t(GpuUnit::cdm));
  EXPECT_EQ(f.access, uint8_t(Access::read));
  EXPECT_EQ(f.command_index, 0u);
  EXPECT_EQ(std::string(cs[4].second.begin() + sizeof f, cs[4].second.end()), "unmapped");
  trace::MappingInfo m;
  std::memcpy(&m, cs[5].second.data(), sizeof m);
  EXPECT_EQ(m.va, kUserVa);
  EXPECT_EQ(m.size_B, kPage);
  EXPECT_EQ(m.flags, trace::kMapRead | trace::kMapWrite);
  ASSERT_EQ(cs[5].second.size(), sizeof m + kPage);
  EXPECT_EQ(cs[5].second[sizeof m], 0x5a);
  std::filesystem::remove_all(dir);
}

TEST_F(FaultCapture, FragmentFaultNamesItsHalfAndFailsTheRenderJob) {
  struct FragmentFault : Executor {
    bool execute(const FirmwareCommand& c, GpuFault* f) override {
      if (c.queue != FirmwareQueue::fragment) return true;
      *f = GpuFault{0xbad000, Access::write, GpuUnit::pbe, "not writable"};
      return false;
    }
  };
  auto dir = temp_dir("crashf");
  device.set_crash_dir(dir.string());
  device.set_executor(std::make_shared<FragmentFault>());
  uint32_t v = vm(), q = queue(v), done = syncobj();
  std::vector<uint8_t> buf;
  append(buf, DRM_ASAHI_CMD_COMPUTE, drm_asahi_cmd_compute{});
  append(buf, DRM_ASAHI_CMD_RENDER, valid_render());
  ASSERT_EQ(submit(q, buf, {}, {binary(done)}), 0);
  ASSERT_EQ(wait(done), 0);
  drm_syncobj_handle h{done, DRM_SYNCOBJ_HANDLE_TO_FD_FLAGS_EXPORT_SYNC_FILE, -1, 0};
  ASSERT_EQ(io(DRM_IOCTL_SYNCOBJ_HANDLE_TO_FD, h), 0);
  EXPECT_EQ(sync_file_status(device, h.fd), -EIO);
  ::close(h.fd);
  auto dumps = device.crash_dumps();
  ASSERT_EQ(dumps.size(), 1u);
  EXPECT_NE(dumps[0].find("-s1-c1f.dump"), std::string::npos) << dumps[0];
  uint32_t kind = 0;
  auto cs = chunks(read_file(dumps[0]), &kind);
  ASSERT_GE(cs.size(), 5u);
  trace::FaultInfo f;
  std::memcpy(&f, cs[4].second.data(), sizeof f);
  EXPECT_EQ(f.command_index, 1u);
  EXPECT_EQ(f.firmware_queue, uint8_t(FirmwareQueue::fragment));
  EXPECT_EQ(f.access, uint8_t(Access::write));
  EXPECT_EQ(f.unit, uint8_t(GpuUnit::pbe));
  std::filesystem::remove_all(dir);
}

// Each record is written when its job has completed and holds the pages
// the job touched and its stream pages: read, written (with the bytes after
// the job), and one page of a SINGLE_PAGE bind; untouched bound pages are
// left out.
TEST_F(FaultCapture, TraceAppendsEverySubmitWithTouchedPagesAndSyncs) {
  auto dir = temp_dir("trace");
  const auto path = dir / "t.agxtrace";
  ASSERT_TRUE(device.set_trace_file(path.string()).ok());
  auto exec = std::make_shared<ReadStreamWrite>();
  exec->write_va = kUserVa + 16 * kPage + 2 * kPage + 12;  // the third page of the SINGLE_PAGE range
  exec->value = 0xfeedf00d;
  device.set_executor(exec);
  uint32_t v = vm(), q = queue(v), bo = gem(2 * kPage), done = syncobj();
  uint8_t* p = map(bo, 2 * kPage);
  for (uint64_t i = 0; i < 2 * kPage; i++) p[i] = uint8_t(i * 7);
  ASSERT_EQ(bind(v, bo, kPage, kPage, kUserVa, DRM_ASAHI_BIND_READ), 0);  // the second page, read-only
  ASSERT_EQ(bind(v, bo, 0, kPage, kUserVa + kPage, DRM_ASAHI_BIND_READ), 0);  // never touched
  ASSERT_EQ(bind(v, bo, 0, 4 * kPage, kUserVa + 16 * kPage,
                 DRM_ASAHI_BIND_READ | DRM_ASAHI_BIND_WRITE | DRM_ASAHI_BIND_SINGLE_PAGE), 0);
  ASSERT_EQ(submit(q, one_compute(kUserVa), {}, {binary(done)}), 0);
  ASSERT_EQ(wait(done), 0);
  ASSERT_EQ(submit(q, one_compute(kUserVa + 8), {binary(done)}, {}), 0);
  // A rejected submit is not captured.
  EXPECT_EQ(submit(q, {}, {}, {}), -EINVAL);
  ASSERT_TRUE(device.set_trace_file("").ok());
  drm_asahi_queue_destroy qd{q, 0};  // runs the second job to its end
  ASSERT_EQ(io(DRM_IOCTL_ASAHI_QUEUE_DESTROY, qd), 0);
  uint32_t kind = 0;
  auto cs = chunks(read_file(path), &kind);
  EXPECT_EQ(kind, uint32_t(trace::FileKind::trace));
  std::map<uint32_t, int> count;
  for (auto& [t, _] : cs) count[t]++;
  EXPECT_EQ(count[trace::kTagParams], 1);
  EXPECT_EQ(count[trace::kTagSubmit], 2);
  EXPECT_EQ(count[trace::kTagCmdbuf], 2);
  EXPECT_EQ(count[trace::kTagMapping], 4);
  ASSERT_EQ(cs[0].second.size(), sizeof(drm_asahi_params_global));
  trace::SubmitInfo info;
  std::memcpy(&info, cs[1].second.data(), sizeof info);
  EXPECT_EQ(info.seqno, 1u);
  EXPECT_EQ(info.vm_id, v);
  EXPECT_EQ(info.out_sync_count, 1u);
  EXPECT_EQ(info.pid, uint32_t(::getpid()));
  EXPECT_EQ(cs[2].second, one_compute(kUserVa));
  ASSERT_EQ(cs[3].second.size(), sizeof(drm_asahi_sync));
  trace::MappingInfo m;
  std::memcpy(&m, cs[4].second.data(), sizeof m);
  EXPECT_EQ(m.va, kUserVa);  // the stream page, read
  EXPECT_EQ(m.size_B, kPage);
  EXPECT_EQ(m.flags, trace::kMapRead);
  ASSERT_EQ(cs[4].second.size(), sizeof m + kPage);
  for (uint64_t i = 0; i < kPage; i += 997) EXPECT_EQ(cs[4].second[sizeof m + i], uint8_t((kPage + i) * 7));
  std::memcpy(&m, cs[5].second.data(), sizeof m);
  EXPECT_EQ(m.va, kUserVa + 18 * kPage);  // the written page of the SINGLE_PAGE range only
  EXPECT_EQ(m.size_B, kPage);
  EXPECT_EQ(m.flags, trace::kMapRead | trace::kMapWrite | trace::kMapSinglePage | trace::kMapWritten);
  ASSERT_EQ(cs[5].second.size(), sizeof m + kPage);  // one page stored
  uint32_t after = 0;
  std::memcpy(&after, cs[5].second.data() + sizeof m + 12, 4);
  EXPECT_EQ(after, 0xfeedf00du);  // the bytes after the job
  // Reopening appends after the existing records; another file is refused.
  ASSERT_TRUE(device.set_trace_file(path.string()).ok());
  uint32_t q2 = queue(v);
  ASSERT_EQ(submit(q2, one_compute(), {}, {binary(done)}), 0);
  ASSERT_EQ(wait(done), 0);
  ASSERT_TRUE(device.set_trace_file("").ok());
  auto again = chunks(read_file(path), &kind);
  EXPECT_EQ(again.size(), cs.size() + 3);  // SUBM, CMDB, SYNC: stream 0 is not mapped
  {
    std::ofstream junk(dir / "junk");
    junk << "not a trace";
  }
  auto st = device.set_trace_file((dir / "junk").string());
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.error().message().find("not an agx trace"), std::string::npos);
  EXPECT_FALSE(device.set_trace_file((dir / "no/such/dir").string()).ok());
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace agx::kmd::test
