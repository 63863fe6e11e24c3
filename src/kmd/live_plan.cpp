// A plan run through the device's real SUBMIT path, recorded.
#include <cstring>

#include "kmd/plan.h"

namespace agx::kmd {

namespace {

template <typename T>
void append(std::vector<uint8_t>& buf, uint16_t type, const T& payload, const PlanCommand& c) {
  drm_asahi_cmd_header h{type, sizeof(T), c.vdm_barrier, c.cdm_barrier};
  const auto* hp = reinterpret_cast<const uint8_t*>(&h);
  const auto* pp = reinterpret_cast<const uint8_t*>(&payload);
  buf.insert(buf.end(), hp, hp + sizeof h);
  buf.insert(buf.end(), pp, pp + sizeof(T));
}

Status check(int rc, const char* what) {
  if (rc) return Error::invalid_argument("{} failed: {}", what, std::strerror(-rc));
  return {};
}

}  // namespace

Result<std::vector<FirmwareEvent>> run_plan_live(Device& device, std::span<const PlanCommand> commands) {
  std::vector<uint8_t> cmdbuf;
  for (const PlanCommand& c : commands) {
    if (c.kind == CommandKind::compute) {
      append(cmdbuf, DRM_ASAHI_CMD_COMPUTE, drm_asahi_cmd_compute{}, c);
    } else {
      drm_asahi_cmd_render r{};
      r.width_px = r.height_px = 32;
      r.layers = r.samples = 1;
      r.utile_width_px = r.utile_height_px = 32;
      append(cmdbuf, DRM_ASAHI_CMD_RENDER, r, c);
    }
  }
  auto file = open_file(device);
  const auto& p = device.params();
  drm_asahi_vm_create vm{p.vm_end - p.vm_kernel_min_size, p.vm_end, 0, 0};
  AGX_CHECK(check(file->ioctl(DRM_IOCTL_ASAHI_VM_CREATE, &vm), "VM_CREATE"));
  drm_asahi_queue_create q{0, vm.vm_id, DRM_ASAHI_PRIORITY_MEDIUM, 0, 0};
  AGX_CHECK(check(file->ioctl(DRM_IOCTL_ASAHI_QUEUE_CREATE, &q), "QUEUE_CREATE"));
  drm_syncobj_create done{0, 0};
  AGX_CHECK(check(file->ioctl(DRM_IOCTL_SYNCOBJ_CREATE, &done), "SYNCOBJ_CREATE"));
  drm_asahi_sync out{DRM_ASAHI_SYNC_SYNCOBJ, done.handle, 0};
  drm_asahi_submit s{reinterpret_cast<uint64_t>(&out), reinterpret_cast<uint64_t>(cmdbuf.data()), 0, q.queue_id,
                     0, 1, uint32_t(cmdbuf.size()), 0};
  device.take_events();
  device.set_recording(true);
  int rc = file->ioctl(DRM_IOCTL_ASAHI_SUBMIT, &s);
  drm_syncobj_wait w{reinterpret_cast<uint64_t>(&done.handle), INT64_MAX, 1, 0, 0, 0};
  if (rc == 0) rc = file->ioctl(DRM_IOCTL_SYNCOBJ_WAIT, &w);
  device.set_recording(false);
  AGX_CHECK(check(rc, "SUBMIT"));
  return device.take_events();
}

FirmwareView view_of(std::span<const FirmwareEvent> events) {
  FirmwareView view;
  for (const FirmwareEvent& e : events) {
    auto& col = e.queue == FirmwareQueue::compute ? view.compute
                : e.queue == FirmwareQueue::vertex ? view.vertex : view.fragment;
    col.push_back(e.text);
  }
  return view;
}

}  // namespace agx::kmd
