/* A render command built the way a driver builds one: programs and USC word
 * lists in the arena, a PBE descriptor for the render target, one PPP
 * update per draw and a VDM stream, all packed with agx_pack_c.h. */
#include <errno.h>
#include <fcntl.h>
#include <linux/sync_file.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>
#include <xf86drm.h>

#include "agx_pack_c.h"
#include "render_client.h"

/* The tilebuffer of one RGBA8 render target: 8 bytes a sample (the
 * tilebuffer unit's record for R8G8B8A8_UNORM, `agx tilebuffer`), 32x32
 * tiles, 32x16 with 4 samples (tile memory stays within 32 KiB). */
#define TILE_W 32u
#define SAMPLE_B 8u
static unsigned tile_h(const struct frame* f) { return f->samples == 4 ? 16u : 32u; }

/* Packs v with agx_NAME_pack into dst; a value that does not fit sets *failed. */
#define PACK(dst, name, v, failed)                \
  do {                                            \
    if (agx_##name##_pack(dst, v)) *(failed) = 1; \
  } while (0)

static uint32_t lo(uint64_t va) { return (uint32_t)va; }
static uint32_t hi(uint64_t va) { return (uint32_t)(va >> 32); }

uint64_t arena_put(struct client* c, const void* bytes, size_t n, int* failed) {
  uint64_t va = arena_alloc(c, n, 64);
  if (!va) *failed = 1;
  else memcpy(arena_host(c, va), bytes, n);
  return va;
}

/* Ends a USC word list of n bytes in w (room for 16 more): the Shader word
 * for `code`, `halves` registers, No Preshader; puts it in the arena and
 * returns its offset from usc_exec_base. */
static uint32_t words_end(struct frame* f, uint8_t* w, size_t n, uint64_t code, unsigned halves) {
  struct agx_usc_shader s;
  agx_usc_shader_init(&s);
  s.code = code - ARENA_VA;
  PACK(w + n, usc_shader, &s, &f->failed);
  n += AGX_USC_SHADER_LENGTH;
  struct agx_usc_registers r;
  agx_usc_registers_init(&r);
  r.register_count = halves;
  PACK(w + n, usc_registers, &r, &f->failed);
  n += AGX_USC_REGISTERS_LENGTH;
  struct agx_usc_no_preshader np;
  agx_usc_no_preshader_init(&np);
  PACK(w + n, usc_no_preshader, &np, &f->failed);
  n += AGX_USC_NO_PRESHADER_LENGTH;
  if (!code) f->failed = 1;
  return (uint32_t)(arena_put(f->c, w, n, &f->failed) - ARENA_VA);
}

/* A fragment-side word list: uniforms u0.. (the colour) or ts0 = the PBE
 * descriptor at `pbe`, the tilebuffer's Shared word, the code. Returns its
 * offset from usc_exec_base. */
uint32_t frame_tile_words(struct frame* f, uint64_t code, const float* colour, uint64_t pbe) {
  uint8_t w[64];
  size_t n = 0;
  if (colour) {
    struct agx_usc_uniform u;
    agx_usc_uniform_init(&u);
    u.start_halfs = 0;
    u.size_halfs = 8;
    u.buffer = arena_put(f->c, colour, 16, &f->failed);
    PACK(w + n, usc_uniform, &u, &f->failed);
    n += AGX_USC_UNIFORM_LENGTH;
  }
  if (pbe) {
    struct agx_usc_texture t;
    agx_usc_texture_init(&t);
    t.start = 0;
    t.count = 1;
    t.buffer = pbe;
    PACK(w + n, usc_texture, &t, &f->failed);
    n += AGX_USC_TEXTURE_LENGTH;
  }
  struct agx_usc_shared sh;
  agx_usc_shared_init(&sh);
  sh.uses_shared_memory = 1;
  sh.layout = tile_h(f) == 16 ? AGX_SHARED_LAYOUT_32X16 : AGX_SHARED_LAYOUT_32X32;
  sh.sample_count = f->samples;
  sh.sample_stride_in_8_bytes = SAMPLE_B / 8;
  sh.bytes_per_threadgroup = TILE_W * tile_h(f) * SAMPLE_B * f->samples;
  PACK(w + n, usc_shared, &sh, &f->failed);
  n += AGX_USC_SHARED_LENGTH;
  return words_end(f, w, n, code, 48);
}

/* bg / eot: the word list with its Counts word. */
static struct drm_asahi_bg_eot tile_program(struct frame* f, uint64_t code, const float* colour, uint64_t pbe) {
  struct drm_asahi_bg_eot p = {.usc = frame_tile_words(f, code, colour, pbe) | 4};
  struct agx_counts k;
  agx_counts_init(&k);
  k.uniform_register_count = colour ? 8 : 0;
  k.texture_state_register_count = pbe ? 8 : 0;
  PACK(&p.rsrc_spec, counts, &k, &f->failed);
  return p;
}

/* The PBE descriptor of the linear single-sample render target (Mesa's
 * pack_pbe: stride minus 4; an array puts its layer count in Depth
 * (linear) with Extended). With 4 samples the end-of-tile program resolves
 * them into sample 0, the one sample the target has. */
static uint64_t pbe_descriptor(struct frame* f) {
  struct agx_pbe p;
  agx_pbe_init(&p);
  p.dimension = f->layers > 1 ? AGX_TEXTURE_DIMENSION_2D_ARRAY : AGX_TEXTURE_DIMENSION_2D;
  p.layout = AGX_LAYOUT_LINEAR;
  p.channels = AGX_CHANNELS_R8G8B8A8;
  p.type = AGX_TEXTURE_TYPE_UNORM;
  p.swizzle_r = AGX_CHANNEL_R;
  p.swizzle_g = AGX_CHANNEL_G;
  p.swizzle_b = AGX_CHANNEL_B;
  p.swizzle_a = AGX_CHANNEL_A;
  p.width = RT_W;
  p.height = RT_H;
  p.buffer = f->target;
  p.stride = RT_W * 4 - 4;
  if (f->layers > 1) {
    p.extended = 1;
    p.depth_linear = f->layers;
    p.layer_stride_linear = RT_W * RT_H * 4 - 128; /* stored minus 128 */
  }
  uint8_t b[AGX_PBE_LENGTH];
  PACK(b, pbe, &p, &f->failed);
  return arena_put(f->c, b, sizeof b, &f->failed);
}

int frame_begin(struct client* c, struct frame* f, unsigned layers, unsigned samples, const float clear[4]) {
  memset(f, 0, sizeof *f);
  f->c = c;
  f->layers = layers;
  f->samples = samples;
  uint64_t size = (uint64_t)RT_W * RT_H * 4 * layers; /* 4 samples are resolved into one */
  f->target = arena_alloc(c, size, PAGE_B);
  f->isp = arena_alloc(c, 4096, 64);
  f->offsets = arena_alloc(c, 8 * MAX_INSTANCES, 64);
  uint64_t colour = load_kernel(c, "rc_colour"), eot = load_kernel(c, samples > 1   ? "rc_eot_resolve"
                                                                 : layers > 1 ? "rc_eot_array"
                                                                              : "rc_eot");
  if (!f->target || !f->isp || !f->offsets || !colour || !eot) return 0;
  memset(arena_host(c, f->offsets), 0, 8 * MAX_INSTANCES);
  f->colour_code = colour;
  memset(arena_host(c, f->target), 0, size);
  memset(arena_host(c, f->isp), 0, 4096);
  struct drm_asahi_cmd_render* r = &f->r;
  r->width_px = RT_W;
  r->height_px = RT_H;
  r->layers = (uint16_t)layers;
  r->samples = (uint8_t)samples;
  r->sample_size_B = SAMPLE_B;
  r->utile_width_px = TILE_W;
  r->utile_height_px = (uint8_t)tile_h(f);
  /* Sample positions in sixteenths (Mesa hk_default_sample_positions). */
  r->ppp_multisamplectl = samples == 4 ? 0xeaa26e26u : samples == 2 ? 0x44ccu : 0x88u;
  r->isp_scissor_base = f->isp;
  r->isp_oclqry_base = f->isp + 2048;
  r->isp_dbias_base = f->isp + 1024;
  r->bg = tile_program(f, colour, clear, 0);
  r->eot = tile_program(f, eot, NULL, pbe_descriptor(f));
  return !f->failed;
}

void frame_vertices(struct frame* f, const float (*px)[4], uint32_t n) {
  f->positions = arena_alloc(f->c, 16ull * n, 64);
  if (!f->positions) {
    f->failed = 1;
    return;
  }
  float* v = arena_host(f->c, f->positions);
  for (uint32_t i = 0; i < n; i++) { /* the viewport maps NDC -1..1 onto 0..RT_W */
    v[4 * i + 0] = px[i][0] / (RT_W / 2) - 1.0f;
    v[4 * i + 1] = px[i][1] / (RT_H / 2) - 1.0f;
    v[4 * i + 2] = px[i][2];
    v[4 * i + 3] = 1.0f;
  }
}

void frame_instance_offsets(struct frame* f, const float (*px)[2], uint32_t n) {
  if (n > MAX_INSTANCES) {
    f->failed = 1;
    return;
  }
  float* v = arena_host(f->c, f->offsets);
  for (uint32_t i = 0; i < n; i++) {
    v[2 * i] = px[i][0] / (RT_W / 2);
    v[2 * i + 1] = px[i][1] / (RT_H / 2);
  }
}

void frame_scissor(struct frame* f, uint16_t min_x, uint16_t min_y, uint16_t max_x, uint16_t max_y) {
  struct agx_scissor s;
  agx_scissor_init(&s);
  s.min_x = min_x;
  s.min_y = min_y;
  s.max_x = max_x;
  s.max_y = max_y;
  s.min_z = 0.0f;
  s.max_z = 1.0f;
  PACK(arena_host(f->c, f->isp), scissor, &s, &f->failed);
}

void frame_depth_stencil(struct frame* f, float clear_depth, uint8_t clear_stencil) {
  struct agx_zls_control z;
  agx_zls_control_init(&z); /* no load or store: the tile starts cleared */
  z.z_format = AGX_ZLS_FORMAT_32F;
  PACK(&f->r.zls_ctrl, zls_control, &z, &f->failed);
  memcpy(&f->r.isp_bgobjdepth, &clear_depth, 4);
  f->r.isp_bgobjvals = 0x300u | clear_stencil;
}

/* Appends n bytes to the VDM stream; NULL when it is full. */
static uint8_t* stream_room(struct frame* f, size_t n) {
  if (f->stream_B + n > sizeof f->stream) {
    f->failed = 1;
    return NULL;
  }
  uint8_t* at = f->stream + f->stream_B;
  memset(at, 0, n);
  f->stream_B += n;
  return at;
}
/* Appends agx_NAME packed from v to the VDM stream. */
#define EMIT(f, name, NAME, v)                          \
  do {                                                \
    uint8_t* at_ = stream_room(f, AGX_##NAME##_LENGTH); \
    if (at_) PACK(at_, name, v, &(f)->failed);         \
  } while (0)

static void emit_u32(struct frame* f, uint32_t v) {
  uint8_t* at = stream_room(f, 4);
  if (at) memcpy(at, &v, 4);
}

int frame_submit(struct frame* f, int* fence_status) {
  struct agx_vdm_stream_terminate t;
  agx_vdm_stream_terminate_init(&t);
  EMIT(f, vdm_stream_terminate, VDM_STREAM_TERMINATE, &t);
  f->r.vdm_ctrl_stream_base = arena_put(f->c, f->stream, f->stream_B, &f->failed);
  if (f->failed) return -ENOSPC;
  int r = submit_command(f->c, DRM_ASAHI_CMD_RENDER, &f->r, sizeof f->r);
  if (r || !fence_status) return r;
  int sync_fd = -1;
  if (drmSyncobjExportSyncFile(f->c->fd, f->c->syncobj, &sync_fd)) return -errno;
  struct sync_file_info info;
  memset(&info, 0, sizeof info);
  r = ioctl(sync_fd, SYNC_IOC_FILE_INFO, &info) ? -errno : 0;
  close(sync_fd);
  *fence_status = info.status;
  return r;
}

uint32_t frame_pixel(const struct frame* f, unsigned x, unsigned y, unsigned layer) {
  const uint32_t* p = arena_host(f->c, f->target);
  return p[(size_t)layer * RT_H * RT_W + (size_t)y * RT_W + x];
}

uint64_t frame_query(const struct frame* f) {
  uint64_t v;
  memcpy(&v, (uint8_t*)arena_host(f->c, f->isp) + 2048, 8);
  return v;
}

/* ---- draws ---- */

/* The vertex shader's word list: u0_u1 the position table, u2_u3 the
 * instance offsets, u4 the layer mask. */
static uint32_t vertex_words(struct frame* f) {
  uint64_t code = load_kernel(f->c, "rc_vs");
  /* u4: the mask of the instance ID that is the layer (0: layer 0) */
  uint32_t table[5] = {lo(f->positions), hi(f->positions), lo(f->offsets), hi(f->offsets),
                       f->layers > 1 ? 0xffffffffu : 0};
  uint8_t w[64];
  size_t n = 0;
  struct agx_usc_uniform u;
  agx_usc_uniform_init(&u);
  u.size_halfs = 10;
  u.buffer = arena_put(f->c, table, sizeof table, &f->failed);
  PACK(w + n, usc_uniform, &u, &f->failed);
  n += AGX_USC_UNIFORM_LENGTH;
  return words_end(f, w, n, code, 32);
}

/* VDM State: restart index 0xffffffff, the vertex shader, 5 outputs (the
 * position, the layer/viewport word), padded to 8 bytes. */
static void emit_vdm_state(struct frame* f) {
  struct agx_vdm_state h;
  agx_vdm_state_init(&h);
  h.restart_index_present = h.vertex_shader_word_0_present = h.vertex_shader_word_1_present = 1;
  h.vertex_outputs_present = 1;
  EMIT(f, vdm_state, VDM_STATE, &h);
  emit_u32(f, 0xffffffffu);
  struct agx_vdm_state_vertex_shader_word_0 w0;
  agx_vdm_state_vertex_shader_word_0_init(&w0);
  w0.uniform_register_count = 8;
  w0.preshader_register_count = 16;
  EMIT(f, vdm_state_vertex_shader_word_0, VDM_STATE_VERTEX_SHADER_WORD_0, &w0);
  struct agx_vdm_state_vertex_shader_word_1 w1;
  agx_vdm_state_vertex_shader_word_1_init(&w1);
  w1.pipeline = vertex_words(f);
  EMIT(f, vdm_state_vertex_shader_word_1, VDM_STATE_VERTEX_SHADER_WORD_1, &w1);
  struct agx_vdm_state_vertex_outputs o;
  agx_vdm_state_vertex_outputs_init(&o);
  o.output_count_1 = o.output_count_2 = 5;
  EMIT(f, vdm_state_vertex_outputs, VDM_STATE_VERTEX_OUTPUTS, &o);
  while (f->stream_B % 8) emit_u32(f, 0);
}

void frame_draw(struct frame* f, const struct draw* d) {
  if (f->stream_B == 0) emit_vdm_state(f);
  uint32_t words = 0;
  uint64_t ppp = frame_ppp_update(f, d, &words);
  struct agx_ppp_state p;
  agx_ppp_state_init(&p);
  p.pointer_hi = hi(ppp);
  p.pointer_lo = lo(ppp);
  p.size_words = words;
  EMIT(f, ppp_state, PPP_STATE, &p);
  struct agx_index_list h;
  agx_index_list_init(&h);
  h.primitive = d->primitive;
  h.index_count_present = h.instance_count_present = h.start_present = 1;
  if (d->indices) {
    h.index_buffer_hi = hi(d->indices);
    h.index_size = AGX_INDEX_SIZE_U32;
    h.restart_enable = 1;
    h.index_buffer_present = 1;
  }
  EMIT(f, index_list, INDEX_LIST, &h);
  if (d->indices) emit_u32(f, lo(d->indices));
  emit_u32(f, d->count);
  emit_u32(f, d->instances ? d->instances : 1);
  emit_u32(f, d->first);
}
