/* What the C clients share (the compute and the render client): the
 * arena, checks, kernels assembled at build time and the device setup.
 * C11, libdrm and asahi_drm.h only. */
#ifndef AGX_C_CLIENT_H
#define AGX_C_CLIENT_H

#include <stddef.h>
#include <stdint.h>

#include "agx/asahi_drm.h"
#include "c_checks.h" /* src/shim/tests: check, check_summary, xioctl */

#define PAGE_B 16384u
#define ARENA_VA 0x100000000ull /* the queue's usc_exec_base too */

struct client {
  int fd;
  uint32_t vm, queue, bo, syncobj;
  uint8_t* map; /* the arena on the host */
  uint64_t arena_B, used_B;
};


/* Bump allocation in the arena: a GPU address, or 0 when full. */
uint64_t arena_alloc(struct client* c, uint64_t size, uint64_t align);
void* arena_host(struct client* c, uint64_t va);
/* Loads an assembled kernel (KERNEL_DIR/name.bin) into the arena. */
uint64_t load_kernel(struct client* c, const char* name);
/* Opens the asahi render node, makes a VM, an arena of arena_B bytes bound
 * at ARENA_VA and mapped, a queue (usc_exec_base ARENA_VA) and a syncobj.
 * Returns 0 when a step failed (checked). */
int open_client(struct client* c, uint64_t arena_B);
/* Submits one command (DRM_ASAHI_CMD_COMPUTE or _RENDER, its body of size
 * bytes, no barriers) on the queue with the out-syncobj and waits. Returns
 * 0 or -errno. */
int submit_command(struct client* c, uint16_t type, const void* body, uint16_t size);

#endif
