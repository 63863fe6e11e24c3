// Every DRM ioctl number 0x00-0xff against the kernel's dispatch order
// (torvalds/linux drivers/gpu/drm/drm_ioctl.c, drm_ioctl() and
// drm_ioctl_kernel()): a number with no function is -EINVAL before the
// argument is looked at; an entry without DRM_RENDER_ALLOW copies the
// argument in (-EFAULT first), then drm_ioctl_permit() says -EACCES, and the
// copy goes back whatever the result.
#include <set>

#include "kmd/tests/fixture.h"
#include "kmd/tests/guard_pages.h"

namespace agx::kmd::test {
namespace AGX_UNITY_ID {

// The entries of drm_ioctls[] after the legacy ioctls were removed (the
// kernel's table written out by number, libdrm's drm.h numbering); every
// other core number below the end of the table is a hole.
const std::set<unsigned> kRenderAllowed = {
    0x00,                                            // VERSION
    0x09, 0x0c,                                      // GEM_CLOSE, GET_CAP
    0x2d, 0x2e,                                      // PRIME_HANDLE_TO_FD, PRIME_FD_TO_HANDLE
    0xbf, 0xc0, 0xc1, 0xc2, 0xc3, 0xc4, 0xc5,        // SYNCOBJ_CREATE .. SYNCOBJ_SIGNAL
    0xca, 0xcb, 0xcc, 0xcd, 0xcf,                    // SYNCOBJ_TIMELINE_WAIT .. TIMELINE_SIGNAL, EVENTFD
    0xd1,                                            // SET_CLIENT_NAME
};
const std::set<unsigned> kPrimaryOnly = {
    0x01, 0x02, 0x05, 0x06, 0x07, 0x08,              // GET_UNIQUE .. MODESET_CTL
    0x0a, 0x0b, 0x0d,                                // GEM_FLINK, GEM_OPEN, SET_CLIENT_CAP
    0x10, 0x11, 0x12, 0x13,                          // SET_UNIQUE, AUTH_MAGIC, BLOCK, UNBLOCK
    0x1e, 0x1f,                                      // SET_MASTER, DROP_MASTER
    0x27, 0x28, 0x2c,                                // ADD_DRAW, RM_DRAW, FINISH
    0x3a, 0x3b, 0x3c, 0x3f,                          // WAIT_VBLANK, CRTC_*_SEQUENCE, UPDATE_DRAW
    0xc6, 0xc7, 0xc8, 0xc9, 0xce, 0xd0,              // leases, MODE_GETFB2, MODE_CLOSEFB
};
constexpr unsigned kCoreEnd = 0xd2;       // one past SET_CLIENT_NAME, the last entry
constexpr unsigned kDriverIoctls = 11;    // GET_PARAMS .. SUBMIT

enum class Entry { hole, render, primary, mode, driver };

Entry entry(unsigned nr) {
  if (nr >= DRM_COMMAND_BASE && nr < DRM_COMMAND_END)
    return nr - DRM_COMMAND_BASE < kDriverIoctls ? Entry::driver : Entry::hole;
  if (nr >= kCoreEnd) return Entry::hole;
  if (nr >= 0xa0 && nr <= 0xbe) return Entry::mode;  // MODE_GETRESOURCES .. MODE_DESTROYPROPBLOB
  if (kRenderAllowed.count(nr)) return Entry::render;
  if (kPrimaryOnly.count(nr)) return Entry::primary;
  return Entry::hole;
}

class IoctlNumbers : public KmdTest {
 protected:
  static void* ptr(uint64_t a) { return reinterpret_cast<void*>(a); }
  GuardPages g;
};

TEST_F(IoctlNumbers, EveryHoleIsEinvalBeforeTheArgument) {
  unsigned holes = 0;
  for (unsigned nr = 0; nr < 0x100; ++nr) {
    if (entry(nr) != Entry::hole) continue;
    ++holes;
    SCOPED_TRACE(nr);
    // An unreadable argument of every direction and size: still -EINVAL.
    EXPECT_EQ(file->ioctl(_IOC(_IOC_READ | _IOC_WRITE, DRM_IOCTL_BASE, nr, 64), ptr(g.none())), -EINVAL);
    EXPECT_EQ(file->ioctl(_IOC(_IOC_WRITE, DRM_IOCTL_BASE, nr, 8), ptr(g.unmapped())), -EINVAL);
    EXPECT_EQ(file->ioctl(_IOC(_IOC_NONE, DRM_IOCTL_BASE, nr, 0), nullptr), -EINVAL);
    // A good one is untouched.
    uint8_t buf[64];
    std::memset(buf, 0xa5, sizeof buf);
    EXPECT_EQ(file->ioctl(_IOC(_IOC_READ | _IOC_WRITE, DRM_IOCTL_BASE, nr, sizeof buf), buf), -EINVAL);
    for (uint8_t b : buf) ASSERT_EQ(b, 0xa5);
  }
  // 0x03-0x04, 0x0e-0x0f, 0x14-0x1d, 0x20-0x26, 0x29-0x2b, 0x2f-0x39,
  // 0x3d-0x3e, 0xd2-0xff and the 85 driver numbers past SUBMIT.
  EXPECT_EQ(holes, 2u + 2 + 10 + 7 + 3 + 11 + 2 + 46 + (0x60 - kDriverIoctls));
}

TEST_F(IoctlNumbers, PrimaryNodeEntriesCopyInThenRefuse) {
  for (unsigned nr = 0; nr < 0x100; ++nr) {
    Entry e = entry(nr);
    if (e != Entry::primary && e != Entry::mode) continue;
    SCOPED_TRACE(nr);
    // Both sides say IN or OUT: the argument is read first or written back
    // last, so a bad one faults. SET_MASTER and DROP_MASTER are DRM_IO
    // entries: no argument, the permission check answers.
    const bool no_argument = nr == 0x1e || nr == 0x1f;
    EXPECT_EQ(file->ioctl(_IOC(_IOC_READ | _IOC_WRITE, DRM_IOCTL_BASE, nr, 16), ptr(g.none())),
              no_argument ? -EACCES : -EFAULT);
    // Neither says IN: nothing to read, the permission check answers.
    EXPECT_EQ(file->ioctl(_IOC(_IOC_NONE, DRM_IOCTL_BASE, nr, 0), ptr(g.unmapped())), -EACCES);
    uint8_t buf[16];
    std::memset(buf, 0x5a, sizeof buf);
    EXPECT_EQ(file->ioctl(_IOC(_IOC_READ | _IOC_WRITE, DRM_IOCTL_BASE, nr, sizeof buf), buf), -EACCES);
  }
}

// drm_ioctl() copies the argument back after drm_ioctl_kernel() whatever
// it returned: a readable but unwritable IN|OUT argument of a refused
// ioctl is -EFAULT, not -EACCES; a failed handler's result is overridden
// the same way.
TEST_F(IoctlNumbers, TheCopyBackRunsAfterAFailureToo) {
  EXPECT_EQ(file->ioctl(DRM_IOCTL_GEM_FLINK, ptr(g.read_only())), -EFAULT);  // _IOWR, refused
  EXPECT_EQ(file->ioctl(DRM_IOCTL_GEM_OPEN, ptr(g.read_only())), -EFAULT);   // _IOWR, refused
  EXPECT_EQ(file->ioctl(DRM_IOCTL_AUTH_MAGIC, ptr(g.read_only())), -EACCES);  // _IOW: nothing goes back
  // GEM_CLOSE is _IOW: an unknown handle stays -EINVAL on read-only memory.
  EXPECT_EQ(file->ioctl(DRM_IOCTL_GEM_CLOSE, ptr(g.read_only())), -EINVAL);
  // GET_CAP is _IOWR: capability 0 (zeroed page) is -EINVAL, then the copy
  // back of the read-only page fails.
  EXPECT_EQ(file->ioctl(DRM_IOCTL_GET_CAP, ptr(g.read_only())), -EFAULT);
  // A refused _IOR ioctl gets the kernel's zeroed copy back.
  drm_client c;
  std::memset(&c, 0xff, sizeof c);
  EXPECT_EQ(file->ioctl(_IOC(_IOC_READ, DRM_IOCTL_BASE, _IOC_NR(DRM_IOCTL_GET_CLIENT), sizeof c), &c), -EACCES);
  const auto* bytes = reinterpret_cast<const uint8_t*>(&c);
  for (size_t i = 0; i < sizeof c; ++i) EXPECT_EQ(bytes[i], 0) << i;
}

TEST_F(IoctlNumbers, DriverNumbersAreTheAsahiTable) {
  for (unsigned i = 0; i < kDriverIoctls; ++i) {
    SCOPED_TRACE(i);
    // Every entry exists: with an unreadable IN argument each one faults.
    EXPECT_EQ(file->ioctl(_IOC(_IOC_WRITE, DRM_IOCTL_BASE, DRM_COMMAND_BASE + i, 8), ptr(g.none())), -EFAULT);
  }
}

}  // namespace
}  // namespace agx::kmd::test
