// GEM objects as memfds, and host file descriptors that stand for exported
// objects, syncobjs and sync files.
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "kmd/internal.h"
#include "kmd/own_fd.h"

namespace agx::kmd {

namespace {
constexpr const char* kGemName = "agx-gem";
constexpr uint64_t kMaxObjectSize_B = uint64_t{16} << 30;

// A dma-buf cannot change size: the memfd is sealed against shrinking and
// growing (a client's ftruncate of an exported descriptor fails with EPERM
// instead of turning the device's next access into SIGBUS), and against
// further seals (F_SEAL_WRITE / F_SEAL_FUTURE_WRITE would stop the GPU's
// writes).
constexpr int kSeals = F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL;

Result<GemPtr> wrap(int memfd, uint64_t size_B, uint32_t flags) {
  FdKey key;
  memfd = adopt_own_fd(memfd, &key);
  if (memfd < 0) return Error::io("object descriptor: {}", std::strerror(-memfd));
  void* host = ::mmap(nullptr, size_B, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_NORESERVE, memfd, 0);
  if (host == MAP_FAILED) {
    close_own_fd(memfd, key);
    return Error::limit("mmap of a {} byte object failed: {}", size_B, std::strerror(errno));
  }
  auto obj = std::make_shared<GemObject>();
  obj->memfd = memfd;
  obj->key = key;
  obj->host = static_cast<uint8_t*>(host);
  obj->size_B = size_B;
  obj->flags = flags;
  return obj;
}
}  // namespace

GemObject::~GemObject() {
  if (host) ::munmap(host, size_B);
  close_own_fd(memfd, key);
}

int dup_gem_fd(const GemObject& obj, bool cloexec) {
  if (!own_fd_is(obj.memfd, obj.key)) return -EBADF;  // closed behind our back
  int fd = ::fcntl(obj.memfd, cloexec ? F_DUPFD_CLOEXEC : F_DUPFD, 0);
  return fd < 0 ? -errno : fd;
}

Result<GemPtr> create_gem(uint64_t size_B, uint32_t flags) {
  if (size_B == 0 || size_B > kMaxObjectSize_B)
    return Error::invalid_argument("object size {} out of range", size_B);
  size_B = (size_B + mem::kPageMask) & ~mem::kPageMask;
  int fd = ::memfd_create(kGemName, MFD_CLOEXEC | MFD_ALLOW_SEALING);
  if (fd < 0) return Error::io("memfd_create: {}", std::strerror(errno));
  if (::ftruncate(fd, off_t(size_B)) != 0) {
    ::close(fd);
    return Error::limit("ftruncate to {} bytes: {}", size_B, std::strerror(errno));
  }
  if (::fcntl(fd, F_ADD_SEALS, kSeals) != 0) {
    ::close(fd);
    return Error::io("sealing an object: {}", std::strerror(errno));
  }
  return wrap(fd, size_B, flags);
}

bool fd_is_memfd_named(int fd, const char* name) {
  char path[64], target[256], want[128];
  std::snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
  ssize_t n = ::readlink(path, target, sizeof target - 1);
  if (n < 0) return false;
  target[n] = 0;
  int w = std::snprintf(want, sizeof want, "/memfd:%s ", name);  // "... (deleted)"
  return std::strncmp(target, want, size_t(w)) == 0;
}

template <typename Table>
void sweep(Table& table) {
  for (auto it = table.begin(); it != table.end();) it = it->second.expired() ? table.erase(it) : std::next(it);
}
void sweep_expired(std::map<std::pair<dev_t, ino_t>, std::weak_ptr<GemObject>>& table) { sweep(table); }
void sweep_expired(std::map<uint64_t, std::weak_ptr<GemObject>>& table) { sweep(table); }

// Only called for a descriptor whose inode the device exported (the caller
// checks its table); the seals are checked again, so an object can never
// be backed by memory that may shrink under the device.
Result<GemPtr> import_gem(int fd) {
  if (::fcntl(fd, F_GETFD) < 0) return Error::not_found("fd {} is not open", fd);
  if (!fd_is_memfd_named(fd, kGemName)) return Error::invalid_argument("fd {} is not an exported agx object", fd);
  if ((::fcntl(fd, F_GET_SEALS) & kSeals) != kSeals) return Error::invalid_argument("fd {} is not sealed", fd);
  struct stat st;
  if (::fstat(fd, &st) != 0 || st.st_size <= 0) return Error::invalid_argument("fd {}: no size", fd);
  int own = ::fcntl(fd, F_DUPFD_CLOEXEC, 0);
  if (own < 0) return Error::io("dup: {}", std::strerror(errno));
  return wrap(own, uint64_t(st.st_size), 0);
}

int make_token_fd(const char* name, std::pair<dev_t, ino_t>* key) {
  int fd = ::memfd_create(name, MFD_CLOEXEC);
  if (fd < 0) return -errno;
  int err = fd_key(fd, key);
  if (err) {
    ::close(fd);
    return err;
  }
  return fd;
}

int fd_key(int fd, std::pair<dev_t, ino_t>* key) {
  struct stat st;
  if (fd < 0 || ::fstat(fd, &st) != 0) return -EBADF;
  *key = {st.st_dev, st.st_ino};
  return 0;
}

}  // namespace agx::kmd
