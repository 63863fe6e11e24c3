// The DRM file: ioctl dispatch with the DRM core's argument copying, mmap,
// and the generic DRM ioctls (VERSION, GET_CAP, GEM_CLOSE, PRIME).
#include <fcntl.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <new>
#include <vector>

#include "kmd/drm_core.h"
#include "kmd/file_impl.h"
#include "kmd/uaccess.h"

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
    {AGX_DRM_IOCTL_SYNCOBJ_EVENTFD, &FileImpl::syncobj_eventfd},
    {AGX_DRM_IOCTL_SET_CLIENT_NAME, &FileImpl::set_client_name},
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

const IoctlDef* find_ioctl(unsigned nr) {
  for (const IoctlDef& d : kIoctls)
    if (_IOC_NR(d.cmd) == nr) return &d;
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

// Like drm_ioctl() (torvalds/linux drivers/gpu/drm/drm_ioctl.c), in its
// order: -ENOTTY for another ioctl type; -EINVAL for a number with no
// function (a driver number past the driver's table, a core number past the
// core table or in one of its holes), before anything else is looked at;
// then the argument is copied in (the caller's size if both directions say
// IN, zero-extended to the larger of the two sizes; -EFAULT if unreadable);
// drm_ioctl_kernel() checks the permission (-EACCES for a core ioctl
// without DRM_RENDER_ALLOW) and runs the handler on the copy; and the copy
// goes back (the caller's size if both say OUT) whatever the result, an
// unwritable argument turning any result into -EFAULT.
int FileImpl::ioctl(unsigned long request, void* arg) {
  const auto cmd = static_cast<unsigned>(request);  // the syscall's number is 32 bits
  if (_IOC_TYPE(cmd) != DRM_IOCTL_BASE) return -ENOTTY;
  const IoctlDef* def = find_ioctl(_IOC_NR(cmd));
  const unsigned def_cmd = def ? unsigned(def->cmd) : render_refused_core_ioctl(_IOC_NR(cmd));
  if (!def_cmd) return -EINVAL;  // drm_ioctl(): "no function"
  const size_t in_size = (cmd & def_cmd & IOC_IN) ? _IOC_SIZE(cmd) : 0;
  const size_t out_size = (cmd & def_cmd & IOC_OUT) ? _IOC_SIZE(cmd) : 0;
  const size_t ksize = std::max({in_size, out_size, size_t(_IOC_SIZE(def_cmd))});
  alignas(8) uint8_t small[256] = {};
  std::vector<uint64_t> large;
  uint8_t* copy = small;
  if (ksize > sizeof small) {
    large.resize((ksize + 7) / 8);
    copy = reinterpret_cast<uint8_t*>(large.data());
  }
  if (int err = copy_from_user(copy, user_ptr(arg), in_size)) return err;
  int ret = -EACCES;  // drm_ioctl_permit(): no DRM_RENDER_ALLOW on a render node
  if (def) {
    try {
      ret = (this->*def->handler)(copy);
    } catch (const std::bad_alloc&) {
      ret = -ENOMEM;
    }
  }
  if (out_size && copy_to_user(user_ptr(arg), copy, out_size)) return -EFAULT;
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
  // A second mapping of the object's own pages (mremap of a shared mapping
  // with old size 0), so no descriptor is involved: nothing a client does to
  // descriptor numbers can change what this maps.
  void* p = ::mremap(obj->host + (offset - start), 0, length, MREMAP_MAYMOVE);
  if (p == MAP_FAILED) {
    *err = -errno;
    return nullptr;
  }
  const int want = prot & (PROT_READ | PROT_WRITE);
  if (want != (PROT_READ | PROT_WRITE) && ::mprotect(p, length, want) != 0) {
    *err = -errno;
    ::munmap(p, length);
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
  // drm_copy_field(): at most *len bytes to the caller's buffer (-EFAULT if
  // it cannot take them), *len set to the whole length.
  auto put = [](const char* s, __kernel_size_t* len, char* dst) {
    size_t n = std::strlen(s), copied = std::min<size_t>(n, *len);
    *len = n;
    return dst && copied ? copy_to_user(user_ptr(dst), s, copied) : 0;
  };
  if (int err = put(kDriverName, &v->name_len, v->name)) return err;
  if (int err = put(kDriverDate, &v->date_len, v->date)) return err;
  return put(kDriverDesc, &v->desc_len, v->desc);
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
  int fd = dup_gem_fd(*obj, p->flags & DRM_CLOEXEC);
  if (fd < 0) return fd;
  // The inode stays known as ours for the device's lifetime: a descriptor
  // that outlives the object is still a dma-buf of this device.
  std::lock_guard g(dev_.table_mu);
  dev_.gem_files[obj->key] = obj;
  p->fd = fd;
  return 0;
}

// Like dma_buf_get() under drm_gem_prime_fd_to_handle() (torvalds/linux
// drivers/dma-buf/dma-buf.c, drivers/gpu/drm/drm_prime.c): -EBADF for a
// descriptor that is not open, -EINVAL for one that is not a dma-buf of
// this device (whatever its name says).
int FileImpl::prime_fd_to_handle(void* arg) {
  auto* p = static_cast<drm_prime_handle*>(arg);
  std::pair<dev_t, ino_t> key;
  if (int err = fd_key(p->fd, &key)) return err;
  GemPtr obj;
  {
    std::lock_guard g(dev_.table_mu);
    auto it = dev_.gem_files.find(key);
    if (it == dev_.gem_files.end()) return -EINVAL;  // never exported by this device
    obj = it->second.lock();
  }
  if (!obj) {  // the object died but the descriptor keeps its pages alive
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

// DRM_IOCTL_SET_CLIENT_NAME (drm_set_client_name in torvalds/linux
// drivers/gpu/drm/drm_ioctl.c): at most 64 printable, non-space characters.
int FileImpl::set_client_name(void* arg) {
  auto* n = static_cast<agx_drm_set_client_name*>(arg);
  if (n->name_len > AGX_DRM_CLIENT_NAME_MAX_LEN) return -EINVAL;
  char name[AGX_DRM_CLIENT_NAME_MAX_LEN + 1] = {};
  if (int err = copy_from_user(name, n->name, n->name_len)) return err;
  if (std::strlen(name) != n->name_len) return -EINVAL;
  for (size_t i = 0; i < n->name_len; i++)
    if (uint8_t(name[i]) <= 32 || uint8_t(name[i]) >= 127) return -EINVAL;
  std::lock_guard g(mu_);
  client_name_.assign(name, n->name_len);
  return 0;
}

// DRM_IOCTL_SYNCOBJ_EVENTFD is render-allowed upstream; this device does not
// implement eventfd notification and says so.
int FileImpl::syncobj_eventfd(void*) { return -EOPNOTSUPP; }

}  // namespace agx::kmd

namespace agx::kmd {
std::unique_ptr<File> make_file(Device::Impl& dev) { return std::make_unique<FileImpl>(dev); }
}  // namespace agx::kmd
