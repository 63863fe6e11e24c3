// DRM_IOCTL_ASAHI_SUBMIT: syncs, the flat command buffer, barriers, and the
// job handed to the user queue. Every check runs before anything changes.
#include <algorithm>
#include <cerrno>
#include <cstring>

#include "kmd/file_impl.h"
#include "kmd/uaccess.h"

namespace agx::kmd {

namespace {

bool all_zero(const uint8_t* p, size_t n) {
  return std::all_of(p, p + n, [](uint8_t b) { return b == 0; });
}

// Copies a payload shorter than T zero-extended; a longer one must carry
// only zeros past T (fields this driver does not know).
template <typename T>
int read_payload(const uint8_t* p, size_t size, T* out) {
  std::memset(out, 0, sizeof(T));
  if (size) std::memcpy(out, p, std::min(size, sizeof(T)));
  if (size > sizeof(T) && !all_zero(p + sizeof(T), size - sizeof(T))) return -EINVAL;
  return 0;
}

int check_render(const drm_asahi_cmd_render& r) {
  const uint32_t known = DRM_ASAHI_RENDER_VERTEX_SCRATCH | DRM_ASAHI_RENDER_PROCESS_EMPTY_TILES |
                         DRM_ASAHI_RENDER_NO_VERTEX_CLUSTERING | DRM_ASAHI_RENDER_DBIAS_IS_INT;
  if (r.flags & ~known) return -EINVAL;
  if (r.samples != 1 && r.samples != 2 && r.samples != 4) return -EINVAL;
  if (r.width_px == 0 || r.height_px == 0 || r.width_px > 16384 || r.height_px > 16384) return -EINVAL;
  if (r.layers == 0 || r.layers > 2048) return -EINVAL;
  auto utile_ok = [](uint8_t v) { return v == 16 || v == 32; };
  if (!utile_ok(r.utile_width_px) || !utile_ok(r.utile_height_px)) return -EINVAL;
  return 0;
}

}  // namespace

struct SubmitParser {
  FileImpl& file;
  Job& job;
  uint32_t renders = 0, computes = 0;
  std::vector<drm_asahi_attachment> attachments[3];  // vertex, fragment, compute

  int timestamp(const drm_asahi_timestamp& ts, TimestampTarget* out) {
    if (ts.handle == 0) return 0;
    auto it = file.timestamps_.find(ts.handle);
    if (it == file.timestamps_.end()) return -ENOENT;
    if (uint64_t(ts.offset) + 8 > it->second.range) return -EINVAL;
    *out = {it->second.object, it->second.offset + ts.offset};
    return 0;
  }

  int set_attachments(const drm_asahi_cmd_header& h, const uint8_t* p, int which) {
    if (h.vdm_barrier != kBarrierNone || h.cdm_barrier != kBarrierNone) return -EINVAL;
    if (h.size % sizeof(drm_asahi_attachment)) return -EINVAL;
    size_t n = h.size / sizeof(drm_asahi_attachment);
    if (n > file.dev_.params.max_attachments) return -EINVAL;
    std::vector<drm_asahi_attachment> list(n);
    if (n) std::memcpy(list.data(), p, n * sizeof(drm_asahi_attachment));
    for (auto& a : list)
      if (a.pad || a.flags) return -EINVAL;
    attachments[which] = std::move(list);
    return 0;
  }

  int hardware(const drm_asahi_cmd_header& h, const uint8_t* p) {
    if (job.commands.size() == kMaxCommandsPerSubmission) return -EINVAL;
    if (h.vdm_barrier != kBarrierNone && h.vdm_barrier > renders) return -EINVAL;   // a future boundary
    if (h.cdm_barrier != kBarrierNone && h.cdm_barrier > computes) return -EINVAL;
    JobCommand c;
    c.plan.vdm_barrier = h.vdm_barrier;
    c.plan.cdm_barrier = h.cdm_barrier;
    c.index = uint32_t(job.commands.size());
    if (h.cmd_type == DRM_ASAHI_CMD_RENDER) {
      c.plan.kind = CommandKind::render;
      if (int err = read_payload(p, h.size, &c.render)) return err;
      if (int err = check_render(c.render)) return err;
      const drm_asahi_timestamp* ts[4] = {&c.render.ts_vtx.start, &c.render.ts_vtx.end, &c.render.ts_frag.start,
                                          &c.render.ts_frag.end};
      for (int i = 0; i < 4; i++)
        if (int err = timestamp(*ts[i], &c.ts[i])) return err;
      c.ordinal = ++renders;
      c.first_attachments = attachments[0];
      c.fragment_attachments = attachments[1];
    } else {
      c.plan.kind = CommandKind::compute;
      if (int err = read_payload(p, h.size, &c.compute)) return err;
      if (c.compute.flags) return -EINVAL;
      if (int err = timestamp(c.compute.ts.start, &c.ts[0])) return err;
      if (int err = timestamp(c.compute.ts.end, &c.ts[1])) return err;
      c.ordinal = ++computes;
      c.first_attachments = attachments[2];
    }
    job.commands.push_back(std::move(c));
    return 0;
  }

  // Walks the command buffer, already copied in from the caller: one
  // header and its payload at a time.
  int parse(std::span<const uint8_t> buf) {
    const size_t size = buf.size();
    size_t off = 0;
    while (off < size) {
      drm_asahi_cmd_header h;
      if (size - off < sizeof h) return -EINVAL;  // truncated header
      std::memcpy(&h, buf.data() + off, sizeof h);
      off += sizeof h;
      if (h.size > size - off) return -EINVAL;    // truncated payload
      const uint8_t* p = buf.data() + off;
      off += h.size;
      int err;
      switch (h.cmd_type) {
        case DRM_ASAHI_CMD_RENDER:
        case DRM_ASAHI_CMD_COMPUTE: err = hardware(h, p); break;
        case DRM_ASAHI_SET_VERTEX_ATTACHMENTS: err = set_attachments(h, p, 0); break;
        case DRM_ASAHI_SET_FRAGMENT_ATTACHMENTS: err = set_attachments(h, p, 1); break;
        case DRM_ASAHI_SET_COMPUTE_ATTACHMENTS: err = set_attachments(h, p, 2); break;
        default: err = -EINVAL;
      }
      if (err) return err;
    }
    return job.commands.empty() ? -EINVAL : 0;
  }
};

int FileImpl::submit(void* arg) {
  auto* s = static_cast<drm_asahi_submit*>(arg);
  if (s->flags || s->pad) return -EINVAL;
  const uint64_t sync_count = uint64_t(s->in_sync_count) + s->out_sync_count;
  if (sync_count > 1024) return -EINVAL;
  std::vector<drm_asahi_sync> syncs(sync_count);
  if (int err = copy_from_user(syncs.data(), s->syncs, syncs.size() * sizeof(drm_asahi_sync))) return err;
  // The whole command buffer is copied in once: parsed, captured and kept
  // for a crash dump from the same bytes, whatever the caller does to its
  // memory meanwhile.
  if (s->cmdbuf_size > kMaxCmdbufSize_B) return -EINVAL;
  std::vector<uint8_t> cmdbuf(s->cmdbuf_size);
  if (int err = copy_from_user(cmdbuf.data(), s->cmdbuf, cmdbuf.size())) return err;
  auto job = std::make_unique<Job>();
  QueuePtr queue;
  std::vector<std::pair<SyncobjPtr, uint64_t>> outs;
  {
    std::lock_guard g(mu_);
    auto it = queues_.find(s->queue_id);
    if (it == queues_.end()) return -ENOENT;
    queue = it->second;
    for (uint64_t i = 0; i < sync_count; i++) {
      const drm_asahi_sync& y = syncs[i];
      if (y.sync_type != DRM_ASAHI_SYNC_SYNCOBJ && y.sync_type != DRM_ASAHI_SYNC_TIMELINE_SYNCOBJ) return -EINVAL;
      if (y.sync_type == DRM_ASAHI_SYNC_SYNCOBJ && y.timeline_value) return -EINVAL;
      auto so = syncobjs_.find(y.handle);
      if (so == syncobjs_.end()) return -ENOENT;
      if (i < s->in_sync_count) {
        if (!so->second->dependencies(y.timeline_value, job->waits)) return -EINVAL;  // nothing submitted
      } else {
        outs.emplace_back(so->second, y.timeline_value);
      }
    }
    SubmitParser parser{*this, *job, 0, 0, {}};
    if (int err = parser.parse(cmdbuf)) return err;
    for (const auto& [id, vm] : vms_)
      if (vm == queue->vm()) job->vm_id = id;
  }
  job->seqno = ++dev_.submit_seqno;
  capture_submit(*s, cmdbuf, syncs, *queue, *job);
  job->done = std::make_shared<Fence>();
  for (auto& [so, point] : outs) {
    if (point)
      so->add_point(point, job->done);
    else
      so->replace(job->done);
  }
  // Drop in-fences that already signaled; the queue waits on the rest.
  std::erase_if(job->waits, [](const FencePtr& f) { return f->signaled.load(std::memory_order_acquire); });
  queue->push(std::move(job));
  dev_.notify();
  return 0;
}

}  // namespace agx::kmd
