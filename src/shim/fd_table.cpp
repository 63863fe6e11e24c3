// The shim's record of render-node descriptors and mappings (see fd_table.h).
#include "shim/fd_table.h"

#include <algorithm>
#include <map>
#include <mutex>
#include <unordered_map>

namespace agx::shim {

struct FdTable::Impl {
  mutable std::mutex mutex;
  std::unordered_map<int, std::shared_ptr<OpenNode>> fds;
  struct Mapping {
    size_t length_B = 0;
    std::shared_ptr<kmd::File> file;
  };
  std::map<uintptr_t, Mapping> mappings;  // by start address, disjoint
};

FdTable& FdTable::instance() {
  // Leaked on purpose: close() and munmap() may run from atexit handlers and
  // other libraries' destructors after static destruction.
  static FdTable* table = new FdTable;
  return *table;
}

FdTable::Impl& FdTable::impl() const {
  static Impl* impl = new Impl;
  return *impl;
}

bool FdTable::maybe_ours(int fd) const {
  if (fd < 0) return false;
  if (fd >= kBitmapFds) return !empty();
  return (bits_[fd / 64].load(std::memory_order_acquire) >> (fd % 64)) & 1;
}

void FdTable::mark(int fd, bool ours) {
  if (fd < 0 || fd >= kBitmapFds) return;
  const uint64_t bit = uint64_t{1} << (fd % 64);
  if (ours)
    bits_[fd / 64].fetch_or(bit, std::memory_order_release);
  else
    bits_[fd / 64].fetch_and(~bit, std::memory_order_release);
}

void FdTable::insert(int fd, std::shared_ptr<OpenNode> open) {
  std::shared_ptr<OpenNode> stale;  // a number reused behind our back
  std::lock_guard lock(impl().mutex);
  auto [it, inserted] = impl().fds.try_emplace(fd, nullptr);
  stale = std::move(it->second);
  it->second = std::move(open);
  mark(fd, true);
  if (inserted) fd_count_.fetch_add(1, std::memory_order_release);
}

std::shared_ptr<OpenNode> FdTable::find(int fd) const {
  if (!maybe_ours(fd)) return nullptr;
  std::lock_guard lock(impl().mutex);
  auto it = impl().fds.find(fd);
  return it == impl().fds.end() ? nullptr : it->second;
}

std::shared_ptr<OpenNode> FdTable::erase(int fd) {
  if (!maybe_ours(fd)) return nullptr;
  std::lock_guard lock(impl().mutex);
  auto it = impl().fds.find(fd);
  if (it == impl().fds.end()) return nullptr;
  std::shared_ptr<OpenNode> open = std::move(it->second);
  impl().fds.erase(it);
  mark(fd, false);
  fd_count_.fetch_sub(1, std::memory_order_release);
  return open;
}

std::vector<std::shared_ptr<OpenNode>> FdTable::erase_range(unsigned first, unsigned last) {
  std::vector<std::shared_ptr<OpenNode>> out;
  if (empty()) return out;
  std::lock_guard lock(impl().mutex);
  for (auto it = impl().fds.begin(); it != impl().fds.end();) {
    const auto fd = static_cast<unsigned>(it->first);
    if (fd >= first && fd <= last) {
      out.push_back(std::move(it->second));
      mark(it->first, false);
      it = impl().fds.erase(it);
      fd_count_.fetch_sub(1, std::memory_order_release);
    } else {
      ++it;
    }
  }
  return out;
}

size_t FdTable::size() const { return fd_count_.load(std::memory_order_acquire); }

void FdTable::add_mapping(void* addr, size_t length_B, std::shared_ptr<kmd::File> file) {
  std::lock_guard lock(impl().mutex);
  impl().mappings[reinterpret_cast<uintptr_t>(addr)] = {length_B, std::move(file)};
  mapping_count_.store(impl().mappings.size(), std::memory_order_release);
}

std::vector<FdTable::Piece> FdTable::split_range(uintptr_t start, size_t length_B) const {
  std::vector<Piece> pieces;
  const uintptr_t end = start + length_B;
  std::lock_guard lock(impl().mutex);
  auto& maps = impl().mappings;
  // The first mapping that may overlap: the one starting at or before start.
  auto it = maps.upper_bound(start);
  if (it != maps.begin()) --it;
  uintptr_t at = start;
  for (; it != maps.end() && it->first < end; ++it) {
    const uintptr_t m_start = it->first, m_end = it->first + it->second.length_B;
    if (m_end <= at) continue;
    const uintptr_t lo = std::max(m_start, at), hi = std::min(m_end, end);
    if (lo > at) pieces.push_back({at, lo - at, nullptr});
    pieces.push_back({lo, hi - lo, it->second.file});
    at = hi;
  }
  if (at < end) pieces.push_back({at, end - at, nullptr});
  return pieces;
}

void FdTable::remove_mapping_range(uintptr_t start, size_t length_B) {
  const uintptr_t end = start + length_B;
  std::vector<std::shared_ptr<kmd::File>> dropped;  // released after unlock
  {
    std::lock_guard lock(impl().mutex);
    auto& maps = impl().mappings;
    auto it = maps.upper_bound(start);
    if (it != maps.begin()) --it;
    while (it != maps.end() && it->first < end) {
      const uintptr_t m_start = it->first, m_end = it->first + it->second.length_B;
      if (m_end <= start) {
        ++it;
        continue;
      }
      Impl::Mapping m = std::move(it->second);
      it = maps.erase(it);
      // Keep what lies outside [start, end): a head and/or a tail.
      if (m_start < start) maps[m_start] = {start - m_start, m.file};
      if (m_end > end) it = maps.emplace(end, Impl::Mapping{m_end - end, m.file}).first;
      dropped.push_back(std::move(m.file));
    }
    mapping_count_.store(maps.size(), std::memory_order_release);
  }
}

}  // namespace agx::shim
