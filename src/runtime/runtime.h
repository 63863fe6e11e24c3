// agx::runtime: the API an application uses to run compute work on an AGX
// device, in the role Mesa's Gallium/Vulkan drivers play. Everything goes
// through the Asahi UAPI (include/agx/asahi_drm.h): the in-process device
// (kmd::File) or any DRM render node through real ioctls, so the same code
// runs on the software GPU, under the drm-shim, or on an M1.
//
//   auto dev = agx::runtime::Device::open_in_process();      // or open_render_node("/dev/dri/renderD128")
//   auto buf = (*dev)->create_buffer(4096, "ssbo 0");         // GEM + VM_BIND + mmap
//   std::memset((*buf)->host().data(), 0, 4096);
//   (*buf)->gpu_va();                                         // what a shader is given
//   (*dev)->submit_compute(cmd, "dispatch 1 at line 27");      // SUBMIT, wait, faults as errors
//
// Every call returns an agx::Result; a failed call leaves nothing behind
// (objects made on the way are released in reverse order). docs/runtime.md
// has the details and the status of each piece.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>

#include "agx/asahi_drm.h"
#include "util/result.h"

namespace agx::kmd {
class Device;
}

namespace agx::runtime {

// How ioctls and mmaps reach the device.
class Transport {
 public:
  virtual ~Transport() = default;
  virtual int ioctl(unsigned long request, void* arg) = 0;  // 0 or -errno
  virtual void* mmap(uint64_t offset, size_t length, int* err) = 0;
  virtual int munmap(void* addr, size_t length) = 0;
  virtual std::string name() const = 0;                     // for errors
  // The in-process kmd device behind this transport, if any (GPU fault
  // records are read from it; a render node has no fault query).
  virtual kmd::Device* in_process_device() { return nullptr; }
};

// A fresh in-process device of its own (kmd::Device with the executor the
// build registers), or a File on an existing one.
std::unique_ptr<Transport> in_process_transport();
std::unique_ptr<Transport> in_process_transport(kmd::Device& device);
// A DRM render node: open(2), ioctl(2), mmap(2).
Result<std::unique_ptr<Transport>> render_node_transport(const std::string& path);

class Device;

// A GEM object bound into the device's VM and mapped for the CPU.
class Buffer {
 public:
  ~Buffer();
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;

  uint64_t gpu_va() const { return gpu_va_; }
  uint64_t size_B() const { return size_B_; }
  std::span<uint8_t> host() { return {host_, size_B_}; }
  const std::string& label() const { return label_; }

 private:
  friend class Device;
  Buffer(Device& device) : device_(device) {}
  Device& device_;
  uint32_t handle_ = 0;
  uint64_t gpu_va_ = 0, size_B_ = 0, mapped_B_ = 0;
  uint8_t* host_ = nullptr;
  bool bound_ = false;
  std::string label_;
};

// VA windows of a device's VM: the USC window (shader code and USC data,
// addressed by 32-bit offsets from usc_exec_base) and general buffers.
struct VaLayout {
  uint64_t usc_base = 0x1'0000'0000;     // queue's usc_exec_base, 4 GiB window
  uint64_t general_base = 0x2'0000'0000; // buffers
  uint64_t kernel_start = 0x40'0000'0000;
  uint64_t kernel_size_B = 0x2000'0000;
};

class Device {
 public:
  static Result<std::unique_ptr<Device>> open(std::unique_ptr<Transport> transport);
  static Result<std::unique_ptr<Device>> open_in_process();
  static Result<std::unique_ptr<Device>> open_render_node(const std::string& path);
  ~Device();
  Device(const Device&) = delete;
  Device& operator=(const Device&) = delete;

  const drm_asahi_params_global& params() const { return params_; }
  const VaLayout& va_layout() const { return layout_; }
  Transport& transport() { return *transport_; }

  // A zero-filled buffer; `usc` places it in the USC window (shader code,
  // USC data) instead of the general one.
  Result<std::unique_ptr<Buffer>> create_buffer(uint64_t size_B, std::string label, bool usc = false);

  // Submits one compute command on the device's queue, waits for it, and
  // returns an Error naming `what` (the dispatch) on a GPU fault or a
  // failed SUBMIT.
  Status submit_compute(const drm_asahi_cmd_compute& command, std::string_view what);
  // The same for one render command (both halves: vertex and fragment).
  Status submit_render(const drm_asahi_cmd_render& command, std::string_view what);

 private:
  friend class Buffer;
  explicit Device(std::unique_ptr<Transport> transport) : transport_(std::move(transport)) {}
  Status init();
  Status submit(uint16_t type, const void* command, size_t size_B, std::string_view what);
  Result<uint64_t> allocate_va(uint64_t size_B, bool usc);
  void release(Buffer& buffer);

  std::unique_ptr<Transport> transport_;
  drm_asahi_params_global params_{};
  VaLayout layout_;
  uint32_t vm_id_ = 0, queue_id_ = 0, syncobj_ = 0;
  bool vm_ = false, queue_ = false, sync_ = false;
  uint64_t next_usc_va_ = 0, next_general_va_ = 0;
};

}  // namespace agx::runtime
