/* The client's memory checks: VMs, objects, mmap, binds, queues, PRIME. */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <xf86drm.h>

#include "drm_client.h"

uint32_t create_bo(int fd, uint64_t size, uint32_t flags, uint32_t vm) {
  struct drm_asahi_gem_create gc = {.size = size, .flags = flags, .vm_id = vm};
  return xioctl(fd, DRM_IOCTL_ASAHI_GEM_CREATE, &gc) == 0 ? gc.handle : 0;
}

void* map_bo(int fd, uint32_t handle, uint64_t size) {
  struct drm_asahi_gem_mmap_offset mo = {.handle = handle};
  if (xioctl(fd, DRM_IOCTL_ASAHI_GEM_MMAP_OFFSET, &mo)) return MAP_FAILED;
  return mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, (off_t)mo.offset);
}

int bind(int fd, uint32_t vm, uint32_t flags, uint32_t handle, uint64_t offset, uint64_t range, uint64_t addr) {
  struct drm_asahi_gem_bind_op op = {.flags = flags, .handle = handle, .offset = offset, .range = range, .addr = addr};
  struct drm_asahi_vm_bind vb = {.vm_id = vm, .num_binds = 1, .stride = sizeof op, .userptr = (uintptr_t)&op};
  return xioctl(fd, DRM_IOCTL_ASAHI_VM_BIND, &vb);
}

void check_vm_and_objects(struct ctx* c) {
  const struct drm_asahi_params_global* p = &c->params;
  struct drm_asahi_vm_create vc = {.kernel_start = p->vm_end - p->vm_kernel_min_size, .kernel_end = p->vm_end};
  int ret = xioctl(c->fd, DRM_IOCTL_ASAHI_VM_CREATE, &vc);
  check(ret == 0 && vc.vm_id != 0, "VM_CREATE: vm %u", vc.vm_id);
  c->vm = vc.vm_id;
  struct drm_asahi_vm_create small = {.kernel_start = vc.kernel_start, .kernel_end = vc.kernel_start + PAGE_B};
  check(xioctl(c->fd, DRM_IOCTL_ASAHI_VM_CREATE, &small) == -EINVAL, "VM_CREATE with a one-page kernel range -> EINVAL");

  c->bo = create_bo(c->fd, 4 * PAGE_B, DRM_ASAHI_GEM_WRITEBACK, 0);
  check(c->bo != 0, "GEM_CREATE 64 KiB writeback: handle %u", c->bo);
  uint32_t* map = map_bo(c->fd, c->bo, 4 * PAGE_B);
  check(map != MAP_FAILED, "GEM_MMAP_OFFSET + mmap");
  if (map != MAP_FAILED) {
    for (uint32_t i = 0; i < 4 * PAGE_B / 4; i++) map[i] = i * 2654435761u;
    check(munmap(map, 4 * PAGE_B) == 0, "munmap");
    map = map_bo(c->fd, c->bo, 4 * PAGE_B);
    int same = map != MAP_FAILED;
    for (uint32_t i = 0; same && i < 4 * PAGE_B / 4; i++) same = map[i] == i * 2654435761u;
    check(same, "a second mapping sees the words written through the first");
    if (map != MAP_FAILED) munmap(map, 4 * PAGE_B);
  }
  struct drm_asahi_gem_mmap_offset mo = {.handle = c->bo};
  xioctl(c->fd, DRM_IOCTL_ASAHI_GEM_MMAP_OFFSET, &mo);
  check(mmap(NULL, PAGE_B, PROT_READ, MAP_PRIVATE, c->fd, (off_t)mo.offset) == MAP_FAILED && errno == EINVAL,
        "MAP_PRIVATE of an object -> EINVAL");
  check(mmap(NULL, PAGE_B, PROT_READ, MAP_SHARED, c->fd, 0x1000) == MAP_FAILED, "mmap of an unknown offset fails");
  check(create_bo(c->fd, PAGE_B, 0x80, 0) == 0 && errno == EINVAL, "GEM_CREATE unknown flag -> EINVAL");
  check(create_bo(c->fd, PAGE_B, DRM_ASAHI_GEM_VM_PRIVATE, 999) == 0 && errno == ENOENT,
        "GEM_CREATE private to an unknown VM -> ENOENT");

  c->va = 0x1000000; /* 16 MiB: inside the window, below the kernel range */
  const uint32_t rw = DRM_ASAHI_BIND_READ | DRM_ASAHI_BIND_WRITE;
  check(bind(c->fd, c->vm, rw, c->bo, 0, 4 * PAGE_B, c->va) == 0, "VM_BIND 4 pages at 0x%llx", (unsigned long long)c->va);
  check(bind(c->fd, c->vm, DRM_ASAHI_BIND_UNBIND, 0, 0, PAGE_B, c->va + PAGE_B) == 0, "VM_BIND unbind of the 2nd page");
  check(bind(c->fd, c->vm, DRM_ASAHI_BIND_READ, c->bo, 2 * PAGE_B, PAGE_B, c->va + PAGE_B) == 0,
        "VM_BIND read-only rebind of a sub-range at another object offset");
  check(bind(c->fd, c->vm, DRM_ASAHI_BIND_READ | DRM_ASAHI_BIND_SINGLE_PAGE, c->bo, 0, 16 * PAGE_B, 0x4000000) == 0,
        "VM_BIND SINGLE_PAGE: one page repeated over 16 pages (sparse)");
  check(bind(c->fd, c->vm, rw, c->bo, 0, PAGE_B, c->va + 4096) == -EINVAL, "VM_BIND misaligned address -> EINVAL");
  check(bind(c->fd, c->vm, rw, c->bo, 0, PAGE_B, p->vm_end - p->vm_kernel_min_size) == -EINVAL,
        "VM_BIND into the kernel range -> EINVAL");
  check(bind(c->fd, 999, rw, c->bo, 0, PAGE_B, c->va) == -ENOENT, "VM_BIND unknown VM -> ENOENT");
  struct drm_asahi_vm_bind zero_stride = {.vm_id = c->vm, .num_binds = 1, .stride = 0, .userptr = 1};
  check(xioctl(c->fd, DRM_IOCTL_ASAHI_VM_BIND, &zero_stride) == -EINVAL, "VM_BIND stride 0 -> EINVAL");

  c->ts_bo = create_bo(c->fd, PAGE_B, DRM_ASAHI_GEM_WRITEBACK, 0);
  struct drm_asahi_gem_bind_object bo = {.op = DRM_ASAHI_BIND_OBJECT_OP_BIND,
                                         .flags = DRM_ASAHI_BIND_OBJECT_USAGE_TIMESTAMPS,
                                         .handle = c->ts_bo, .range = PAGE_B};
  ret = xioctl(c->fd, DRM_IOCTL_ASAHI_GEM_BIND_OBJECT, &bo);
  check(ret == 0 && bo.object_handle != 0, "GEM_BIND_OBJECT timestamps buffer: object %u", bo.object_handle);
  c->ts_object = bo.object_handle;

  struct drm_asahi_queue_create qc = {.vm_id = c->vm, .priority = DRM_ASAHI_PRIORITY_MEDIUM, .usc_exec_base = 0x8000000};
  ret = xioctl(c->fd, DRM_IOCTL_ASAHI_QUEUE_CREATE, &qc);
  check(ret == 0 && qc.queue_id != 0, "QUEUE_CREATE: queue %u", qc.queue_id);
  c->queue = qc.queue_id;
  struct drm_asahi_queue_create bad = {.vm_id = c->vm, .priority = 7};
  check(xioctl(c->fd, DRM_IOCTL_ASAHI_QUEUE_CREATE, &bad) == -EINVAL, "QUEUE_CREATE priority 7 -> EINVAL");
  bad.priority = 0;
  bad.vm_id = 999;
  check(xioctl(c->fd, DRM_IOCTL_ASAHI_QUEUE_CREATE, &bad) == -ENOENT, "QUEUE_CREATE unknown VM -> ENOENT");
}

/* A shareable object exported with PRIME from one file and imported into
 * the other; a VM-private object never leaves its VM. */
void check_prime(struct ctx* c) {
  uint32_t shared = create_bo(c->fd, PAGE_B, DRM_ASAHI_GEM_WRITEBACK, 0);
  uint32_t* map = map_bo(c->fd, shared, PAGE_B);
  if (!check(shared && map != MAP_FAILED, "shareable object %u mapped", shared)) return;
  map[0] = 0xC0FFEE11u;
  map[PAGE_B / 4 - 1] = 0x5EED5EEDu;
  int dmabuf = -1;
  int ret = drmPrimeHandleToFD(c->fd, shared, DRM_CLOEXEC | DRM_RDWR, &dmabuf);
  check(ret == 0 && dmabuf >= 0, "drmPrimeHandleToFD: fd %d", dmabuf);
  uint32_t again = 0;
  ret = drmPrimeFDToHandle(c->fd, dmabuf, &again);
  check(ret == 0 && again == shared, "drmPrimeFDToHandle in the exporting file gives the same handle (%u)", again);
  uint32_t imported = 0;
  ret = drmPrimeFDToHandle(c->fd2, dmabuf, &imported);
  check(ret == 0 && imported != 0, "drmPrimeFDToHandle in the second file: handle %u", imported);
  uint32_t* view = map_bo(c->fd2, imported, PAGE_B);
  check(view != MAP_FAILED && view[0] == 0xC0FFEE11u && view[PAGE_B / 4 - 1] == 0x5EED5EEDu,
        "the second file's mapping of the import sees the exporter's words");
  if (view != MAP_FAILED) {
    view[1] = 0x1234ABCDu;
    check(map[1] == 0x1234ABCDu, "and writes through it reach the exporter");
    munmap(view, PAGE_B);
  }
  uint32_t* direct = mmap(NULL, PAGE_B, PROT_READ, MAP_SHARED, dmabuf, 0);
  check(direct != MAP_FAILED && direct[0] == 0xC0FFEE11u, "mmap of the PRIME fd itself");
  if (direct != MAP_FAILED) munmap(direct, PAGE_B);
  /* A dma-buf has a fixed size: a shrink fails and the device's pages stay. */
  check(ftruncate(dmabuf, 0) == -1 && errno == EPERM, "ftruncate of the PRIME fd -> EPERM");
  check(map[0] == 0xC0FFEE11u, "the exporter's mapping is intact after the refused shrink");
  /* A descriptor number the client closes is not the object any more. */
  const int number = dmabuf;
  close(dmabuf);
  uint32_t stale = 0;
  check(drmPrimeFDToHandle(c->fd2, number, &stale) != 0 && errno == EBADF,
        "drmPrimeFDToHandle of a closed descriptor -> EBADF");
  munmap(map, PAGE_B);

  uint32_t priv = create_bo(c->fd, PAGE_B, DRM_ASAHI_GEM_VM_PRIVATE, c->vm);
  int fd = -1;
  check(priv != 0 && drmPrimeHandleToFD(c->fd, priv, DRM_CLOEXEC, &fd) != 0 && errno == EINVAL,
        "drmPrimeHandleToFD of a VM-private object -> EINVAL");
  struct drm_asahi_vm_create vc = {.kernel_start = c->params.vm_end - c->params.vm_kernel_min_size,
                                   .kernel_end = c->params.vm_end};
  xioctl(c->fd, DRM_IOCTL_ASAHI_VM_CREATE, &vc);
  check(bind(c->fd, vc.vm_id, DRM_ASAHI_BIND_READ, priv, 0, PAGE_B, 0x2000000) == -EINVAL,
        "binding a private object into another VM -> EINVAL");
  struct drm_asahi_vm_destroy vd = {.vm_id = vc.vm_id};
  check(xioctl(c->fd, DRM_IOCTL_ASAHI_VM_DESTROY, &vd) == 0, "VM_DESTROY of the second VM");
  struct drm_gem_close gc = {.handle = priv};
  check(xioctl(c->fd, DRM_IOCTL_GEM_CLOSE, &gc) == 0, "GEM_CLOSE of the private object");
  gc.handle = shared;
  xioctl(c->fd, DRM_IOCTL_GEM_CLOSE, &gc);
  gc.handle = imported;
  xioctl(c->fd2, DRM_IOCTL_GEM_CLOSE, &gc);
}
