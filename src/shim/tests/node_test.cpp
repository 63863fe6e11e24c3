// The shim's behaviour in process, through agx::shim (what the preloaded
// symbols forward to): the render node, its descriptors and mappings, and the
// virtual files libdrm reads.
#include "shim/shim.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "agx/asahi_drm.h"
#include "shim/fd_table.h"
#include "shim/vfs.h"

namespace agx::shim {
namespace {

constexpr uint64_t kPage_B = 16384;

int open_node(int flags = O_RDWR | O_CLOEXEC) { return open_at(AT_FDCWD, kRenderNodePath, flags, 0); }

int ioctl_errno(int fd, unsigned long request, void* arg) { return ioctl_fd(fd, request, arg) == 0 ? 0 : errno; }

// A GEM object of `size` bytes and its fake mmap offset.
uint64_t make_object(int fd, uint64_t size, uint32_t* handle) {
  drm_asahi_gem_create gc{};
  gc.size = size;
  EXPECT_EQ(ioctl_errno(fd, DRM_IOCTL_ASAHI_GEM_CREATE, &gc), 0);
  drm_asahi_gem_mmap_offset mo{};
  mo.handle = gc.handle;
  EXPECT_EQ(ioctl_errno(fd, DRM_IOCTL_ASAHI_GEM_MMAP_OFFSET, &mo), 0);
  *handle = gc.handle;
  return mo.offset;
}

TEST(Node, OpenGivesARealDescriptorThatStatsAsTheNode) {
  int fd = open_node();
  ASSERT_GE(fd, 0);
  EXPECT_TRUE(is_render_fd(fd));
  EXPECT_EQ(::fcntl(fd, F_GETFD) & FD_CLOEXEC, FD_CLOEXEC);  // a host descriptor with our flags
  struct stat st;
  ASSERT_EQ(stat_fd(fd, &st), 0);
  EXPECT_TRUE(S_ISCHR(st.st_mode));
  EXPECT_EQ(st.st_rdev, makedev(226, 128));
  EXPECT_EQ(close_fd(fd), 0);
  EXPECT_FALSE(is_render_fd(fd));
  EXPECT_EQ(::fcntl(fd, F_GETFD), -1);
}

// Unknown DRM numbers: EINVAL, another ioctl type: ENOTTY (torvalds/linux
// drivers/gpu/drm/drm_ioctl.c, drm_ioctl()).
TEST(Node, VersionSaysAsahiAndUnknownIoctlsAreEINVAL) {
  int fd = open_node();
  char name[16] = {};
  drm_version v{};
  v.name = name;
  v.name_len = sizeof name - 1;
  ASSERT_EQ(ioctl_errno(fd, DRM_IOCTL_VERSION, &v), 0);
  EXPECT_STREQ(name, "asahi");
  drm_asahi_get_time t{};
  EXPECT_EQ(ioctl_errno(fd, DRM_IOWR(DRM_COMMAND_BASE + 0x30, drm_asahi_get_time), &t), EINVAL);
  EXPECT_EQ(ioctl_errno(fd, _IOWR('x', 0, drm_asahi_get_time), &t), ENOTTY);
  close_fd(fd);
}

TEST(Node, OpenFlagsFollowTheKernel) {
  errno = 0;
  EXPECT_EQ(open_at(AT_FDCWD, kRenderNodePath, O_RDWR | O_CREAT | O_EXCL, 0600), -1);
  EXPECT_EQ(errno, EEXIST);
  EXPECT_EQ(open_at(AT_FDCWD, kRenderNodePath, O_RDONLY | O_DIRECTORY, 0), -1);
  EXPECT_EQ(errno, ENOTDIR);
  EXPECT_EQ(open_at(AT_FDCWD, "/dev/dri/card0", O_RDWR, 0), -1);
  EXPECT_EQ(errno, ENOENT);
}

TEST(Node, DupsShareTheOpenFile) {
  int fd = open_node();
  uint32_t handle = 0;
  make_object(fd, kPage_B, &handle);
  int d1 = dup_fd(fd), d2 = fcntl_fd(fd, F_DUPFD_CLOEXEC, 50);
  ASSERT_GE(d1, 0);
  ASSERT_GE(d2, 50);
  EXPECT_TRUE(is_render_fd(d1));
  EXPECT_TRUE(is_render_fd(d2));
  close_fd(fd);
  drm_gem_close gc{};
  gc.handle = handle;
  EXPECT_EQ(ioctl_errno(d1, DRM_IOCTL_GEM_CLOSE, &gc), 0);       // same handle table
  EXPECT_EQ(ioctl_errno(d2, DRM_IOCTL_GEM_CLOSE, &gc), EINVAL);  // already closed
  // dup2 over a render descriptor closes that one.
  int pipe_fds[2];
  ASSERT_EQ(::pipe(pipe_fds), 0);
  EXPECT_EQ(dup2_fd(pipe_fds[0], d2), d2);
  EXPECT_FALSE(is_render_fd(d2));
  EXPECT_EQ(ioctl_errno(d2, DRM_IOCTL_GEM_CLOSE, &gc), ENOTTY);  // a pipe now
  // A failed dup2 leaves the target as it was.
  EXPECT_EQ(dup2_fd(-1, d1), -1);
  EXPECT_TRUE(is_render_fd(d1));
  // dup3 of a node onto a pipe descriptor makes it a node.
  EXPECT_EQ(dup3_fd(d1, pipe_fds[1], O_CLOEXEC), pipe_fds[1]);
  EXPECT_TRUE(is_render_fd(pipe_fds[1]));
  for (int f : {d1, d2, pipe_fds[0], pipe_fds[1]}) close_fd(f);
}

TEST(Node, MmapWritesPersistAndMappingsOutliveTheDescriptor) {
  int fd = open_node();
  uint32_t handle = 0;
  const uint64_t offset = make_object(fd, 4 * kPage_B, &handle);
  auto* p = static_cast<uint32_t*>(mmap_fd(nullptr, 4 * kPage_B, PROT_READ | PROT_WRITE, MAP_SHARED, fd, offset));
  ASSERT_NE(p, MAP_FAILED);
  for (uint32_t i = 0; i < 4 * kPage_B / 4; i++) p[i] = i ^ 0x5a5a5a5a;
  // Unmap a page in the middle; the rest stays mapped.
  EXPECT_EQ(munmap_range(p + kPage_B / 4, kPage_B), 0);
  EXPECT_EQ(p[0], 0x5a5a5a5au);
  close_fd(fd);
  p[3 * kPage_B / 4] = 7;  // still mapped after close, as with the kernel
  EXPECT_EQ(munmap_range(p, 4 * kPage_B), 0);  // spans the hole: a gap piece
  EXPECT_FALSE(FdTable::instance().has_mappings());
}

TEST(Node, PrivateAndFixedMappingsAreRefused) {
  int fd = open_node();
  uint32_t handle = 0;
  const uint64_t offset = make_object(fd, kPage_B, &handle);
  errno = 0;
  EXPECT_EQ(mmap_fd(nullptr, kPage_B, PROT_READ, MAP_PRIVATE, fd, offset), MAP_FAILED);
  EXPECT_EQ(errno, EINVAL);
  void* hint = reinterpret_cast<void*>(uintptr_t{1} << 40);
  EXPECT_EQ(mmap_fd(hint, kPage_B, PROT_READ, MAP_SHARED | MAP_FIXED, fd, offset), MAP_FAILED);
  EXPECT_EQ(errno, EINVAL);
  EXPECT_EQ(mmap_fd(nullptr, kPage_B, PROT_READ, MAP_SHARED, fd, offset + 64 * kPage_B), MAP_FAILED);
  EXPECT_EQ(errno, EINVAL);
  close_fd(fd);
}

TEST(Node, VirtualFilesReadLikeSysfs) {
  int fd = open_at(AT_FDCWD, "/sys/dev/char/226:128/device/uevent", O_RDONLY | O_CLOEXEC, 0);
  ASSERT_GE(fd, 0);
  char buf[512] = {};
  ASSERT_GT(::read(fd, buf, sizeof buf - 1), 0);
  EXPECT_NE(std::strstr(buf, "OF_COMPATIBLE_0=apple,agx-g13g\n"), nullptr);
  close_fd(fd);
  EXPECT_EQ(open_at(AT_FDCWD, "/sys/dev/char/226:128/device/uevent", O_WRONLY, 0), -1);
  EXPECT_EQ(errno, EACCES);
  FILE* f = fopen_path("/sys/dev/char/226:128/uevent", "re");
  ASSERT_NE(f, nullptr);
  char line[128];
  std::string all;
  while (fgets(line, sizeof line, f)) all += line;
  fclose(f);
  EXPECT_NE(all.find("DEVNAME=dri/renderD128\n"), std::string::npos);
  EXPECT_EQ(fopen_path("/sys/dev/char/226:0/uevent", "r"), nullptr);
  EXPECT_EQ(errno, ENOENT);
}

TEST(Node, DirectoriesListTheNode) {
  DIR* d = open_dir("/dev/dri");
  ASSERT_NE(d, nullptr);
  std::vector<std::string> names;
  while (dirent* e = read_dir(d)) {
    names.push_back(e->d_name);
    if (names.back() == "renderD128") {
      EXPECT_EQ(e->d_type, DT_CHR);
    }
  }
  EXPECT_EQ(names, (std::vector<std::string>{".", "..", "renderD128"}));
  rewind_dir(d);
  dirent64* e64 = read_dir64(d);
  ASSERT_NE(e64, nullptr);
  EXPECT_STREQ(e64->d_name, ".");
  EXPECT_EQ(close_dir(d), 0);
  EXPECT_EQ(open_dir("/dev/dri/renderD128"), nullptr);
  EXPECT_EQ(errno, ENOTDIR);
  EXPECT_EQ(open_dir("/sys/dev/char/226:1"), nullptr);
  EXPECT_EQ(errno, ENOENT);
  DIR* real_dir = open_dir("/");  // not ours: the C library's
  ASSERT_NE(real_dir, nullptr);
  EXPECT_NE(read_dir(real_dir), nullptr);
  EXPECT_EQ(close_dir(real_dir), 0);
}

TEST(Node, LinksAccessAndRealpath) {
  char buf[64];
  const char* link = "/sys/dev/char/226:128/device/subsystem";
  ssize_t n = readlink_at(AT_FDCWD, link, buf, sizeof buf);
  ASSERT_GT(n, 0);
  EXPECT_EQ(std::string(buf, n), "../../../../bus/platform");
  EXPECT_EQ(readlink_at(AT_FDCWD, link, buf, 4), 4);  // truncated, no NUL
  EXPECT_EQ(readlink_at(AT_FDCWD, kRenderNodePath, buf, sizeof buf), -1);
  EXPECT_EQ(errno, EINVAL);
  struct stat st;
  ASSERT_EQ(stat_at(AT_FDCWD, link, &st, AT_SYMLINK_NOFOLLOW), 0);
  EXPECT_TRUE(S_ISLNK(st.st_mode));
  ASSERT_EQ(stat_at(AT_FDCWD, "/dev/dri/..", &st, 0), 0);  // the host's /dev, reached through ours
  EXPECT_TRUE(S_ISDIR(st.st_mode));
  EXPECT_EQ(access_at(AT_FDCWD, kRenderNodePath, R_OK | W_OK, 0), 0);
  EXPECT_EQ(access_at(AT_FDCWD, "/sys/dev/char/226:128/device/uevent", W_OK, 0), -1);
  EXPECT_EQ(access_at(AT_FDCWD, "/dev/dri/renderD129", F_OK, 0), -1);
  EXPECT_EQ(errno, ENOENT);
  char value[8];
  EXPECT_EQ(getxattr_of(kRenderNodePath, "security.selinux", value, sizeof value, false), -1);
  EXPECT_EQ(errno, ENODATA);
  EXPECT_EQ(listxattr_of("/dev/dri", value, sizeof value, true), 0);
  char resolved[PATH_MAX];
  ASSERT_NE(realpath_of("/sys/dev/char/226:128//device", resolved), nullptr);
  EXPECT_STREQ(resolved, "/sys/devices/platform/soc/206400000.gpu");
  struct statx stx;
  int fd = open_node();
  // /proc/self/fd/<n> names the node, as the kernel shows it.
  const std::string proc = "/proc/self/fd/" + std::to_string(fd);
  n = readlink_at(AT_FDCWD, proc.c_str(), buf, sizeof buf);
  ASSERT_GT(n, 0);
  EXPECT_EQ(std::string(buf, n), kRenderNodePath);
  EXPECT_GT(readlink_at(AT_FDCWD, "/proc/self/fd/0", buf, sizeof buf), 0);  // not ours: the host's answer
  ASSERT_EQ(statx_at(fd, "", AT_EMPTY_PATH, STATX_BASIC_STATS, &stx), 0);
  EXPECT_EQ(stx.stx_rdev_minor, 128u);
  close_fd(fd);
}

TEST(Node, CloseRangeForgetsTheNode) {
  int fd = open_node();
  int high = fcntl_fd(fd, F_DUPFD_CLOEXEC, 900);
  ASSERT_GE(high, 900);
  EXPECT_EQ(close_fd_range(900, 1000, CLOSE_RANGE_CLOEXEC), 0);  // only marks them
  EXPECT_TRUE(is_render_fd(high));
  EXPECT_EQ(close_fd_range(900, 1000, 0), 0);
  EXPECT_FALSE(is_render_fd(high));
  close_fd(fd);
}

TEST(Node, ManyThreadsOpenUseAndClose) {
  const size_t before = FdTable::instance().size();
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; t++)
    threads.emplace_back([&] {
      for (int i = 0; i < 100; i++) {
        int fd = open_node();
        drm_asahi_get_time time{};
        if (fd < 0 || ioctl_errno(fd, DRM_IOCTL_ASAHI_GET_TIME, &time) || !time.gpu_timestamp) failures++;
        int d = dup_fd(fd);
        if (close_fd(fd) || ioctl_errno(d, DRM_IOCTL_ASAHI_GET_TIME, &time) || close_fd(d)) failures++;
      }
    });
  for (auto& t : threads) t.join();
  EXPECT_EQ(failures.load(), 0);
  EXPECT_EQ(FdTable::instance().size(), before);
}

// The device's own descriptors (object memfds) are not the client's: close,
// dup, dup2/dup3 onto them, mmap and ioctl fail with EBADF, close_range and
// closefrom leave them open, and the object stays usable.
TEST(Node, OwnDescriptorsAreOutOfReach) {
  int fd = open_node();
  uint32_t handle = 0;
  const uint64_t offset = make_object(fd, kPage_B, &handle);
  std::vector<int> own = kmd::internal_fds();
  ASSERT_FALSE(own.empty());
  const int inner = own.back();
  int pipe_fds[2];
  ASSERT_EQ(::pipe(pipe_fds), 0);
  errno = 0;
  EXPECT_EQ(close_fd(inner), -1);
  EXPECT_EQ(errno, EBADF);
  EXPECT_EQ(dup_fd(inner), -1);
  EXPECT_EQ(dup2_fd(pipe_fds[0], inner), -1);
  EXPECT_EQ(errno, EBADF);
  EXPECT_EQ(dup3_fd(pipe_fds[0], inner, O_CLOEXEC), -1);
  EXPECT_EQ(dup2_fd(inner, pipe_fds[0]), -1);
  EXPECT_EQ(fcntl_fd(inner, F_DUPFD_CLOEXEC, 0), -1);
  EXPECT_EQ(mmap_fd(nullptr, kPage_B, PROT_READ, MAP_SHARED, inner, 0), MAP_FAILED);
  EXPECT_EQ(errno, EBADF);
  int x = 0;
  EXPECT_EQ(ioctl_errno(inner, FIONREAD, &x), EBADF);
  // A range close that covers it closes the client's descriptors around it
  // (the node, opened before the pipe, is below the range).
  const int extra = ::fcntl(pipe_fds[1], F_DUPFD, pipe_fds[1] + 1);
  ASSERT_LT(fd, pipe_fds[0]);
  ASSERT_EQ(close_fd_range(unsigned(pipe_fds[0]), unsigned(std::max({pipe_fds[1], extra, inner})), 0), 0);
  EXPECT_EQ(::fcntl(pipe_fds[0], F_GETFD), -1);
  EXPECT_EQ(::fcntl(pipe_fds[1], F_GETFD), -1);
  EXPECT_EQ(::fcntl(extra, F_GETFD), -1);
  EXPECT_TRUE(kmd::is_internal_fd(inner));
  void* p = mmap_fd(nullptr, kPage_B, PROT_READ | PROT_WRITE, MAP_SHARED, fd, static_cast<off_t>(offset));
  ASSERT_NE(p, MAP_FAILED);  // the object is intact
  static_cast<uint8_t*>(p)[0] = 1;
  EXPECT_EQ(munmap_range(p, kPage_B), 0);
  close_fd(fd);
}

}  // namespace
}  // namespace agx::shim
