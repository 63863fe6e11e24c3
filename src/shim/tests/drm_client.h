/* The libdrm client run under the shim: shared state and helpers. */
#ifndef AGX_SHIM_DRM_CLIENT_H
#define AGX_SHIM_DRM_CLIENT_H

#include <stdint.h>

#include "agx/asahi_drm.h"
#include "c_checks.h"

#define PAGE_B 16384u /* the UAPI's page: 16 KiB */

struct ctx {
  int fd, fd2; /* two opens of the render node */
  struct drm_asahi_params_global params;
  uint32_t vm, queue, bo, ts_bo, ts_object;
  uint64_t va; /* where bo is bound */
};


uint32_t create_bo(int fd, uint64_t size, uint32_t flags, uint32_t vm); /* 0 on failure */
void* map_bo(int fd, uint32_t handle, uint64_t size);                  /* MAP_FAILED on failure */
int bind(int fd, uint32_t vm, uint32_t flags, uint32_t handle, uint64_t offset, uint64_t range, uint64_t addr);

void check_vm_and_objects(struct ctx* c);
void check_prime(struct ctx* c);
void check_submits(struct ctx* c);
void check_errors_and_teardown(struct ctx* c);

#endif
