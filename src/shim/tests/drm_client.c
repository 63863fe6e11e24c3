/*
 * An unmodified libdrm client of the Asahi UAPI, in C11, built against libdrm
 * and include/agx/asahi_drm.h only. Run under the shim
 * (LD_PRELOAD=libagx_shim.so) it finds the render node the way a driver
 * does, then goes through params, VMs, objects, mmap writes, binds,
 * timestamp buffers, compute and render submits with binary and timeline
 * syncobjs, PRIME export/import, and error cases. It prints one line per
 * check and exits 1 on any mismatch (or when there is no asahi node).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>
#include <xf86drm.h>

#include "drm_client.h"


static void check_discovery(struct ctx* c) {
  drmVersionPtr v = drmGetVersion(c->fd);
  check(v && strcmp(v->name, "asahi") == 0, "drmGetVersion name \"%s\" (%s)", v ? v->name : "?",
        v ? v->desc : "?");
  drmFreeVersion(v);
  check(drmGetNodeTypeFromFd(c->fd) == DRM_NODE_RENDER, "drmGetNodeTypeFromFd is DRM_NODE_RENDER");
  char* name = drmGetRenderDeviceNameFromFd(c->fd);
  check(name && strcmp(name, "/dev/dri/renderD128") == 0, "render device name %s", name ? name : "(null)");
  free(name);
  struct stat st;
  check(fstat(c->fd, &st) == 0 && S_ISCHR(st.st_mode) && major(st.st_rdev) == 226 && minor(st.st_rdev) == 128,
        "fstat: character device 226:128");
  drmDevicePtr dev = NULL;
  int ret = drmGetDevice2(c->fd, 0, &dev);
  check(ret == 0 && dev && dev->bustype == DRM_BUS_PLATFORM && (dev->available_nodes & (1 << DRM_NODE_RENDER)),
        "drmGetDevice2: platform bus device with a render node (ret %d)", ret);
  if (ret == 0 && dev) {
    check(strcmp(dev->businfo.platform->fullname, "/soc/gpu@206400000") == 0, "device-tree node %s",
          dev->businfo.platform->fullname);
    const char* compat = dev->deviceinfo.platform->compatible[0];
    check(compat && strcmp(compat, "apple,agx-g13g") == 0, "compatible %s", compat ? compat : "(null)");
    drmFreeDevice(&dev);
  }
  check(drmGetDevices2(0, NULL, 0) == 1, "drmGetDevices2 counts exactly one device");
  uint64_t cap = 0;
  check(drmGetCap(c->fd, DRM_CAP_SYNCOBJ_TIMELINE, &cap) == 0 && cap == 1, "DRM_CAP_SYNCOBJ_TIMELINE = 1");
  c->fd2 = open("/dev/dri/renderD128", O_RDWR | O_CLOEXEC);
  check(c->fd2 >= 0 && c->fd2 != c->fd, "open(\"/dev/dri/renderD128\") gives a second file (fd %d)", c->fd2);
  check(access("/dev/dri/renderD129", F_OK) != 0 && errno == ENOENT, "no other DRM node is visible");
}

static void check_params(struct ctx* c) {
  struct drm_asahi_get_params gp = {.param_group = 0, .pointer = (uintptr_t)&c->params, .size = sizeof c->params};
  check(xioctl(c->fd, DRM_IOCTL_ASAHI_GET_PARAMS, &gp) == 0, "GET_PARAMS");
  const struct drm_asahi_params_global* p = &c->params;
  check(p->gpu_generation == 13 && p->gpu_variant == 'G' && p->chip_id == 0x8103,
        "G13G, chip 0x%x, %u cluster(s) of %u cores, core mask 0x%llx", p->chip_id, p->num_clusters_total,
        p->num_cores_per_cluster, (unsigned long long)p->core_masks[0]);
  check(p->max_commands_per_submission == 64, "max_commands_per_submission %u", p->max_commands_per_submission);
  check(p->vm_start < p->vm_end && p->vm_kernel_min_size > 0 && p->command_timestamp_frequency_hz > 0,
        "VM window [0x%llx, 0x%llx), kernel range >= 0x%llx, timestamps at %llu Hz", (unsigned long long)p->vm_start,
        (unsigned long long)p->vm_end, (unsigned long long)p->vm_kernel_min_size,
        (unsigned long long)p->command_timestamp_frequency_hz);
  /* A shorter buffer: only that many bytes are written. */
  uint8_t small[24];
  memset(small, 0xAB, sizeof small);
  gp.pointer = (uintptr_t)small;
  gp.size = 12;
  check(xioctl(c->fd, DRM_IOCTL_ASAHI_GET_PARAMS, &gp) == 0 && memcmp(small, p, 12) == 0 && small[12] == 0xAB,
        "GET_PARAMS with a 12-byte buffer writes exactly 12 bytes");
  gp.param_group = 1;
  check(xioctl(c->fd, DRM_IOCTL_ASAHI_GET_PARAMS, &gp) == -EINVAL, "GET_PARAMS param_group 1 -> EINVAL");
  struct drm_asahi_get_time t1 = {0}, t2 = {0};
  check(xioctl(c->fd, DRM_IOCTL_ASAHI_GET_TIME, &t1) == 0 && xioctl(c->fd, DRM_IOCTL_ASAHI_GET_TIME, &t2) == 0 &&
            t2.gpu_timestamp >= t1.gpu_timestamp && t1.gpu_timestamp > 0,
        "GET_TIME is monotonic");
  t1.flags = 1;
  check(xioctl(c->fd, DRM_IOCTL_ASAHI_GET_TIME, &t1) == -EINVAL, "GET_TIME flags 1 -> EINVAL");
}


int main(void) {
  struct ctx c = {.fd = -1, .fd2 = -1};
  c.fd = drmOpenWithType("asahi", NULL, DRM_NODE_RENDER);
  if (!check(c.fd >= 0, "drmOpenWithType(\"asahi\", render) opens fd %d", c.fd)) {
    printf("drm_client: no asahi render node (run under LD_PRELOAD=libagx_shim.so)\n");
    return 1;
  }
  check_discovery(&c);
  check_params(&c);
  check_vm_and_objects(&c);
  check_submits(&c);
  check_prime(&c);
  check_errors_and_teardown(&c);
  return check_summary("drm_client");
}
