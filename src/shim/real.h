// The C library's own implementations of the calls the shim interposes,
// found with dlsym(RTLD_NEXT) so that they are the next definition after the
// shim (libc, or a sanitizer's interceptor placed before us).
//
// Every pointer is resolved on first use; the shim calls these for anything
// that is not the fake render node and for its own needs.
#pragma once

#include <dirent.h>
#include <stdio.h>
#include <sys/stat.h>
#include <sys/types.h>

struct statx;

namespace agx::shim::real {

int openat(int dirfd, const char* path, int flags, mode_t mode);
FILE* fopen(const char* path, const char* mode);
int close(int fd);
int dup(int fd);
int dup2(int oldfd, int newfd);
int dup3(int oldfd, int newfd, int flags);
int fcntl(int fd, int cmd, long arg);
int ioctl(int fd, unsigned long request, void* arg);
void* mmap(void* addr, size_t length, int prot, int flags, int fd, off_t offset);
int munmap(void* addr, size_t length);
int fstatat(int dirfd, const char* path, struct stat* st, int flags);
int fstat(int fd, struct stat* st);
int statx(int dirfd, const char* path, int flags, unsigned mask, struct statx* stx);
int faccessat(int dirfd, const char* path, int mode, int flags);
ssize_t readlinkat(int dirfd, const char* path, char* buf, size_t size);
char* realpath(const char* path, char* resolved);
ssize_t getxattr(const char* path, const char* name, void* value, size_t size);
ssize_t lgetxattr(const char* path, const char* name, void* value, size_t size);
ssize_t listxattr(const char* path, char* list, size_t size);
ssize_t llistxattr(const char* path, char* list, size_t size);
DIR* opendir(const char* path);
struct dirent* readdir(DIR* dir);
struct dirent64* readdir64(DIR* dir);
int closedir(DIR* dir);
int dirfd(DIR* dir);
void rewinddir(DIR* dir);
// -1/ENOSYS when the C library lacks it (glibc < 2.34).
int close_range(unsigned first, unsigned last, int flags);
// Does nothing when the C library lacks it (glibc < 2.34).
void closefrom(int lowfd);

}  // namespace agx::shim::real
