/* What the C clients share: checks, the arena, kernels, device setup and
 * the submit of one command. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <xf86drm.h>

#include "client.h"

#ifndef KERNEL_DIR
#error "KERNEL_DIR must name the folder of the assembled kernels"
#endif


uint64_t arena_alloc(struct client* c, uint64_t size, uint64_t align) {
  uint64_t at = (c->used_B + align - 1) / align * align;
  if (at + size > c->arena_B) return 0;
  c->used_B = at + size;
  return ARENA_VA + at;
}

void* arena_host(struct client* c, uint64_t va) { return c->map + (va - ARENA_VA); }

uint64_t load_kernel(struct client* c, const char* name) {
  char path[512];
  snprintf(path, sizeof path, "%s/%s.bin", KERNEL_DIR, name);
  FILE* f = fopen(path, "rb");
  if (!f) {
    check(0, "open kernel %s", path);
    return 0;
  }
  uint8_t code[4096];
  size_t n = fread(code, 1, sizeof code, f);
  fclose(f);
  uint64_t va = arena_alloc(c, n, 128);
  if (va) memcpy(arena_host(c, va), code, n);
  return va;
}


int submit_command(struct client* c, uint16_t type, const void* body, uint16_t size) {
  _Alignas(8) uint8_t buf[sizeof(struct drm_asahi_cmd_header) + sizeof(struct drm_asahi_cmd_render)];
  if (size > sizeof buf - sizeof(struct drm_asahi_cmd_header)) return -EINVAL;
  struct drm_asahi_cmd_header h = {.cmd_type = type, .size = size, .vdm_barrier = DRM_ASAHI_BARRIER_NONE,
                                   .cdm_barrier = DRM_ASAHI_BARRIER_NONE};
  memcpy(buf, &h, sizeof h);
  memcpy(buf + sizeof h, body, size);
  struct drm_asahi_sync out = {.sync_type = DRM_ASAHI_SYNC_SYNCOBJ, .handle = c->syncobj};
  struct drm_asahi_submit sub = {.syncs = (uintptr_t)&out, .cmdbuf = (uintptr_t)buf, .queue_id = c->queue,
                                 .out_sync_count = 1, .cmdbuf_size = (uint32_t)(sizeof h + size)};
  int r = xioctl(c->fd, DRM_IOCTL_ASAHI_SUBMIT, &sub);
  if (r) return r;
  return drmSyncobjWait(c->fd, &c->syncobj, 1, INT64_MAX, DRM_SYNCOBJ_WAIT_FLAGS_WAIT_ALL, NULL);
}

/* ---- setup ---- */

int open_client(struct client* c, uint64_t arena_B) {
  memset(c, 0, sizeof *c);
  c->fd = drmOpenWithType("asahi", NULL, DRM_NODE_RENDER);
  if (!check(c->fd >= 0, "drmOpenWithType(\"asahi\", render) opens fd %d", c->fd)) return 0;
  struct drm_asahi_vm_create vc = {.kernel_start = 0x4000000000ull, .kernel_end = 0x4020000000ull};
  if (!check(xioctl(c->fd, DRM_IOCTL_ASAHI_VM_CREATE, &vc) == 0, "VM_CREATE")) return 0;
  c->vm = vc.vm_id;
  struct drm_asahi_gem_create gc = {.size = arena_B};
  if (!check(xioctl(c->fd, DRM_IOCTL_ASAHI_GEM_CREATE, &gc) == 0, "GEM_CREATE arena of %llu MiB",
             (unsigned long long)(arena_B >> 20)))
    return 0;
  c->bo = gc.handle;
  c->arena_B = arena_B;
  struct drm_asahi_gem_mmap_offset mo = {.handle = c->bo};
  if (!check(xioctl(c->fd, DRM_IOCTL_ASAHI_GEM_MMAP_OFFSET, &mo) == 0, "GEM_MMAP_OFFSET")) return 0;
  c->map = mmap(NULL, arena_B, PROT_READ | PROT_WRITE, MAP_SHARED, c->fd, (off_t)mo.offset);
  if (!check(c->map != MAP_FAILED, "mmap of the arena")) return 0;
  struct drm_asahi_gem_bind_op op = {.flags = DRM_ASAHI_BIND_READ | DRM_ASAHI_BIND_WRITE, .handle = c->bo,
                                     .range = arena_B, .addr = ARENA_VA};
  struct drm_asahi_vm_bind vb = {.vm_id = c->vm, .num_binds = 1, .stride = sizeof op, .userptr = (uintptr_t)&op};
  if (!check(xioctl(c->fd, DRM_IOCTL_ASAHI_VM_BIND, &vb) == 0, "VM_BIND arena at 0x%llx",
             (unsigned long long)ARENA_VA))
    return 0;
  struct drm_asahi_queue_create qc = {.vm_id = c->vm, .priority = DRM_ASAHI_PRIORITY_MEDIUM,
                                      .usc_exec_base = ARENA_VA};
  if (!check(xioctl(c->fd, DRM_IOCTL_ASAHI_QUEUE_CREATE, &qc) == 0, "QUEUE_CREATE (usc_exec_base 0x%llx)",
             (unsigned long long)ARENA_VA))
    return 0;
  c->queue = qc.queue_id;
  return check(drmSyncobjCreate(c->fd, 0, &c->syncobj) == 0, "drmSyncobjCreate");
}
