// ComputeSession: a thin compute session over the UAPI (see the header).
#include "runtime/compute_session.h"
#include "runtime/hardware.h"

#include <fmt/format.h>

#include "isa/isa.h"
#include "kmd/kmd.h"

namespace agx::runtime {

namespace {

using hw::kPage_B;
constexpr uint64_t kKernelStart = 0x40'0000'0000, kKernelEnd = kKernelStart + 0x20000000;

template <typename T>
int io(Transport& t, unsigned long req, T& arg) {
  return t.ioctl(req, &arg);
}

Error ioctl_error(const char* what, int r) { return Error::io("{} failed: {}", what, r); }

}  // namespace

Result<std::unique_ptr<ComputeSession>> ComputeSession::open(kmd::Device& device, uint64_t arena_B) {
  std::unique_ptr<ComputeSession> s(new ComputeSession);
  s->device_ = &device;
  s->transport_ = in_process_transport(device);
  Transport& f = *s->transport_;
  s->arena_B_ = (arena_B + kPage_B - 1) / kPage_B * kPage_B;
  drm_asahi_vm_create vc{kKernelStart, kKernelEnd, 0, 0};
  if (int r = io(f, DRM_IOCTL_ASAHI_VM_CREATE, vc)) return ioctl_error("VM_CREATE", r);
  s->vm_ = vc.vm_id;
  drm_asahi_gem_create gc{s->arena_B_, 0, 0, 0, 0};
  if (int r = io(f, DRM_IOCTL_ASAHI_GEM_CREATE, gc)) return ioctl_error("GEM_CREATE", r);
  s->gem_ = gc.handle;
  drm_asahi_gem_mmap_offset mo{s->gem_, 0, 0};
  if (int r = io(f, DRM_IOCTL_ASAHI_GEM_MMAP_OFFSET, mo)) return ioctl_error("GEM_MMAP_OFFSET", r);
  int err = 0;
  s->host_ = static_cast<uint8_t*>(f.mmap(mo.offset, s->arena_B_, &err));
  if (!s->host_) return ioctl_error("mmap", err);
  drm_asahi_gem_bind_op op{DRM_ASAHI_BIND_READ | DRM_ASAHI_BIND_WRITE, s->gem_, 0, s->arena_B_, kArenaVa};
  drm_asahi_vm_bind vb{s->vm_, 1, sizeof op, 0, reinterpret_cast<uint64_t>(&op)};
  if (int r = io(f, DRM_IOCTL_ASAHI_VM_BIND, vb)) return ioctl_error("VM_BIND", r);
  drm_asahi_queue_create qc{0, s->vm_, DRM_ASAHI_PRIORITY_MEDIUM, 0, kArenaVa};
  if (int r = io(f, DRM_IOCTL_ASAHI_QUEUE_CREATE, qc)) return ioctl_error("QUEUE_CREATE", r);
  s->queue_ = qc.queue_id;
  drm_syncobj_create sc{0, 0};
  if (int r = io(f, DRM_IOCTL_SYNCOBJ_CREATE, sc)) return ioctl_error("SYNCOBJ_CREATE", r);
  s->syncobj_ = sc.handle;
  return s;
}

ComputeSession::~ComputeSession() {
  if (host_) transport_->munmap(host_, arena_B_);
}

Result<uint64_t> ComputeSession::alloc(uint64_t size_B, uint64_t align_B) {
  uint64_t at = (used_ + align_B - 1) / align_B * align_B;
  if (at + size_B > arena_B_)
    return Error::limit("arena of {} bytes is full ({} used, {} asked)", arena_B_, used_, size_B);
  used_ = at + size_B;
  return kArenaVa + at;
}

Result<uint64_t> ComputeSession::upload(std::span<const uint8_t> bytes, uint64_t align_B) {
  AGX_TRY(auto va, alloc(bytes.size(), align_B));
  std::memcpy(host(va), bytes.data(), bytes.size());
  return va;
}

Result<uint64_t> ComputeSession::assemble(std::string_view text) {
  AGX_TRY(auto at, alloc(0, 128));
  AGX_TRY(auto code, isa::assemble_program(text, at));
  used_ = at - kArenaVa;  // allocate for real now that the size is known
  return upload(code, 128);
}

Result<size_t> ComputeSession::run(uint64_t stream, uint64_t stream_end, const drm_asahi_cmd_compute* extra) {
  drm_asahi_cmd_compute cc{};
  if (extra) cc = *extra;
  cc.cdm_ctrl_stream_base = stream;
  cc.cdm_ctrl_stream_end = stream_end;
  return submit_one(DRM_ASAHI_CMD_COMPUTE, cc);
}

Result<size_t> ComputeSession::run_render(const drm_asahi_cmd_render& command) {
  return submit_one(DRM_ASAHI_CMD_RENDER, command);
}

// One command buffer of one command (header + payload), submitted with the
// session's syncobj as its out-sync and waited for.
template <class Command>
Result<size_t> ComputeSession::submit_one(uint16_t type, const Command& command) {
  struct {
    drm_asahi_cmd_header h;
    Command c;
  } buf{{type, sizeof(Command), DRM_ASAHI_BARRIER_NONE, DRM_ASAHI_BARRIER_NONE}, command};
  drm_asahi_sync out{DRM_ASAHI_SYNC_SYNCOBJ, syncobj_, 0};
  drm_asahi_submit sub{};
  sub.syncs = reinterpret_cast<uint64_t>(&out);
  sub.cmdbuf = reinterpret_cast<uint64_t>(&buf);
  sub.queue_id = queue_;
  sub.out_sync_count = 1;
  sub.cmdbuf_size = sizeof buf;
  size_t before = device_->faults().size();
  if (int r = io(*transport_, DRM_IOCTL_ASAHI_SUBMIT, sub)) return ioctl_error("SUBMIT", r);
  uint32_t handle = syncobj_;
  drm_syncobj_wait w{reinterpret_cast<uint64_t>(&handle), INT64_MAX, 1, 0, 0, 0};
  if (int r = io(*transport_, DRM_IOCTL_SYNCOBJ_WAIT, w)) return ioctl_error("SYNCOBJ_WAIT", r);
  auto faults = device_->faults();
  if (faults.size() > before) last_ = faults.back().fault;
  return faults.size() - before;
}

Result<uint64_t> upload_usc_words(ComputeSession& s, const KernelLaunch& k) {
  UscWordList w;
  if (!k.uniforms.empty()) {
    std::span<const uint8_t> bytes(reinterpret_cast<const uint8_t*>(k.uniforms.data()), k.uniforms.size() * 4);
    AGX_TRY(w.uniforms_va, s.upload(bytes, 4));
  }
  w.uniform_count = uint32_t(k.uniforms.size());
  w.code_usc = s.usc_offset(k.code);
  w.register_halves = k.register_halves;
  w.spill_bucket = k.spill_bucket;
  w.threadgroup_memory_B = k.shared_B;
  if (k.preshader) w.preshader_usc = s.usc_offset(k.preshader);
  AGX_TRY(auto words, pack_usc_words(w));
  return s.upload(words, 64);
}

Status push_launch(std::vector<uint8_t>& stream, ComputeSession& s, const KernelLaunch& k, uint64_t usc_words) {
  CdmLaunch c;
  c.pipeline_usc = s.usc_offset(usc_words);
  c.uniform_count = uint32_t(k.uniforms.size());
  c.preshader_register_halves = k.preshader ? k.preshader_halves : 0;
  c.mode = k.mode;
  c.global_threads = k.grid;
  c.indirect = k.indirect;
  c.local = k.local;
  return push_cdm_launch(stream, c);
}

}  // namespace agx::runtime
