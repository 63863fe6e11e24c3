// The Device: the G13G profile, the executor, recording, default_device().
#include <time.h>

#include <atomic>

#include "kmd/internal.h"

namespace agx::kmd {

namespace {

// The G13G (T8103, M1) profile. Facts from the Asahi kernel driver
// (AsahiLinux/linux drivers/gpu/drm/asahi): hw/t8103.rs (chip 0x8103, G13,
// variant G, one die, one cluster of 8 cores, 24 MHz base clock), mmu.rs
// (16 KiB pages, 39-bit user VA space from 0x4000 up to two pages below the
// top), file.rs (VM_KERNEL_MIN_SIZE 0x20000000, 64 commands per submission,
// timestamps in nanoseconds), initdata.rs (top performance state 1278 MHz).
drm_asahi_params_global g13g_params() {
  drm_asahi_params_global p{};
  p.features = 0;
  p.gpu_generation = 13;
  p.gpu_variant = 'G';
  p.gpu_revision = 0x11;  // B1: real M1s report the renderer "Apple M1 (G13G B1)"
  p.chip_id = 0x8103;
  p.num_dies = 1;
  p.num_clusters_total = 1;
  p.num_cores_per_cluster = 8;
  p.max_frequency_khz = 1278000;
  p.core_masks[0] = 0xff;
  p.vm_start = mem::kPageSize_B;
  p.vm_end = mem::kVaLimit - 2 * mem::kPageSize_B;
  p.vm_kernel_min_size = 0x20000000;
  p.max_commands_per_submission = kMaxCommandsPerSubmission;
  p.max_attachments = 16;
  p.command_timestamp_frequency_hz = 1'000'000'000;
  return p;
}

// Completes every command; the kmd writes the timestamps around it.
class CompletingExecutor final : public Executor {
 public:
  bool execute(const FirmwareCommand&, GpuFault*) override { return true; }
};

std::atomic<ExecutorFactory> g_default_factory{nullptr};

std::shared_ptr<Executor> default_executor() {
  ExecutorFactory factory = g_default_factory.load();
  return factory ? factory() : completing_executor();
}

}  // namespace

std::shared_ptr<Executor> completing_executor() { return std::make_shared<CompletingExecutor>(); }

void set_default_executor_factory(ExecutorFactory factory) { g_default_factory.store(factory); }

Device::Impl::Impl() : params(g13g_params()), executor(default_executor()) {
  signaled_stub = std::make_shared<Fence>();
  signaled_stub->signaled = true;
}

std::shared_ptr<Executor> Device::Impl::current_executor() {
  std::lock_guard g(executor_mu);
  return executor;
}

uint64_t Device::Impl::time_ns() const {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return uint64_t(ts.tv_sec) * 1'000'000'000 + uint64_t(ts.tv_nsec);
}

Device::Device() : impl_(std::make_unique<Impl>()) {}
Device::~Device() = default;

const drm_asahi_params_global& Device::params() const { return impl_->params; }

void Device::set_executor(std::shared_ptr<Executor> executor) {
  std::lock_guard g(impl_->executor_mu);
  impl_->executor = executor ? std::move(executor) : default_executor();
}

void Device::set_recording(bool on) { impl_->recording = on; }

std::vector<FirmwareEvent> Device::take_events() {
  std::lock_guard g(impl_->record_mu);
  return std::exchange(impl_->events, {});
}

std::vector<FaultRecord> Device::faults() const {
  std::lock_guard g(impl_->record_mu);
  return impl_->faults;
}

uint64_t Device::time_ns() const { return impl_->time_ns(); }

std::unique_ptr<File> open_file(Device& device) { return make_file(device.impl()); }

// Never destroyed: Files opened through a shim may outlive static
// destruction at exit.
Device& default_device() {
  static Device* device = new Device;
  return *device;
}

void* File::mmap(uint64_t offset, size_t length, int* err) {
  return mmap(offset, length, 3 /* PROT_READ | PROT_WRITE */, err);
}

}  // namespace agx::kmd
