/*
 * The Asahi GPU kernel UAPI, as this project defines it.
 *
 * Binary-compatible with the upstream Linux UAPI header
 * include/uapi/drm/asahi_drm.h (torvalds/linux): same struct sizes and field
 * offsets, same ioctl numbers, same flag values. Written here from those facts
 * because Debian 12's kernel headers predate it. Sizes and offsets are checked
 * by src/kmd/tests/uapi_layout_test.cpp.
 *
 * Usable from C (C99) and C++. Needs libdrm's drm.h (the generic DRM structs
 * and the DRM_IOW/DRM_IOWR macros): found either with the libdrm include
 * directory on the path (pkg-config --cflags libdrm) or as <libdrm/drm.h>.
 */
#ifndef _ASAHI_DRM_H_  /* the upstream guard: one definition wins */
#define _ASAHI_DRM_H_

#if defined(__has_include)
#if __has_include(<drm.h>)
#include <drm.h>
#else
#include <libdrm/drm.h>
#endif
#else
#include <drm.h>
#endif

#if defined(__cplusplus)
extern "C" {
#endif

/* Ioctl ids, offsets from DRM_COMMAND_BASE. Order is ABI. */
enum drm_asahi_ioctl_id {
  DRM_ASAHI_GET_PARAMS = 0,
  DRM_ASAHI_GET_TIME = 1,
  DRM_ASAHI_VM_CREATE = 2,
  DRM_ASAHI_VM_DESTROY = 3,
  DRM_ASAHI_VM_BIND = 4,
  DRM_ASAHI_GEM_CREATE = 5,
  DRM_ASAHI_GEM_MMAP_OFFSET = 6,
  DRM_ASAHI_GEM_BIND_OBJECT = 7,
  DRM_ASAHI_QUEUE_CREATE = 8,
  DRM_ASAHI_QUEUE_DESTROY = 9,
  DRM_ASAHI_SUBMIT = 10,
};

#define DRM_ASAHI_MAX_CLUSTERS 64

/* Parameter group 0, written by GET_PARAMS (at most get_params.size bytes). */
struct drm_asahi_params_global {
  __u64 features;                 /* drm_asahi_feature bits */
  __u32 gpu_generation;           /* 13 for G13 */
  __u32 gpu_variant;              /* a character: 'G' for G13G */
  __u32 gpu_revision;             /* BCD: 0x00 = A0, 0x21 = C1 */
  __u32 chip_id;                  /* BCD: 0x8103 for T8103 (M1) */
  __u32 num_dies;
  __u32 num_clusters_total;
  __u32 num_cores_per_cluster;    /* logical, including absent cores */
  __u32 max_frequency_khz;
  __u64 core_masks[DRM_ASAHI_MAX_CLUSTERS]; /* enabled cores per cluster */
  __u64 vm_start;                 /* window of user GPU VAs [vm_start, vm_end) */
  __u64 vm_end;
  __u64 vm_kernel_min_size;       /* least size of VM_CREATE's kernel range */
  __u32 max_commands_per_submission;
  __u32 max_attachments;          /* per attachment command */
  __u64 command_timestamp_frequency_hz;
};

enum drm_asahi_feature {
  DRM_ASAHI_FEATURE_SOFT_FAULTS = (1UL) << 0,
};

struct drm_asahi_get_params {
  __u32 param_group; /* MBZ */
  __u32 pad;         /* MBZ */
  __u64 pointer;     /* user pointer to a drm_asahi_params_global */
  __u64 size;        /* bytes the kernel may write; may be short */
};

struct drm_asahi_vm_create {
  __u64 kernel_start; /* kernel-reserved VA range, inside the VM window */
  __u64 kernel_end;
  __u32 vm_id;        /* out */
  __u32 pad;          /* MBZ */
};

struct drm_asahi_vm_destroy {
  __u32 vm_id;
  __u32 pad; /* MBZ */
};

enum drm_asahi_gem_flags {
  DRM_ASAHI_GEM_WRITEBACK = (1L << 0),
  DRM_ASAHI_GEM_VM_PRIVATE = (1L << 1),
};

struct drm_asahi_gem_create {
  __u64 size;
  __u32 flags;  /* drm_asahi_gem_flags */
  __u32 vm_id;  /* the owning VM when DRM_ASAHI_GEM_VM_PRIVATE */
  __u32 handle; /* out */
  __u32 pad;    /* MBZ */
};

struct drm_asahi_gem_mmap_offset {
  __u32 handle;
  __u32 flags;  /* MBZ */
  __u64 offset; /* out: fake offset for mmap() */
};

enum drm_asahi_bind_flags {
  DRM_ASAHI_BIND_UNBIND = (1L << 0),
  DRM_ASAHI_BIND_READ = (1L << 1),
  DRM_ASAHI_BIND_WRITE = (1L << 2),
  DRM_ASAHI_BIND_SINGLE_PAGE = (1L << 3),
};

struct drm_asahi_gem_bind_op {
  __u32 flags;  /* drm_asahi_bind_flags */
  __u32 handle; /* object (not for UNBIND) */
  __u64 offset; /* page-aligned offset in the object (not for UNBIND) */
  __u64 range;  /* page-aligned byte count */
  __u64 addr;   /* page-aligned GPU VA */
};

struct drm_asahi_vm_bind {
  __u32 vm_id;
  __u32 num_binds;
  __u32 stride;  /* bytes between consecutive drm_asahi_gem_bind_op */
  __u32 pad;     /* MBZ */
  __u64 userptr; /* user pointer to the ops */
};

enum drm_asahi_bind_object_op {
  DRM_ASAHI_BIND_OBJECT_OP_BIND = 0,
  DRM_ASAHI_BIND_OBJECT_OP_UNBIND = 1,
};

enum drm_asahi_bind_object_flags {
  DRM_ASAHI_BIND_OBJECT_USAGE_TIMESTAMPS = (1L << 0),
};

struct drm_asahi_gem_bind_object {
  __u32 op;     /* drm_asahi_bind_object_op */
  __u32 flags;  /* drm_asahi_bind_object_flags */
  __u32 handle; /* GEM object (BIND) */
  __u32 vm_id;  /* MBZ */
  __u64 offset; /* BIND only */
  __u64 range;  /* BIND only */
  __u32 object_handle; /* out for BIND, in for UNBIND */
  __u32 pad;    /* MBZ */
};

enum drm_asahi_cmd_type {
  DRM_ASAHI_CMD_RENDER = 0,
  DRM_ASAHI_CMD_COMPUTE = 1,
  DRM_ASAHI_SET_VERTEX_ATTACHMENTS = 2,
  DRM_ASAHI_SET_FRAGMENT_ATTACHMENTS = 3,
  DRM_ASAHI_SET_COMPUTE_ATTACHMENTS = 4,
};

enum drm_asahi_priority {
  DRM_ASAHI_PRIORITY_LOW = 0,
  DRM_ASAHI_PRIORITY_MEDIUM = 1,
  DRM_ASAHI_PRIORITY_HIGH = 2,
  DRM_ASAHI_PRIORITY_REALTIME = 3,
};

struct drm_asahi_queue_create {
  __u32 flags;    /* MBZ */
  __u32 vm_id;
  __u32 priority; /* drm_asahi_priority */
  __u32 queue_id; /* out */
  __u64 usc_exec_base; /* base of the 4 GiB USC window of this queue */
};

struct drm_asahi_queue_destroy {
  __u32 queue_id;
  __u32 pad; /* MBZ */
};

enum drm_asahi_sync_type {
  DRM_ASAHI_SYNC_SYNCOBJ = 0,
  DRM_ASAHI_SYNC_TIMELINE_SYNCOBJ = 1,
};

struct drm_asahi_sync {
  __u32 sync_type; /* drm_asahi_sync_type */
  __u32 handle;    /* syncobj handle */
  __u64 timeline_value;
};

/* A barrier index meaning "wait on nothing in this subqueue". */
#define DRM_ASAHI_BARRIER_NONE (0xFFFFu)

struct drm_asahi_cmd_header {
  __u16 cmd_type;    /* drm_asahi_cmd_type */
  __u16 size;        /* payload bytes after this header */
  __u16 vdm_barrier; /* render boundary to wait on: 0, 1..N, or NONE */
  __u16 cdm_barrier; /* compute boundary to wait on */
};

struct drm_asahi_submit {
  __u64 syncs;  /* in_sync_count in-syncs then out_sync_count out-syncs */
  __u64 cmdbuf; /* flat buffer of drm_asahi_cmd_header + payloads */
  __u32 flags;  /* MBZ */
  __u32 queue_id;
  __u32 in_sync_count;
  __u32 out_sync_count;
  __u32 cmdbuf_size; /* bytes */
  __u32 pad;         /* MBZ */
};

struct drm_asahi_attachment {
  __u64 pointer; /* GPU VA */
  __u64 size;    /* bytes */
  __u32 pad;     /* MBZ */
  __u32 flags;   /* MBZ */
};

enum drm_asahi_render_flags {
  DRM_ASAHI_RENDER_VERTEX_SCRATCH = (1U << 0),
  DRM_ASAHI_RENDER_PROCESS_EMPTY_TILES = (1U << 1),
  DRM_ASAHI_RENDER_NO_VERTEX_CLUSTERING = (1U << 2),
  DRM_ASAHI_RENDER_DBIAS_IS_INT = (1U << 18),
};

struct drm_asahi_zls_buffer {
  __u64 base;
  __u64 comp_base;
  __u32 stride;      /* bytes between layers */
  __u32 comp_stride; /* bytes between layers of the metadata */
};

/* A timestamp slot: a GEM_BIND_OBJECT object handle (0 = none) + offset. */
struct drm_asahi_timestamp {
  __u32 handle;
  __u32 offset;
};

struct drm_asahi_timestamps {
  struct drm_asahi_timestamp start;
  struct drm_asahi_timestamp end;
};

struct drm_asahi_helper_program {
  __u32 binary; /* USC address, tagged */
  __u32 cfg;
  __u64 data;
};

struct drm_asahi_bg_eot {
  __u32 usc;       /* USC address, tagged */
  __u32 rsrc_spec;
};

struct drm_asahi_cmd_render {
  __u32 flags; /* drm_asahi_render_flags */
  __u32 isp_zls_pixels;
  __u64 vdm_ctrl_stream_base;
  struct drm_asahi_helper_program vertex_helper;
  struct drm_asahi_helper_program fragment_helper;
  __u64 isp_scissor_base;
  __u64 isp_dbias_base;
  __u64 isp_oclqry_base;
  struct drm_asahi_zls_buffer depth;
  struct drm_asahi_zls_buffer stencil;
  __u64 zls_ctrl;
  __u64 ppp_multisamplectl;
  __u64 sampler_heap;
  __u32 ppp_ctrl;
  __u16 width_px;
  __u16 height_px;
  __u16 layers;
  __u16 sampler_count;
  __u8 utile_width_px;
  __u8 utile_height_px;
  __u8 samples; /* 1, 2 or 4 */
  __u8 sample_size_B;
  __u32 isp_merge_upper_x; /* f32 bits */
  __u32 isp_merge_upper_y; /* f32 bits */
  struct drm_asahi_bg_eot bg;
  struct drm_asahi_bg_eot eot;
  struct drm_asahi_bg_eot partial_bg;
  struct drm_asahi_bg_eot partial_eot;
  __u32 isp_bgobjdepth;
  __u32 isp_bgobjvals;
  struct drm_asahi_timestamps ts_vtx;
  struct drm_asahi_timestamps ts_frag;
};

struct drm_asahi_cmd_compute {
  __u32 flags; /* MBZ */
  __u32 sampler_count;
  __u64 cdm_ctrl_stream_base;
  __u64 cdm_ctrl_stream_end;
  __u64 sampler_heap;
  struct drm_asahi_helper_program helper;
  struct drm_asahi_timestamps ts;
};

struct drm_asahi_get_time {
  __u64 flags;         /* MBZ */
  __u64 gpu_timestamp; /* out, nanoseconds */
};

#define AGX_DRM_IOCTL_ASAHI(dir, id, type) \
  DRM_IO##dir(DRM_COMMAND_BASE + DRM_ASAHI_##id, struct drm_asahi_##type)

#define DRM_IOCTL_ASAHI_GET_PARAMS AGX_DRM_IOCTL_ASAHI(W, GET_PARAMS, get_params)
#define DRM_IOCTL_ASAHI_GET_TIME AGX_DRM_IOCTL_ASAHI(WR, GET_TIME, get_time)
#define DRM_IOCTL_ASAHI_VM_CREATE AGX_DRM_IOCTL_ASAHI(WR, VM_CREATE, vm_create)
#define DRM_IOCTL_ASAHI_VM_DESTROY AGX_DRM_IOCTL_ASAHI(W, VM_DESTROY, vm_destroy)
#define DRM_IOCTL_ASAHI_VM_BIND AGX_DRM_IOCTL_ASAHI(W, VM_BIND, vm_bind)
#define DRM_IOCTL_ASAHI_GEM_CREATE AGX_DRM_IOCTL_ASAHI(WR, GEM_CREATE, gem_create)
#define DRM_IOCTL_ASAHI_GEM_MMAP_OFFSET AGX_DRM_IOCTL_ASAHI(WR, GEM_MMAP_OFFSET, gem_mmap_offset)
#define DRM_IOCTL_ASAHI_GEM_BIND_OBJECT AGX_DRM_IOCTL_ASAHI(WR, GEM_BIND_OBJECT, gem_bind_object)
#define DRM_IOCTL_ASAHI_QUEUE_CREATE AGX_DRM_IOCTL_ASAHI(WR, QUEUE_CREATE, queue_create)
#define DRM_IOCTL_ASAHI_QUEUE_DESTROY AGX_DRM_IOCTL_ASAHI(W, QUEUE_DESTROY, queue_destroy)
#define DRM_IOCTL_ASAHI_SUBMIT AGX_DRM_IOCTL_ASAHI(W, SUBMIT, submit)

#if defined(__cplusplus)
}
#endif

#endif /* _ASAHI_DRM_H_ */
