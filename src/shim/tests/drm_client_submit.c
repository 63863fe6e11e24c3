/* The client's submit checks: compute and render jobs, barriers,
 * timestamps, binary and timeline syncobjs; then bad input and teardown. */
#include <errno.h>
#include <linux/sync_file.h>
#include <sys/ioctl.h>
#include <fcntl.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <xf86drm.h>

#include "drm_client.h"

#ifdef AGX_CLIENT_PACKS_STREAMS
#include "agx_pack_c.h" /* generated from the cmdstream tables */
#endif

#define NONE DRM_ASAHI_BARRIER_NONE

/* Appends a command header and its payload to buf at *at. */
static void put(uint8_t* buf, size_t* at, uint16_t type, const void* payload, uint16_t size, uint16_t vdm,
                uint16_t cdm) {
  struct drm_asahi_cmd_header h = {.cmd_type = type, .size = size, .vdm_barrier = vdm, .cdm_barrier = cdm};
  memcpy(buf + *at, &h, sizeof h);
  memcpy(buf + *at + sizeof h, payload, size);
  *at += sizeof h + size;
}

static int submit(int fd, uint32_t queue, const uint8_t* cmdbuf, size_t size, const struct drm_asahi_sync* syncs,
                  uint32_t in, uint32_t out) {
  struct drm_asahi_submit s = {.syncs = (uintptr_t)syncs, .cmdbuf = (uintptr_t)cmdbuf, .queue_id = queue,
                               .in_sync_count = in, .out_sync_count = out, .cmdbuf_size = (uint32_t)size};
  return xioctl(fd, DRM_IOCTL_ASAHI_SUBMIT, &s);
}

static struct drm_asahi_timestamps stamps(uint32_t object, uint32_t slot) {
  struct drm_asahi_timestamps t = {{object, slot * 8}, {object, slot * 8 + 8}};
  return t;
}

/* The compute commands run on the software GPU: their CDM stream at c->va
 * is one Stream Terminate word, so the job completes without a fault. */
static int write_terminate_stream(const struct ctx* c) {
#ifndef AGX_CLIENT_PACKS_STREAMS
  (void)c;
  return 1; /* built without the software GPU: the firmware reads no stream */
#else
  uint8_t* p = map_bo(c->fd, c->bo, PAGE_B);
  if (p == MAP_FAILED) return 0;
  struct agx_cdm_stream_terminate t;
  agx_cdm_stream_terminate_init(&t);
  int ok = agx_cdm_stream_terminate_pack(p, &t) == 0;
  munmap(p, PAGE_B);
  return ok;
#endif
}

static struct drm_asahi_cmd_compute compute_cmd(const struct ctx* c, uint32_t ts_slot) {
  struct drm_asahi_cmd_compute cc = {.cdm_ctrl_stream_base = c->va, .cdm_ctrl_stream_end = c->va + 64,
                                     .ts = stamps(c->ts_object, ts_slot)};
  return cc;
}

static struct drm_asahi_cmd_render render_cmd(const struct ctx* c, uint32_t ts_slot) {
  struct drm_asahi_cmd_render r = {.vdm_ctrl_stream_base = c->va, .width_px = 64, .height_px = 64, .layers = 1,
                                   .utile_width_px = 32, .utile_height_px = 32, .samples = 1, .sample_size_B = 4,
                                   .ts_vtx = stamps(c->ts_object, ts_slot),
                                   .ts_frag = stamps(c->ts_object, ts_slot + 2)};
  return r;
}

static uint64_t now(int fd) {
  struct drm_asahi_get_time t = {0};
  xioctl(fd, DRM_IOCTL_ASAHI_GET_TIME, &t);
  return t.gpu_timestamp;
}

void check_submits(struct ctx* c) {
  volatile uint64_t* ts = map_bo(c->fd, c->ts_bo, PAGE_B);
  if (!check(ts != MAP_FAILED, "timestamp buffer mapped")) return;
  check(write_terminate_stream(c), "CDM stream at 0x%llx: one Stream Terminate word (agx_pack_c.h)",
        (unsigned long long)c->va);
  uint32_t done = 0, timeline = 0;
  int ok = drmSyncobjCreate(c->fd, 0, &done) == 0 && drmSyncobjCreate(c->fd, 0, &timeline) == 0;
  check(ok, "drmSyncobjCreate: binary %u, timeline %u", done, timeline);
  uint8_t buf[1024];
  size_t n = 0;

  /* 1. Compute, after setting its attachments; out-sync: binary. */
  const uint64_t t0 = now(c->fd);
  struct drm_asahi_attachment att = {.pointer = c->va, .size = PAGE_B};
  put(buf, &n, DRM_ASAHI_SET_COMPUTE_ATTACHMENTS, &att, sizeof att, NONE, NONE);
  struct drm_asahi_cmd_compute cc = compute_cmd(c, 0);
  put(buf, &n, DRM_ASAHI_CMD_COMPUTE, &cc, sizeof cc, NONE, 0);
  struct drm_asahi_sync out_done = {.sync_type = DRM_ASAHI_SYNC_SYNCOBJ, .handle = done};
  check(submit(c->fd, c->queue, buf, n, &out_done, 0, 1) == 0, "SUBMIT compute (with compute attachments)");
  check(drmSyncobjWait(c->fd, &done, 1, INT64_MAX, DRM_SYNCOBJ_WAIT_FLAGS_WAIT_ALL, NULL) == 0,
        "drmSyncobjWait: the compute job signaled its out-sync");
  const uint64_t t1 = now(c->fd);
  check(t0 <= ts[0] && ts[0] <= ts[1] && ts[1] <= t1, "compute timestamps %llu..%llu inside [%llu, %llu]",
        (unsigned long long)ts[0], (unsigned long long)ts[1], (unsigned long long)t0, (unsigned long long)t1);

  /* The job's fence status, as a sync file shows it: 1 (signaled without
   * error; a faulted job would read -EIO). */
  int status_fd = -1;
  struct sync_file_info info = {0};
  struct sync_fence_info fence_info = {0};
  ok = drmSyncobjExportSyncFile(c->fd, done, &status_fd) == 0 && ioctl(status_fd, SYNC_IOC_FILE_INFO, &info) == 0;
  check(ok && info.status == 1 && info.num_fences == 1, "SYNC_IOC_FILE_INFO: status %d, %u fences", info.status,
        info.num_fences);
  info.sync_fence_info = (uintptr_t)&fence_info;
  ok = status_fd >= 0 && ioctl(status_fd, SYNC_IOC_FILE_INFO, &info) == 0;
  check(ok && fence_info.status == 1 && strcmp(fence_info.driver_name, "asahi") == 0,
        "SYNC_IOC_FILE_INFO with a fence array: driver %s, status %d", fence_info.driver_name, fence_info.status);
  if (status_fd >= 0) close(status_fd);

  /* 2. Render waiting on the compute job; out-sync: timeline point 1. */
  n = 0;
  struct drm_asahi_cmd_render rc = render_cmd(c, 2);
  put(buf, &n, DRM_ASAHI_CMD_RENDER, &rc, sizeof rc, 0, NONE);
  struct drm_asahi_sync syncs[2] = {{.sync_type = DRM_ASAHI_SYNC_SYNCOBJ, .handle = done},
                                    {.sync_type = DRM_ASAHI_SYNC_TIMELINE_SYNCOBJ, .handle = timeline,
                                     .timeline_value = 1}};
  check(submit(c->fd, c->queue, buf, n, syncs, 1, 1) == 0, "SUBMIT render, in-sync binary, out-sync timeline point 1");
  uint64_t point = 1;
  check(drmSyncobjTimelineWait(c->fd, &timeline, &point, 1, INT64_MAX, DRM_SYNCOBJ_WAIT_FLAGS_WAIT_ALL, NULL) == 0,
        "drmSyncobjTimelineWait point 1");
  check(ts[1] <= ts[2] && ts[2] <= ts[3] && ts[3] <= ts[4] && ts[4] <= ts[5],
        "render: vertex %llu..%llu then fragment %llu..%llu, after the compute job", (unsigned long long)ts[2],
        (unsigned long long)ts[3], (unsigned long long)ts[4], (unsigned long long)ts[5]);
  point = 0;
  ok = drmSyncobjQuery(c->fd, &timeline, &point, 1) == 0;
  check(ok && point == 1, "drmSyncobjQuery: timeline at %llu", (unsigned long long)point);

  /* 3. One job: C1 then R1 whose vertex half waits on boundary 1 of compute. */
  n = 0;
  cc = compute_cmd(c, 6);
  put(buf, &n, DRM_ASAHI_CMD_COMPUTE, &cc, sizeof cc, NONE, 0);
  rc = render_cmd(c, 8);
  put(buf, &n, DRM_ASAHI_CMD_RENDER, &rc, sizeof rc, NONE, 1);
  syncs[1].timeline_value = 2;
  check(submit(c->fd, c->queue, buf, n, &syncs[1], 0, 1) == 0, "SUBMIT C1 + R1 (cdm_barrier 1) -> point 2");
  point = 2;
  check(drmSyncobjTimelineWait(c->fd, &timeline, &point, 1, INT64_MAX, DRM_SYNCOBJ_WAIT_FLAGS_WAIT_ALL, NULL) == 0,
        "drmSyncobjTimelineWait point 2");
  check(ts[7] <= ts[8] && ts[9] <= ts[10], "R1's vertex half started after C1 ended (%llu <= %llu)",
        (unsigned long long)ts[7], (unsigned long long)ts[8]);

  /* Syncobj plumbing: signal, reset, transfer, export to the other file. */
  uint32_t other = 0, imported = 0;
  int sync_fd = -1;
  drmSyncobjCreate(c->fd, 0, &other);
  check(drmSyncobjSignal(c->fd, &other, 1) == 0 &&
            drmSyncobjWait(c->fd, &other, 1, 0, 0, NULL) == 0,
        "drmSyncobjSignal, then a zero-timeout wait succeeds");
  /* libdrm's syncobj wrappers return -errno. */
  check(drmSyncobjReset(c->fd, &other, 1) == 0 &&
            drmSyncobjWait(c->fd, &other, 1, 0, DRM_SYNCOBJ_WAIT_FLAGS_WAIT_FOR_SUBMIT, NULL) == -ETIME,
        "drmSyncobjReset, then a zero-timeout wait for submit -> ETIME");
  check(drmSyncobjWait(c->fd, &other, 1, 0, 0, NULL) == -EINVAL,
        "waiting on a reset syncobj without WAIT_FOR_SUBMIT -> EINVAL");
  check(drmSyncobjTransfer(c->fd, other, 0, timeline, 2, 0) == 0 &&
            drmSyncobjWait(c->fd, &other, 1, INT64_MAX, 0, NULL) == 0,
        "drmSyncobjTransfer of timeline point 2 into a binary syncobj");
  check(drmSyncobjHandleToFD(c->fd, timeline, &sync_fd) == 0 &&
            drmSyncobjFDToHandle(c->fd2, sync_fd, &imported) == 0,
        "drmSyncobjHandleToFD / drmSyncobjFDToHandle into the second file");
  point = 2;
  check(drmSyncobjTimelineWait(c->fd2, &imported, &point, 1, INT64_MAX, 0, NULL) == 0,
        "the second file waits on the shared timeline");
  if (sync_fd >= 0) close(sync_fd);
  check(drmSyncobjTimelineSignal(c->fd, &timeline, &(uint64_t){5}, 1) == 0 &&
            drmSyncobjQuery(c->fd, &timeline, &point, 1) == 0 && point == 5,
        "drmSyncobjTimelineSignal to 5");
  drmSyncobjDestroy(c->fd2, imported);
  drmSyncobjDestroy(c->fd, other);
  drmSyncobjDestroy(c->fd, done);
  drmSyncobjDestroy(c->fd, timeline);
  munmap((void*)ts, PAGE_B);
}

void check_errors_and_teardown(struct ctx* c) {
  uint8_t buf[(sizeof(struct drm_asahi_cmd_header) + sizeof(struct drm_asahi_cmd_compute)) * 65];
  size_t n = 0;
  struct drm_asahi_cmd_compute cc = compute_cmd(c, 0);
  check(submit(c->fd, c->queue, buf, 0, NULL, 0, 0) == -EINVAL, "SUBMIT with no command -> EINVAL");
  for (int i = 0; i < 65; i++) put(buf, &n, DRM_ASAHI_CMD_COMPUTE, &cc, sizeof cc, NONE, NONE);
  check(submit(c->fd, c->queue, buf, n, NULL, 0, 0) == -EINVAL, "SUBMIT with 65 commands -> EINVAL");
  n = 0;
  put(buf, &n, DRM_ASAHI_CMD_COMPUTE, &cc, sizeof cc, NONE, 2);
  check(submit(c->fd, c->queue, buf, n, NULL, 0, 0) == -EINVAL, "SUBMIT barrier on a future boundary -> EINVAL");
  n = 0;
  put(buf, &n, DRM_ASAHI_CMD_COMPUTE, &cc, sizeof cc, NONE, NONE);
  check(submit(c->fd, c->queue, buf, n - 4, NULL, 0, 0) == -EINVAL, "SUBMIT truncated command buffer -> EINVAL");
  check(submit(c->fd, 999, buf, n, NULL, 0, 0) == -ENOENT, "SUBMIT unknown queue -> ENOENT");
  struct drm_asahi_sync bad = {.sync_type = DRM_ASAHI_SYNC_SYNCOBJ, .handle = 999};
  check(submit(c->fd, c->queue, buf, n, &bad, 0, 1) == -ENOENT, "SUBMIT unknown out-syncobj -> ENOENT");
  uint32_t h = 999;
  check(drmSyncobjWait(c->fd, &h, 1, 0, 0, NULL) == -ENOENT, "drmSyncobjWait unknown handle -> ENOENT");
  struct drm_gem_close gc = {.handle = 999};
  check(xioctl(c->fd, DRM_IOCTL_GEM_CLOSE, &gc) == -EINVAL, "GEM_CLOSE unknown handle -> EINVAL");
  /* torvalds/linux drivers/gpu/drm/drm_ioctl.c, drm_ioctl(): a DRM number
     with no entry is EINVAL; drm_ioctl_permit(): GEM_FLINK (drm_gem.c) and
     SET_MASTER (drm_auth.c) are not for render nodes, EACCES. */
  check(xioctl(c->fd, DRM_IOWR(DRM_COMMAND_BASE + 0x3f, struct drm_asahi_get_time), &gc) == -EINVAL,
        "unknown driver ioctl -> EINVAL");
  /* The holes of the core table (slots of removed legacy ioctls, numbers
     never assigned, past SET_CLIENT_NAME): EINVAL before the argument is
     read, so even a bad pointer is EINVAL. 0x3f (UPDATE_DRAW) is an entry
     (drm_noop without DRM_RENDER_ALLOW): EACCES. */
  static const unsigned char holes[][2] = {{0x03, 0x04}, {0x0e, 0x0f}, {0x14, 0x1d}, {0x20, 0x26},
                                           {0x29, 0x2b}, {0x2f, 0x39}, {0x3d, 0x3e}, {0xd2, 0xff}};
  int hole_errors = 0;
  for (size_t i = 0; i < sizeof holes / sizeof holes[0]; ++i)
    for (unsigned nr = holes[i][0]; nr <= holes[i][1]; ++nr)
      hole_errors += xioctl(c->fd, _IOC(_IOC_READ | _IOC_WRITE, DRM_IOCTL_BASE, nr, 16), (void*)16) != -EINVAL;
  check(hole_errors == 0, "every hole of the core table -> EINVAL (%d did not)", hole_errors);
  check(xioctl(c->fd, DRM_IOCTL_UPDATE_DRAW, (void*)16) == -EFAULT, "UPDATE_DRAW reads its argument first");
  struct drm_update_draw ud = {0};
  check(xioctl(c->fd, DRM_IOCTL_UPDATE_DRAW, &ud) == -EACCES, "UPDATE_DRAW on a render node -> EACCES");
  check(xioctl(c->fd, _IOWR('x', 1, int), &gc) == -ENOTTY, "another ioctl type -> ENOTTY");
  struct drm_gem_flink fl = {.handle = 1};
  check(xioctl(c->fd, DRM_IOCTL_GEM_FLINK, &fl) == -EACCES, "GEM_FLINK on a render node -> EACCES");
  check(xioctl(c->fd, DRM_IOCTL_SET_MASTER, NULL) == -EACCES, "SET_MASTER on a render node -> EACCES");
  check(xioctl(c->fd, DRM_IOCTL_ASAHI_GET_TIME, (void*)16) == -EFAULT, "bad argument pointer -> EFAULT");

  /* A dup shares the open file; a closed descriptor is gone. */
  const int dupfd = fcntl(c->fd, F_DUPFD_CLOEXEC, 100);
  struct drm_asahi_queue_destroy qd = {.queue_id = c->queue};
  const int ret = xioctl(dupfd, DRM_IOCTL_ASAHI_QUEUE_DESTROY, &qd);
  check(dupfd >= 100 && ret == 0, "QUEUE_DESTROY through a dup (fd %d)", dupfd);
  check(xioctl(c->fd, DRM_IOCTL_ASAHI_QUEUE_DESTROY, &qd) == -ENOENT, "QUEUE_DESTROY again -> ENOENT");
  close(dupfd);
  struct drm_asahi_gem_bind_object ub = {.op = DRM_ASAHI_BIND_OBJECT_OP_UNBIND, .object_handle = c->ts_object};
  check(xioctl(c->fd, DRM_IOCTL_ASAHI_GEM_BIND_OBJECT, &ub) == 0, "GEM_BIND_OBJECT unbind of the timestamps");
  struct drm_asahi_vm_destroy vd = {.vm_id = c->vm};
  check(xioctl(c->fd, DRM_IOCTL_ASAHI_VM_DESTROY, &vd) == 0, "VM_DESTROY");
  gc.handle = c->bo;
  check(xioctl(c->fd, DRM_IOCTL_GEM_CLOSE, &gc) == 0, "GEM_CLOSE");
  gc.handle = c->ts_bo;
  xioctl(c->fd, DRM_IOCTL_GEM_CLOSE, &gc);
  check(close(c->fd2) == 0 && xioctl(c->fd2, DRM_IOCTL_VERSION, &(struct drm_version){0}) == -EBADF,
        "after close() the descriptor is gone (EBADF)");
  check(close(c->fd) == 0, "close");
}
