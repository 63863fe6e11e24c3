/*
 * End-to-end rendering, the way a driver does it: a C11 program that uses
 * only libdrm, asahi_drm.h and pack helpers generated from the project's
 * packet tables. Run under the shim (LD_PRELOAD=libagx_shim.so) it opens
 * the render node, makes a VM and an arena, writes programs (assembled with
 * `agx asm` at build time), USC word lists, PPP updates, a VDM stream and a
 * linear RGBA8 render target into it, submits render commands and checks
 * every pixel against a reference computed here from the documented rules
 * (docs/gpu.md, "The ISP"). One line per check; exit 1 on a mismatch.
 */
#include <math.h>
#include <stdio.h>

#include "render_client.h"

/* ---- the reference ---- */

uint32_t rgba8(const float c[4]) {
  uint32_t w = 0;
  for (int k = 0; k < 4; k++) {
    float v = c[k] < 0 ? 0 : c[k] > 1 ? 1 : c[k];
    w |= (uint32_t)lroundf(v * 255.0f) << (8 * k);
  }
  return w;
}

/* Positions on the 1/256-pixel grid the ISP snaps to. */
static int64_t snap(float v) { return (int64_t)llround((double)v * 256.0); }

/* Top-left rule: a sample on an edge is covered only when the edge is a top
 * edge (horizontal, the triangle below it) or a left edge (the triangle to
 * its right); `s` is the sign of the triangle's area as the edge sees it. */
static int inside_edge(int64_t ax, int64_t ay, int64_t bx, int64_t by, int64_t px, int64_t py, int64_t s) {
  const int64_t dx = bx - ax, dy = by - ay;
  const int64_t e = dx * (py - ay) - dy * (px - ax);
  if (e * s > 0) return 1;
  if (e != 0) return 0;
  return dy == 0 ? dx * s > 0 : -dy * s > 0;
}

int covers_triangle(const float a[2], const float b[2], const float c[2], unsigned x, unsigned y, unsigned sx,
                    unsigned sy) {
  const int64_t ax = snap(a[0]), ay = snap(a[1]), bx = snap(b[0]), by = snap(b[1]);
  const int64_t cx = snap(c[0]), cy = snap(c[1]);
  const int64_t area = (bx - ax) * (cy - ay) - (by - ay) * (cx - ax);
  if (area == 0) return 0;
  const int64_t s = area > 0 ? 1 : -1;
  const int64_t px = (int64_t)x * 256 + sx * 16, py = (int64_t)y * 256 + sy * 16;
  return inside_edge(ax, ay, bx, by, px, py, s) && inside_edge(bx, by, cx, cy, px, py, s) &&
         inside_edge(cx, cy, ax, ay, px, py, s);
}

/* A line: the rectangle `width` wide along the segment, 0 <= along < length,
 * -w/2 <= across < w/2, no end caps (the pixel centre). */
int covers_line(const float a[2], const float b[2], float width, unsigned x, unsigned y) {
  const double dx = b[0] - a[0], dy = b[1] - a[1], len = sqrt(dx * dx + dy * dy);
  const double px = x + 0.5 - a[0], py = y + 0.5 - a[1];
  const double along = (px * dx + py * dy) / len, across = (dx * py - dy * px) / len;
  return along >= 0 && along < len && across >= -width / 2 && across < width / 2;
}

/* A point: the half-open square [x - s/2, x + s/2) x [y - s/2, y + s/2). */
int covers_point(const float a[2], float size, unsigned x, unsigned y) {
  const double px = x + 0.5, py = y + 0.5;
  return px >= a[0] - size / 2 && px < a[0] + size / 2 && py >= a[1] - size / 2 && py < a[1] + size / 2;
}

void ref_fill(uint32_t* ref, const float colour[4]) {
  for (unsigned i = 0; i < RT_W * RT_H; i++) ref[i] = rgba8(colour);
}

void ref_triangle(uint32_t* ref, const float a[2], const float b[2], const float c[2], const float colour[4]) {
  for (unsigned y = 0; y < RT_H; y++)
    for (unsigned x = 0; x < RT_W; x++)
      if (covers_triangle(a, b, c, x, y, 8, 8)) ref[y * RT_W + x] = rgba8(colour);
}

unsigned compare_image(const struct frame* f, const uint32_t* ref, unsigned layer) {
  unsigned bad = 0;
  for (unsigned y = 0; y < RT_H; y++)
    for (unsigned x = 0; x < RT_W; x++) {
      uint32_t got = frame_pixel(f, x, y, layer), want = ref[y * RT_W + x];
      if (got != want && bad++ == 0)
        printf("     first mismatch at (%u, %u) layer %u: 0x%08x, expected 0x%08x\n", x, y, layer, got, want);
    }
  return bad;
}

int main(void) {
  struct client c;
  if (!open_client(&c, 64ull << 20)) {
    printf("render_client: setup failed (run under LD_PRELOAD=libagx_shim.so)\n");
    return 1;
  }
  run_clear(&c);
  run_triangle(&c);
  run_fill_convention(&c);
  run_depth(&c);
  run_stencil(&c);
  run_topologies(&c);
  run_instancing(&c);
  run_indexed_restart(&c);
  run_msaa(&c);
  run_scissor(&c);
  run_occlusion_query(&c);
  run_layers(&c);
  run_fault_then_survive(&c);
  return check_summary("render_client");
}
