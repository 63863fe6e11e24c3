// The DRM syncobj ioctls, binary and timeline, with the DRM core's checks
// (drivers/gpu/drm/drm_syncobj.c in torvalds/linux): -EINVAL for bad flags,
// nonzero pad or an empty array, -ENOENT for an unknown handle, -ETIME when
// a wait times out.
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "kmd/file_impl.h"
#include "kmd/uaccess.h"

namespace agx::kmd {

namespace {

// The kernel copies a handle or point array with one kmalloc_array(); past
// KMALLOC_MAX_SIZE (4 MiB with 4 KiB pages) that allocation fails: -ENOMEM.
constexpr uint64_t kMaxArray_B = uint64_t{4} << 20;

template <typename T>
int read_array(uint64_t ptr, uint32_t count, std::vector<T>& out) {
  if (uint64_t(count) * sizeof(T) > kMaxArray_B) return -ENOMEM;
  out.resize(count);
  return copy_from_user(out.data(), ptr, out.size() * sizeof(T));
}

Clock::time_point deadline_of(int64_t timeout_ns) {
  // An absolute CLOCK_MONOTONIC time, like the kernel's.
  return Clock::time_point(std::chrono::nanoseconds(timeout_ns < 0 ? 0 : timeout_ns));
}

}  // namespace

SyncobjPtr FileImpl::syncobj(uint32_t handle) {
  std::lock_guard g(mu_);
  auto it = syncobjs_.find(handle);
  return it == syncobjs_.end() ? nullptr : it->second;
}

int FileImpl::syncobjs(uint64_t handles_ptr, uint32_t count, std::vector<SyncobjPtr>& out) {
  if (count == 0) return -EINVAL;
  std::vector<uint32_t> handles;
  if (int err = read_array(handles_ptr, count, handles)) return err;
  std::lock_guard g(mu_);
  out.reserve(count);
  for (uint32_t i = 0; i < count; i++) {
    auto it = syncobjs_.find(handles[i]);
    if (it == syncobjs_.end()) return -ENOENT;
    out.push_back(it->second);
  }
  return 0;
}

int FileImpl::syncobj_create(void* arg) {
  auto* c = static_cast<drm_syncobj_create*>(arg);
  if (c->flags & ~uint32_t(DRM_SYNCOBJ_CREATE_SIGNALED)) return -EINVAL;
  auto s = std::make_shared<Syncobj>();
  if (c->flags & DRM_SYNCOBJ_CREATE_SIGNALED) s->replace(dev_.signaled_stub);
  std::lock_guard g(mu_);
  c->handle = insert(syncobjs_, next_syncobj_, std::move(s));
  return 0;
}

int FileImpl::syncobj_destroy(void* arg) {
  auto* d = static_cast<drm_syncobj_destroy*>(arg);
  if (d->pad) return -EINVAL;
  std::lock_guard g(mu_);
  return syncobjs_.erase(d->handle) ? 0 : -EINVAL;
}

int FileImpl::syncobj_handle_to_fd(void* arg) {
  auto* h = static_cast<drm_syncobj_handle*>(arg);
  if (h->pad || (h->flags & ~uint32_t(DRM_SYNCOBJ_HANDLE_TO_FD_FLAGS_EXPORT_SYNC_FILE))) return -EINVAL;
  SyncobjPtr s = syncobj(h->handle);
  if (!s) return -ENOENT;
  const bool sync_file = h->flags & DRM_SYNCOBJ_HANDLE_TO_FD_FLAGS_EXPORT_SYNC_FILE;
  FencePtr fence;
  if (sync_file && !(fence = s->fence_at(0))) return -EINVAL;
  std::pair<dev_t, ino_t> key;
  int fd = make_token_fd(sync_file ? "agx-sync-file" : "agx-syncobj", &key);
  if (fd < 0) return fd;
  std::lock_guard g(dev_.table_mu);
  if (sync_file)
    dev_.sync_files[key] = fence;
  else
    dev_.syncobj_files[key] = s;
  h->fd = fd;
  return 0;
}

int FileImpl::syncobj_fd_to_handle(void* arg) {
  auto* h = static_cast<drm_syncobj_handle*>(arg);
  if (h->pad || (h->flags & ~uint32_t(DRM_SYNCOBJ_FD_TO_HANDLE_FLAGS_IMPORT_SYNC_FILE))) return -EINVAL;
  std::pair<dev_t, ino_t> key;
  const bool sync_file = h->flags & DRM_SYNCOBJ_FD_TO_HANDLE_FLAGS_IMPORT_SYNC_FILE;
  if (fd_key(h->fd, &key) != 0 || !fd_is_memfd_named(h->fd, sync_file ? "agx-sync-file" : "agx-syncobj"))
    return -EINVAL;
  if (h->flags & DRM_SYNCOBJ_FD_TO_HANDLE_FLAGS_IMPORT_SYNC_FILE) {
    FencePtr fence;
    {
      std::lock_guard g(dev_.table_mu);
      auto it = dev_.sync_files.find(key);
      if (it == dev_.sync_files.end()) return -EINVAL;
      fence = it->second;
    }
    SyncobjPtr s = syncobj(h->handle);
    if (!s) return -ENOENT;
    s->replace(fence);
    dev_.notify();
    return 0;
  }
  SyncobjPtr s;
  {
    std::lock_guard g(dev_.table_mu);
    auto it = dev_.syncobj_files.find(key);
    if (it == dev_.syncobj_files.end()) return -EINVAL;
    s = it->second;
  }
  std::lock_guard g(mu_);
  h->handle = insert(syncobjs_, next_syncobj_, std::move(s));
  return 0;
}

// Shared by WAIT and TIMELINE_WAIT. points == nullptr means point 0 (binary).
int FileImpl::wait_common(uint64_t handles, const uint64_t* points, uint32_t count, uint32_t flags,
                          int64_t timeout_ns, uint32_t* first_signaled, bool timeline) {
  uint32_t known = DRM_SYNCOBJ_WAIT_FLAGS_WAIT_ALL | DRM_SYNCOBJ_WAIT_FLAGS_WAIT_FOR_SUBMIT;
  if (timeline) known |= DRM_SYNCOBJ_WAIT_FLAGS_WAIT_AVAILABLE;
  if (flags & ~known) return -EINVAL;
  std::vector<SyncobjPtr> objs;
  if (int err = syncobjs(handles, count, objs)) return err;
  const bool all = flags & DRM_SYNCOBJ_WAIT_FLAGS_WAIT_ALL;
  const bool for_submit = flags & DRM_SYNCOBJ_WAIT_FLAGS_WAIT_FOR_SUBMIT;
  const bool available = flags & DRM_SYNCOBJ_WAIT_FLAGS_WAIT_AVAILABLE;
  auto point = [&](uint32_t i) { return points ? points[i] : 0; };
  if (!for_submit)
    for (uint32_t i = 0; i < count; i++)
      if (objs[i]->state(point(i)) == Syncobj::State::unsubmitted) return -EINVAL;
  uint32_t first = 0;
  auto done = [&] {
    bool any = false, every = true;
    for (uint32_t i = 0; i < count; i++) {
      auto st = objs[i]->state(point(i));
      bool ok = st == Syncobj::State::signaled || (available && st == Syncobj::State::pending);
      if (ok && !any) first = i;
      any |= ok;
      every &= ok;
    }
    return all ? every : any;
  };
  if (!dev_.wait_until(done, deadline_of(timeout_ns))) return -ETIME;
  *first_signaled = first;
  return 0;
}

int FileImpl::syncobj_wait(void* arg) {
  auto* w = static_cast<drm_syncobj_wait*>(arg);
  if (w->pad) return -EINVAL;
  return wait_common(w->handles, nullptr, w->count_handles, w->flags, w->timeout_nsec, &w->first_signaled, false);
}

int FileImpl::syncobj_timeline_wait(void* arg) {
  auto* w = static_cast<drm_syncobj_timeline_wait*>(arg);
  if (w->pad) return -EINVAL;
  std::vector<uint64_t> points;
  if (int err = read_array(w->points, w->count_handles, points)) return err;
  return wait_common(w->handles, points.data(), w->count_handles, w->flags, w->timeout_nsec,
                     &w->first_signaled, true);
}

int FileImpl::syncobj_reset(void* arg) {
  auto* a = static_cast<drm_syncobj_array*>(arg);
  if (a->pad) return -EINVAL;
  std::vector<SyncobjPtr> objs;
  if (int err = syncobjs(a->handles, a->count_handles, objs)) return err;
  for (auto& s : objs) s->replace(nullptr);
  return 0;
}

int FileImpl::syncobj_signal(void* arg) {
  auto* a = static_cast<drm_syncobj_array*>(arg);
  if (a->pad) return -EINVAL;
  std::vector<SyncobjPtr> objs;
  if (int err = syncobjs(a->handles, a->count_handles, objs)) return err;
  for (auto& s : objs) s->replace(dev_.signaled_stub);
  dev_.notify();
  return 0;
}

int FileImpl::syncobj_timeline_signal(void* arg) {
  auto* a = static_cast<drm_syncobj_timeline_array*>(arg);
  if (a->flags) return -EINVAL;
  std::vector<SyncobjPtr> objs;
  if (int err = syncobjs(a->handles, a->count_handles, objs)) return err;
  std::vector<uint64_t> points;
  if (int err = read_array(a->points, a->count_handles, points)) return err;
  for (uint32_t i = 0; i < a->count_handles; i++) {
    if (points[i] == 0)
      objs[i]->replace(dev_.signaled_stub);
    else
      objs[i]->add_point(points[i], dev_.signaled_stub);
  }
  dev_.notify();
  return 0;
}

int FileImpl::syncobj_query(void* arg) {
  auto* a = static_cast<drm_syncobj_timeline_array*>(arg);
  if (a->flags & ~uint32_t(DRM_SYNCOBJ_QUERY_FLAGS_LAST_SUBMITTED)) return -EINVAL;
  std::vector<SyncobjPtr> objs;
  if (int err = syncobjs(a->handles, a->count_handles, objs)) return err;
  std::vector<uint64_t> points(a->count_handles);
  for (uint32_t i = 0; i < a->count_handles; i++)
    points[i] = (a->flags & DRM_SYNCOBJ_QUERY_FLAGS_LAST_SUBMITTED) ? objs[i]->last_submitted() : objs[i]->payload();
  return copy_to_user(a->points, points.data(), points.size() * sizeof(uint64_t));
}

int FileImpl::syncobj_transfer(void* arg) {
  auto* t = static_cast<drm_syncobj_transfer*>(arg);
  if (t->pad || (t->flags & ~uint32_t(DRM_SYNCOBJ_WAIT_FLAGS_WAIT_FOR_SUBMIT))) return -EINVAL;
  SyncobjPtr src = syncobj(t->src_handle), dst = syncobj(t->dst_handle);
  if (!src || !dst) return -ENOENT;
  FencePtr fence = src->fence_at(t->src_point);
  if (!fence) return -EINVAL;
  if (t->dst_point)
    dst->add_point(t->dst_point, fence);
  else
    dst->replace(fence);
  dev_.notify();
  return 0;
}

}  // namespace agx::kmd
