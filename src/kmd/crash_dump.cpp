// AGX_CRASH_DIR: each faulting command writes a crash dump, as Linux's
// devcoredump does for a GPU hang: the fault (address, unit, read/write),
// the queue, the submit's command buffer and, as they are when the faulting
// command returns, the pages the job touched so far and its control stream
// pages, in the trace format (kmd/trace_format.h, kind crash_dump).
// `agx crashdec DUMP` decodes it with the cmdstream walker.
#include <unistd.h>

#include <cstdlib>

#include "kmd/capture.h"

namespace agx::kmd {

void Device::Impl::write_crash_dump(const Job& job, const JobCommand& command, FirmwareQueue queue, const Queue& q,
                                    const GpuFault& fault, uint64_t time_ns) {
  const std::string dir = crash_directory();
  if (dir.empty()) return;
  const char* half = queue == FirmwareQueue::vertex ? "v" : queue == FirmwareQueue::fragment ? "f" : "";
  const std::string path =
      fmt::format("{}/agx-crash-{}-s{}-c{}{}.dump", dir, ::getpid(), job.seqno, command.index, half);
  auto writer = TraceWriter::open(path, trace::FileKind::crash_dump, params);
  if (!writer) {
    std::fprintf(stderr, "agx kmd: crash dump not written: %s\n", writer.error().message().c_str());
    return;
  }
  trace::SubmitInfo info{};
  info.seqno = job.seqno;
  info.time_ns = time_ns;
  info.queue_id = q.id();
  info.vm_id = job.vm_id;
  info.usc_exec_base = q.usc_exec_base();
  info.priority = q.priority();
  info.pid = uint32_t(::getpid());
  trace::FaultInfo f{};
  f.va = fault.va;
  f.time_ns = time_ns;
  f.command_index = command.index;
  f.firmware_queue = uint8_t(queue);
  f.access = uint8_t(fault.access);
  f.unit = uint8_t(fault.unit);
  const auto pages = capture_pages(*q.vm(), job);
  Status st = (*writer)->write_submit(info, job.cmdbuf, {}, *q.vm(), pages, &f, fault.reason);
  if (!st) {
    std::fprintf(stderr, "agx kmd: crash dump %s: %s\n", path.c_str(), st.error().message().c_str());
    return;
  }
  std::lock_guard g(capture_mu);
  crash_dumps.push_back(path);
}

void Device::set_crash_dir(const std::string& dir) {
  std::lock_guard g(impl_->capture_mu);
  impl_->crash_dir = dir;
  impl_->capturing = impl_->trace || !impl_->crash_dir.empty();
}

std::vector<std::string> Device::crash_dumps() const {
  std::lock_guard g(impl_->capture_mu);
  return impl_->crash_dumps;
}

// AGX_TRACE and AGX_CRASH_DIR of the environment, read when a Device is made.
void configure_capture_from_env(Device& device) {
  if (const char* dir = std::getenv("AGX_CRASH_DIR"); dir && *dir) device.set_crash_dir(dir);
  if (const char* path = std::getenv("AGX_TRACE"); path && *path) {
    Status st = device.set_trace_file(path);
    if (!st) std::fprintf(stderr, "agx kmd: AGX_TRACE not written: %s\n", st.error().message().c_str());
  }
}

}  // namespace agx::kmd
