// The DRM file: ioctl dispatch with the DRM core's argument copying, mmap,
// and the generic DRM ioctls (VERSION, GET_CAP, GEM_CLOSE, PRIME).
#include <fcntl.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "kmd/file_impl.h"

namespace agx::kmd {

namespace {

using Handler = int (FileImpl::*)(void*);
struct IoctlDef {
  unsigned long cmd;  // the full number: direction and size of our struct
  Handler handler;
};

// Generic DRM numbers come from libdrm's drm.h, driver numbers from
// include/agx/asahi_drm.h.
const IoctlDef kIoctls[] = {
    {DRM_IOCTL_VERSION, &FileImpl::version},
    {DRM_IOCTL_GET_CAP, &FileImpl::get_cap},
    {DRM_IOCTL_GEM_CLOSE, &FileImpl::gem_close},
    {DRM_IOCTL_PRIME_HANDLE_TO_FD, &FileImpl::prime_handle_to_fd},
    {DRM_IOCTL_PRIME_FD_TO_HANDLE, &FileImpl::prime_fd_to_handle},
    {DRM_IOCTL_SYNCOBJ_CREATE, &FileImpl::syncobj_create},
    {DRM_IOCTL_SYNCOBJ_DESTROY, &FileImpl::syncobj_destroy},
    {DRM_IOCTL_SYNCOBJ_HANDLE_TO_FD, &FileImpl::syncobj_handle_to_fd},
    {DRM_IOCTL_SYNCOBJ_FD_TO_HANDLE, &FileImpl::syncobj_fd_to_handle},
    {DRM_IOCTL_SYNCOBJ_WAIT, &FileImpl::syncobj_wait},
    {DRM_IOCTL_SYNCOBJ_RESET, &FileImpl::syncobj_reset},
    {DRM_IOCTL_SYNCOBJ_SIGNAL, &FileImpl::syncobj_signal},
    {DRM_IOCTL_SYNCOBJ_TIMELINE_WAIT, &FileImpl::syncobj_timeline_wait},
    {DRM_IOCTL_SYNCOBJ_QUERY, &FileImpl::syncobj_query},
    {DRM_IOCTL_SYNCOBJ_TRANSFER, &FileImpl::syncobj_transfer},
    {DRM_IOCTL_SYNCOBJ_TIMELINE_SIGNAL, &FileImpl::syncobj_timeline_signal},
    {DRM_IOCTL_ASAHI_GET_PARAMS, &FileImpl::get_params},
    {DRM_IOCTL_ASAHI_GET_TIME, &FileImpl::get_time},
    {DRM_IOCTL_ASAHI_VM_CREATE, &FileImpl::vm_create},
    {DRM_IOCTL_ASAHI_VM_DESTROY, &FileImpl::vm_destroy},
    {DRM_IOCTL_ASAHI_VM_BIND, &FileImpl::vm_bind},
    {DRM_IOCTL_ASAHI_GEM_CREATE, &FileImpl::gem_create},
    {DRM_IOCTL_ASAHI_GEM_MMAP_OFFSET, &FileImpl::gem_mmap_offset},
    {DRM_IOCTL_ASAHI_GEM_BIND_OBJECT, &FileImpl::gem_bind_object},
    {DRM_IOCTL_ASAHI_QUEUE_CREATE, &FileImpl::queue_create},
    {DRM_IOCTL_ASAHI_QUEUE_DESTROY, &FileImpl::queue_destroy},
    {DRM_IOCTL_ASAHI_SUBMIT, &FileImpl::submit},
};

const IoctlDef* find_ioctl(unsigned long request) {
  for (const IoctlDef& d : kIoctls)
    if (_IOC_NR(d.cmd) == _IOC_NR(request)) return &d;
  return nullptr;
}

}  // namespace

FileImpl::~FileImpl() {
  // Queues first: their threads finish ready jobs and cancel blocked ones.
  std::unordered_map<uint32_t, QueuePtr> queues;
  {
    std::lock_guard g(mu_);
    queues.swap(queues_);
  }
  queues.clear();
}

// Like drm_ioctl(): the argument is copied in (the smaller of the caller's
// and our size, zero-extended), the handler runs on the copy, and the result
// is copied out only on success and only for _IOC_READ requests.
int FileImpl::ioctl(unsigned long request, void* arg) {
  if (_IOC_TYPE(request) != DRM_IOCTL_BASE) return -ENOTTY;
  const IoctlDef* def = find_ioctl(request);
  if (!def) return -ENOTTY;
  const size_t user_size = _IOC_SIZE(request), our_size = _IOC_SIZE(def->cmd);
  const bool in = (_IOC_DIR(request) & _IOC_WRITE) && (_IOC_DIR(def->cmd) & _IOC_WRITE);
  const bool out = (_IOC_DIR(request) & _IOC_READ) && (_IOC_DIR(def->cmd) & _IOC_READ);
  if ((in || out) && user_size && !arg) return -EFAULT;
  alignas(8) uint8_t copy[256] = {};
  if (in) std::memcpy(copy, arg, std::min(user_size, our_size));
  int ret = (this->*def->handler)(copy);
  if (ret == 0 && out) std::memcpy(arg, copy, std::min(user_size, our_size));
  return ret;
}

void* FileImpl::mmap(uint64_t offset, size_t length, int prot, int* err) {
  int dummy;
  if (!err) err = &dummy;
  GemPtr obj;
  uint64_t start = 0;
  {
    std::lock_guard g(dev_.table_mu);
    auto it = dev_.mmap_offsets.upper_bound(offset);
    if (it != dev_.mmap_offsets.begin()) {
      --it;
      obj = it->second.lock();
      start = it->first;
    }
  }
  if (!obj || offset - start >= obj->size_B || (offset & 0xfff) || length == 0 ||
      length > obj->size_B - (offset - start)) {
    *err = -EINVAL;
    return nullptr;
  }
  {
    std::lock_guard g(mu_);
    bool mine = std::any_of(gems_.begin(), gems_.end(), [&](auto& kv) { return kv.second == obj; });
    if (!mine) {
      *err = -EACCES;
      return nullptr;
    }
  }
  void* p = ::mmap(nullptr, length, prot & (PROT_READ | PROT_WRITE), MAP_SHARED, obj->memfd, off_t(offset - start));
  if (p == MAP_FAILED) {
    *err = -errno;
    return nullptr;
  }
  std::lock_guard g(dev_.table_mu);
  dev_.user_mappings[reinterpret_cast<uintptr_t>(p)] = length;
  *err = 0;
  return p;
}

int FileImpl::munmap(void* addr, size_t length) {
  uintptr_t a = reinterpret_cast<uintptr_t>(addr);
  std::lock_guard g(dev_.table_mu);
  auto it = dev_.user_mappings.upper_bound(a);
  if (it == dev_.user_mappings.begin()) return -EINVAL;
  --it;
  if (a + length > it->first + it->second || length == 0) return -EINVAL;
  if (::munmap(addr, length) != 0) return -errno;
  // Whole mapping gone, or a piece: keep what remains.
  uintptr_t start = it->first, end = it->first + it->second;
  dev_.user_mappings.erase(it);
  uintptr_t cut_end = (a + length + 4095) & ~uintptr_t{4095};
  if (a > start) dev_.user_mappings[start] = a - start;
  if (cut_end < end) dev_.user_mappings[cut_end] = end - cut_end;
  return 0;
}

int FileImpl::version(void* arg) {
  auto* v = static_cast<drm_version*>(arg);
  v->version_major = kDriverMajor;
  v->version_minor = kDriverMinor;
  v->version_patchlevel = kDriverPatch;
  auto put = [](const char* s, __kernel_size_t* len, char* dst) {
    size_t n = std::strlen(s);
    if (dst && *len) std::memcpy(dst, s, std::min<size_t>(n, *len));
    *len = n;
  };
  put(kDriverName, &v->name_len, v->name);
  put(kDriverDate, &v->date_len, v->date);
  put(kDriverDesc, &v->desc_len, v->desc);
  return 0;
}

// A render node answers only the capabilities that make sense for it.
int FileImpl::get_cap(void* arg) {
  auto* c = static_cast<drm_get_cap*>(arg);
  switch (c->capability) {
    case DRM_CAP_TIMESTAMP_MONOTONIC: c->value = 1; return 0;
    case DRM_CAP_PRIME: c->value = DRM_PRIME_CAP_IMPORT | DRM_PRIME_CAP_EXPORT; return 0;
    case DRM_CAP_SYNCOBJ: c->value = 1; return 0;
    case DRM_CAP_SYNCOBJ_TIMELINE: c->value = 1; return 0;
    default: return -EINVAL;
  }
}

int FileImpl::gem_close(void* arg) {
  auto* c = static_cast<drm_gem_close*>(arg);
  if (c->pad) return -EINVAL;
  std::lock_guard g(mu_);
  return gems_.erase(c->handle) ? 0 : -EINVAL;
}

GemPtr FileImpl::gem(uint32_t handle) {
  std::lock_guard g(mu_);
  auto it = gems_.find(handle);
  return it == gems_.end() ? nullptr : it->second;
}

int FileImpl::prime_handle_to_fd(void* arg) {
  auto* p = static_cast<drm_prime_handle*>(arg);
  if (p->flags & ~uint32_t(DRM_CLOEXEC | DRM_RDWR)) return -EINVAL;
  GemPtr obj = gem(p->handle);
  if (!obj) return -ENOENT;
  if (obj->flags & DRM_ASAHI_GEM_VM_PRIVATE) return -EINVAL;  // private objects never leave their VM
  int fd = ::fcntl(obj->memfd, (p->flags & DRM_CLOEXEC) ? F_DUPFD_CLOEXEC : F_DUPFD, 0);
  if (fd < 0) return -errno;
  std::pair<dev_t, ino_t> key;
  if (int err = fd_key(fd, &key)) {
    ::close(fd);
    return err;
  }
  std::lock_guard g(dev_.table_mu);
  if (dev_.gem_files.size() % 64 == 63) sweep_expired(dev_.gem_files);
  dev_.gem_files[key] = obj;
  p->fd = fd;
  return 0;
}

int FileImpl::prime_fd_to_handle(void* arg) {
  auto* p = static_cast<drm_prime_handle*>(arg);
  std::pair<dev_t, ino_t> key;
  if (int err = fd_key(p->fd, &key)) return err;
  GemPtr obj;
  {
    std::lock_guard g(dev_.table_mu);
    auto it = dev_.gem_files.find(key);
    if (it != dev_.gem_files.end()) obj = it->second.lock();
  }
  if (!obj) {  // the object died but the fd keeps its pages alive
    auto imported = import_gem(p->fd);
    if (!imported) return imported.error().kind() == ErrorKind::not_found ? -EBADF : -EINVAL;
    obj = *imported;
    std::lock_guard g(dev_.table_mu);
    dev_.gem_files[key] = obj;
  }
  std::lock_guard g(mu_);
  for (auto& [h, o] : gems_)
    if (o == obj) {
      p->handle = h;
      return 0;
    }
  p->handle = insert(gems_, next_gem_, obj);
  return 0;
}

}  // namespace agx::kmd

namespace agx::kmd {
std::unique_ptr<File> make_file(Device::Impl& dev) { return std::make_unique<FileImpl>(dev); }
}  // namespace agx::kmd
