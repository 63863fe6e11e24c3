// Directory listing of virtual directories: opendir, readdir, closedir.
//
// A virtual directory's DIR* is our own object; readdir and friends
// recognise it by address and hand every other DIR* to the C library.
#include <errno.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <memory>
#include <mutex>
#include <unordered_set>

#include "shim/real.h"
#include "shim/shim.h"
#include "shim/vfs.h"

namespace agx::shim {
namespace {

struct VirtualDir {
  const VirtualNode* node = nullptr;
  size_t next = 0;  // 0: ".", 1: "..", then node->entries
  struct dirent ent {};
  struct dirent64 ent64 {};
};

class DirRegistry {
 public:
  static DirRegistry& instance() {
    static DirRegistry* r = new DirRegistry;  // leaked: used until exit
    return *r;
  }
  void add(VirtualDir* d) {
    std::lock_guard lock(mutex_);
    dirs_.insert(d);
    count_.store(dirs_.size(), std::memory_order_release);
  }
  VirtualDir* find(DIR* dir) {
    if (count_.load(std::memory_order_acquire) == 0) return nullptr;
    std::lock_guard lock(mutex_);
    auto it = dirs_.find(reinterpret_cast<VirtualDir*>(dir));
    return it == dirs_.end() ? nullptr : *it;
  }
  bool remove(DIR* dir) {
    if (count_.load(std::memory_order_acquire) == 0) return false;
    std::lock_guard lock(mutex_);
    bool found = dirs_.erase(reinterpret_cast<VirtualDir*>(dir)) != 0;
    count_.store(dirs_.size(), std::memory_order_release);
    return found;
  }

 private:
  std::mutex mutex_;
  std::unordered_set<VirtualDir*> dirs_;
  std::atomic<size_t> count_{0};
};

// The next entry's name and type, or false at the end.
bool next_entry(VirtualDir& d, std::string_view* name, unsigned char* type) {
  const auto& entries = d.node->entries;
  if (d.next >= entries.size() + 2) return false;
  const size_t i = d.next++;
  if (i < 2) {
    *name = i == 0 ? "." : "..";
    *type = DT_DIR;
  } else {
    *name = entries[i - 2];
    *type = entry_type(*d.node, *name);
  }
  return true;
}

template <typename Dirent>
Dirent* fill(Dirent* e, const VirtualDir& d, std::string_view name, unsigned char type) {
  std::memset(e, 0, sizeof(*e));
  e->d_ino = node_inode(*d.node) + d.next;
  e->d_off = static_cast<decltype(e->d_off)>(d.next);
  e->d_reclen = sizeof(*e);
  e->d_type = type;
  const size_t n = std::min(name.size(), sizeof(e->d_name) - 1);
  std::memcpy(e->d_name, name.data(), n);
  return e;
}

}  // namespace

DIR* open_dir(const char* path) {
  PathLookup l = lookup_path(path);
  if (l.cls == PathClass::real) return real::opendir(l.real_or(path));
  if (l.cls == PathClass::hidden || l.node->kind != NodeKind::directory) {
    errno = l.cls == PathClass::hidden ? ENOENT : ENOTDIR;
    return nullptr;
  }
  auto d = std::make_unique<VirtualDir>();
  d->node = l.node;
  DirRegistry::instance().add(d.get());
  return reinterpret_cast<DIR*>(d.release());
}

struct dirent* read_dir(DIR* dir) {
  VirtualDir* d = DirRegistry::instance().find(dir);
  if (!d) return real::readdir(dir);
  std::string_view name;
  unsigned char type = DT_UNKNOWN;
  return next_entry(*d, &name, &type) ? fill(&d->ent, *d, name, type) : nullptr;
}

struct dirent64* read_dir64(DIR* dir) {
  VirtualDir* d = DirRegistry::instance().find(dir);
  if (!d) return real::readdir64(dir);
  std::string_view name;
  unsigned char type = DT_UNKNOWN;
  return next_entry(*d, &name, &type) ? fill(&d->ent64, *d, name, type) : nullptr;
}

int close_dir(DIR* dir) {
  if (!DirRegistry::instance().remove(dir)) return real::closedir(dir);
  delete reinterpret_cast<VirtualDir*>(dir);
  return 0;
}

int dir_fd(DIR* dir) {
  if (!DirRegistry::instance().find(dir)) return real::dirfd(dir);
  errno = ENOTSUP;  // a virtual directory has no descriptor
  return -1;
}

void rewind_dir(DIR* dir) {
  if (VirtualDir* d = DirRegistry::instance().find(dir))
    d->next = 0;
  else
    real::rewinddir(dir);
}

}  // namespace agx::shim
