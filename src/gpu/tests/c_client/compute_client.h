/* The end-to-end compute client: shared state and helpers. C11, libdrm,
 * asahi_drm.h and the generated agx_pack_c.h (pack helpers made from the
 * cmdstream tables at build time) only. */
#ifndef AGX_COMPUTE_CLIENT_H
#define AGX_COMPUTE_CLIENT_H

#include <stddef.h>
#include <stdint.h>

#include "agx/asahi_drm.h"

#define PAGE_B 16384u
#define ARENA_VA 0x100000000ull /* the queue's usc_exec_base too */

struct client {
  int fd;
  uint32_t vm, queue, bo, syncobj;
  uint8_t* map; /* the arena on the host */
  uint64_t arena_B, used_B;
};

/* Prints "ok   what" or "FAIL what"; returns ok. */
int check(int ok, const char* fmt, ...) __attribute__((format(printf, 2, 3)));
int xioctl(int fd, unsigned long request, void* arg);

/* Bump allocation in the arena: a GPU address, or 0 when full. */
uint64_t arena_alloc(struct client* c, uint64_t size, uint64_t align);
void* arena_host(struct client* c, uint64_t va);
/* Loads an assembled kernel (KERNEL_DIR/name.bin) into the arena. */
uint64_t load_kernel(struct client* c, const char* name);

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
