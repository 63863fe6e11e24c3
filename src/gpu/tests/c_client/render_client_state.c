/* Render cases: instancing, an indexed strip with primitive restart, a
 * scissored draw, an occlusion query and a faulting draw that the next
 * submit survives. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "agx_pack_c.h"
#include "render_client.h"

static const float kClear[4] = {0.25f, 0.0f, 0.0f, 1.0f};
static const float kCyan[4] = {0, 1, 1, 1}, kMagenta[4] = {1, 0, 1, 1};
static uint32_t g_ref[RT_W * RT_H];

static int submit_ok(struct frame* f, const char* what) {
  int status = 0;
  int r = frame_submit(f, &status);
  return check(r == 0 && status == 1, "%s: submit %d, fence status %d", what, r, status);
}

static void expect_image(struct frame* f, const char* what) {
  unsigned bad = compare_image(f, g_ref, 0);
  check(bad == 0, "%s: %u pixels differ", what, bad);
}

/* One triangle drawn 3 times, instance i moved by the i-th offset (the
 * vertex shader reads it by instance ID). */
void run_instancing(struct client* c) {
  struct frame f;
  if (!check(frame_begin(c, &f, 1, 1, kClear), "instancing: frame set up")) return;
  const float v[3][4] = {{2.125f, 2.375f, 0, 0}, {28.5f, 6.625f, 0, 0}, {8.75f, 26.25f, 0, 0}};
  const float offsets[3][2] = {{0, 0}, {31.5f, 3.25f}, {10.125f, 33.75f}};
  frame_vertices(&f, v, 3);
  frame_instance_offsets(&f, offsets, 3);
  struct draw d = {.primitive = AGX_PRIMITIVE_TRIANGLES, .count = 3, .instances = 3};
  memcpy(d.colour, kCyan, 16);
  frame_draw(&f, &d);
  ref_fill(g_ref, kClear);
  for (unsigned i = 0; i < 3; i++) {
    float p[3][2];
    for (unsigned k = 0; k < 3; k++) {
      p[k][0] = v[k][0] + offsets[i][0];
      p[k][1] = v[k][1] + offsets[i][1];
    }
    ref_triangle(g_ref, p[0], p[1], p[2], kCyan);
  }
  if (submit_ok(&f, "instancing: 3 instances of a triangle")) expect_image(&f, "instancing: each instance moved");
}

/* A 32-bit indexed triangle strip: 0 1 2 3, restart, 4 5 6; with bias 1 the
 * indices name vertices 1.. (Start is the index bias of indexed draws). */
void run_indexed_restart(struct client* c) {
  struct frame f;
  if (!check(frame_begin(c, &f, 1, 1, kClear), "indexed: frame set up")) return;
  const float v[8][4] = {{0, 0, 0, 0},
                         {3.5f, 3.25f, 0, 0},   {4.125f, 30.625f, 0, 0}, {24.75f, 5.375f, 0, 0},
                         {26.5f, 28.875f, 0, 0}, {36.25f, 34.5f, 0, 0},   {60.625f, 40.125f, 0, 0},
                         {40.375f, 62.75f, 0, 0}};
  frame_vertices(&f, v, 8);
  const uint32_t idx[8] = {0, 1, 2, 3, 0xffffffffu, 4, 5, 6};
  uint64_t ib = arena_put(c, idx, sizeof idx, &f.failed);
  struct draw d = {.primitive = AGX_PRIMITIVE_TRIANGLE_STRIP, .first = 1, .count = 8, .indices = ib};
  memcpy(d.colour, kMagenta, 16);
  frame_draw(&f, &d);
  ref_fill(g_ref, kClear);
  ref_triangle(g_ref, v[1], v[2], v[3], kMagenta);
  ref_triangle(g_ref, v[2], v[3], v[4], kMagenta);
  ref_triangle(g_ref, v[5], v[6], v[7], kMagenta);
  if (submit_ok(&f, "indexed strip with primitive restart"))
    expect_image(&f, "indexed strip: two runs split at the restart index");
}

/* 4x MSAA: a white triangle over black at the 4 sample positions of
 * ppp_multisamplectl (sixteenths: (6, 2), (14, 6), (2, 10), (10, 14), Mesa's
 * hk_default_sample_positions); the end-of-tile program averages the
 * samples (k/4 of white) into the single-sample target. */
void run_msaa(struct client* c) {
  static const float kBlack[4] = {0, 0, 0, 1}, kWhite[4] = {1, 1, 1, 1};
  static const unsigned pos[4][2] = {{6, 2}, {14, 6}, {2, 10}, {10, 14}};
  struct frame f;
  if (!check(frame_begin(c, &f, 1, 4, kBlack), "msaa: frame set up")) return;
  const float v[3][4] = {{3.125f, 2.875f, 0, 0}, {61.375f, 19.625f, 0, 0}, {17.875f, 62.125f, 0, 0}};
  frame_vertices(&f, v, 3);
  struct draw d = {.primitive = AGX_PRIMITIVE_TRIANGLES, .count = 3};
  memcpy(d.colour, kWhite, 16);
  frame_draw(&f, &d);
  unsigned partial = 0;
  for (unsigned y = 0; y < RT_H; y++)
    for (unsigned x = 0; x < RT_W; x++) {
      unsigned k = 0;
      for (unsigned s = 0; s < 4; s++) k += (unsigned)covers_triangle(v[0], v[1], v[2], x, y, pos[s][0], pos[s][1]);
      const float avg = (float)k / 4.0f, colour[4] = {avg, avg, avg, 1};
      g_ref[y * RT_W + x] = rgba8(colour);
      partial += k > 0 && k < 4;
    }
  check(partial > 100, "msaa: %u edge pixels are partly covered", partial);
  if (submit_ok(&f, "4x MSAA triangle")) expect_image(&f, "4x MSAA resolved by the end-of-tile program");
}

/* A full-target quad with the scissor [10, 41) x [12, 50). */
void run_scissor(struct client* c) {
  struct frame f;
  if (!check(frame_begin(c, &f, 1, 1, kClear), "scissor: frame set up")) return;
  const float v[4][4] = {{0, 0, 0, 0}, {64, 0, 0, 0}, {0, 64, 0, 0}, {64, 64, 0, 0}};
  frame_vertices(&f, v, 4);
  frame_scissor(&f, 10, 12, 41, 50);
  struct draw d = {.primitive = AGX_PRIMITIVE_TRIANGLE_STRIP, .count = 4, .scissor = 1};
  memcpy(d.colour, kCyan, 16);
  frame_draw(&f, &d);
  ref_fill(g_ref, kClear);
  for (unsigned y = 12; y < 50; y++)
    for (unsigned x = 10; x < 41; x++) g_ref[y * RT_W + x] = rgba8(kCyan);
  if (submit_ok(&f, "scissored quad")) expect_image(&f, "scissored quad: only [10, 41) x [12, 50) drawn");
}

/* A counting occlusion query over a triangle: the slot gets the number of
 * samples that passed, the reference's covered pixel count. */
void run_occlusion_query(struct client* c) {
  struct frame f;
  if (!check(frame_begin(c, &f, 1, 1, kClear), "occlusion query: frame set up")) return;
  const float v[3][4] = {{7.25f, 5.125f, 0, 0}, {55.875f, 17.5f, 0, 0}, {23.375f, 57.625f, 0, 0}};
  frame_vertices(&f, v, 3);
  struct draw d = {.primitive = AGX_PRIMITIVE_TRIANGLES, .count = 3, .query = 1};
  memcpy(d.colour, kMagenta, 16);
  frame_draw(&f, &d);
  uint64_t want = 0;
  for (unsigned y = 0; y < RT_H; y++)
    for (unsigned x = 0; x < RT_W; x++) want += (uint64_t)covers_triangle(v[0], v[1], v[2], x, y, 8, 8);
  if (submit_ok(&f, "occlusion query"))
    check(frame_query(&f) == want, "occlusion query counts %llu samples, expected %llu",
          (unsigned long long)frame_query(&f), (unsigned long long)want);
}

/* Two layers: a triangle drawn with 2 instances, instance i (moved by its
 * offset) to layer i (rc_vs writes the instance ID as the layer);
 * the background clears both layers. */
void run_layers(struct client* c) {
  struct frame f;
  if (!check(frame_begin(c, &f, 2, 1, kClear), "layers: frame set up")) return;
  const float v[3][4] = {{4.375f, 6.125f, 0, 0}, {40.5f, 10.875f, 0, 0}, {12.25f, 44.625f, 0, 0}};
  const float offsets[2][2] = {{0, 0}, {19.5f, 15.25f}};
  frame_vertices(&f, v, 3);
  frame_instance_offsets(&f, offsets, 2);
  struct draw d = {.primitive = AGX_PRIMITIVE_TRIANGLES, .count = 3, .instances = 2};
  memcpy(d.colour, kMagenta, 16);
  frame_draw(&f, &d);
  if (!submit_ok(&f, "two layers")) return;
  for (unsigned layer = 0; layer < 2; layer++) {
    float p[3][2];
    for (unsigned k = 0; k < 3; k++) {
      p[k][0] = v[k][0] + offsets[layer][0];
      p[k][1] = v[k][1] + offsets[layer][1];
    }
    ref_fill(g_ref, kClear);
    ref_triangle(g_ref, p[0], p[1], p[2], kMagenta);
    unsigned bad = compare_image(&f, g_ref, layer);
    check(bad == 0, "layer %u holds its instance's triangle only: %u pixels differ", layer, bad);
  }
}

/* A draw whose vertex table is unmapped: the vertex shader faults, the
 * fence reports -EIO; the next render command on the queue runs. */
void run_fault_then_survive(struct client* c) {
  struct frame f;
  if (!check(frame_begin(c, &f, 1, 1, kClear), "fault: frame set up")) return;
  const float v[3][4] = {{1, 1, 0, 0}, {30, 1, 0, 0}, {1, 30, 0, 0}};
  frame_vertices(&f, v, 3);
  f.positions = 0xdead0000ull; /* unmapped */
  struct draw d = {.primitive = AGX_PRIMITIVE_TRIANGLES, .count = 3};
  memcpy(d.colour, kCyan, 16);
  frame_draw(&f, &d);
  int status = 0;
  int r = frame_submit(&f, &status);
  check(r == 0 && status == -EIO, "a vertex shader reading unmapped memory: submit %d, fence status %d (-EIO)", r,
        status);
  run_triangle(c);
}
