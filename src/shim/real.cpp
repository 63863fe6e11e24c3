// Resolution of the next definition of each interposed call (see real.h).
#include "shim/real.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>

namespace agx::shim::real {
namespace {

// The next definition of `name`, or nullptr. Reports and aborts for a call
// every C library has (`required`): without it nothing can work.
void* next(const char* name, bool required) {
  void* fn = dlsym(RTLD_NEXT, name);
  if (!fn && required) {
    static const char kPrefix[] = "agx-shim: cannot resolve the C library's ";
    ssize_t ignored = ::write(2, kPrefix, sizeof(kPrefix) - 1);
    ignored = ::write(2, name, std::strlen(name));
    ignored = ::write(2, "\n", 1);
    (void)ignored;
    std::abort();
  }
  return fn;
}

template <typename Fn>
Fn* resolve(const char* name, bool required = true) {
  return reinterpret_cast<Fn*>(next(name, required));
}

}  // namespace

// One function-local static per call: resolved once, thread-safe.
#define AGX_REAL(name, type) static auto* const fn = resolve<type>(#name)

int openat(int dirfd, const char* path, int flags, mode_t mode) {
  AGX_REAL(openat, int(int, const char*, int, ...));
  return fn(dirfd, path, flags, mode);
}
FILE* fopen(const char* path, const char* mode) {
  AGX_REAL(fopen, FILE*(const char*, const char*));
  return fn(path, mode);
}
int close(int fd) {
  AGX_REAL(close, int(int));
  return fn(fd);
}
int dup(int fd) {
  AGX_REAL(dup, int(int));
  return fn(fd);
}
int dup2(int oldfd, int newfd) {
  AGX_REAL(dup2, int(int, int));
  return fn(oldfd, newfd);
}
int dup3(int oldfd, int newfd, int flags) {
  AGX_REAL(dup3, int(int, int, int));
  return fn(oldfd, newfd, flags);
}
int fcntl(int fd, int cmd, long arg) {
  AGX_REAL(fcntl, int(int, int, ...));
  return fn(fd, cmd, arg);
}
int ioctl(int fd, unsigned long request, void* arg) {
  AGX_REAL(ioctl, int(int, unsigned long, ...));
  return fn(fd, request, arg);
}
void* mmap(void* addr, size_t length, int prot, int flags, int fd, off_t offset) {
  AGX_REAL(mmap, void*(void*, size_t, int, int, int, off_t));
  return fn(addr, length, prot, flags, fd, offset);
}
int munmap(void* addr, size_t length) {
  AGX_REAL(munmap, int(void*, size_t));
  return fn(addr, length);
}
int fstatat(int dirfd, const char* path, struct stat* st, int flags) {
  AGX_REAL(fstatat, int(int, const char*, struct stat*, int));
  return fn(dirfd, path, st, flags);
}
int fstat(int fd, struct stat* st) {
  AGX_REAL(fstat, int(int, struct stat*));
  return fn(fd, st);
}
int statx(int dirfd, const char* path, int flags, unsigned mask, struct statx* stx) {
  static auto* const fn =
      resolve<int(int, const char*, int, unsigned, struct statx*)>("statx", false);
  if (!fn) {
    errno = ENOSYS;
    return -1;
  }
  return fn(dirfd, path, flags, mask, stx);
}
int faccessat(int dirfd, const char* path, int mode, int flags) {
  AGX_REAL(faccessat, int(int, const char*, int, int));
  return fn(dirfd, path, mode, flags);
}
ssize_t readlinkat(int dirfd, const char* path, char* buf, size_t size) {
  AGX_REAL(readlinkat, ssize_t(int, const char*, char*, size_t));
  return fn(dirfd, path, buf, size);
}
char* realpath(const char* path, char* resolved) {
  AGX_REAL(realpath, char*(const char*, char*));
  return fn(path, resolved);
}
ssize_t getxattr(const char* path, const char* name, void* value, size_t size) {
  AGX_REAL(getxattr, ssize_t(const char*, const char*, void*, size_t));
  return fn(path, name, value, size);
}
ssize_t lgetxattr(const char* path, const char* name, void* value, size_t size) {
  AGX_REAL(lgetxattr, ssize_t(const char*, const char*, void*, size_t));
  return fn(path, name, value, size);
}
ssize_t listxattr(const char* path, char* list, size_t size) {
  AGX_REAL(listxattr, ssize_t(const char*, char*, size_t));
  return fn(path, list, size);
}
ssize_t llistxattr(const char* path, char* list, size_t size) {
  AGX_REAL(llistxattr, ssize_t(const char*, char*, size_t));
  return fn(path, list, size);
}
DIR* opendir(const char* path) {
  AGX_REAL(opendir, DIR*(const char*));
  return fn(path);
}
struct dirent* readdir(DIR* dir) {
  AGX_REAL(readdir, struct dirent*(DIR*));
  return fn(dir);
}
struct dirent64* readdir64(DIR* dir) {
  AGX_REAL(readdir64, struct dirent64*(DIR*));
  return fn(dir);
}
int closedir(DIR* dir) {
  AGX_REAL(closedir, int(DIR*));
  return fn(dir);
}
int dirfd(DIR* dir) {
  AGX_REAL(dirfd, int(DIR*));
  return fn(dir);
}
void rewinddir(DIR* dir) {
  AGX_REAL(rewinddir, void(DIR*));
  fn(dir);
}
int close_range(unsigned first, unsigned last, int flags) {
  static auto* const fn = resolve<int(unsigned, unsigned, int)>("close_range", false);
  if (!fn) {
    errno = ENOSYS;
    return -1;
  }
  return fn(first, last, flags);
}

void closefrom(int lowfd) {
  static auto* const fn = resolve<void(int)>("closefrom", false);
  if (fn) fn(lowfd);
}

#undef AGX_REAL

}  // namespace agx::shim::real
