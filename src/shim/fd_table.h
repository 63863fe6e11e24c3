// Which host file descriptors are opens of the fake render node (or of a
// virtual directory), and which host mappings came from the render node's
// mmap. Thread-safe; never calls into the kmd while holding its lock (the
// kmd's own close/mmap/munmap come back through the shim).
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "kmd/kmd.h"
#include "shim/vfs.h"

namespace agx::shim {

// One open file description: shared by an fd and its dups, like the kernel's
// struct file. `file` is set for the render node, null for directories.
struct OpenNode {
  const VirtualNode* node = nullptr;
  std::shared_ptr<kmd::File> file;
};

class FdTable {
 public:
  static FdTable& instance();  // process-wide, never destroyed

  void insert(int fd, std::shared_ptr<OpenNode> open);
  std::shared_ptr<OpenNode> find(int fd) const;
  // Removes fd; the caller drops the returned reference outside any lock.
  std::shared_ptr<OpenNode> erase(int fd);
  // Removes every fd in [first, last].
  std::vector<std::shared_ptr<OpenNode>> erase_range(unsigned first, unsigned last);
  size_t size() const;

  // A mapping of `length_B` bytes (as asked, not page-rounded) made through
  // `file`'s mmap.
  void add_mapping(void* addr, size_t length_B, std::shared_ptr<kmd::File> file);
  // The part of [addr, addr+length) covered by render-node mappings.
  struct Piece {
    uintptr_t start = 0;
    size_t length_B = 0;
    std::shared_ptr<kmd::File> file;  // null: a gap (plain host memory)
  };
  std::vector<Piece> split_range(uintptr_t start, size_t length_B) const;
  // Forgets [start, start+length) of the mappings (after a successful unmap).
  void remove_mapping_range(uintptr_t start, size_t length_B);
  bool has_mappings() const { return mapping_count_.load(std::memory_order_acquire) != 0; }
  bool empty() const { return fd_count_.load(std::memory_order_acquire) == 0; }

 private:
  FdTable() = default;
  struct Impl;
  Impl& impl() const;
  // One bit per descriptor number below kBitmapFds, set while it is ours:
  // the lock-free answer for every other descriptor (the common case).
  static constexpr int kBitmapFds = 1 << 16;
  bool maybe_ours(int fd) const;
  void mark(int fd, bool ours);
  std::atomic<uint64_t> bits_[kBitmapFds / 64] = {};
  std::atomic<size_t> fd_count_{0};
  std::atomic<size_t> mapping_count_{0};
};

}  // namespace agx::shim
