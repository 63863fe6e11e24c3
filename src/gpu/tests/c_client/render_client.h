/* The end-to-end render client: shared state and helpers. C11, libdrm,
 * asahi_drm.h and the generated agx_pack_c.h only; client.h has the part
 * it shares with the compute client. */
#ifndef AGX_RENDER_CLIENT_H
#define AGX_RENDER_CLIENT_H

#include "client.h"

#define RT_W 64u /* the render target: RT_W x RT_H RGBA8, linear */
#define RT_H 64u
#define MAX_INSTANCES 64

/* One draw: its primitive (AGX_PRIMITIVE_*), vertex count, instances,
 * optional 32-bit index buffer (restart index 0xffffffff), its colour and
 * the fixed-function state it sets. */
struct draw {
  unsigned primitive;
  uint32_t first, count, instances; /* first: Start (vertex ID of element 0, or the index bias) */
  uint64_t indices; /* 0: not indexed */
  float colour[4];
  unsigned depth_func;              /* AGX_ZS_FUNC_*; 0 means Always */
  int depth_write;
  unsigned stencil_func;            /* 0: no stencil test */
  unsigned stencil_pass_op;         /* AGX_STENCIL_OP_* on depth pass */
  uint8_t stencil_ref;
  int scissor;                      /* uses the frame's scissor 0 */
  int query;                        /* counts into the frame's query slot 0 */
};

/* A render command being built: the vertex table, the VDM stream, the
 * render target and the command's fields. */
struct frame {
  struct client* c;
  uint64_t positions;   /* x, y, z, w floats per vertex (NDC) */
  uint64_t offsets;     /* dx, dy per instance (NDC), MAX_INSTANCES of them */
  uint64_t target;      /* RT_W x RT_H x layers RGBA8, linear (samples resolved) */
  uint64_t isp;         /* scissors, then query slots */
  uint64_t colour_code; /* rc_colour */
  uint32_t layers, samples;
  uint8_t stream[4096];
  size_t stream_B;
  int failed;
  struct drm_asahi_cmd_render r;
};

/* Programs (KERNEL_DIR): rc_colour (bg and fragment shader: the colour of
 * u0-u3 into the tilebuffer), rc_eot (the tile to the PBE descriptor;
 * rc_eot_array for layers, rc_eot_resolve averages 4 samples first), rc_vs
 * (position of vertex ID + offset of instance ID; the layer is the
 * instance ID when the frame has layers, else 0). */
int frame_begin(struct client* c, struct frame* f, unsigned layers, unsigned samples, const float clear[4]);
/* Bytes into the arena (64-byte aligned); their address or 0 (failed set). */
uint64_t arena_put(struct client* c, const void* bytes, size_t n, int* failed);
/* A fragment-side word list: uniforms u0-u3 = colour, or ts0 = the PBE
 * descriptor at pbe; the tilebuffer's Shared word; the code. Returns its
 * offset from usc_exec_base. */
uint32_t frame_tile_words(struct frame* f, uint64_t code, const float* colour, uint64_t pbe);
/* The draw's PPP update in the arena: its address, *words its size. */
uint64_t frame_ppp_update(struct frame* f, const struct draw* d, uint32_t* words);
/* Vertices in pixels (x, y, depth, layer), NDC computed here. */
void frame_vertices(struct frame* f, const float (*px)[4], uint32_t n);
void frame_instance_offsets(struct frame* f, const float (*px)[2], uint32_t n);
void frame_draw(struct frame* f, const struct draw* d);
void frame_scissor(struct frame* f, uint16_t min_x, uint16_t min_y, uint16_t max_x, uint16_t max_y);
void frame_depth_stencil(struct frame* f, float clear_depth, uint8_t clear_stencil);
/* Ends the stream, submits the render command and waits. Returns 0 or
 * -errno; *fence_status (when not NULL) gets the fence's status (1 or the
 * negative error). */
int frame_submit(struct frame* f, int* fence_status);
uint32_t frame_pixel(const struct frame* f, unsigned x, unsigned y, unsigned layer);
uint64_t frame_query(const struct frame* f);

/* The reference: RGBA8 words of an RT_W x RT_H image. */
uint32_t rgba8(const float c[4]);
/* Coverage of the documented rules (docs/gpu.md, "The ISP") at sample
 * position (sx, sy) in sixteenths of pixel (x, y). Vertices in pixels. */
int covers_triangle(const float a[2], const float b[2], const float c[2], unsigned x, unsigned y, unsigned sx,
                    unsigned sy);
int covers_line(const float a[2], const float b[2], float width, unsigned x, unsigned y);
int covers_point(const float a[2], float size, unsigned x, unsigned y);
/* Fills the reference with one colour; draws a triangle (vertices in
 * pixels) of one colour at the pixel centres into it. */
void ref_fill(uint32_t* ref, const float colour[4]);
void ref_triangle(uint32_t* ref, const float a[2], const float b[2], const float c[2], const float colour[4]);
/* Compares layer `layer` of the frame with `ref`; prints the first
 * mismatch. Returns the number of mismatching pixels. */
unsigned compare_image(const struct frame* f, const uint32_t* ref, unsigned layer);

void run_clear(struct client* c);
void run_triangle(struct client* c);
void run_fill_convention(struct client* c);
void run_depth(struct client* c);
void run_stencil(struct client* c);
void run_topologies(struct client* c);
void run_instancing(struct client* c);
void run_indexed_restart(struct client* c);
void run_msaa(struct client* c);
void run_scissor(struct client* c);
void run_occlusion_query(struct client* c);
void run_layers(struct client* c);
void run_fault_then_survive(struct client* c);

#endif
