// KMD-API-STABLE
//
// agx::kmd: the Asahi kernel driver's UAPI as an in-process device.
//
// A Device is one GPU (the G13G profile of the M1). A File is one open of its
// render node (a DRM file): it owns GEM handles, VMs, queues and syncobjs,
// and executes every ioctl of include/agx/asahi_drm.h plus the generic DRM
// ioctls a client needs (VERSION, GET_CAP, GEM_CLOSE, SYNCOBJ_*, PRIME_*),
// with the kernel's checks in the kernel's order: it returns 0 or -errno,
// copies *arg back as drm_ioctl() does (after a failed call too: what the
// caller gave, with whatever the handler wrote), and leaves all device state
// unchanged after a failed call.
//
// GEM objects are memfd-backed host memory: mmap() hands out a MAP_SHARED
// mapping of the same pages the GPU VM (agx::mem) translates to.
//
// File descriptors made by PRIME_HANDLE_TO_FD and SYNCOBJ_HANDLE_TO_FD are
// real host descriptors owned by the caller (memfds); FD_TO_HANDLE accepts
// them back in any File of the same Device. A shim passes them through.
//
// Every method is thread-safe. Submitted jobs run on the Device's scheduler
// threads (per user queue: a dispatcher and one thread per firmware queue);
// see "Scheduling" in docs/kmd.md.
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "agx/asahi_drm.h"
#include "util/gpu_memory.h"
#include "util/result.h"

namespace agx::kmd {

// The three firmware queues behind one user queue.
enum class FirmwareQueue : uint8_t { compute, vertex, fragment };
const char* to_string(FirmwareQueue queue);  // "compute", "vertex", "fragment"

// One firmware command handed to the Executor: a compute command, or the
// vertex or fragment half of a render command.
struct FirmwareCommand {
  FirmwareQueue queue = FirmwareQueue::compute;
  uint32_t queue_id = 0;        // the user queue
  uint64_t submit_seqno = 0;    // 1-based count of submits on the device
  uint32_t command_index = 0;   // #N: index among hardware commands of the submit
  uint32_t ordinal = 0;         // 1-based among commands of its subqueue: C<n> / R<n>
  const drm_asahi_cmd_render* render = nullptr;    // vertex/fragment halves
  const drm_asahi_cmd_compute* compute = nullptr;  // compute commands
  std::span<const drm_asahi_attachment> attachments;  // set by SET_*_ATTACHMENTS
  uint64_t usc_exec_base = 0;   // of the queue
  uint32_t priority = 0;        // of the queue (drm_asahi_priority)
  GpuMemory* memory = nullptr;  // the queue's VM
};

// The firmware's execution of a command. The default executor only completes
// (the kmd writes start/end timestamps around it); the software GPU plugs in
// here. execute() is called from scheduler threads: one command at a time
// per firmware queue, so the compute, vertex and fragment queues of a user
// queue and different user queues may call it concurrently.
class Executor {
 public:
  virtual ~Executor() = default;
  // Returns false and fills *fault when the command faulted; the job still
  // completes, its fence signals with -EIO (as the Asahi kernel reports a
  // faulted job), the fault is recorded on the Device and, with a crash
  // directory set, a crash dump is written.
  virtual bool execute(const FirmwareCommand& command, GpuFault* fault) = 0;
};

// One entry of the firmware queue view recorded from live submits.
struct FirmwareEvent {
  uint32_t queue_id = 0;
  uint64_t submit_seqno = 0;
  FirmwareQueue queue = FirmwareQueue::compute;
  std::string text;        // "RUN C1", "WAIT R1f", as agx submit-plan prints
  uint64_t start_ns = 0;   // device time (GET_TIME clock) of the RUN
  uint64_t end_ns = 0;
};

struct FaultRecord {
  uint32_t queue_id = 0;
  uint64_t submit_seqno = 0;
  uint32_t command_index = 0;
  GpuFault fault;
};

class Device {
 public:
  Device();
  ~Device();
  Device(const Device&) = delete;
  Device& operator=(const Device&) = delete;

  // What GET_PARAMS reports (the G13G / T8103 profile).
  const drm_asahi_params_global& params() const;

  // Replaces the firmware executor (nullptr: the default one, see
  // set_default_executor_factory). Takes effect for commands started
  // afterwards.
  void set_executor(std::shared_ptr<Executor> executor);

  // Records the firmware queue view of live submits (off by default).
  void set_recording(bool on);
  std::vector<FirmwareEvent> take_events();
  std::vector<FaultRecord> faults() const;

  // The GET_TIME clock in nanoseconds (monotonic).
  uint64_t time_ns() const;

  // Capture (docs/cmdstream.md, format kmd/trace_format.h): appends every
  // accepted SUBMIT to `path` ("" stops). A new Device starts capturing to
  // $AGX_TRACE when it is set. Errors: the file cannot be opened, or holds
  // something other than an agx trace of this version.
  Status set_trace_file(const std::string& path);
  // Crash dumps (docs/kmd.md): each faulting command writes
  // DIR/agx-crash-PID-sSEQNO-cINDEX[v|f].dump ("" = none; default
  // $AGX_CRASH_DIR). crash_dumps() lists the files written so far.
  void set_crash_dir(const std::string& dir);
  std::vector<std::string> crash_dumps() const;

  struct Impl;
  Impl& impl() { return *impl_; }

 private:
  std::unique_ptr<Impl> impl_;
};

class File {
 public:
  virtual ~File() = default;

  // Executes an ioctl exactly like the kernel: returns 0 or -errno, and
  // copies results into *arg. Unknown request -> -ENOTTY.
  virtual int ioctl(unsigned long request, void* arg) = 0;

  // The host memory behind a GEM_MMAP_OFFSET fake offset (offset may point
  // inside the object, page-aligned): a new MAP_SHARED mapping of `length`
  // bytes with `prot`. Returns nullptr and sets *err to -EINVAL (unknown
  // offset, bad length or alignment) or -EACCES (not this file's object).
  virtual void* mmap(uint64_t offset, size_t length, int prot, int* err) = 0;
  void* mmap(uint64_t offset, size_t length, int* err);  // PROT_READ|PROT_WRITE

  // Unmaps a mapping made by mmap(); -EINVAL if [addr, addr+length) is not
  // inside one.
  virtual int munmap(void* addr, size_t length) = 0;
};

std::unique_ptr<File> open_file(Device& device);

// SYNC_IOC_FILE_INFO (linux/sync_file.h) on a sync file exported by
// SYNCOBJ_HANDLE_TO_FD with EXPORT_SYNC_FILE: the fence's status (1
// signaled, 0 active, -EIO for a job with a faulted command, -ECANCELED for
// a cancelled one). Other requests: -ENOTTY; an fd that is not one of the
// device's sync files: -EINVAL. A shim routes the ioctl here when
// is_sync_file() says the fd is one.
bool is_sync_file(Device& device, int fd);
int sync_file_ioctl(Device& device, int fd, unsigned long request, void* arg);

// The process-wide device the shim and the CLI use.
Device& default_device();

// The devices' own host descriptors (GEM object memfds), which a client must
// not close, dup over, map or use: the shim answers EBADF for them, as the
// kernel would for a descriptor the process does not have. A number whose
// file changed behind the device's back no longer counts.
bool is_internal_fd(int fd);
std::vector<int> internal_fds();  // ascending

// The executor that only completes commands (the kmd writes timestamps
// around it): for tests that want the firmware without a GPU.
std::shared_ptr<Executor> completing_executor();

// Where a Device gets its default executor. The kmd cannot depend on the
// software GPU, so the GPU registers a factory at static initialization
// (the gpu unit's agx_gpu_default object, linked into the shim library and
// the agx tool); Devices created afterwards, and set_executor(nullptr), use
// it. Without one the default is completing_executor().
using ExecutorFactory = std::shared_ptr<Executor> (*)();
void set_default_executor_factory(ExecutorFactory factory);

// Device name and version that DRM_IOCTL_VERSION reports.
inline constexpr const char* kDriverName = "asahi";
inline constexpr const char* kDriverDate = "20250101";
inline constexpr const char* kDriverDesc = "Apple AGX Graphics (agx software device)";
inline constexpr int kDriverMajor = 1;
inline constexpr int kDriverMinor = 0;
inline constexpr int kDriverPatch = 0;

}  // namespace agx::kmd
