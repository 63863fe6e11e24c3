// Syncobj semantics of the DRM core: binary and timeline.
#include <fcntl.h>
#include <unistd.h>

#include "kmd/tests/fixture.h"

namespace agx::kmd::test {
namespace AGX_UNITY_ID {

using Sync = KmdTest;

TEST_F(Sync, BinaryCreateSignaledResetSignal) {
  uint32_t s = syncobj(DRM_SYNCOBJ_CREATE_SIGNALED);
  EXPECT_EQ(wait(s, 0), 0);
  drm_syncobj_array a{reinterpret_cast<uint64_t>(&s), 1, 0};
  ASSERT_EQ(io(DRM_IOCTL_SYNCOBJ_RESET, a), 0);
  EXPECT_EQ(wait(s, 0), -EINVAL);  // no fence: nothing to wait for
  EXPECT_EQ(wait(s, 0, DRM_SYNCOBJ_WAIT_FLAGS_WAIT_FOR_SUBMIT), -ETIME);
  ASSERT_EQ(signal(s), 0);
  EXPECT_EQ(wait(s, 0), 0);
}

TEST_F(Sync, WaitAnyReportsFirstSignaled) {
  uint32_t h[3] = {syncobj(), syncobj(DRM_SYNCOBJ_CREATE_SIGNALED), syncobj(DRM_SYNCOBJ_CREATE_SIGNALED)};
  drm_syncobj_wait w{reinterpret_cast<uint64_t>(h), 0, 3, DRM_SYNCOBJ_WAIT_FLAGS_WAIT_FOR_SUBMIT, 99, 0};
  ASSERT_EQ(io(DRM_IOCTL_SYNCOBJ_WAIT, w), 0);
  EXPECT_EQ(w.first_signaled, 1u);
  w.flags |= DRM_SYNCOBJ_WAIT_FLAGS_WAIT_ALL;
  EXPECT_EQ(io(DRM_IOCTL_SYNCOBJ_WAIT, w), -ETIME);
}

TEST_F(Sync, TimelineSignalQueryAndWait) {
  uint32_t s = syncobj();
  uint64_t points[1] = {5};
  drm_syncobj_timeline_array a{reinterpret_cast<uint64_t>(&s), reinterpret_cast<uint64_t>(points), 1, 0};
  ASSERT_EQ(io(DRM_IOCTL_SYNCOBJ_TIMELINE_SIGNAL, a), 0);
  EXPECT_EQ(wait_point(s, 3, 0), 0);  // an earlier point is covered
  EXPECT_EQ(wait_point(s, 5, 0), 0);
  EXPECT_EQ(wait_point(s, 6, 0), -EINVAL);  // not submitted
  EXPECT_EQ(wait_point(s, 6, 0, DRM_SYNCOBJ_WAIT_FLAGS_WAIT_FOR_SUBMIT), -ETIME);
  uint64_t value = 0;
  drm_syncobj_timeline_array q{reinterpret_cast<uint64_t>(&s), reinterpret_cast<uint64_t>(&value), 1, 0};
  ASSERT_EQ(io(DRM_IOCTL_SYNCOBJ_QUERY, q), 0);
  EXPECT_EQ(value, 5u);
  points[0] = 9;
  ASSERT_EQ(io(DRM_IOCTL_SYNCOBJ_TIMELINE_SIGNAL, a), 0);
  q.flags = DRM_SYNCOBJ_QUERY_FLAGS_LAST_SUBMITTED;
  ASSERT_EQ(io(DRM_IOCTL_SYNCOBJ_QUERY, q), 0);
  EXPECT_EQ(value, 9u);
}

TEST_F(Sync, TransferBetweenBinaryAndTimeline) {
  uint32_t bin = syncobj(DRM_SYNCOBJ_CREATE_SIGNALED), tl = syncobj(), bin2 = syncobj();
  drm_syncobj_transfer t{bin, tl, 0, 7, 0, 0};
  ASSERT_EQ(io(DRM_IOCTL_SYNCOBJ_TRANSFER, t), 0);
  EXPECT_EQ(wait_point(tl, 7, 0), 0);
  t = {tl, bin2, 7, 0, 0, 0};
  ASSERT_EQ(io(DRM_IOCTL_SYNCOBJ_TRANSFER, t), 0);
  EXPECT_EQ(wait(bin2, 0), 0);
  t = {tl, bin2, 8, 0, 0, 0};
  EXPECT_EQ(io(DRM_IOCTL_SYNCOBJ_TRANSFER, t), -EINVAL);  // point 8 not submitted
}

TEST_F(Sync, FdRoundTripSharesTheSyncobj) {
  uint32_t s = syncobj();
  drm_syncobj_handle h{s, 0, -1, 0};
  ASSERT_EQ(io(DRM_IOCTL_SYNCOBJ_HANDLE_TO_FD, h), 0);
  auto other = open_file(device);
  drm_syncobj_handle imp{0, 0, h.fd, 0};
  ASSERT_EQ(other->ioctl(DRM_IOCTL_SYNCOBJ_FD_TO_HANDLE, &imp), 0);
  ASSERT_EQ(signal(s), 0);
  drm_syncobj_wait w{reinterpret_cast<uint64_t>(&imp.handle), 0, 1, 0, 0, 0};
  EXPECT_EQ(other->ioctl(DRM_IOCTL_SYNCOBJ_WAIT, &w), 0);
  ::close(h.fd);
}

TEST_F(Sync, SyncFileExportImport) {
  uint32_t s = syncobj(DRM_SYNCOBJ_CREATE_SIGNALED), t = syncobj();
  drm_syncobj_handle h{s, DRM_SYNCOBJ_HANDLE_TO_FD_FLAGS_EXPORT_SYNC_FILE, -1, 0};
  ASSERT_EQ(io(DRM_IOCTL_SYNCOBJ_HANDLE_TO_FD, h), 0);
  drm_syncobj_handle imp{t, DRM_SYNCOBJ_FD_TO_HANDLE_FLAGS_IMPORT_SYNC_FILE, h.fd, 0};
  ASSERT_EQ(io(DRM_IOCTL_SYNCOBJ_FD_TO_HANDLE, imp), 0);
  EXPECT_EQ(wait(t, 0), 0);
  ::close(h.fd);
}

TEST_F(Sync, WaiterWakesOnSignalFromAnotherThread) {
  uint32_t s = syncobj();
  std::thread t([&] {
    auto other = std::chrono::steady_clock::now();
    (void)other;
    EXPECT_EQ(signal(s), 0);
  });
  EXPECT_EQ(wait(s, INT64_MAX, DRM_SYNCOBJ_WAIT_FLAGS_WAIT_FOR_SUBMIT), 0);
  t.join();
}

}  // namespace
}  // namespace agx::kmd::test
