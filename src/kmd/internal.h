// Shared by the kmd unit's .cpp files; never included outside src/kmd.
#pragma once

#include <sys/types.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <map>
#include <mutex>
#include <thread>
#include <unordered_map>

#include "kmd/kmd.h"
#include "kmd/plan.h"
#include "mem/mem.h"

namespace agx::kmd {

// A dma_fence: signaled once, with an error code (0, -EIO for a job with a
// faulted command, -ECANCELED for a job dropped by QUEUE_DESTROY) and the
// time it signaled (GET_TIME clock).
struct Fence {
  std::atomic<bool> signaled{false};
  std::atomic<int> error{0};
  std::atomic<uint64_t> timestamp_ns{0};
};
using FencePtr = std::shared_ptr<Fence>;

// A DRM syncobj: a binary fence slot, or a timeline of points (each a fence;
// a point counts as signaled when it and every earlier point are).
class Syncobj {
 public:
  enum class State { unsubmitted, pending, signaled };
  void replace(FencePtr fence);               // binary: new fence (nullptr = reset)
  void add_point(uint64_t point, FencePtr fence);
  State state(uint64_t point);                // point 0 = the binary fence
  // Fences a waiter of `point` depends on; false if not submitted yet.
  bool dependencies(uint64_t point, std::vector<FencePtr>& out);
  FencePtr fence_at(uint64_t point);          // a fence standing for `point`
  uint64_t payload();                         // last signaled point
  uint64_t last_submitted();

 private:
  void collect();
  std::mutex mu_;
  FencePtr head_;
  std::map<uint64_t, FencePtr> points_;
};
using SyncobjPtr = std::shared_ptr<Syncobj>;

struct Vm;
class Queue;
struct Job;
struct JobCommand;
class TraceWriter;
struct PendingCapture;

// A GEM object: memfd-backed host memory, mapped once for the GPU side.
struct GemObject {
  ~GemObject();
  int memfd = -1;                 // an own descriptor (own_fd.h)
  std::pair<dev_t, ino_t> key{};  // its identity
  uint8_t* host = nullptr;
  uint64_t size_B = 0;
  uint32_t flags = 0;
  std::weak_ptr<Vm> private_vm;  // set for DRM_ASAHI_GEM_VM_PRIVATE
  uint64_t mmap_offset = 0;      // fake offset, 0 until GEM_MMAP_OFFSET
};
using GemPtr = std::shared_ptr<GemObject>;

// One bound range of a VM: [start, end) -> object at offset.
struct Mapping {
  uint64_t end = 0;
  GemPtr object;
  uint64_t offset = 0;
  bool repeated = false;  // SINGLE_PAGE
};

struct Vm {
  mem::AddressSpace memory;
  uint64_t kernel_start = 0, kernel_end = 0;
  std::mutex mu;                        // guards maps
  std::map<uint64_t, Mapping> maps;     // keyed by start VA
};
using VmPtr = std::shared_ptr<Vm>;

struct TimestampBinding {
  GemPtr object;
  uint64_t offset = 0, range = 0;
};

struct TimestampTarget {
  GemPtr object;       // null = no timestamp
  uint64_t offset = 0; // byte offset in the object
};

// One validated hardware command of a job.
struct JobCommand {
  PlanCommand plan;
  uint32_t index = 0, ordinal = 0;
  drm_asahi_cmd_render render{};
  drm_asahi_cmd_compute compute{};
  std::vector<drm_asahi_attachment> first_attachments;   // vertex or compute
  std::vector<drm_asahi_attachment> fragment_attachments;
  TimestampTarget ts[4];  // compute: start,end; render: vtx start,end, frag start,end
};

struct Job {
  uint64_t seqno = 0;
  uint32_t vm_id = 0;
  // Capture state (capture.cpp), set only when AGX_TRACE or AGX_CRASH_DIR
  // was set at SUBMIT: the command buffer, the VM's touch mark taken then
  // (the pages touched since are the job's), and the trace record that is
  // written when the job completes.
  std::vector<uint8_t> cmdbuf;
  uint64_t touch_mark = 0;
  std::shared_ptr<PendingCapture> capture;
  std::vector<JobCommand> commands;
  std::vector<FencePtr> waits;
  FencePtr done;
};

// One user queue: a dispatcher thread takes jobs in submission order once
// their in-syncs have signaled and feeds their RUN/WAIT entries to three
// firmware queue threads (compute, vertex, fragment), which run concurrently.
class Queue {
 public:
  Queue(Device::Impl& dev, uint32_t id, VmPtr vm, uint32_t priority, uint64_t usc_exec_base);
  ~Queue();  // runs ready jobs, cancels blocked ones, joins
  void push(std::unique_ptr<Job> job);
  const VmPtr& vm() const { return vm_; }
  uint32_t id() const { return id_; }
  uint32_t priority() const { return priority_; }
  uint64_t usc_exec_base() const { return usc_exec_base_; }

 private:
  struct Running {
    std::unique_ptr<Job> job;
    std::atomic<size_t> remaining{0};  // RUN entries not finished
    std::atomic<int> error{0};         // -EIO once a command faulted
  };
  struct Item {
    std::shared_ptr<Running> job;
    const JobCommand* command = nullptr;
    ViewEntry entry;
    uint64_t threshold = 0;  // WAIT: completed RUNs the waited-on queue needs
  };
  void dispatch_loop();
  void dispatch(std::unique_ptr<Job> job);
  void firmware_loop(FirmwareQueue queue);
  bool run_command(const Item& item);  // false: the command faulted
  Device::Impl& dev_;
  uint32_t id_;
  VmPtr vm_;
  uint32_t priority_;
  uint64_t usc_exec_base_;
  std::mutex mu_;
  std::condition_variable cv_;     // new jobs, closing
  std::condition_variable fw_cv_;  // firmware items added or completed
  std::deque<std::unique_ptr<Job>> jobs_;
  std::deque<Item> items_[3];
  uint64_t done_[3] = {0, 0, 0};           // RUN entries completed per firmware queue
  uint64_t dispatched_[2] = {0, 0};        // render, compute commands dispatched
  bool closing_ = false, fw_closing_ = false, sleeping_ = false;
  std::thread dispatcher_, firmware_[3];
};
using QueuePtr = std::shared_ptr<Queue>;

using Clock = std::chrono::steady_clock;  // CLOCK_MONOTONIC

struct Device::Impl {
  Impl();
  drm_asahi_params_global params{};

  std::mutex executor_mu;
  std::shared_ptr<Executor> executor;
  std::shared_ptr<Executor> current_executor();

  std::atomic<bool> recording{false};
  std::mutex record_mu;
  std::vector<FirmwareEvent> events;
  std::vector<FaultRecord> faults;
  std::atomic<uint64_t> submit_seqno{0};

  // AGX_TRACE and AGX_CRASH_DIR (capture.cpp, crash_dump.cpp).
  std::mutex capture_mu;
  std::atomic<bool> capturing{false};  // a trace file or crash directory is set (checked per submit)
  std::shared_ptr<TraceWriter> trace;
  std::string crash_dir;
  std::vector<std::string> crash_dumps;
  std::shared_ptr<TraceWriter> trace_writer();
  std::string crash_directory();
  void write_crash_dump(const Job& job, const JobCommand& command, FirmwareQueue queue, const Queue& q,
                        const GpuFault& fault, uint64_t time_ns);
  // Writes a completed (or cancelled) job's trace record, if it has one.
  void finish_capture(Job& job, const Queue& q);

  // Fence signalling: every signal or syncobj change wakes waiters.
  std::mutex sync_mu;
  std::condition_variable sync_cv;
  std::atomic<int> sync_waiters{0};
  FencePtr signaled_stub;
  void signal(Fence& fence, int error = 0);
  void notify();
  // Waits until pred() holds (checked under sync_mu) or the deadline passes.
  template <typename Pred>
  bool wait_until(Pred pred, Clock::time_point deadline) {
    std::unique_lock lock(sync_mu);
    sync_waiters.fetch_add(1);
    bool ok = true;
    while (!pred()) {
      if (sync_cv.wait_until(lock, deadline) == std::cv_status::timeout && !pred()) {
        ok = false;
        break;
      }
    }
    sync_waiters.fetch_sub(1);
    return ok;
  }

  // Objects reachable from outside a File: fake mmap offsets, exported fds.
  std::mutex table_mu;
  uint64_t next_mmap_offset = uint64_t{1} << 32;
  std::map<uint64_t, std::weak_ptr<GemObject>> mmap_offsets;        // by start offset
  std::map<std::pair<dev_t, ino_t>, std::weak_ptr<GemObject>> gem_files;
  std::map<std::pair<dev_t, ino_t>, SyncobjPtr> syncobj_files;
  std::map<std::pair<dev_t, ino_t>, FencePtr> sync_files;
  std::map<uintptr_t, size_t> user_mappings;                         // made by File::mmap
  uint64_t time_ns() const;
};

// Host fd helpers (gem.cpp).
Result<GemPtr> create_gem(uint64_t size_B, uint32_t flags);
Result<GemPtr> import_gem(int fd);                   // a memfd made by export
int dup_gem_fd(const GemObject& obj, bool cloexec);  // a new client descriptor, or -errno
int make_token_fd(const char* name, std::pair<dev_t, ino_t>* key);  // -errno on failure
int fd_key(int fd, std::pair<dev_t, ino_t>* key);                    // -EBADF/-EINVAL
bool fd_is_memfd_named(int fd, const char* name);                    // "agx-syncobj", ...
// Drops entries whose object died (called as tables grow).
void sweep_expired(std::map<std::pair<dev_t, ino_t>, std::weak_ptr<GemObject>>& table);
void sweep_expired(std::map<uint64_t, std::weak_ptr<GemObject>>& table);

std::unique_ptr<File> make_file(Device::Impl& dev);
void configure_capture_from_env(Device& device);  // crash_dump.cpp

}  // namespace agx::kmd
