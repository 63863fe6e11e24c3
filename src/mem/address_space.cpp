// Page tables, translation and faults of one GPU VM.
#include <algorithm>
#include <cstring>
#include <mutex>

#include "mem/mem.h"

namespace agx::mem {

AddressSpace::AddressSpace() : root_(kRootEntries) {}
AddressSpace::~AddressSpace() = default;

Status AddressSpace::check_range(GpuVa va, uint64_t size_B) const {
  if ((va | size_B) & kPageMask)
    return Error::invalid_argument("range 0x{:x}+0x{:x} is not 16 KiB page-aligned", va, size_B);
  if (size_B > kVaLimit || va > kVaLimit - size_B)
    return Error::invalid_argument("range 0x{:x}+0x{:x} is outside the 39-bit VA space", va, size_B);
  return {};
}

AddressSpace::Pte AddressSpace::lookup(GpuVa va) const {
  if (va >= kVaLimit) return 0;
  uint64_t page = va >> kPageShift;
  const Leaf* leaf = root_[page >> kLeafBits].get();
  return leaf ? leaf->pte[page & (kLeafPages - 1)] : 0;
}

void AddressSpace::set(uint64_t page, Pte pte) {
  auto& slot = root_[page >> kLeafBits];
  if (!slot) {
    if (!pte) return;
    slot = std::make_unique<Leaf>();
    if (tracking_.load(std::memory_order_relaxed)) add_stamps(*slot);
  }
  Pte& entry = slot->pte[page & (kLeafPages - 1)];
  if (!entry && pte) {
    slot->used++;
    mapped_pages_.fetch_add(1, std::memory_order_relaxed);
  } else if (entry && !pte) {
    slot->used--;
    mapped_pages_.fetch_sub(1, std::memory_order_relaxed);
  }
  entry = pte;
  if (slot->used == 0) slot.reset();
}

Status AddressSpace::map(GpuVa va, uint8_t* host, uint64_t size_B, uint8_t perms) {
  AGX_CHECK(check_range(va, size_B));
  if (!host || (reinterpret_cast<uintptr_t>(host) & 3) || (perms & ~(kRead | kWrite)) || !perms)
    return Error::invalid_argument("bad host pointer or permissions for map at 0x{:x}", va);
  std::unique_lock guard(lock_);
  for (uint64_t off = 0; off < size_B; off += kPageSize_B)
    set((va + off) >> kPageShift, reinterpret_cast<Pte>(host + off) | perms);
  return {};
}

Status AddressSpace::map_repeated(GpuVa va, uint8_t* host_page, uint64_t size_B, uint8_t perms) {
  AGX_CHECK(check_range(va, size_B));
  if (!host_page || (reinterpret_cast<uintptr_t>(host_page) & 3) || (perms & ~(kRead | kWrite)) || !perms)
    return Error::invalid_argument("bad host pointer or permissions for map at 0x{:x}", va);
  std::unique_lock guard(lock_);
  for (uint64_t off = 0; off < size_B; off += kPageSize_B)
    set((va + off) >> kPageShift, reinterpret_cast<Pte>(host_page) | perms);
  return {};
}

Status AddressSpace::unmap(GpuVa va, uint64_t size_B) {
  AGX_CHECK(check_range(va, size_B));
  std::unique_lock guard(lock_);
  uint64_t page = va >> kPageShift, end = (va + size_B) >> kPageShift;
  while (page < end) {
    if (!root_[page >> kLeafBits]) {  // skip a whole absent leaf
      page = ((page >> kLeafBits) + 1) << kLeafBits;
      continue;
    }
    set(page++, 0);
  }
  return {};
}

uint8_t* AddressSpace::translate(GpuVa va, uint8_t* perms) const {
  std::shared_lock guard(lock_);
  Pte pte = lookup(va);
  if (perms) *perms = pte & 3;
  return pte ? reinterpret_cast<uint8_t*>(pte & ~Pte{3}) + (va & kPageMask) : nullptr;
}

bool AddressSpace::record(GpuVa va, Access access, GpuUnit unit, const char* reason, GpuFault* fault) {
  GpuFault f{va, access, unit, reason};
  std::lock_guard guard(fault_lock_);
  fault_count_++;
  if (faults_.size() == kMaxRecordedFaults) faults_.erase(faults_.begin());
  faults_.push_back(f);
  if (fault) *fault = std::move(f);
  return false;
}

// Checks every page of [va, va+size) first, then copies page by page, so a
// faulting write changes nothing.
template <typename Copy>
bool AddressSpace::access(GpuVa va, size_t size, Access access, GpuUnit unit, GpuFault* fault, Copy copy) {
  const uint8_t need = access == Access::read ? kRead : kWrite;
  if (size == 0) return true;
  if (va >= kVaLimit || size > kVaLimit - va) {
    GpuVa at = va >= kVaLimit ? va : kVaLimit;
    return record(at, access, unit, "outside the VA space", fault);
  }
  std::shared_lock guard(lock_);
  const uint64_t first = va >> kPageShift, last = (va + size - 1) >> kPageShift;
  if (first == last) {  // the common case: inside one page
    Pte pte = lookup(va);
    if (!(pte & need)) {
      guard.unlock();
      return record(va, access, unit, pte ? (need == kRead ? "not readable" : "not writable") : "unmapped", fault);
    }
    touch(first, first, access);
    copy(reinterpret_cast<uint8_t*>(pte & ~Pte{3}) + (va & kPageMask), 0, size);
    return true;
  }
  for (uint64_t page = first; page <= last; page++) {
    Pte pte = lookup(page << kPageShift);
    if (!(pte & need)) {
      GpuVa at = page == first ? va : page << kPageShift;
      guard.unlock();
      return record(at, access, unit, pte ? (need == kRead ? "not readable" : "not writable") : "unmapped", fault);
    }
  }
  touch(first, last, access);
  size_t done = 0;
  while (done < size) {
    GpuVa at = va + done;
    size_t chunk = std::min<uint64_t>(size - done, kPageSize_B - (at & kPageMask));
    Pte pte = lookup(at);
    copy(reinterpret_cast<uint8_t*>(pte & ~Pte{3}) + (at & kPageMask), done, chunk);
    done += chunk;
  }
  return true;
}

bool AddressSpace::read(GpuVa va, void* dst, size_t size, GpuUnit unit, GpuFault* fault) {
  auto* out = static_cast<uint8_t*>(dst);
  return access(va, size, Access::read, unit, fault,
                [out](const uint8_t* host, size_t at, size_t n) { std::memcpy(out + at, host, n); });
}

bool AddressSpace::write(GpuVa va, const void* src, size_t size, GpuUnit unit, GpuFault* fault) {
  auto* in = static_cast<const uint8_t*>(src);
  return access(va, size, Access::write, unit, fault,
                [in](uint8_t* host, size_t at, size_t n) { std::memcpy(host, in + at, n); });
}

uint8_t* AddressSpace::host_pointer(GpuVa va, size_t size, Access access) {
  const uint8_t need = access == Access::read ? kRead : kWrite;
  if (size == 0 || va >= kVaLimit || size > kVaLimit - va) return nullptr;
  std::shared_lock guard(lock_);
  Pte pte = lookup(va);
  if (!(pte & need)) return nullptr;
  uint8_t* base = reinterpret_cast<uint8_t*>(pte & ~Pte{3}) + (va & kPageMask);
  // Contiguous in host memory across the following pages?
  uint64_t first = va >> kPageShift, last = (va + size - 1) >> kPageShift;
  for (uint64_t page = first + 1; page <= last; page++) {
    Pte next = lookup(page << kPageShift);
    uint8_t* expect = base + ((page << kPageShift) - va);
    if (!(next & need) || reinterpret_cast<uint8_t*>(next & ~Pte{3}) != expect) return nullptr;
  }
  touch(first, last, access);
  return base;
}

namespace {

// Raises a stamp to `now` (never lowers it: a thread holding an older
// epoch must not hide a newer user's touch).
void raise(std::atomic<uint64_t>& stamp, uint64_t now) {
  uint64_t old = stamp.load(std::memory_order_relaxed);
  while (old < now && !stamp.compare_exchange_weak(old, now, std::memory_order_relaxed)) {
  }
}

}  // namespace

void AddressSpace::add_stamps(Leaf& leaf) const {
  if (leaf.touched) return;
  leaf.touched = std::make_unique<std::atomic<uint64_t>[]>(kLeafPages);
  leaf.written = std::make_unique<std::atomic<uint64_t>[]>(kLeafPages);
}

// Stamps pages first..last (all inside the VA space) with the current
// epoch. The first check keeps the untracked path to one relaxed load.
void AddressSpace::touch(uint64_t first_page, uint64_t last_page, Access access) const {
  if (!tracking_.load(std::memory_order_relaxed)) return;
  const uint64_t now = epoch_.load(std::memory_order_relaxed);
  for (uint64_t page = first_page; page <= last_page; ++page) {
    const Leaf* leaf = root_[page >> kLeafBits].get();
    if (!leaf || !leaf->touched) continue;
    const uint64_t i = page & (kLeafPages - 1);
    raise(leaf->touched[i], now);
    if (access == Access::write) raise(leaf->written[i], now);
  }
}

void AddressSpace::track_touches() {
  if (tracking_.load(std::memory_order_relaxed)) return;
  std::unique_lock guard(lock_);
  if (tracking_.load(std::memory_order_relaxed)) return;
  for (auto& leaf : root_)
    if (leaf) add_stamps(*leaf);
  tracking_.store(true, std::memory_order_relaxed);
}

uint64_t AddressSpace::touch_mark() { return epoch_.fetch_add(1, std::memory_order_relaxed) + 1; }

std::vector<AddressSpace::TouchedRange> AddressSpace::touched_since(uint64_t mark) const {
  std::vector<TouchedRange> out;
  std::shared_lock guard(lock_);
  for (uint64_t r = 0; r < kRootEntries; ++r) {
    const Leaf* leaf = root_[r].get();
    if (!leaf || !leaf->touched) continue;
    for (uint64_t i = 0; i < kLeafPages; ++i) {
      if (!leaf->pte[i] || leaf->touched[i].load(std::memory_order_relaxed) < mark) continue;
      const GpuVa va = ((r << kLeafBits) | i) << kPageShift;
      const bool written = leaf->written[i].load(std::memory_order_relaxed) >= mark;
      if (!out.empty() && out.back().va + out.back().size_B == va && out.back().written == written)
        out.back().size_B += kPageSize_B;
      else
        out.push_back({va, kPageSize_B, written});
    }
  }
  return out;
}

std::vector<GpuFault> AddressSpace::faults() const {
  std::lock_guard guard(fault_lock_);
  return faults_;
}

uint64_t AddressSpace::fault_count() const {
  std::lock_guard guard(fault_lock_);
  return fault_count_;
}

}  // namespace agx::mem
