// agx::mem: GPU virtual memory. One AddressSpace per GPU VM: a two-level
// page table of 16 KiB pages (the UAT page size of the G13, as in the Asahi
// kernel driver's pgtable: UAT_PGBIT = 14) over a 39-bit VA space, each page
// pointing at host memory with READ/WRITE permissions.
//
// Every access of the software GPU goes through here. An access that touches
// an unmapped page or lacks permission is a recorded GpuFault (VA, access,
// unit) and never reaches host memory outside what was mapped; address
// spaces share nothing, so one VM can never reach another's memory.
//
// Thread-safe: reads and writes take a shared lock, map/unmap an exclusive
// one; host_pointer() results are valid until the mapping changes.
//
// Page touch tracking (for captures, off until track_touches()): every
// page an access or host_pointer() reaches gets the current touch epoch as
// its stamp (and its write stamp for writes), so touched_since(mark) lists
// the pages used since touch_mark() returned mark.
#pragma once

#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <shared_mutex>
#include <vector>

#include "util/gpu_memory.h"
#include "util/result.h"

namespace agx::mem {

inline constexpr uint64_t kPageShift = 14;
inline constexpr uint64_t kPageSize_B = uint64_t{1} << kPageShift;  // 16 KiB
inline constexpr uint64_t kPageMask = kPageSize_B - 1;
inline constexpr uint64_t kVaBits = 39;  // UAT input address size (user half)
inline constexpr uint64_t kVaLimit = uint64_t{1} << kVaBits;

// Page permissions (combinable).
inline constexpr uint8_t kRead = 1;
inline constexpr uint8_t kWrite = 2;

class AddressSpace final : public GpuMemory {
 public:
  AddressSpace();
  ~AddressSpace() override;
  AddressSpace(const AddressSpace&) = delete;
  AddressSpace& operator=(const AddressSpace&) = delete;

  // Maps [va, va+size_B) to host memory [host, host+size_B) with `perms`,
  // replacing what was there. va, size_B must be page-aligned and host
  // aligned to 4 bytes at least; the range must lie below kVaLimit.
  Status map(GpuVa va, uint8_t* host, uint64_t size_B, uint8_t perms);
  // Maps the one host page `host_page` repeatedly over [va, va+size_B)
  // (sparse scratch/zero pages).
  Status map_repeated(GpuVa va, uint8_t* host_page, uint64_t size_B, uint8_t perms);
  // Unmaps every page of [va, va+size_B) (absent pages are fine).
  Status unmap(GpuVa va, uint64_t size_B);

  // Host pointer of the page holding `va` and its permissions, or nullptr.
  uint8_t* translate(GpuVa va, uint8_t* perms) const;
  uint64_t mapped_pages() const { return mapped_pages_.load(std::memory_order_relaxed); }

  bool read(GpuVa va, void* dst, size_t size, GpuUnit unit, GpuFault* fault) override;
  bool write(GpuVa va, const void* src, size_t size, GpuUnit unit, GpuFault* fault) override;
  uint8_t* host_pointer(GpuVa va, size_t size, Access access) override;

  // Touch tracking. track_touches(true) starts stamping pages (idempotent);
  // touch_mark() opens a new epoch and returns it: every page accessed from
  // then on has a stamp >= the mark. touched_since(mark) gives the mapped
  // pages with such a stamp as page-aligned ranges, in VA order, each page
  // of a range written (`written`) or each only read. Concurrent users of
  // one address space see each other's pages too (a superset, never less).
  struct TouchedRange {
    GpuVa va;
    uint64_t size_B;
    bool written;
    bool operator==(const TouchedRange&) const = default;
  };
  void track_touches();
  bool tracking_touches() const { return tracking_.load(std::memory_order_relaxed); }
  uint64_t touch_mark();
  std::vector<TouchedRange> touched_since(uint64_t mark) const;

  // Faults recorded so far (the most recent kMaxRecordedFaults) and count.
  static constexpr size_t kMaxRecordedFaults = 64;
  std::vector<GpuFault> faults() const;
  uint64_t fault_count() const;

 private:
  static constexpr uint64_t kLeafBits = 13;  // 8192 pages (128 MiB) per leaf
  static constexpr uint64_t kLeafPages = uint64_t{1} << kLeafBits;
  static constexpr uint64_t kRootEntries = uint64_t{1} << (kVaBits - kPageShift - kLeafBits);
  // A page entry: host page address | permission bits (host pages are at
  // least 4-byte aligned, so the low two bits are free). 0 = unmapped.
  using Pte = uintptr_t;
  struct Leaf {
    std::array<Pte, kLeafPages> pte{};
    uint32_t used = 0;
    // Touch stamps per page (epochs), present while tracking.
    std::unique_ptr<std::atomic<uint64_t>[]> touched, written;
  };

  Status check_range(GpuVa va, uint64_t size_B) const;
  Pte lookup(GpuVa va) const;
  void set(uint64_t page, Pte pte);
  bool record(GpuVa va, Access access, GpuUnit unit, const char* reason, GpuFault* fault);
  void add_stamps(Leaf& leaf) const;
  void touch(uint64_t first_page, uint64_t last_page, Access access) const;
  template <typename Copy>
  bool access(GpuVa va, size_t size, Access access, GpuUnit unit, GpuFault* fault, Copy copy);

  mutable std::shared_mutex lock_;
  std::vector<std::unique_ptr<Leaf>> root_;
  std::atomic<uint64_t> mapped_pages_{0};
  std::atomic<bool> tracking_{false};
  std::atomic<uint64_t> epoch_{0};

  mutable std::mutex fault_lock_;
  std::vector<GpuFault> faults_;
  uint64_t fault_count_ = 0;
};

}  // namespace agx::mem
