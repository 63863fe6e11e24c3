/* The client's compute jobs and their C references. Kernels (kernels/NAME.s):
 *   saxpy        y[i] = a * x[i] + y[i] for i < n   (u0_u1 x, u2_u3 y, u4 a, u5 n)
 *   reduce       per threadgroup of 64: simd_iadd, lane 0 of each SIMD group
 *                stores to threadgroup memory, barrier, thread 0 adds the two
 *   scan_block   inclusive scan of 32 elements + the block total
 *   scan_totals  exclusive scan of the block totals (one threadgroup)
 *   scan_add     adds its block's offset
 *   histogram    atomic add of 1 to bin (v & 15)
 *   double       b[i] = 2 a[i];  increment: c[i] = b[i] + 1
 *   fault        writes 7 to out[i], then stores to unmapped 0xdead0000 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "agx_pack_c.h"
#include "compute_client.h"

static uint32_t lo(uint64_t va) { return (uint32_t)va; }
static uint32_t hi(uint64_t va) { return (uint32_t)(va >> 32); }

static int run_one(struct client* c, const struct launch* l) {
  struct stream s;
  stream_begin(c, &s, 256);
  stream_launch(&s, l);
  stream_barrier(&s);
  stream_terminate(&s);
  return submit_and_wait(c, &s);
}

void run_saxpy(struct client* c) {
  const uint32_t n = 1u << 20;
  uint64_t x = arena_alloc(c, 4ull * n, 64), y = arena_alloc(c, 4ull * n, 64);
  uint64_t code = load_kernel(c, "saxpy");
  if (!check(x && y && code, "saxpy: buffers and kernel in the arena")) return;
  float *hx = arena_host(c, x), *hy = arena_host(c, y);
  static float ref[1u << 20];
  const float a = 2.5f;
  for (uint32_t i = 0; i < n; i++) {
    hx[i] = (float)(i % 1000) * 0.25f;
    hy[i] = (float)(i % 77) - 10.0f;
    ref[i] = fmaf(a, hx[i], hy[i]);
  }
  uint32_t a_bits;
  memcpy(&a_bits, &a, 4);
  uint32_t u[6] = {lo(x), hi(x), lo(y), hi(y), a_bits, n};
  struct launch l = {.code = code, .uniforms = u, .uniform_count = 6, .register_halves = 8,
                     .grid = {n, 1, 1}, .local = {128, 1, 1}, .mode = AGX_CDM_MODE_DIRECT};
  int r = run_one(c, &l);
  uint32_t bad = 0;
  for (uint32_t i = 0; i < n; i++) bad += memcmp(&hy[i], &ref[i], 4) != 0;
  check(r == 0 && bad == 0, "saxpy over %u floats: %u mismatches against fmaf (submit %d)", n, bad, r);
}

void run_reduction(struct client* c) {
  const uint32_t groups = 256, n = groups * 64;
  uint64_t in = arena_alloc(c, 4ull * n, 64), out = arena_alloc(c, 4ull * groups, 64);
  uint64_t code = load_kernel(c, "reduce");
  if (!check(in && out && code, "reduction: buffers and kernel")) return;
  uint32_t *hin = arena_host(c, in), *hout = arena_host(c, out);
  for (uint32_t i = 0; i < n; i++) hin[i] = i * 2654435761u >> 12;
  uint32_t u[4] = {lo(in), hi(in), lo(out), hi(out)};
  struct launch l = {.code = code, .uniforms = u, .uniform_count = 4, .register_halves = 24, .shared_B = 256,
                     .grid = {n, 1, 1}, .local = {64, 1, 1}, .mode = AGX_CDM_MODE_DIRECT};
  int r = run_one(c, &l);
  uint32_t bad = 0;
  for (uint32_t g = 0; g < groups; g++) {
    uint32_t sum = 0;
    for (uint32_t i = 0; i < 64; i++) sum += hin[g * 64 + i];
    bad += hout[g] != sum;
  }
  check(r == 0 && bad == 0, "threadgroup-memory reduction of %u threadgroups with a barrier: %u wrong sums", groups,
        bad);
}

void run_prefix_sum(struct client* c) {
  const uint32_t n = 1024, blocks = n / 32;
  uint64_t in = arena_alloc(c, 4 * n, 64), out = arena_alloc(c, 4 * n, 64), tot = arena_alloc(c, 4 * blocks, 64);
  uint64_t k1 = load_kernel(c, "scan_block"), k2 = load_kernel(c, "scan_totals"), k3 = load_kernel(c, "scan_add");
  if (!check(in && out && tot && k1 && k2 && k3, "prefix sum: buffers and kernels")) return;
  uint32_t* hin = arena_host(c, in);
  uint32_t* hout = arena_host(c, out);
  for (uint32_t i = 0; i < n; i++) hin[i] = (i * 7 + 3) % 101;
  uint32_t u1[6] = {lo(in), hi(in), lo(out), hi(out), lo(tot), hi(tot)};
  uint32_t u2[2] = {lo(tot), hi(tot)};
  struct launch l1 = {.code = k1, .uniforms = u1, .uniform_count = 6, .register_halves = 16,
                      .grid = {n, 1, 1}, .local = {32, 1, 1}, .mode = AGX_CDM_MODE_DIRECT};
  struct launch l2 = {.code = k2, .uniforms = u2, .uniform_count = 2, .register_halves = 8,
                      .grid = {blocks, 1, 1}, .local = {32, 1, 1}, .mode = AGX_CDM_MODE_DIRECT};
  struct launch l3 = {.code = k3, .uniforms = u1, .uniform_count = 6, .register_halves = 16,
                      .grid = {n, 1, 1}, .local = {32, 1, 1}, .mode = AGX_CDM_MODE_DIRECT};
  struct stream s;
  stream_begin(c, &s, 512);
  stream_launch(&s, &l1);
  stream_barrier(&s);
  stream_launch(&s, &l2);
  stream_barrier(&s);
  stream_launch(&s, &l3);
  stream_barrier(&s);
  stream_terminate(&s);
  int r = submit_and_wait(c, &s);
  uint32_t sum = 0, bad = 0;
  for (uint32_t i = 0; i < n; i++) {
    sum += hin[i];
    bad += hout[i] != sum;
  }
  check(r == 0 && bad == 0, "inclusive prefix sum of %u values in three launches with barriers: %u mismatches", n,
        bad);
}

void run_histogram(struct client* c) {
  const uint32_t n = 100000;
  uint64_t in = arena_alloc(c, 4 * n, 64), hist = arena_alloc(c, 64, 64);
  uint64_t code = load_kernel(c, "histogram");
  if (!check(in && hist && code, "histogram: buffers and kernel")) return;
  uint32_t *hin = arena_host(c, in), *hh = arena_host(c, hist), ref[16] = {0};
  for (uint32_t i = 0; i < n; i++) {
    hin[i] = i * 2654435761u >> 7;
    ref[hin[i] & 15]++;
  }
  memset(hh, 0, 64);
  uint32_t u[5] = {lo(in), hi(in), lo(hist), hi(hist), n};
  struct launch l = {.code = code, .uniforms = u, .uniform_count = 5, .register_halves = 10,
                     .grid = {n, 1, 1}, .local = {256, 1, 1}, .mode = AGX_CDM_MODE_DIRECT};
  int r = run_one(c, &l);
  int same = memcmp(hh, ref, sizeof ref) == 0;
  check(r == 0 && same, "atomic histogram of %u values into 16 bins (bin 0: %u, want %u)", n, hh[0], ref[0]);
}

void run_indirect(struct client* c) {
  const uint32_t n = 4096;
  uint64_t x = arena_alloc(c, 4 * n, 64), y = arena_alloc(c, 4 * n, 64), groups = arena_alloc(c, 12, 16);
  uint64_t code = load_kernel(c, "saxpy");
  if (!check(x && y && groups && code, "indirect: buffers")) return;
  float *hx = arena_host(c, x), *hy = arena_host(c, y);
  for (uint32_t i = 0; i < n; i++) {
    hx[i] = (float)i;
    hy[i] = 1.0f;
  }
  uint32_t* g = arena_host(c, groups);
  g[0] = n / 64; /* threadgroup counts, read when the launch runs */
  g[1] = 1;
  g[2] = 1;
  const float a = -0.5f;
  uint32_t a_bits;
  memcpy(&a_bits, &a, 4);
  uint32_t u[6] = {lo(x), hi(x), lo(y), hi(y), a_bits, n};
  struct launch l = {.code = code, .uniforms = u, .uniform_count = 6, .register_halves = 8,
                     .local = {64, 1, 1}, .mode = AGX_CDM_MODE_INDIRECT_GLOBAL, .indirect = groups};
  int r = run_one(c, &l);
  uint32_t bad = 0;
  for (uint32_t i = 0; i < n; i++) bad += hy[i] != fmaf(a, (float)i, 1.0f);
  check(r == 0 && bad == 0, "indirect dispatch (%u threadgroups from a buffer): %u mismatches", n / 64, bad);
}

void run_two_kernels(struct client* c) {
  const uint32_t n = 2048;
  uint64_t a = arena_alloc(c, 4 * n, 64), b = arena_alloc(c, 4 * n, 64), d = arena_alloc(c, 4 * n, 64);
  uint64_t k1 = load_kernel(c, "double"), k2 = load_kernel(c, "increment");
  if (!check(a && b && d && k1 && k2, "two kernels: buffers")) return;
  uint32_t *ha = arena_host(c, a), *hd = arena_host(c, d);
  for (uint32_t i = 0; i < n; i++) ha[i] = i * 3;
  uint32_t u1[4] = {lo(a), hi(a), lo(b), hi(b)}, u2[4] = {lo(b), hi(b), lo(d), hi(d)};
  struct launch l1 = {.code = k1, .uniforms = u1, .uniform_count = 4, .register_halves = 8,
                      .grid = {n, 1, 1}, .local = {32, 1, 1}, .mode = AGX_CDM_MODE_DIRECT};
  struct launch l2 = {.code = k2, .uniforms = u2, .uniform_count = 4, .register_halves = 8,
                      .grid = {n, 1, 1}, .local = {32, 1, 1}, .mode = AGX_CDM_MODE_DIRECT};
  struct stream s;
  stream_begin(c, &s, 256);
  stream_launch(&s, &l1);
  stream_barrier(&s);
  stream_launch(&s, &l2);
  stream_barrier(&s);
  stream_terminate(&s);
  int r = submit_and_wait(c, &s);
  uint32_t bad = 0;
  for (uint32_t i = 0; i < n; i++) bad += hd[i] != i * 6 + 1;
  check(r == 0 && bad == 0, "two dependent kernels with a barrier between: %u mismatches", bad);
}

void run_fault_then_survive(struct client* c) {
  const uint32_t n = 64;
  uint64_t out = arena_alloc(c, 4 * n, 64);
  uint64_t code = load_kernel(c, "fault");
  if (!check(out && code, "fault: buffers")) return;
  uint32_t* h = arena_host(c, out);
  memset(h, 0, 4 * n);
  uint32_t u[4] = {0, 0, lo(out), hi(out)};
  struct launch l = {.code = code, .uniforms = u, .uniform_count = 4, .register_halves = 12,
                     .grid = {n, 1, 1}, .local = {32, 1, 1}, .mode = AGX_CDM_MODE_DIRECT};
  int r = run_one(c, &l);
  /* Threadgroup 0 wrote 7, then faulted; the command stopped. */
  check(r == 0 && h[0] == 7,
        "a kernel storing to unmapped 0xdead0000 faults: its job completes (wait %d), the launch stops", r);
  /* The next submit on the same queue runs normally. */
  run_two_kernels(c);
}
