/*
 * End-to-end compute, the way a driver does it: a C11 program that uses
 * only libdrm, asahi_drm.h and pack helpers generated from the project's
 * packet tables. Run under the shim (LD_PRELOAD=libagx_shim.so) it opens
 * the render node, makes a VM, binds an arena object, writes AGX kernels
 * (assembled with `agx asm` at build time), USC word lists and CDM streams
 * into it, submits compute commands with a syncobj, waits, and checks the
 * results against C references. One line per check; exit 1 on a mismatch.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "agx_pack_c.h"
#include "compute_client.h"

/* ---- packing through the generated helpers ---- */

static void put(struct stream* s, const void* bytes, size_t n) {
  if (s->failed || s->at + n > s->end) {
    s->failed = 1;
    return;
  }
  memcpy(s->at, bytes, n);
  s->at += n;
}

void stream_begin(struct client* c, struct stream* s, uint64_t size) {
  s->c = c;
  s->base = arena_alloc(c, size, 64);
  s->at = s->base ? arena_host(c, s->base) : NULL;
  s->end = s->at ? s->at + size : NULL;
  s->failed = !s->base;
}

uint64_t stream_va(struct stream* s) { return s->base + (uint64_t)(s->at - (uint8_t*)arena_host(s->c, s->base)); }

/* The USC word list: uniforms, shared, shader, registers, no preshader. */
static uint64_t usc_words(struct client* c, const struct launch* l, int* failed) {
  uint8_t words[512];
  size_t n = 0;
  uint64_t ubuf = 0;
  if (l->uniform_count) {
    ubuf = arena_alloc(c, 4ull * l->uniform_count, 4);
    if (!ubuf) *failed = 1;
    else memcpy(arena_host(c, ubuf), l->uniforms, 4ull * l->uniform_count);
  }
  for (unsigned u = 0; ubuf && u < l->uniform_count; u += 32) {
    unsigned count = l->uniform_count - u < 32 ? l->uniform_count - u : 32;
    struct agx_usc_uniform w;
    agx_usc_uniform_init(&w);
    w.start_halfs = 2 * u;
    w.size_halfs = 2 * count;
    w.buffer = ubuf + 4ull * u;
    if (agx_usc_uniform_pack(words + n, &w)) *failed = 1;
    n += AGX_USC_UNIFORM_LENGTH;
  }
  struct agx_usc_shared sh;
  agx_usc_shared_init(&sh);
  sh.layout = AGX_SHARED_LAYOUT_VERTEX_COMPUTE;
  sh.uses_shared_memory = l->shared_B > 0;
  sh.bytes_per_threadgroup = l->shared_B ? l->shared_B : 65536;
  if (agx_usc_shared_pack(words + n, &sh)) *failed = 1;
  n += AGX_USC_SHARED_LENGTH;
  struct agx_usc_shader shader;
  agx_usc_shader_init(&shader);
  shader.code = l->code - ARENA_VA;
  shader.unk_2 = 3;
  if (agx_usc_shader_pack(words + n, &shader)) *failed = 1;
  n += AGX_USC_SHADER_LENGTH;
  struct agx_usc_registers regs;
  agx_usc_registers_init(&regs);
  regs.register_count = l->register_halves;
  regs.unk_4 = 1;
  if (agx_usc_registers_pack(words + n, &regs)) *failed = 1;
  n += AGX_USC_REGISTERS_LENGTH;
  struct agx_usc_no_preshader np;
  agx_usc_no_preshader_init(&np);
  if (agx_usc_no_preshader_pack(words + n, &np)) *failed = 1;
  n += AGX_USC_NO_PRESHADER_LENGTH;
  uint64_t va = arena_alloc(c, n, 64);
  if (!va) *failed = 1;
  else memcpy(arena_host(c, va), words, n);
  return va;
}

void stream_launch(struct stream* s, const struct launch* l) {
  uint64_t words = usc_words(s->c, l, &s->failed);
  uint8_t b[16];
  struct agx_cdm_launch_word_0 w0;
  agx_cdm_launch_word_0_init(&w0);
  w0.uniform_register_count = l->uniform_count ? 2 * l->uniform_count : 1;
  w0.texture_state_register_count = 8;
  w0.sampler_state_register_count = AGX_SAMPLER_STATES_0;
  w0.preshader_register_count = 16;
  w0.mode = l->mode;
  if (agx_cdm_launch_word_0_pack(b, &w0)) s->failed = 1;
  put(s, b, AGX_CDM_LAUNCH_WORD_0_LENGTH);
  struct agx_cdm_launch_word_1 w1;
  agx_cdm_launch_word_1_init(&w1);
  w1.pipeline = words - ARENA_VA;
  if (agx_cdm_launch_word_1_pack(b, &w1)) s->failed = 1;
  put(s, b, AGX_CDM_LAUNCH_WORD_1_LENGTH);
  if (l->mode == AGX_CDM_MODE_DIRECT) {
    struct agx_cdm_global_size g;
    agx_cdm_global_size_init(&g);
    g.x = l->grid[0];
    g.y = l->grid[1];
    g.z = l->grid[2];
    if (agx_cdm_global_size_pack(b, &g)) s->failed = 1;
    put(s, b, AGX_CDM_GLOBAL_SIZE_LENGTH);
  } else {
    struct agx_cdm_indirect ind;
    agx_cdm_indirect_init(&ind);
    ind.address_hi = l->indirect >> 32;
    ind.address_lo = l->indirect & 0xffffffffu;
    if (agx_cdm_indirect_pack(b, &ind)) s->failed = 1;
    put(s, b, AGX_CDM_INDIRECT_LENGTH);
  }
  if (l->mode != AGX_CDM_MODE_INDIRECT_LOCAL) {
    struct agx_cdm_local_size ls;
    agx_cdm_local_size_init(&ls);
    ls.x = l->local[0];
    ls.y = l->local[1];
    ls.z = l->local[2];
    if (agx_cdm_local_size_pack(b, &ls)) s->failed = 1;
    put(s, b, AGX_CDM_LOCAL_SIZE_LENGTH);
  }
}

/* The barrier Mesa's drivers put after each launch (G13G, one cluster). */
void stream_barrier(struct stream* s) {
  struct agx_cdm_barrier br;
  agx_cdm_barrier_init(&br);
  br.unk_0 = br.unk_1 = br.unk_2 = br.usc_cache_inval = br.unk_4 = br.unk_5 = br.unk_6 = br.unk_7 = 1;
  br.unk_8 = br.unk_9 = br.unk_10 = br.unk_11 = br.unk_12 = br.unk_13 = br.unk_14 = br.unk_15 = 1;
  br.unk_16 = br.unk_17 = br.unk_18 = br.unk_19 = 1;
  uint8_t b[AGX_CDM_BARRIER_LENGTH];
  if (agx_cdm_barrier_pack(b, &br)) s->failed = 1;
  put(s, b, sizeof b);
}

void stream_terminate(struct stream* s) {
  struct agx_cdm_stream_terminate t;
  agx_cdm_stream_terminate_init(&t);
  uint8_t b[AGX_CDM_STREAM_TERMINATE_LENGTH];
  if (agx_cdm_stream_terminate_pack(b, &t)) s->failed = 1;
  put(s, b, sizeof b);
}

int submit_and_wait(struct client* c, struct stream* s) {
  if (s->failed) return -ENOSPC;
  struct drm_asahi_cmd_compute cc;
  memset(&cc, 0, sizeof cc);
  cc.cdm_ctrl_stream_base = s->base;
  cc.cdm_ctrl_stream_end = stream_va(s);
  return submit_command(c, DRM_ASAHI_CMD_COMPUTE, &cc, sizeof cc);
}

int main(void) {
  struct client c;
  if (!open_client(&c, 64ull << 20)) {
    printf("compute_client: setup failed (run under LD_PRELOAD=libagx_shim.so)\n");
    return 1;
  }
  run_saxpy(&c);
  run_reduction(&c);
  run_prefix_sum(&c);
  run_histogram(&c);
  run_indirect(&c);
  run_two_kernels(&c);
  run_fault_then_survive(&c);
  return check_summary("compute_client");
}
