// SIMD-group placement (special registers), host-backed GPU memory, and
// threadgroup dispatch with barriers.
#include <algorithm>
#include <cstring>

#include <fmt/format.h>

#include "usc/internal.h"
#include "util/bits.h"

namespace agx::usc {

void place(Core& c, const Placement& p) {
  auto set = [&](unsigned n, auto f) {
    c.sr_known[n] = true;
    for (unsigned l = 0; l < kLanes; ++l) c.sr[n][l] = f(l);
  };
  const auto& tpg = p.threads_per_threadgroup;
  const bool full = p.dispatch_threads_per_threadgroup == std::array<uint32_t, 3>{0, 0, 0};
  const auto& dtpg = full ? tpg : p.dispatch_threads_per_threadgroup;
  for (unsigned i = 0; i < 3; ++i) {
    set(i, [&](unsigned) { return p.threadgroup_position[i]; });
    set(4 + i, [&](unsigned) { return tpg[i]; });
    set(8 + i, [&](unsigned) { return dtpg[i]; });
  }
  auto local = [&](unsigned l) { return p.simdgroup_index * kLanes + l; };
  auto pos = [&](unsigned l, unsigned axis) -> uint32_t {
    uint32_t idx = local(l);
    uint32_t x = tpg[0] ? idx % tpg[0] : 0, rest = tpg[0] ? idx / tpg[0] : 0;
    uint32_t y = tpg[1] ? rest % tpg[1] : 0, z = tpg[1] ? rest / tpg[1] : 0;
    return axis == 0 ? x : axis == 1 ? y : z;
  };
  for (unsigned i = 0; i < 3; ++i) {
    set(48 + i, [&](unsigned l) { return pos(l, i); });
    set(80 + i, [&](unsigned l) { return p.threadgroup_position[i] * dtpg[i] + pos(l, i); });
  }
  set(51, local);
  set(52, [](unsigned l) { return l; });
  set(53, [&](unsigned) { return p.simdgroup_index; });
  set(62, [](unsigned) { return 0u; });  // backfacing: compute work is front-facing
}

Core make_core() {
  Core c;
  place(c, Placement{});
  return c;
}

// ---------------------------------------------------------------------------

Status RegionMemory::map(GpuVa va, std::vector<uint8_t> bytes, bool writable) {
  if (bytes.empty()) return Error::invalid_argument("empty memory region at 0x{:016x}", va);
  if (add_overflows(va, bytes.size() - 1)) return Error::invalid_argument("memory region at 0x{:016x} wraps", va);
  GpuVa end = va + bytes.size() - 1;
  auto next = regions_.lower_bound(va);
  if (next != regions_.end() && next->first <= end)
    return Error::invalid_argument("memory regions 0x{:016x} and 0x{:016x} overlap", va, next->first);
  if (next != regions_.begin()) {
    auto prev = std::prev(next);
    if (prev->first + (prev->second.size() - 1) >= va)
      return Error::invalid_argument("memory regions 0x{:016x} and 0x{:016x} overlap", prev->first, va);
  }
  writable_[va] = writable;
  regions_[va] = std::move(bytes);
  return {};
}

bool RegionMemory::find(GpuVa va, size_t size, Hit& hit) {
  auto it = regions_.upper_bound(va);
  if (it == regions_.begin()) return false;
  --it;
  size_t off = va - it->first;
  if (off >= it->second.size() || size > it->second.size() - off) return false;
  hit = {&it->second, off};
  return true;
}

bool RegionMemory::read(GpuVa va, void* dst, size_t size, GpuUnit unit, GpuFault* fault) {
  auto* out = static_cast<uint8_t*>(dst);
  for (size_t i = 0; i < size;) {  // byte runs, so accesses may span regions
    Hit h;
    if (!find(va + i, 1, h)) {
      if (fault) *fault = {va + i, Access::read, unit, "unmapped"};
      return false;
    }
    size_t n = std::min(size - i, h.bytes->size() - h.offset);
    std::memcpy(out + i, h.bytes->data() + h.offset, n);
    i += n;
  }
  return true;
}

bool RegionMemory::write(GpuVa va, const void* src, size_t size, GpuUnit unit, GpuFault* fault) {
  for (size_t i = 0; i < size; ++i) {  // check every byte first: all or nothing
    Hit h;
    if (!find(va + i, 1, h)) {
      if (fault) *fault = {va + i, Access::write, unit, "unmapped"};
      return false;
    }
    GpuVa start = va + i - h.offset;
    if (!writable_[start]) {
      if (fault) *fault = {va + i, Access::write, unit, "not writable"};
      return false;
    }
  }
  const auto* in = static_cast<const uint8_t*>(src);
  for (size_t i = 0; i < size; ++i) {
    Hit h;
    find(va + i, 1, h);
    (*h.bytes)[h.offset] = in[i];
  }
  return true;
}

uint8_t* RegionMemory::host_pointer(GpuVa va, size_t size, Access access) {
  Hit h;
  if (!find(va, size, h)) return nullptr;
  if (access == Access::write && !writable_[va - h.offset]) return nullptr;
  return h.bytes->data() + h.offset;
}

// ---------------------------------------------------------------------------

// Runs one threadgroup: its SIMD groups take turns, each running until it
// finishes or reaches a barrier; when every unfinished group waits at the
// barrier, all continue. A group running ahead therefore sees threadgroup
// memory as the hardware guarantees only after a barrier.
static Status run_threadgroup(const Program& program, const Dispatch& d, std::array<uint32_t, 3> tg,
                              GpuMemory& device, const RunOptions& options, FixedFunction* ff) {
  uint64_t threads = uint64_t{d.threads_per_threadgroup[0]} * d.threads_per_threadgroup[1] *
                     d.threads_per_threadgroup[2];
  unsigned groups = static_cast<unsigned>((threads + kLanes - 1) / kLanes);
  std::vector<uint8_t> shared(d.threadgroup_memory_B);
  Memories mem{&device, &shared, ff};
  std::vector<std::unique_ptr<Core>> cores;
  for (unsigned g = 0; g < groups; ++g) {
    auto c = std::make_unique<Core>();
    place(*c, Placement{tg, d.threads_per_threadgroup, g});
    c->u = d.uniforms;
    c->pc = program.base_pc();
    uint64_t left = threads - uint64_t{g} * kLanes;
    c->exec = left >= kLanes ? 0xFFFFFFFFu : (1u << left) - 1;
    c->present = c->exec;
    cores.push_back(std::move(c));
  }
  std::vector<bool> done(groups, false);
  unsigned finished = 0;
  while (finished < groups) {
    for (unsigned g = 0; g < groups; ++g) {
      if (done[g]) continue;
      auto r = run(program, *cores[g], mem, options);
      if (!r) return std::move(r).error().context(fmt::format("threadgroup ({},{},{}) simdgroup {}", tg[0], tg[1], tg[2], g));
      if (*r == StopReason::finished) {
        done[g] = true;
        ++finished;
      }
    }
  }
  return {};
}

Status dispatch(const Program& program, const Dispatch& d, GpuMemory& device,
                const RunOptions& options, FixedFunction* ff) {
  uint64_t threads = uint64_t{d.threads_per_threadgroup[0]} * d.threads_per_threadgroup[1] *
                     d.threads_per_threadgroup[2];
  if (threads == 0 || threads > 1024)
    return Error::invalid_argument("threads per threadgroup must be 1..1024, got {}", threads);
  for (uint32_t z = 0; z < d.threadgroups[2]; ++z)
    for (uint32_t y = 0; y < d.threadgroups[1]; ++y)
      for (uint32_t x = 0; x < d.threadgroups[0]; ++x)
        AGX_CHECK(run_threadgroup(program, d, {x, y, z}, device, options, ff));
  return {};
}

}  // namespace agx::usc
