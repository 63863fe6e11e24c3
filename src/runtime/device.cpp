// Device: GET_PARAMS, a VM with its kernel range, one queue and a syncobj;
// buffers as GEM objects bound into the VM and mapped; compute submits.
#include <cerrno>
#include <cstring>

#include "kmd/kmd.h"
#include "runtime/runtime.h"
#include "runtime/hardware.h"

namespace agx::runtime {

namespace {

using hw::kPage_B;
constexpr uint64_t kUscWindow_B = uint64_t{1} << 32;

uint64_t page_align(uint64_t v) { return (v + kPage_B - 1) & ~(kPage_B - 1); }

Error ioctl_error(const Transport& t, const char* what, int rc) {
  return Error::io("{}: {} failed: {}", t.name(), what, std::strerror(-rc));
}

}  // namespace

Result<std::unique_ptr<Device>> Device::open(std::unique_ptr<Transport> transport) {
  if (!transport) return Error::invalid_argument("no transport");
  std::unique_ptr<Device> d(new Device(std::move(transport)));
  AGX_CHECK(d->init());
  return d;
}

Result<std::unique_ptr<Device>> Device::open_in_process() { return open(in_process_transport()); }

Result<std::unique_ptr<Device>> Device::open_render_node(const std::string& path) {
  AGX_TRY(auto t, render_node_transport(path));
  return open(std::move(t));
}

Status Device::init() {
  Transport& t = *transport_;
  drm_asahi_get_params gp{0, 0, reinterpret_cast<uint64_t>(&params_), sizeof params_};
  if (int rc = t.ioctl(DRM_IOCTL_ASAHI_GET_PARAMS, &gp)) return ioctl_error(t, "GET_PARAMS", rc);
  if (params_.gpu_generation != 13)
    return Error::unsupported("{}: GPU generation {} (only G13 is supported)", t.name(), params_.gpu_generation);
  // The windows must sit inside the device's VM range.
  uint64_t kernel_end = layout_.kernel_start + std::max<uint64_t>(layout_.kernel_size_B, params_.vm_kernel_min_size);
  if (layout_.usc_base < params_.vm_start || kernel_end > params_.vm_end)
    return Error::unsupported("{}: VM range [{:#x}, {:#x}) is too small for the runtime's layout", t.name(),
                              params_.vm_start, params_.vm_end);
  drm_asahi_vm_create vc{layout_.kernel_start, kernel_end, 0, 0};
  if (int rc = t.ioctl(DRM_IOCTL_ASAHI_VM_CREATE, &vc)) return ioctl_error(t, "VM_CREATE", rc);
  vm_id_ = vc.vm_id;
  vm_ = true;
  drm_asahi_queue_create qc{0, vm_id_, DRM_ASAHI_PRIORITY_MEDIUM, 0, layout_.usc_base};
  if (int rc = t.ioctl(DRM_IOCTL_ASAHI_QUEUE_CREATE, &qc)) return ioctl_error(t, "QUEUE_CREATE", rc);
  queue_id_ = qc.queue_id;
  queue_ = true;
  drm_syncobj_create sc{0, 0};
  if (int rc = t.ioctl(DRM_IOCTL_SYNCOBJ_CREATE, &sc)) return ioctl_error(t, "SYNCOBJ_CREATE", rc);
  syncobj_ = sc.handle;
  sync_ = true;
  next_usc_va_ = layout_.usc_base + kPage_B;  // USC offset 0 stays unmapped: a null code pointer faults
  next_general_va_ = layout_.general_base;
  return {};
}

Device::~Device() {
  // Buffers hold a reference to the device and must be gone first.
  Transport& t = *transport_;
  if (sync_) {
    drm_syncobj_destroy sd{syncobj_, 0};
    t.ioctl(DRM_IOCTL_SYNCOBJ_DESTROY, &sd);
  }
  if (queue_) {
    drm_asahi_queue_destroy qd{queue_id_, 0};
    t.ioctl(DRM_IOCTL_ASAHI_QUEUE_DESTROY, &qd);
  }
  if (vm_) {
    drm_asahi_vm_destroy vd{vm_id_, 0};
    t.ioctl(DRM_IOCTL_ASAHI_VM_DESTROY, &vd);
  }
}

Result<uint64_t> Device::allocate_va(uint64_t size_B, bool usc) {
  uint64_t& next = usc ? next_usc_va_ : next_general_va_;
  uint64_t limit = usc ? layout_.usc_base + kUscWindow_B : layout_.kernel_start;
  uint64_t va = next;
  if (size_B > limit - va) return Error::limit("out of GPU VA in the {} window ({} bytes asked)", usc ? "USC" : "general", size_B);
  next = va + size_B + kPage_B;  // a guard page between buffers: overruns fault
  return va;
}

Result<std::unique_ptr<Buffer>> Device::create_buffer(uint64_t size_B, std::string label, bool usc) {
  if (size_B == 0) return Error::invalid_argument("{}: zero-sized buffer", label);
  if (size_B > (uint64_t{1} << 36)) return Error::invalid_argument("{}: {} bytes is too large", label, size_B);
  Transport& t = *transport_;
  std::unique_ptr<Buffer> b(new Buffer(*this));
  b->label_ = std::move(label);
  b->size_B_ = size_B;
  b->mapped_B_ = page_align(size_B);
  drm_asahi_gem_create gc{b->mapped_B_, 0, 0, 0, 0};
  if (int rc = t.ioctl(DRM_IOCTL_ASAHI_GEM_CREATE, &gc)) return ioctl_error(t, "GEM_CREATE", rc).context(b->label_);
  b->handle_ = gc.handle;
  // From here on the Buffer's destructor releases what was made.
  AGX_TRY(b->gpu_va_, allocate_va(b->mapped_B_, usc));
  drm_asahi_gem_bind_op op{DRM_ASAHI_BIND_READ | DRM_ASAHI_BIND_WRITE, b->handle_, 0, b->mapped_B_, b->gpu_va_};
  drm_asahi_vm_bind vb{vm_id_, 1, sizeof op, 0, reinterpret_cast<uint64_t>(&op)};
  if (int rc = t.ioctl(DRM_IOCTL_ASAHI_VM_BIND, &vb)) return ioctl_error(t, "VM_BIND", rc).context(b->label_);
  b->bound_ = true;
  drm_asahi_gem_mmap_offset mo{b->handle_, 0, 0};
  if (int rc = t.ioctl(DRM_IOCTL_ASAHI_GEM_MMAP_OFFSET, &mo)) return ioctl_error(t, "GEM_MMAP_OFFSET", rc).context(b->label_);
  int err = 0;
  void* p = t.mmap(mo.offset, b->mapped_B_, &err);
  if (!p) return ioctl_error(t, "mmap", err).context(b->label_);
  b->host_ = static_cast<uint8_t*>(p);
  std::memset(b->host_, 0, b->mapped_B_);
  return b;
}

void Device::release(Buffer& b) {
  Transport& t = *transport_;
  if (b.host_) t.munmap(b.host_, b.mapped_B_);
  if (b.bound_) {
    drm_asahi_gem_bind_op op{DRM_ASAHI_BIND_UNBIND, 0, 0, b.mapped_B_, b.gpu_va_};
    drm_asahi_vm_bind vb{vm_id_, 1, sizeof op, 0, reinterpret_cast<uint64_t>(&op)};
    t.ioctl(DRM_IOCTL_ASAHI_VM_BIND, &vb);
  }
  if (b.handle_) {
    drm_gem_close gc{b.handle_, 0};
    t.ioctl(DRM_IOCTL_GEM_CLOSE, &gc);
  }
}

Buffer::~Buffer() { device_.release(*this); }

// One command buffer of one command (header + payload) on the device's
// queue: reset the syncobj, SUBMIT, wait, and a fault the in-process
// device recorded for the queue as an error naming `what`.
Status Device::submit(uint16_t type, const void* command, size_t size_B, std::string_view what) {
  Transport& t = *transport_;
  std::vector<uint8_t> cmdbuf(sizeof(drm_asahi_cmd_header) + size_B);
  drm_asahi_cmd_header h{type, uint16_t(size_B), DRM_ASAHI_BARRIER_NONE, DRM_ASAHI_BARRIER_NONE};
  std::memcpy(cmdbuf.data(), &h, sizeof h);
  std::memcpy(cmdbuf.data() + sizeof h, command, size_B);
  size_t faults_before = 0;
  if (kmd::Device* d = t.in_process_device()) faults_before = d->faults().size();
  drm_syncobj_array reset{reinterpret_cast<uint64_t>(&syncobj_), 1, 0};
  if (int rc = t.ioctl(DRM_IOCTL_SYNCOBJ_RESET, &reset)) return ioctl_error(t, "SYNCOBJ_RESET", rc).context(what);
  drm_asahi_sync out{DRM_ASAHI_SYNC_SYNCOBJ, syncobj_, 0};
  drm_asahi_submit s{};
  s.syncs = reinterpret_cast<uint64_t>(&out);
  s.cmdbuf = reinterpret_cast<uint64_t>(cmdbuf.data());
  s.queue_id = queue_id_;
  s.out_sync_count = 1;
  s.cmdbuf_size = uint32_t(cmdbuf.size());
  if (int rc = t.ioctl(DRM_IOCTL_ASAHI_SUBMIT, &s)) return ioctl_error(t, "SUBMIT", rc).context(what);
  drm_syncobj_wait w{reinterpret_cast<uint64_t>(&syncobj_), INT64_MAX, 1, 0, 0, 0};
  if (int rc = t.ioctl(DRM_IOCTL_SYNCOBJ_WAIT, &w)) return ioctl_error(t, "SYNCOBJ_WAIT", rc).context(what);
  if (kmd::Device* d = t.in_process_device()) {
    auto faults = d->faults();
    for (size_t i = faults_before; i < faults.size(); ++i) {
      if (faults[i].queue_id == queue_id_)
        return Error::fault("{}: GPU fault: {}", what, describe(faults[i].fault));
    }
  }
  return {};
}

Status Device::submit_compute(const drm_asahi_cmd_compute& command, std::string_view what) {
  return submit(DRM_ASAHI_CMD_COMPUTE, &command, sizeof command, what);
}

Status Device::submit_render(const drm_asahi_cmd_render& command, std::string_view what) {
  return submit(DRM_ASAHI_CMD_RENDER, &command, sizeof command, what);
}

}  // namespace agx::runtime
