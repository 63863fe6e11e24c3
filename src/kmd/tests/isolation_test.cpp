// Isolation between files of one device, as the kernel keeps it: handles,
// VMs, queues, syncobjs and mmap offsets are per file; only PRIME and syncobj
// descriptors carry an object from one file to another; private objects
// never leave their VM; a descriptor the device did not export, or one that
// was closed, imports nothing; a dma-buf cannot shrink; the device's own
// descriptors are out of a client's reach.
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "kmd/tests/fixture.h"

namespace agx::kmd::test {
namespace AGX_UNITY_ID {

class Isolation : public KmdTest {
 protected:
  std::unique_ptr<File> other = open_file(device);

  template <typename T>
  int io_b(unsigned long req, T& arg) { return other->ioctl(req, &arg); }

  // What the GPU reads at `va` through `queue_id` of `f` (a compute command
  // with a probing executor); -1 when it faults.
  int gpu_byte(File& f, uint32_t queue_id, uint64_t va) {
    struct Probe : Executor {
      uint64_t va = 0;
      int value = -1;
      bool execute(const FirmwareCommand& c, GpuFault*) override {
        uint8_t b;
        if (c.memory->read(va, &b, 1, GpuUnit::host, nullptr)) value = b;
        return true;
      }
    };
    auto probe = std::make_shared<Probe>();
    probe->va = va;
    device.set_executor(probe);
    drm_syncobj_create sc{0, 0};
    EXPECT_EQ(f.ioctl(DRM_IOCTL_SYNCOBJ_CREATE, &sc), 0);
    std::vector<uint8_t> cmds;
    append(cmds, DRM_ASAHI_CMD_COMPUTE, drm_asahi_cmd_compute{});
    drm_asahi_sync out = binary(sc.handle);
    drm_asahi_submit s{};
    s.syncs = reinterpret_cast<uint64_t>(&out);
    s.cmdbuf = reinterpret_cast<uint64_t>(cmds.data());
    s.queue_id = queue_id;
    s.out_sync_count = 1;
    s.cmdbuf_size = uint32_t(cmds.size());
    EXPECT_EQ(f.ioctl(DRM_IOCTL_ASAHI_SUBMIT, &s), 0);
    drm_syncobj_wait w{reinterpret_cast<uint64_t>(&sc.handle), INT64_MAX, 1, 0, 0, 0};
    EXPECT_EQ(f.ioctl(DRM_IOCTL_SYNCOBJ_WAIT, &w), 0);
    device.set_executor(nullptr);
    return probe->value;
  }

  uint64_t offset_of(File& f, uint32_t handle) {
    drm_asahi_gem_mmap_offset m{handle, 0, 0};
    EXPECT_EQ(f.ioctl(DRM_IOCTL_ASAHI_GEM_MMAP_OFFSET, &m), 0);
    return m.offset;
  }
};

TEST_F(Isolation, HandlesVmsQueuesAndSyncobjsArePerFile) {
  uint32_t v = vm(), q = queue(v), bo = gem(kPage), s = syncobj();
  uint8_t* a = map(bo, kPage);
  a[0] = 0x5a;
  // The other file has none of them.
  drm_gem_close gc{bo, 0};
  EXPECT_EQ(io_b(DRM_IOCTL_GEM_CLOSE, gc), -EINVAL);
  drm_asahi_gem_mmap_offset mo{bo, 0, 0};
  EXPECT_EQ(io_b(DRM_IOCTL_ASAHI_GEM_MMAP_OFFSET, mo), -ENOENT);
  drm_asahi_vm_destroy vd{v, 0};
  EXPECT_EQ(io_b(DRM_IOCTL_ASAHI_VM_DESTROY, vd), -ENOENT);
  drm_asahi_queue_create qc{0, v, 0, 0, 0};
  EXPECT_EQ(io_b(DRM_IOCTL_ASAHI_QUEUE_CREATE, qc), -ENOENT);
  drm_asahi_queue_destroy qd{q, 0};
  EXPECT_EQ(io_b(DRM_IOCTL_ASAHI_QUEUE_DESTROY, qd), -ENOENT);
  drm_asahi_gem_bind_op op{DRM_ASAHI_BIND_READ, bo, 0, kPage, kUserVa};
  drm_asahi_vm_bind b{v, 1, sizeof op, 0, reinterpret_cast<uint64_t>(&op)};
  EXPECT_EQ(io_b(DRM_IOCTL_ASAHI_VM_BIND, b), -ENOENT);
  drm_syncobj_array sa{reinterpret_cast<uint64_t>(&s), 1, 0};
  EXPECT_EQ(io_b(DRM_IOCTL_SYNCOBJ_SIGNAL, sa), -ENOENT);
  EXPECT_EQ(wait(s, 0), -EINVAL);  // still unsubmitted
  drm_prime_handle ph{bo, DRM_CLOEXEC, -1};
  EXPECT_EQ(io_b(DRM_IOCTL_PRIME_HANDLE_TO_FD, ph), -ENOENT);
  // Its mmap of this file's offset is refused, though the offset is valid.
  int err = 0;
  EXPECT_EQ(other->mmap(offset_of(*file, bo), kPage, &err), nullptr);
  EXPECT_EQ(err, -EACCES);
  EXPECT_EQ(a[0], 0x5a);
  EXPECT_EQ(bind(v, bo, 0, kPage, kUserVa), 0);
  EXPECT_EQ(gpu_byte(*file, q, kUserVa), 0x5a);
}

TEST_F(Isolation, TheSameNumbersNameEachFilesOwnObjects) {
  uint32_t v = vm(), q = queue(v), bo = gem(kPage);
  map(bo, kPage)[0] = 0x11;
  ASSERT_EQ(bind(v, bo, 0, kPage, kUserVa), 0);
  // The other file gets the same numbers for its own VM, queue and object.
  drm_asahi_vm_create vc{kKernelStart, kKernelEnd, 0, 0};
  ASSERT_EQ(io_b(DRM_IOCTL_ASAHI_VM_CREATE, vc), 0);
  drm_asahi_gem_create gc{kPage, 0, 0, 0, 0};
  ASSERT_EQ(io_b(DRM_IOCTL_ASAHI_GEM_CREATE, gc), 0);
  drm_asahi_queue_create qc{0, vc.vm_id, 0, 0, 0};
  ASSERT_EQ(io_b(DRM_IOCTL_ASAHI_QUEUE_CREATE, qc), 0);
  EXPECT_EQ(vc.vm_id, v);
  EXPECT_EQ(gc.handle, bo);
  EXPECT_EQ(qc.queue_id, q);
  int err = 0;
  auto* b = static_cast<uint8_t*>(other->mmap(offset_of(*other, gc.handle), kPage, &err));
  ASSERT_NE(b, nullptr);
  b[0] = 0x22;
  // Its VM at the same address is empty until it binds its own object.
  EXPECT_EQ(gpu_byte(*other, qc.queue_id, kUserVa), -1);
  drm_asahi_gem_bind_op op{DRM_ASAHI_BIND_READ, gc.handle, 0, kPage, kUserVa};
  drm_asahi_vm_bind bind_b{vc.vm_id, 1, sizeof op, 0, reinterpret_cast<uint64_t>(&op)};
  ASSERT_EQ(io_b(DRM_IOCTL_ASAHI_VM_BIND, bind_b), 0);
  EXPECT_EQ(gpu_byte(*other, qc.queue_id, kUserVa), 0x22);
  EXPECT_EQ(gpu_byte(*file, q, kUserVa), 0x11);
  // Unbinding in one VM leaves the other's mapping alone.
  drm_asahi_gem_bind_op unbind{DRM_ASAHI_BIND_UNBIND, 0, 0, kPage, kUserVa};
  bind_b.userptr = reinterpret_cast<uint64_t>(&unbind);
  ASSERT_EQ(io_b(DRM_IOCTL_ASAHI_VM_BIND, bind_b), 0);
  EXPECT_EQ(gpu_byte(*file, q, kUserVa), 0x11);
  other->munmap(b, kPage);
}

TEST_F(Isolation, PrivateObjectsStayInTheirVm) {
  uint32_t v1 = vm(), v2 = vm();
  uint32_t priv = gem(kPage, DRM_ASAHI_GEM_VM_PRIVATE, v1);
  EXPECT_EQ(bind(v2, priv, 0, kPage, kUserVa), -EINVAL);
  EXPECT_EQ(bind(v1, priv, 0, kPage, kUserVa), 0);
  drm_prime_handle ph{priv, DRM_CLOEXEC, -1};
  EXPECT_EQ(io(DRM_IOCTL_PRIME_HANDLE_TO_FD, ph), -EINVAL);
  drm_asahi_gem_create gc{kPage, DRM_ASAHI_GEM_VM_PRIVATE, v1, 0, 0};
  EXPECT_EQ(io_b(DRM_IOCTL_ASAHI_GEM_CREATE, gc), -ENOENT);  // not its VM
}

TEST_F(Isolation, ExportedObjectsAreSharedOnlyThroughTheirDescriptor) {
  uint32_t bo = gem(kPage);
  uint8_t* a = map(bo, kPage);
  drm_prime_handle ph{bo, DRM_CLOEXEC, -1};
  ASSERT_EQ(io(DRM_IOCTL_PRIME_HANDLE_TO_FD, ph), 0);
  drm_prime_handle imp{0, 0, ph.fd};
  ASSERT_EQ(io_b(DRM_IOCTL_PRIME_FD_TO_HANDLE, imp), 0);
  int err = 0;
  auto* b = static_cast<uint8_t*>(other->mmap(offset_of(*other, imp.handle), kPage, &err));
  ASSERT_NE(b, nullptr);
  b[1] = 0x77;
  EXPECT_EQ(a[1], 0x77);
  // Closing the handle in one file leaves the other's.
  drm_gem_close gc{imp.handle, 0};
  ASSERT_EQ(io_b(DRM_IOCTL_GEM_CLOSE, gc), 0);
  EXPECT_EQ(a[1], 0x77);
  gc.handle = bo;
  ASSERT_EQ(io(DRM_IOCTL_GEM_CLOSE, gc), 0);
  // The descriptor keeps the pages: a third file imports them.
  auto third = open_file(device);
  imp = {0, 0, ph.fd};
  ASSERT_EQ(third->ioctl(DRM_IOCTL_PRIME_FD_TO_HANDLE, &imp), 0);
  drm_asahi_gem_mmap_offset mo{imp.handle, 0, 0};
  ASSERT_EQ(third->ioctl(DRM_IOCTL_ASAHI_GEM_MMAP_OFFSET, &mo), 0);
  auto* c = static_cast<uint8_t*>(third->mmap(mo.offset, kPage, &err));
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(c[1], 0x77);
  third->munmap(c, kPage);
  other->munmap(b, kPage);
  ::close(ph.fd);
}

// A dma-buf cannot shrink or grow (the memfd is sealed): a client's
// ftruncate fails and the device's next write to the object still lands.
TEST_F(Isolation, ExportedDescriptorsCannotBeResized) {
  uint32_t v = vm(), q = queue(v), bo = gem(kPage);
  drm_prime_handle ph{bo, DRM_CLOEXEC, -1};
  ASSERT_EQ(io(DRM_IOCTL_PRIME_HANDLE_TO_FD, ph), 0);
  EXPECT_EQ(::ftruncate(ph.fd, 0), -1);
  EXPECT_EQ(errno, EPERM);
  EXPECT_EQ(::ftruncate(ph.fd, 4 * kPage), -1);
  EXPECT_EQ(::fcntl(ph.fd, F_ADD_SEALS, F_SEAL_FUTURE_WRITE), -1);
  // Timestamps written by the device into the object still work.
  drm_asahi_gem_bind_object o{DRM_ASAHI_BIND_OBJECT_OP_BIND, DRM_ASAHI_BIND_OBJECT_USAGE_TIMESTAMPS, bo, 0, 0, kPage,
                              0, 0};
  ASSERT_EQ(io(DRM_IOCTL_ASAHI_GEM_BIND_OBJECT, o), 0);
  drm_asahi_cmd_compute c{};
  c.ts.start = {o.object_handle, 0};
  c.ts.end = {o.object_handle, 8};
  std::vector<uint8_t> cmds;
  append(cmds, DRM_ASAHI_CMD_COMPUTE, c);
  uint32_t s = syncobj();
  ASSERT_EQ(submit(q, cmds, {}, {binary(s)}), 0);
  ASSERT_EQ(wait(s), 0);
  uint64_t ts[2];
  ASSERT_EQ(::pread(ph.fd, ts, sizeof ts, 0), ssize_t(sizeof ts));
  EXPECT_GT(ts[0], 0u);
  EXPECT_GE(ts[1], ts[0]);
  ::close(ph.fd);
}

// dma_buf_get() (torvalds/linux drivers/dma-buf/dma-buf.c) under
// drm_gem_prime_fd_to_handle() (drivers/gpu/drm/drm_prime.c): -EBADF for a
// closed descriptor, -EINVAL for any file that is not a dma-buf of this
// device, whatever its name.
TEST_F(Isolation, ImportAcceptsOnlyDescriptorsTheDeviceExported) {
  uint32_t bo = gem(kPage);
  drm_prime_handle ph{bo, DRM_CLOEXEC, -1};
  ASSERT_EQ(io(DRM_IOCTL_PRIME_HANDLE_TO_FD, ph), 0);
  const int number = ph.fd;
  ::close(number);
  drm_prime_handle imp{0, 0, number};
  EXPECT_EQ(io_b(DRM_IOCTL_PRIME_FD_TO_HANDLE, imp), -EBADF);
  // A client memfd with the device's name, sealed like the device's, at the
  // same number: still not a dma-buf of this device.
  int fake = ::memfd_create("agx-gem", MFD_CLOEXEC | MFD_ALLOW_SEALING);
  ASSERT_GE(fake, 0);
  ASSERT_EQ(::ftruncate(fake, kPage), 0);
  ASSERT_EQ(::fcntl(fake, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL), 0);
  ASSERT_EQ(::dup2(fake, number), number);
  imp = {0, 0, number};
  EXPECT_EQ(io_b(DRM_IOCTL_PRIME_FD_TO_HANDLE, imp), -EINVAL);
  imp = {0, 0, fake};
  EXPECT_EQ(io(DRM_IOCTL_PRIME_FD_TO_HANDLE, imp), -EINVAL);
  int pipe_fds[2];
  ASSERT_EQ(::pipe(pipe_fds), 0);
  imp = {0, 0, pipe_fds[0]};
  EXPECT_EQ(io(DRM_IOCTL_PRIME_FD_TO_HANDLE, imp), -EINVAL);
  ::close(pipe_fds[0]);
  ::close(pipe_fds[1]);
  ::close(number);
  ::close(fake);
}

// The device's own descriptor of an object is recorded, high and
// close-on-exec; when a client closes it behind the device's back (a raw
// syscall the shim cannot see) and a new file takes its number, the device
// neither exports nor closes that file.
TEST_F(Isolation, OwnDescriptorsAreOutOfReach) {
  std::vector<int> before = internal_fds();
  uint32_t bo = gem(kPage);
  std::vector<int> after = internal_fds();
  ASSERT_EQ(after.size(), before.size() + 1);
  int own = -1;
  for (int fd : after)
    if (std::find(before.begin(), before.end(), fd) == before.end()) own = fd;
  ASSERT_GE(own, 0);
  EXPECT_TRUE(is_internal_fd(own));
  EXPECT_EQ(::fcntl(own, F_GETFD) & FD_CLOEXEC, FD_CLOEXEC);
  rlimit rl{};
  ASSERT_EQ(::getrlimit(RLIMIT_NOFILE, &rl), 0);
  if (rl.rlim_cur != RLIM_INFINITY && rl.rlim_cur >= 64) {
    EXPECT_GE(rlim_t(own), rl.rlim_cur - rl.rlim_cur / 4);
  }
  // Closed behind the device's back and reused by a client file.
  ASSERT_EQ(::syscall(SYS_close, own), 0);
  int mine = ::memfd_create("client", MFD_CLOEXEC);
  ASSERT_EQ(::dup2(mine, own), own);
  EXPECT_FALSE(is_internal_fd(own));  // the number is the client's now
  drm_prime_handle ph{bo, DRM_CLOEXEC, -1};
  EXPECT_EQ(io(DRM_IOCTL_PRIME_HANDLE_TO_FD, ph), -EBADF);  // not the client's file
  drm_gem_close gc{bo, 0};
  ASSERT_EQ(io(DRM_IOCTL_GEM_CLOSE, gc), 0);  // the object dies: the client's file stays open
  EXPECT_NE(::fcntl(own, F_GETFD), -1);
  ::close(own);
  ::close(mine);
}

}  // namespace
}  // namespace agx::kmd::test
