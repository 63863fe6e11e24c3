// include/agx/asahi_drm.h must match the upstream UAPI byte for byte: sizes,
// offsets and ioctl numbers from include/uapi/drm/asahi_drm.h (torvalds/linux).
#include <gtest/gtest.h>

#include <cstddef>

#include "agx/asahi_drm.h"

namespace AGX_UNITY_ID {

static_assert(sizeof(drm_asahi_params_global) == 592);
static_assert(offsetof(drm_asahi_params_global, core_masks) == 40);
static_assert(offsetof(drm_asahi_params_global, vm_start) == 552);
static_assert(offsetof(drm_asahi_params_global, max_commands_per_submission) == 576);
static_assert(offsetof(drm_asahi_params_global, command_timestamp_frequency_hz) == 584);
static_assert(sizeof(drm_asahi_get_params) == 24);
static_assert(sizeof(drm_asahi_vm_create) == 24);
static_assert(sizeof(drm_asahi_vm_destroy) == 8);
static_assert(sizeof(drm_asahi_gem_create) == 24);
static_assert(sizeof(drm_asahi_gem_mmap_offset) == 16);
static_assert(sizeof(drm_asahi_gem_bind_op) == 32);
static_assert(sizeof(drm_asahi_vm_bind) == 24);
static_assert(sizeof(drm_asahi_gem_bind_object) == 40);
static_assert(offsetof(drm_asahi_gem_bind_object, object_handle) == 32);
static_assert(sizeof(drm_asahi_queue_create) == 24);
static_assert(sizeof(drm_asahi_queue_destroy) == 8);
static_assert(sizeof(drm_asahi_sync) == 16);
static_assert(sizeof(drm_asahi_cmd_header) == 8);
static_assert(sizeof(drm_asahi_submit) == 40);
static_assert(sizeof(drm_asahi_attachment) == 24);
static_assert(sizeof(drm_asahi_zls_buffer) == 24);
static_assert(sizeof(drm_asahi_timestamps) == 16);
static_assert(sizeof(drm_asahi_helper_program) == 16);
static_assert(sizeof(drm_asahi_bg_eot) == 8);
static_assert(sizeof(drm_asahi_cmd_render) == 240);
static_assert(offsetof(drm_asahi_cmd_render, ppp_ctrl) == 144);
static_assert(offsetof(drm_asahi_cmd_render, isp_merge_upper_x) == 160);
static_assert(offsetof(drm_asahi_cmd_render, ts_vtx) == 208);
static_assert(sizeof(drm_asahi_cmd_compute) == 64);
static_assert(offsetof(drm_asahi_cmd_compute, ts) == 48);
static_assert(sizeof(drm_asahi_get_time) == 16);

TEST(Uapi, IoctlNumbers) {
  // _IOW/_IOWR('d', 0x40 + id, size).
  EXPECT_EQ(DRM_IOCTL_ASAHI_GET_PARAMS, 0x40186440u);
  EXPECT_EQ(DRM_IOCTL_ASAHI_GET_TIME, 0xc0106441u);
  EXPECT_EQ(DRM_IOCTL_ASAHI_VM_CREATE, 0xc0186442u);
  EXPECT_EQ(DRM_IOCTL_ASAHI_VM_DESTROY, 0x40086443u);
  EXPECT_EQ(DRM_IOCTL_ASAHI_VM_BIND, 0x40186444u);
  EXPECT_EQ(DRM_IOCTL_ASAHI_GEM_CREATE, 0xc0186445u);
  EXPECT_EQ(DRM_IOCTL_ASAHI_GEM_MMAP_OFFSET, 0xc0106446u);
  EXPECT_EQ(DRM_IOCTL_ASAHI_GEM_BIND_OBJECT, 0xc0286447u);
  EXPECT_EQ(DRM_IOCTL_ASAHI_QUEUE_CREATE, 0xc0186448u);
  EXPECT_EQ(DRM_IOCTL_ASAHI_QUEUE_DESTROY, 0x40086449u);
  EXPECT_EQ(DRM_IOCTL_ASAHI_SUBMIT, 0x4028644au);
  EXPECT_EQ(DRM_ASAHI_BARRIER_NONE, 0xFFFFu);
}

}  // namespace
