// The DRM core's ioctl table as a render node sees it (torvalds/linux
// drivers/gpu/drm/drm_ioctl.c, drm_ioctls[] after the removal of the legacy
// ioctls): which core numbers exist, and which of them a render client may
// call (DRM_RENDER_ALLOW). drm_ioctl() answers -EINVAL for a number with no
// entry, and drm_ioctl_permit() -EACCES for an entry without
// DRM_RENDER_ALLOW on a render node.
#pragma once

#include "agx/asahi_drm.h"

// Core ioctls newer than the libdrm headers we build against (uapi drm.h).
struct agx_drm_set_client_name {
  __u64 name_len;
  __u64 name;
};
struct agx_drm_syncobj_eventfd {
  __u32 handle;
  __u32 flags;
  __u64 point;
  __s32 fd;
  __u32 pad;
};
struct agx_drm_mode_closefb {
  __u32 fb_id;
  __u32 pad;
};
#define AGX_DRM_IOCTL_SYNCOBJ_EVENTFD DRM_IOWR(0xCF, struct agx_drm_syncobj_eventfd)
#define AGX_DRM_IOCTL_MODE_CLOSEFB DRM_IOWR(0xD0, struct agx_drm_mode_closefb)
#define AGX_DRM_IOCTL_SET_CLIENT_NAME DRM_IOWR(0xD1, struct agx_drm_set_client_name)
#define AGX_DRM_CLIENT_NAME_MAX_LEN 64

namespace agx::kmd {

// The full ioctl number (direction and size) of a core ioctl that exists
// upstream but is refused on a render node (-EACCES), or 0 when `nr` is not
// one (a render-allowed ioctl, a driver number or no entry at all).
unsigned render_refused_core_ioctl(unsigned nr);

}  // namespace agx::kmd
