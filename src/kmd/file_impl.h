// The DRM file: handle tables and the ioctl handlers (file*.cpp).
#pragma once

#include "kmd/internal.h"

namespace agx::kmd {

class FileImpl final : public File {
 public:
  explicit FileImpl(Device::Impl& dev) : dev_(dev) {}
  ~FileImpl() override;
  int ioctl(unsigned long request, void* arg) override;
  void* mmap(uint64_t offset, size_t length, int prot, int* err) override;
  int munmap(void* addr, size_t length) override;

  // Handlers: 0 or -errno; `arg` is the kernel copy of the argument.
  int version(void* arg);
  int get_cap(void* arg);
  int gem_close(void* arg);
  int prime_handle_to_fd(void* arg);
  int prime_fd_to_handle(void* arg);
  int get_params(void* arg);
  int get_time(void* arg);
  int vm_create(void* arg);
  int vm_destroy(void* arg);
  int vm_bind(void* arg);
  int gem_create(void* arg);
  int gem_mmap_offset(void* arg);
  int gem_bind_object(void* arg);
  int queue_create(void* arg);
  int queue_destroy(void* arg);
  int submit(void* arg);
  int syncobj_create(void* arg);
  int syncobj_destroy(void* arg);
  int syncobj_handle_to_fd(void* arg);
  int syncobj_fd_to_handle(void* arg);
  int syncobj_wait(void* arg);
  int syncobj_timeline_wait(void* arg);
  int syncobj_reset(void* arg);
  int syncobj_signal(void* arg);
  int syncobj_timeline_signal(void* arg);
  int syncobj_query(void* arg);
  int syncobj_transfer(void* arg);
  int syncobj_eventfd(void* arg);
  int set_client_name(void* arg);

 private:
  template <typename T>
  static uint32_t insert(std::unordered_map<uint32_t, T>& table, uint32_t& next, T value) {
    while (next == 0 || table.count(next)) next++;
    table.emplace(next, std::move(value));
    return next++;
  }
  GemPtr gem(uint32_t handle);
  SyncobjPtr syncobj(uint32_t handle);
  // Resolves handles (all or nothing): -ENOENT for an unknown one.
  int syncobjs(uint64_t handles_ptr, uint32_t count, std::vector<SyncobjPtr>& out);
  int wait_common(uint64_t handles, const uint64_t* points, uint32_t count, uint32_t flags, int64_t timeout_ns,
                  uint32_t* first_signaled, bool timeline);
  int bind_op_check(const Vm& vm, const drm_asahi_gem_bind_op& op, GemPtr* object);
  void bind_apply(Vm& vm, const drm_asahi_gem_bind_op& op, const GemPtr& object);

  // AGX_TRACE / AGX_CRASH_DIR bookkeeping of an accepted submit (capture.cpp).
  // `cmdbuf` and `syncs` are the kernel-side copies of the caller's arrays.
  void capture_submit(const drm_asahi_submit& submit, std::span<const uint8_t> cmdbuf,
                      std::span<const drm_asahi_sync> syncs, const Queue& queue, Job& job);
  friend struct SubmitParser;
  Device::Impl& dev_;
  std::mutex mu_;  // guards the tables
  std::unordered_map<uint32_t, GemPtr> gems_;
  std::unordered_map<uint32_t, VmPtr> vms_;
  std::unordered_map<uint32_t, QueuePtr> queues_;
  std::unordered_map<uint32_t, SyncobjPtr> syncobjs_;
  std::unordered_map<uint32_t, TimestampBinding> timestamps_;
  std::string client_name_;
  uint32_t next_gem_ = 1, next_vm_ = 1, next_queue_ = 1, next_syncobj_ = 1, next_timestamp_ = 1;
};

}  // namespace agx::kmd
