/* Render cases: a clear, one triangle, depth-tested triangles, a stencil
 * mask and every topology. Vertices are in pixels on a 1/8-pixel grid, so
 * NDC and the viewport carry them exactly; the references apply the
 * documented coverage rules (render_client.c). */
#include <stdio.h>
#include <string.h>

#include "agx_pack_c.h"
#include "render_client.h"

static const float kClear[4] = {0.0f, 0.0f, 0.2f, 1.0f};
static const float kRed[4] = {1, 0, 0, 1}, kGreen[4] = {0, 1, 0, 1}, kBlue[4] = {0, 0, 1, 1};
static const float kYellow[4] = {1, 1, 0, 1}, kWhite[4] = {1, 1, 1, 1};
static uint32_t g_ref[RT_W * RT_H];

static void copy_colour(float dst[4], const float src[4]) { memcpy(dst, src, 16); }

/* Submits the frame and checks that it ran and matches the reference. */
static void finish(struct frame* f, const char* what) {
  int status = 0;
  int r = frame_submit(f, &status);
  unsigned bad = r == 0 && status == 1 ? compare_image(f, g_ref, 0) : RT_W * RT_H;
  check(r == 0 && status == 1 && bad == 0, "%s: submit %d, fence %d, %u pixels differ", what, r, status, bad);
}

void run_clear(struct client* c) {
  struct frame f;
  if (!check(frame_begin(c, &f, 1, 1, kClear), "clear: frame set up")) return;
  ref_fill(g_ref, kClear);
  finish(&f, "clear: the background program fills every pixel, the end-of-tile program stores it");
}

void run_triangle(struct client* c) {
  struct frame f;
  if (!check(frame_begin(c, &f, 1, 1, kClear), "triangle: frame set up")) return;
  const float v[3][4] = {{5.375f, 3.625f, 0.5f, 0}, {58.125f, 12.25f, 0.5f, 0}, {20.625f, 60.875f, 0.5f, 0}};
  frame_vertices(&f, v, 3);
  struct draw d = {.primitive = AGX_PRIMITIVE_TRIANGLES, .count = 3};
  copy_colour(d.colour, kGreen);
  frame_draw(&f, &d);
  ref_fill(g_ref, kClear);
  ref_triangle(g_ref, v[0], v[1], v[2], kGreen);
  finish(&f, "one triangle, pixel for pixel (top-left rule)");
}

/* The fill convention: a quad split along a diagonal through pixel centres,
 * its halves in two colours, and a triangle whose horizontal and vertical
 * edges run through centres: each sample on an edge goes to the triangle
 * the top-left rule gives it. */
void run_fill_convention(struct client* c) {
  struct frame f;
  if (!check(frame_begin(c, &f, 1, 1, kClear), "fill convention: frame set up")) return;
  const float v[7][4] = {{0.5f, 0.5f, 0, 0},    {40.5f, 0.5f, 0, 0},   {0.5f, 40.5f, 0, 0}, {40.5f, 40.5f, 0, 0},
                         {44.5f, 44.5f, 0, 0}, {60.5f, 44.5f, 0, 0}, {44.5f, 60.5f, 0, 0}};
  frame_vertices(&f, v, 7);
  struct draw a = {.primitive = AGX_PRIMITIVE_TRIANGLES, .count = 3};
  copy_colour(a.colour, kRed);
  frame_draw(&f, &a);
  struct draw b = {.primitive = AGX_PRIMITIVE_TRIANGLES, .first = 1, .count = 6};
  copy_colour(b.colour, kGreen); /* (1, 2, 3) and (4, 5, 6) */
  frame_draw(&f, &b);
  ref_fill(g_ref, kClear);
  ref_triangle(g_ref, v[0], v[1], v[2], kRed);
  ref_triangle(g_ref, v[1], v[3], v[2], kGreen);
  ref_triangle(g_ref, v[4], v[5], v[6], kGreen);
  finish(&f, "fill convention: edges through pixel centres (top-left rule, shared edge covered once)");
}

/* Three triangles at depths 0.5, 0.25, 0.75 with Less against a cleared
 * 1.0: the nearest one shows where they overlap, whatever the order. */
void run_depth(struct client* c) {
  struct frame f;
  if (!check(frame_begin(c, &f, 1, 1, kClear), "depth: frame set up")) return;
  const float v[9][4] = {{2.125f, 2.5f, 0.5f, 0},  {50.375f, 8.25f, 0.5f, 0},  {10.5f, 52.625f, 0.5f, 0},
                         {12.25f, 10.75f, 0.25f, 0}, {60.5f, 30.125f, 0.25f, 0}, {30.875f, 62.25f, 0.25f, 0},
                         {1.5f, 30.25f, 0.75f, 0},  {62.625f, 1.375f, 0.75f, 0}, {40.125f, 63.5f, 0.75f, 0}};
  frame_vertices(&f, v, 9);
  frame_depth_stencil(&f, 1.0f, 0);
  const float* colours[3] = {kRed, kGreen, kBlue};
  float depth[RT_W * RT_H];
  for (unsigned i = 0; i < RT_W * RT_H; i++) depth[i] = 1.0f;
  ref_fill(g_ref, kClear);
  for (unsigned t = 0; t < 3; t++) {
    struct draw d = {.primitive = AGX_PRIMITIVE_TRIANGLES, .first = 3 * t, .count = 3,
                     .depth_func = AGX_ZS_FUNC_LESS, .depth_write = 1};
    copy_colour(d.colour, colours[t]);
    frame_draw(&f, &d);
    for (unsigned y = 0; y < RT_H; y++)
      for (unsigned x = 0; x < RT_W; x++)
        if (covers_triangle(v[3 * t], v[3 * t + 1], v[3 * t + 2], x, y, 8, 8) && v[3 * t][2] < depth[y * RT_W + x]) {
          depth[y * RT_W + x] = v[3 * t][2];
          g_ref[y * RT_W + x] = rgba8(colours[t]);
        }
  }
  finish(&f, "three overlapping triangles with the depth test Less");
}

/* A triangle writes stencil 1 (Replace); a full-target quad then draws
 * only where the stencil equals 1. */
void run_stencil(struct client* c) {
  struct frame f;
  if (!check(frame_begin(c, &f, 1, 1, kClear), "stencil: frame set up")) return;
  const float v[7][4] = {{6.25f, 4.125f, 0.5f, 0}, {57.75f, 20.375f, 0.5f, 0}, {14.5f, 59.625f, 0.5f, 0},
                         {0, 0, 0.5f, 0},          {64, 0, 0.5f, 0},          {0, 64, 0.5f, 0},
                         {64, 64, 0.5f, 0}};
  frame_vertices(&f, v, 7);
  frame_depth_stencil(&f, 1.0f, 0);
  struct draw mask = {.primitive = AGX_PRIMITIVE_TRIANGLES, .count = 3, .stencil_func = AGX_ZS_FUNC_ALWAYS,
                      .stencil_pass_op = AGX_STENCIL_OP_REPLACE, .stencil_ref = 1};
  copy_colour(mask.colour, kRed);
  frame_draw(&f, &mask);
  struct draw quad = {.primitive = AGX_PRIMITIVE_TRIANGLE_STRIP, .first = 3, .count = 4,
                      .stencil_func = AGX_ZS_FUNC_EQUAL, .stencil_pass_op = AGX_STENCIL_OP_KEEP, .stencil_ref = 1};
  copy_colour(quad.colour, kYellow);
  frame_draw(&f, &quad);
  ref_fill(g_ref, kClear);
  ref_triangle(g_ref, v[0], v[1], v[2], kYellow);
  finish(&f, "a stencil mask: a quad tested Equal 1 draws only where a triangle wrote 1");
}

/* Points, lines, a line strip, a triangle strip and a fan in one frame,
 * each in its own colour. */
void run_topologies(struct client* c) {
  struct frame f;
  if (!check(frame_begin(c, &f, 1, 1, kClear), "topologies: frame set up")) return;
  const float v[][4] = {
      /* 0-3 points */ {3.375f, 3.375f, 0, 0}, {9.625f, 3.125f, 0, 0}, {15.25f, 6.75f, 0, 0}, {20.875f, 2.5f, 0, 0},
      /* 4-7 lines */ {2.375f, 12.25f, 0, 0}, {30.375f, 12.25f, 0, 0}, {40.25f, 2.375f, 0, 0}, {40.25f, 28.625f, 0, 0},
      /* 8-11 line strip */ {2.125f, 20.375f, 0, 0}, {25.625f, 20.375f, 0, 0}, {25.625f, 29.875f, 0, 0},
      {50.375f, 36.125f, 0, 0},
      /* 12-16 triangle strip */ {2.5f, 40.25f, 0, 0}, {4.125f, 62.5f, 0, 0}, {14.75f, 38.125f, 0, 0},
      {18.375f, 61.625f, 0, 0}, {28.5f, 44.75f, 0, 0},
      /* 17-21 fan */ {46.5f, 50.5f, 0, 0}, {62.5f, 42.25f, 0, 0}, {60.125f, 62.375f, 0, 0},
      {44.875f, 63.25f, 0, 0}, {34.625f, 56.125f, 0, 0}};
  frame_vertices(&f, v, 22);
  const struct {
    unsigned primitive, first, count;
    const float* colour;
  } draws[] = {{AGX_PRIMITIVE_POINTS, 0, 4, kWhite},         {AGX_PRIMITIVE_LINES, 4, 4, kRed},
               {AGX_PRIMITIVE_LINE_STRIP, 8, 4, kGreen},     {AGX_PRIMITIVE_TRIANGLE_STRIP, 12, 5, kBlue},
               {AGX_PRIMITIVE_TRIANGLE_FAN, 17, 5, kYellow}};
  ref_fill(g_ref, kClear);
  for (unsigned k = 0; k < 5; k++) {
    struct draw d = {.primitive = draws[k].primitive, .first = draws[k].first, .count = draws[k].count};
    copy_colour(d.colour, draws[k].colour);
    frame_draw(&f, &d);
    const unsigned b = draws[k].first, n = draws[k].count;
    const uint32_t colour = rgba8(draws[k].colour);
    for (unsigned y = 0; y < RT_H; y++)
      for (unsigned x = 0; x < RT_W; x++) {
        int in = 0;
        for (unsigned i = 0; i < n; i++) {
          if (draws[k].primitive == AGX_PRIMITIVE_POINTS) in |= covers_point(v[b + i], 1.0f, x, y);
          if (draws[k].primitive == AGX_PRIMITIVE_LINES && i % 2 == 1)
            in |= covers_line(v[b + i - 1], v[b + i], 1.0f, x, y);
          if (draws[k].primitive == AGX_PRIMITIVE_LINE_STRIP && i >= 1)
            in |= covers_line(v[b + i - 1], v[b + i], 1.0f, x, y);
          if (draws[k].primitive == AGX_PRIMITIVE_TRIANGLE_STRIP && i >= 2)
            in |= covers_triangle(v[b + i - 2], v[b + i - 1], v[b + i], x, y, 8, 8);
          if (draws[k].primitive == AGX_PRIMITIVE_TRIANGLE_FAN && i >= 2)
            in |= covers_triangle(v[b], v[b + i - 1], v[b + i], x, y, 8, 8);
        }
        if (in) g_ref[y * RT_W + x] = colour;
      }
  }
  finish(&f, "points, lines, a line strip, a triangle strip and a fan");
}
