// Bad caller pointers give -EFAULT, never a fault of the process: the ioctl
// argument itself and every pointer inside it (unmapped, inaccessible or
// read-only memory, and arrays that run past their mapping), as the kernel's
// copy_from_user/copy_to_user answer. Nothing changes after such a call.
#include <atomic>
#include <thread>

#include "kmd/drm_core.h"
#include "kmd/tests/fixture.h"
#include "kmd/tests/guard_pages.h"
#include "kmd/uaccess.h"

namespace agx::kmd::test {
namespace AGX_UNITY_ID {

class Uaccess : public KmdTest {
 protected:
  GuardPages g;
  void* ptr(uint64_t a) { return reinterpret_cast<void*>(a); }
};

TEST_F(Uaccess, CopyHelpers) {
  uint8_t buf[16] = {};
  EXPECT_EQ(copy_from_user(buf, g.unmapped(), 1), -EFAULT);
  EXPECT_EQ(copy_from_user(buf, g.none(), 1), -EFAULT);
  EXPECT_EQ(copy_from_user(buf, g.read_only(), sizeof buf), 0);
  EXPECT_EQ(copy_to_user(g.read_only(), buf, 1), -EFAULT);
  EXPECT_EQ(copy_from_user(buf, user_ptr(g.edge(8)), 9), -EFAULT);  // one byte past the page
  EXPECT_EQ(copy_from_user(buf, user_ptr(g.edge(8)), 8), 0);
  EXPECT_EQ(copy_from_user(buf, 0, 0), 0);  // nothing to copy: any address
  EXPECT_EQ(copy_from_user(buf, ~uint64_t{0} - 3, 8), -EFAULT);  // wraps
}

TEST_F(Uaccess, TheArgumentItself) {
  EXPECT_EQ(file->ioctl(DRM_IOCTL_ASAHI_GET_TIME, nullptr), -EFAULT);
  EXPECT_EQ(file->ioctl(DRM_IOCTL_ASAHI_GET_TIME, ptr(g.unmapped())), -EFAULT);
  EXPECT_EQ(file->ioctl(DRM_IOCTL_ASAHI_GET_TIME, ptr(g.none())), -EFAULT);
  // Read-only: copied in, handled, and the copy out fails.
  EXPECT_EQ(file->ioctl(DRM_IOCTL_ASAHI_GET_TIME, ptr(g.read_only())), -EFAULT);
  // A struct that runs into the inaccessible page.
  auto* c = g.edge<drm_asahi_vm_create>(sizeof(drm_asahi_vm_create) - 4);
  EXPECT_EQ(file->ioctl(DRM_IOCTL_ASAHI_VM_CREATE, c), -EFAULT);
  EXPECT_EQ(vm(), 1u);  // nothing was created
  // A pointer-free ioctl never reads its argument.
  EXPECT_EQ(file->ioctl(DRM_IOCTL_SET_MASTER, ptr(g.unmapped())), -EACCES);
}

TEST_F(Uaccess, GetParamsPointer) {
  drm_asahi_get_params p{0, 0, g.unmapped(), sizeof(drm_asahi_params_global)};
  EXPECT_EQ(io(DRM_IOCTL_ASAHI_GET_PARAMS, p), -EFAULT);
  p.pointer = g.read_only();
  EXPECT_EQ(io(DRM_IOCTL_ASAHI_GET_PARAMS, p), -EFAULT);
  p.pointer = user_ptr(g.edge(16));  // only 16 bytes before the hole
  EXPECT_EQ(io(DRM_IOCTL_ASAHI_GET_PARAMS, p), -EFAULT);
  p.size = 16;
  EXPECT_EQ(io(DRM_IOCTL_ASAHI_GET_PARAMS, p), 0);
}

TEST_F(Uaccess, VersionStrings) {
  drm_version v{};
  v.name_len = 8;
  v.name = static_cast<char*>(ptr(g.unmapped()));
  EXPECT_EQ(io(DRM_IOCTL_VERSION, v), -EFAULT);
  v.name = static_cast<char*>(ptr(g.read_only()));
  EXPECT_EQ(io(DRM_IOCTL_VERSION, v), -EFAULT);
  v.name = nullptr;  // no buffer: only the length comes back
  EXPECT_EQ(io(DRM_IOCTL_VERSION, v), 0);
  EXPECT_EQ(v.name_len, 5u);
}

TEST_F(Uaccess, VmBindArray) {
  uint32_t v = vm(), bo = gem(4 * kPage);
  drm_asahi_vm_bind b{v, 1, sizeof(drm_asahi_gem_bind_op), 0, g.unmapped()};
  EXPECT_EQ(io(DRM_IOCTL_ASAHI_VM_BIND, b), -EFAULT);
  // Two valid ops at the end of the page, but num_binds says three.
  auto* ops = g.edge<drm_asahi_gem_bind_op>(2 * sizeof(drm_asahi_gem_bind_op));
  ops[0] = {DRM_ASAHI_BIND_READ, bo, 0, kPage, kUserVa};
  ops[1] = {DRM_ASAHI_BIND_READ, bo, kPage, kPage, kUserVa + kPage};
  b = {v, 3, sizeof(drm_asahi_gem_bind_op), 0, user_ptr(ops)};
  EXPECT_EQ(io(DRM_IOCTL_ASAHI_VM_BIND, b), -EFAULT);
  // A stride that reaches past the page.
  b = {v, 2, sizeof(drm_asahi_gem_bind_op) + 8, 0, user_ptr(ops)};
  EXPECT_EQ(io(DRM_IOCTL_ASAHI_VM_BIND, b), -EFAULT);
  b = {v, 2, sizeof(drm_asahi_gem_bind_op), 0, user_ptr(ops)};
  EXPECT_EQ(io(DRM_IOCTL_ASAHI_VM_BIND, b), 0);
}

TEST_F(Uaccess, SubmitBuffers) {
  uint32_t v = vm(), q = queue(v), s = syncobj();
  std::vector<uint8_t> one;
  append(one, DRM_ASAHI_CMD_COMPUTE, drm_asahi_cmd_compute{});
  auto* edge = g.edge(one.size());
  std::memcpy(edge, one.data(), one.size());
  drm_asahi_sync out = binary(s);
  drm_asahi_submit sub{};
  sub.queue_id = q;
  sub.cmdbuf = g.unmapped();
  sub.cmdbuf_size = uint32_t(one.size());
  EXPECT_EQ(io(DRM_IOCTL_ASAHI_SUBMIT, sub), -EFAULT);
  sub.cmdbuf = user_ptr(edge);
  sub.cmdbuf_size = uint32_t(one.size() + 8);  // a header past the buffer's page
  EXPECT_EQ(io(DRM_IOCTL_ASAHI_SUBMIT, sub), -EFAULT);
  sub.cmdbuf_size = uint32_t(one.size());
  sub.syncs = g.none();
  sub.out_sync_count = 1;
  EXPECT_EQ(io(DRM_IOCTL_ASAHI_SUBMIT, sub), -EFAULT);
  EXPECT_EQ(wait(s, 0), -EINVAL);  // nothing was submitted to the out-sync
  sub.syncs = user_ptr(&out);
  EXPECT_EQ(io(DRM_IOCTL_ASAHI_SUBMIT, sub), 0);  // the same buffers, readable
  EXPECT_EQ(wait(s), 0);
}

TEST_F(Uaccess, SyncobjArrays) {
  uint32_t s = syncobj(DRM_SYNCOBJ_CREATE_SIGNALED);
  drm_syncobj_wait w{g.unmapped(), INT64_MAX, 1, 0, 0, 0};
  EXPECT_EQ(io(DRM_IOCTL_SYNCOBJ_WAIT, w), -EFAULT);
  auto* edge = g.edge<uint32_t>(4);
  *edge = s;
  w = {user_ptr(edge), INT64_MAX, 2, 0, 0, 0};  // the second handle is past the page
  EXPECT_EQ(io(DRM_IOCTL_SYNCOBJ_WAIT, w), -EFAULT);
  uint64_t point = 0;
  drm_syncobj_timeline_wait tw{user_ptr(&s), g.unmapped(), INT64_MAX, 1, 0, 0, 0};
  EXPECT_EQ(io(DRM_IOCTL_SYNCOBJ_TIMELINE_WAIT, tw), -EFAULT);
  tw.points = user_ptr(&point);
  EXPECT_EQ(io(DRM_IOCTL_SYNCOBJ_TIMELINE_WAIT, tw), 0);
  drm_syncobj_timeline_array q{user_ptr(&s), g.read_only(), 1, 0};
  EXPECT_EQ(io(DRM_IOCTL_SYNCOBJ_QUERY, q), -EFAULT);
  q.points = g.unmapped();
  EXPECT_EQ(io(DRM_IOCTL_SYNCOBJ_QUERY, q), -EFAULT);
  EXPECT_EQ(io(DRM_IOCTL_SYNCOBJ_TIMELINE_SIGNAL, q), -EFAULT);
  drm_syncobj_array a{g.unmapped(), 1, 0};
  EXPECT_EQ(io(DRM_IOCTL_SYNCOBJ_RESET, a), -EFAULT);
  EXPECT_EQ(io(DRM_IOCTL_SYNCOBJ_SIGNAL, a), -EFAULT);
  EXPECT_EQ(wait(s, 0), 0);  // still signaled: the failed RESET changed nothing
  // An array too large for one kernel allocation: -ENOMEM before reading.
  a = {g.unmapped(), 0x40000000, 0};
  EXPECT_EQ(io(DRM_IOCTL_SYNCOBJ_RESET, a), -ENOMEM);
}

// Another thread flips the buffer's protection while ioctls read and write
// it: each call succeeds or gives -EFAULT, and none faults.
TEST_F(Uaccess, MappingsChangingUnderneathAreSafe) {
  uint8_t* page = g.base;
  std::atomic<bool> stop{false};
  std::thread flipper([&] {
    for (int i = 0; !stop.load(); i++) ::mprotect(page, g.page_B, (i & 1) ? PROT_NONE : PROT_READ | PROT_WRITE);
  });
  int ok = 0, fault = 0;
  for (int i = 0; i < 3000; i++) {
    drm_asahi_get_params p{0, 0, user_ptr(page), sizeof(drm_asahi_params_global)};
    int r = io(DRM_IOCTL_ASAHI_GET_PARAMS, p);
    ASSERT_TRUE(r == 0 || r == -EFAULT) << r;
    (r == 0 ? ok : fault)++;
    r = file->ioctl(DRM_IOCTL_ASAHI_GET_TIME, page + 64);
    ASSERT_TRUE(r == 0 || r == -EFAULT) << r;
  }
  stop = true;
  flipper.join();
  ::mprotect(page, g.page_B, PROT_READ | PROT_WRITE);
  EXPECT_EQ(ok + fault, 3000);
}

TEST_F(Uaccess, ClientName) {
  agx_drm_set_client_name n{4, g.unmapped()};
  EXPECT_EQ(file->ioctl(AGX_DRM_IOCTL_SET_CLIENT_NAME, &n), -EFAULT);
  const char good[] = "test", spaced[] = "a b";
  n = {4, user_ptr(good)};
  EXPECT_EQ(file->ioctl(AGX_DRM_IOCTL_SET_CLIENT_NAME, &n), 0);
  n = {3, user_ptr(spaced)};
  EXPECT_EQ(file->ioctl(AGX_DRM_IOCTL_SET_CLIENT_NAME, &n), -EINVAL);
  n = {65, user_ptr(good)};
  EXPECT_EQ(file->ioctl(AGX_DRM_IOCTL_SET_CLIENT_NAME, &n), -EINVAL);
}

}  // namespace
}  // namespace agx::kmd::test
