// The helper program's stack bookkeeping. The hardware dispatches the
// command's helper program (drm_asahi_helper_program) when a SIMD group
// that needs scratch starts or ends; Mesa's helper (bminor/mesa-mesa
// src/asahi/libagx/helper.cl) answers a stack allocation (op 0, argument
// the spill size bucket) and a free (op 1) from the per-core records of the
// header at `helper.data` (src/asahi/libagx/helper.h: struct
// agx_helper_header and agx_helper_core). Its doorbell and stack-map
// instructions are not in applegpu's table, so the executor does what the
// helper does to the header: an allocation takes record alloc_cur (refused,
// alloc_failed + 1, when alloc_cur reaches `subgroups`), raises alloc_max
// and alloc_count[bucket]; a free gives the last one back. The scratch
// itself stays the executor's own per SIMD group (what the mapped blocks
// hold is not public). The CDM (compute helper) and the PDM (fragment
// helper) share it. See docs/gpu.md.
#include <fmt/format.h>

#include <algorithm>

#include "gpu/shader/shader.h"

namespace agx::gpu {

namespace {

// struct agx_helper_header: subgroups (u32), padding, then the cores.
constexpr GpuVa kSubgroups_B = 0, kCores_B = 8;
// struct agx_helper_core (88 bytes): blocklist (u64), alloc_cur, alloc_max,
// alloc_failed, padding (u32 each), alloc_count[AGX_SPILL_SIZE_BUCKETS = 16].
constexpr GpuVa kCore_B = 88, kAllocCur_B = 8, kAllocMax_B = 12, kAllocFailed_B = 16, kAllocCount_B = 24;
constexpr uint32_t kSpillBuckets = 16;
constexpr uint32_t kMaxCores = 8 * 16;  // AGX_MAX_CLUSTERS * AGX_MAX_CORES_PER_CLUSTER

Result<uint32_t> read_u32(GpuMemory& m, GpuVa va, GpuFault* where) {
  uint8_t b[4];
  AGX_CHECK(read_gpu(m, va, b, 4, GpuUnit::usc, where));
  return uint32_t(b[0]) | uint32_t(b[1]) << 8 | uint32_t(b[2]) << 16 | uint32_t(b[3]) << 24;
}

Status write_u32(GpuMemory& m, GpuVa va, uint32_t v, GpuFault* where) {
  const uint8_t b[4] = {uint8_t(v), uint8_t(v >> 8), uint8_t(v >> 16), uint8_t(v >> 24)};
  GpuFault f;
  if (m.write(va, b, 4, GpuUnit::usc, &f)) return {};
  if (where) *where = f;
  Error e = Error::fault("helper program: {}", describe(f));
  if (where) where->reason = e.message();
  return e;
}

}  // namespace

Status helper_stack_alloc(GpuMemory& m, GpuVa header, uint32_t core, uint32_t bucket, uint32_t groups,
                          GpuFault* where) {
  if (core >= kMaxCores || bucket >= kSpillBuckets)
    return fail(where, header, GpuUnit::usc,
                Error::fault("helper program: core {} or spill bucket {} outside the header", core, bucket));
  const GpuVa rec = header + kCores_B + GpuVa{core} * kCore_B;
  AGX_TRY(uint32_t subgroups, read_u32(m, header + kSubgroups_B, where));
  AGX_TRY(uint32_t cur, read_u32(m, rec + kAllocCur_B, where));
  AGX_TRY(uint32_t max, read_u32(m, rec + kAllocMax_B, where));
  AGX_TRY(uint32_t count, read_u32(m, rec + kAllocCount_B + 4 * GpuVa{bucket}, where));
  const uint32_t before = cur;
  for (uint32_t g = 0; g < groups; ++g) {
    if (cur >= subgroups) {
      // Refused: counted in alloc_failed; the threadgroup is abandoned (the
      // command faults), so the blocks its other SIMD groups got go back.
      AGX_TRY(uint32_t failed, read_u32(m, rec + kAllocFailed_B, where));
      AGX_CHECK(write_u32(m, rec + kAllocFailed_B, failed + 1, where));
      AGX_CHECK(write_u32(m, rec + kAllocCur_B, before, where));
      AGX_CHECK(write_u32(m, rec + kAllocMax_B, max, where));
      AGX_CHECK(write_u32(m, rec + kAllocCount_B + 4 * GpuVa{bucket}, count, where));
      return fail(where, rec + kAllocCur_B, GpuUnit::usc,
                  Error::fault("the helper program refused a stack allocation on core {}: {} of {} subgroups' "
                               "blocks are in use",
                               core, cur, subgroups));
    }
    max = std::max(max, ++cur);
    ++count;
  }
  AGX_CHECK(write_u32(m, rec + kAllocCur_B, cur, where));
  AGX_CHECK(write_u32(m, rec + kAllocMax_B, max, where));
  return write_u32(m, rec + kAllocCount_B + 4 * GpuVa{bucket}, count, where);
}

Status helper_stack_free(GpuMemory& m, GpuVa header, uint32_t core, uint32_t groups, GpuFault* where) {
  const GpuVa rec = header + kCores_B + GpuVa{core} * kCore_B;
  AGX_TRY(uint32_t cur, read_u32(m, rec + kAllocCur_B, where));
  if (cur < groups)
    return fail(where, rec + kAllocCur_B, GpuUnit::usc,
                Error::fault("the helper program's stack free on core {} underflows ({} in use, {} freed)", core,
                             cur, groups));
  return write_u32(m, rec + kAllocCur_B, cur - groups, where);
}

}  // namespace agx::gpu
