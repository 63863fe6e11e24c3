// SYNC_IOC_FILE_INFO on sync files exported by SYNCOBJ_HANDLE_TO_FD
// (EXPORT_SYNC_FILE): the one place the DRM UAPI shows a waiter the error of
// a signaled fence (linux/sync_file.h: status 1 = signaled, 0 = active,
// negative = signaled with that error). Syncobj waits succeed whatever the
// error, as in the DRM core (torvalds/linux drivers/gpu/drm/drm_syncobj.c).
#include <linux/sync_file.h>

#include <cerrno>
#include <cstring>

#include "kmd/internal.h"

namespace agx::kmd {

namespace {

FencePtr find_sync_file(Device::Impl& dev, int fd) {
  std::pair<dev_t, ino_t> key;
  if (fd_key(fd, &key) != 0) return nullptr;
  std::lock_guard g(dev.table_mu);
  auto it = dev.sync_files.find(key);
  return it == dev.sync_files.end() ? nullptr : it->second;
}

int fence_status(const Fence& f) {
  if (!f.signaled.load(std::memory_order_acquire)) return 0;
  int error = f.error.load();
  return error ? error : 1;
}

}  // namespace

bool is_sync_file(Device& device, int fd) { return find_sync_file(device.impl(), fd) != nullptr; }

int sync_file_ioctl(Device& device, int fd, unsigned long request, void* arg) {
  if (request != SYNC_IOC_FILE_INFO) return -ENOTTY;
  FencePtr fence = find_sync_file(device.impl(), fd);
  if (!fence) return -EINVAL;
  if (!arg) return -EFAULT;
  sync_file_info info;
  std::memcpy(&info, arg, sizeof info);
  if (info.flags || info.pad) return -EINVAL;
  const uint32_t num_fences = 1;  // a sync file of one job fence
  if (info.num_fences == 0) {
    info.status = fence_status(*fence);
  } else {
    if (info.num_fences < num_fences) return -EINVAL;
    if (!info.sync_fence_info) return -EFAULT;
    sync_fence_info fi{};
    std::snprintf(fi.obj_name, sizeof fi.obj_name, "%s", "asahi-queue");
    std::snprintf(fi.driver_name, sizeof fi.driver_name, "%s", kDriverName);
    fi.status = fence_status(*fence);
    fi.timestamp_ns = fi.status != 0 ? fence->timestamp_ns.load() : 0;
    std::memcpy(reinterpret_cast<void*>(info.sync_fence_info), &fi, sizeof fi);
    info.status = fi.status;
  }
  std::memset(info.name, 0, sizeof info.name);
  std::snprintf(info.name, sizeof info.name, "%s", "asahi-job");
  info.num_fences = num_fences;
  std::memcpy(arg, &info, sizeof info);
  return 0;
}

}  // namespace agx::kmd
