// Helpers for kmd tests: a fresh Device and File, and short ioctl wrappers.
#pragma once

#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "kmd/kmd.h"

namespace agx::kmd::test {

inline constexpr uint64_t kPage = 0x4000;
inline constexpr uint64_t kKernelStart = 0x40'0000'0000, kKernelEnd = kKernelStart + 0x20000000;
inline constexpr uint64_t kUserVa = 0x1'0000'0000;

// Appends a command header and payload to a command buffer.
template <typename T>
void append(std::vector<uint8_t>& buf, uint16_t type, const T& payload, uint16_t vdm = DRM_ASAHI_BARRIER_NONE,
            uint16_t cdm = DRM_ASAHI_BARRIER_NONE, uint16_t size = sizeof(T)) {
  drm_asahi_cmd_header h{type, size, vdm, cdm};
  const auto* hp = reinterpret_cast<const uint8_t*>(&h);
  buf.insert(buf.end(), hp, hp + sizeof h);
  const auto* pp = reinterpret_cast<const uint8_t*>(&payload);
  buf.insert(buf.end(), pp, pp + std::min<size_t>(size, sizeof(T)));
  buf.resize(buf.size() + (size > sizeof(T) ? size - sizeof(T) : 0), 0);
}

inline drm_asahi_cmd_render valid_render() {
  drm_asahi_cmd_render r{};
  r.width_px = 64;
  r.height_px = 64;
  r.layers = 1;
  r.samples = 1;
  r.utile_width_px = 32;
  r.utile_height_px = 32;
  return r;
}

class KmdTest : public ::testing::Test {
 protected:
  Device device;
  std::unique_ptr<File> file = open_file(device);

  template <typename T>
  int io(unsigned long req, T& arg) { return file->ioctl(req, &arg); }

  uint32_t vm() {
    drm_asahi_vm_create c{kKernelStart, kKernelEnd, 0, 0};
    EXPECT_EQ(io(DRM_IOCTL_ASAHI_VM_CREATE, c), 0);
    return c.vm_id;
  }
  uint32_t gem(uint64_t size, uint32_t flags = 0, uint32_t vm_id = 0) {
    drm_asahi_gem_create c{size, flags, vm_id, 0, 0};
    EXPECT_EQ(io(DRM_IOCTL_ASAHI_GEM_CREATE, c), 0);
    return c.handle;
  }
  uint8_t* map(uint32_t handle, size_t size) {
    drm_asahi_gem_mmap_offset m{handle, 0, 0};
    EXPECT_EQ(io(DRM_IOCTL_ASAHI_GEM_MMAP_OFFSET, m), 0);
    int err = 1;
    void* p = file->mmap(m.offset, size, &err);
    EXPECT_EQ(err, 0);
    return static_cast<uint8_t*>(p);
  }
  int bind(uint32_t vm_id, uint32_t handle, uint64_t offset, uint64_t range, uint64_t addr,
           uint32_t flags = DRM_ASAHI_BIND_READ | DRM_ASAHI_BIND_WRITE) {
    drm_asahi_gem_bind_op op{flags, handle, offset, range, addr};
    drm_asahi_vm_bind b{vm_id, 1, sizeof op, 0, reinterpret_cast<uint64_t>(&op)};
    return io(DRM_IOCTL_ASAHI_VM_BIND, b);
  }
  uint32_t queue(uint32_t vm_id) {
    drm_asahi_queue_create q{0, vm_id, DRM_ASAHI_PRIORITY_MEDIUM, 0, 0};
    EXPECT_EQ(io(DRM_IOCTL_ASAHI_QUEUE_CREATE, q), 0);
    return q.queue_id;
  }
  uint32_t syncobj(uint32_t flags = 0) {
    drm_syncobj_create c{0, flags};
    EXPECT_EQ(io(DRM_IOCTL_SYNCOBJ_CREATE, c), 0);
    return c.handle;
  }
  int submit(uint32_t queue_id, const std::vector<uint8_t>& cmdbuf, std::vector<drm_asahi_sync> in = {},
             std::vector<drm_asahi_sync> out = {}) {
    std::vector<drm_asahi_sync> syncs = in;
    syncs.insert(syncs.end(), out.begin(), out.end());
    drm_asahi_submit s{};
    s.syncs = reinterpret_cast<uint64_t>(syncs.data());
    s.cmdbuf = reinterpret_cast<uint64_t>(cmdbuf.data());
    s.queue_id = queue_id;
    s.in_sync_count = uint32_t(in.size());
    s.out_sync_count = uint32_t(out.size());
    s.cmdbuf_size = uint32_t(cmdbuf.size());
    return io(DRM_IOCTL_ASAHI_SUBMIT, s);
  }
  int wait(uint32_t handle, int64_t timeout_ns = INT64_MAX, uint32_t flags = 0) {
    drm_syncobj_wait w{reinterpret_cast<uint64_t>(&handle), timeout_ns, 1, flags, 0, 0};
    return io(DRM_IOCTL_SYNCOBJ_WAIT, w);
  }
  int wait_point(uint32_t handle, uint64_t point, int64_t timeout_ns = INT64_MAX, uint32_t flags = 0) {
    drm_syncobj_timeline_wait w{reinterpret_cast<uint64_t>(&handle), reinterpret_cast<uint64_t>(&point),
                                timeout_ns, 1, flags, 0, 0};
    return io(DRM_IOCTL_SYNCOBJ_TIMELINE_WAIT, w);
  }
  int signal(uint32_t handle) {
    drm_syncobj_array a{reinterpret_cast<uint64_t>(&handle), 1, 0};
    return io(DRM_IOCTL_SYNCOBJ_SIGNAL, a);
  }
};

inline drm_asahi_sync binary(uint32_t handle) { return {DRM_ASAHI_SYNC_SYNCOBJ, handle, 0}; }
inline drm_asahi_sync point(uint32_t handle, uint64_t v) { return {DRM_ASAHI_SYNC_TIMELINE_SYNCOBJ, handle, v}; }

}  // namespace agx::kmd::test
