/* The end-to-end compute client: shared state and helpers. C11, libdrm,
 * asahi_drm.h and the generated agx_pack_c.h (pack helpers made from the
 * cmdstream tables at build time) only; client.h has the shared part. */
#ifndef AGX_COMPUTE_CLIENT_H
#define AGX_COMPUTE_CLIENT_H

#include "client.h"

/* One launch: a kernel with uniforms u0.. and a direct or indirect grid. */
struct launch {
  uint64_t code;
  const uint32_t* uniforms;
  unsigned uniform_count;
  unsigned register_halves;
  unsigned shared_B; /* 0: none */
  uint32_t grid[3];  /* threads (direct) */
  uint32_t local[3];
  unsigned mode;     /* AGX_CDM_MODE_* */
  uint64_t indirect;
};

/* A CDM stream being written into the arena. */
struct stream {
  struct client* c;
  uint64_t base;
  uint8_t* at;
  uint8_t* end;
  int failed;
};
void stream_begin(struct client* c, struct stream* s, uint64_t size);
void stream_launch(struct stream* s, const struct launch* l);
void stream_barrier(struct stream* s);
void stream_terminate(struct stream* s);
uint64_t stream_va(struct stream* s); /* the current end, as a GPU address */

/* Submits the stream as one compute command with an out-syncobj, waits.
 * Returns 0 or -errno. */
int submit_and_wait(struct client* c, struct stream* s);

void run_saxpy(struct client* c);
void run_reduction(struct client* c);
void run_prefix_sum(struct client* c);
void run_histogram(struct client* c);
void run_indirect(struct client* c);
void run_two_kernels(struct client* c);
void run_fault_then_survive(struct client* c);

#endif
