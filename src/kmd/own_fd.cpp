// The registry of the device's own descriptors (own_fd.h) and the public
// is_internal_fd() the shim asks.
#include "kmd/own_fd.h"

#include <fcntl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <mutex>
#include <map>

#include "kmd/kmd.h"

namespace agx::kmd {

namespace {

struct Registry {
  std::mutex mu;
  std::map<int, FdKey> fds;  // number -> identity
  std::atomic<size_t> count{0};
};
Registry& registry() {
  static Registry* r = new Registry;  // used from atexit-time closes: never destroyed
  return *r;
}

// The lowest number tried for own descriptors: the top quarter of the soft
// descriptor limit, above what programs that number their own files
// densely (or use select()) reach first.
int high_base() {
  rlimit rl{};
  if (::getrlimit(RLIMIT_NOFILE, &rl) != 0 || rl.rlim_cur == RLIM_INFINITY || rl.rlim_cur < 64) return 0;
  return int(rl.rlim_cur - rl.rlim_cur / 4);
}

int key_of(int fd, FdKey* key) {
  struct stat st;
  if (fd < 0 || ::fstat(fd, &st) != 0) return -EBADF;
  *key = {st.st_dev, st.st_ino};
  return 0;
}

}  // namespace

int adopt_own_fd(int fd, FdKey* key) {
  static const int base = high_base();
  if (base > 0 && fd < base) {
    int high = ::fcntl(fd, F_DUPFD_CLOEXEC, base);
    if (high >= 0) {
      ::close(fd);
      fd = high;
    }
  }
  ::fcntl(fd, F_SETFD, FD_CLOEXEC);
  if (int err = key_of(fd, key)) {
    ::close(fd);
    return err;
  }
  Registry& r = registry();
  std::lock_guard g(r.mu);
  r.fds[fd] = *key;
  r.count.store(r.fds.size(), std::memory_order_release);
  return fd;
}

bool own_fd_is(int fd, const FdKey& key) {
  FdKey now;
  return key_of(fd, &now) == 0 && now == key;
}

void close_own_fd(int fd, const FdKey& key) {
  if (fd < 0) return;
  const bool ours = own_fd_is(fd, key);
  {
    Registry& r = registry();
    std::lock_guard g(r.mu);
    r.fds.erase(fd);
    r.count.store(r.fds.size(), std::memory_order_release);
  }
  if (ours) ::close(fd);  // after forgetting it: the shim lets this close through
}

// A recorded number whose file is no longer the recorded one (closed and
// reused behind the device's back) is the client's now, not internal.
bool is_internal_fd(int fd) {
  Registry& r = registry();
  if (fd < 0 || r.count.load(std::memory_order_acquire) == 0) return false;
  FdKey key;
  {
    std::lock_guard g(r.mu);
    auto it = r.fds.find(fd);
    if (it == r.fds.end()) return false;
    key = it->second;
  }
  return own_fd_is(fd, key);
}

std::vector<int> internal_fds() {
  std::vector<int> out;
  Registry& r = registry();
  if (r.count.load(std::memory_order_acquire) == 0) return out;
  std::lock_guard g(r.mu);
  for (auto& [fd, key] : r.fds)
    if (own_fd_is(fd, key)) out.push_back(fd);
  return out;
}

}  // namespace agx::kmd
