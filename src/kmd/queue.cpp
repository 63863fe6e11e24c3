// The scheduler of one user queue, as the Asahi driver notes describe it:
// jobs leave in submission order once their in-syncs have signaled (a
// blocked job blocks the jobs behind it, not other queues); each job's
// commands become RUN/WAIT entries of three firmware queues (compute,
// vertex, fragment) that run concurrently, each in order. A WAIT holds its
// firmware queue until the named boundary completed: "C<n>" = n compute
// commands of the job (0: all earlier ones), "R<n>f" / "R<n>v" = the
// fragment / vertex half of the n-th render command. Every WAIT names an
// earlier RUN, so the queues always make progress.
#include <cerrno>
#include <cstring>

#include "kmd/internal.h"

namespace agx::kmd {

Queue::Queue(Device::Impl& dev, uint32_t id, VmPtr vm, uint32_t priority, uint64_t usc_exec_base)
    : dev_(dev), id_(id), vm_(std::move(vm)), priority_(priority), usc_exec_base_(usc_exec_base) {
  for (int q = 0; q < 3; q++) firmware_[q] = std::thread([this, q] { firmware_loop(FirmwareQueue(q)); });
  dispatcher_ = std::thread([this] { dispatch_loop(); });
}

Queue::~Queue() {
  {
    std::lock_guard g(mu_);
    closing_ = true;
  }
  cv_.notify_all();
  {  // wake the dispatcher if it waits on fences
    std::lock_guard g(dev_.sync_mu);
  }
  dev_.sync_cv.notify_all();
  dispatcher_.join();
  {
    std::lock_guard g(mu_);
    fw_closing_ = true;
  }
  fw_cv_.notify_all();
  for (auto& t : firmware_) t.join();
}

void Queue::push(std::unique_ptr<Job> job) {
  bool wake;
  {
    std::lock_guard g(mu_);
    jobs_.push_back(std::move(job));
    wake = sleeping_;
  }
  if (wake) cv_.notify_one();
}

void Queue::dispatch_loop() {
  for (;;) {
    Job* job;
    {
      std::unique_lock lock(mu_);
      while (jobs_.empty() && !closing_) {
        sleeping_ = true;
        cv_.wait(lock);
        sleeping_ = false;
      }
      if (jobs_.empty()) return;
      job = jobs_.front().get();
    }
    auto ready = [&] {
      for (auto& f : job->waits)
        if (!f->signaled.load(std::memory_order_acquire)) return false;
      return true;
    };
    auto ready_or_closing = [&] {
      if (ready()) return true;
      std::lock_guard g(mu_);
      return closing_;
    };
    if (!ready()) dev_.wait_until(ready_or_closing, Clock::time_point::max());
    if (!ready()) {
      // Destroyed while blocked: this job and all behind it are cancelled
      // (signaled outside mu_).
      std::deque<std::unique_ptr<Job>> cancelled;
      {
        std::lock_guard g(mu_);
        cancelled.swap(jobs_);
      }
      for (auto& j : cancelled) {
        dev_.finish_capture(*j, *this);
        dev_.signal(*j->done, -ECANCELED);
      }
      return;
    }
    std::unique_ptr<Job> next;
    {
      std::lock_guard g(mu_);
      next = std::move(jobs_.front());
      jobs_.pop_front();
    }
    dispatch(std::move(next));
  }
}

// Turns a job into firmware queue entries (the dispatcher is the only writer
// of dispatched_).
void Queue::dispatch(std::unique_ptr<Job> job) {
  auto running = std::make_shared<Running>();
  running->job = std::move(job);
  const uint64_t base_render = dispatched_[0], base_compute = dispatched_[1];
  size_t runs = 0;
  std::vector<Item> items;
  for (const JobCommand& c : running->job->commands) {
    for (const ViewEntry& e : command_view(c.plan, c.ordinal)) {
      Item item{running, &c, e, 0};
      if (e.run) {
        runs++;
      } else {
        item.threshold = (e.letter == 'C' ? base_compute : base_render) + e.number;
      }
      items.push_back(std::move(item));
    }
    dispatched_[c.plan.kind == CommandKind::render ? 0 : 1]++;
  }
  running->remaining = runs;
  {
    std::lock_guard g(mu_);
    for (Item& item : items) items_[int(item.entry.queue)].push_back(std::move(item));
  }
  fw_cv_.notify_all();
}

namespace {

// The firmware queue whose completed-RUN count a WAIT entry reads.
int waited_queue(const ViewEntry& e) {
  if (e.letter == 'C') return int(FirmwareQueue::compute);
  return int(e.half == 'v' ? FirmwareQueue::vertex : FirmwareQueue::fragment);
}

void write_timestamp(const TimestampTarget& t, uint64_t value) {
  if (t.object) std::memcpy(t.object->host + t.offset, &value, sizeof value);
}

}  // namespace

void Queue::firmware_loop(FirmwareQueue queue) {
  auto& items = items_[int(queue)];
  std::unique_lock lock(mu_);
  for (;;) {
    fw_cv_.wait(lock, [&] {
      if (items.empty()) return fw_closing_;
      const Item& front = items.front();
      return front.entry.run || done_[waited_queue(front.entry)] >= front.threshold;
    });
    if (items.empty()) return;
    Item item = std::move(items.front());
    items.pop_front();
    if (!item.entry.run) {
      if (dev_.recording.load()) {
        uint64_t now = dev_.time_ns();
        std::lock_guard g(dev_.record_mu);
        dev_.events.push_back({id_, item.job->job->seqno, queue, item.entry.text(), now, now});
      }
      continue;
    }
    lock.unlock();
    // A faulted command fails its job: the fence signals with -EIO once
    // every command has run, as the Asahi kernel reports a GPU fault.
    if (!run_command(item)) item.job->error.store(-EIO);
    const bool last = item.job->remaining.fetch_sub(1) == 1;
    if (last) {
      // The trace record goes out before the fence signals, so a client
      // that waited for the job finds it in the file.
      dev_.finish_capture(*item.job->job, *this);
      dev_.signal(*item.job->job->done, item.job->error.load());
    }
    lock.lock();
    done_[int(queue)]++;
    fw_cv_.notify_all();
  }
}

bool Queue::run_command(const Item& item) {
  const JobCommand& c = *item.command;
  const FirmwareQueue queue = item.entry.queue;
  const bool render = c.plan.kind == CommandKind::render;
  const int half = queue == FirmwareQueue::fragment ? 1 : 0;
  FirmwareCommand fc;
  fc.queue = queue;
  fc.queue_id = id_;
  fc.submit_seqno = item.job->job->seqno;
  fc.command_index = c.index;
  fc.ordinal = c.ordinal;
  fc.render = render ? &c.render : nullptr;
  fc.compute = render ? nullptr : &c.compute;
  fc.attachments = half ? c.fragment_attachments : c.first_attachments;
  fc.usc_exec_base = usc_exec_base_;
  fc.priority = priority_;
  fc.memory = &vm_->memory;
  std::shared_ptr<Executor> executor = dev_.current_executor();
  const uint64_t start = dev_.time_ns();
  write_timestamp(c.ts[2 * half], start);
  GpuFault fault;
  const bool ok = executor->execute(fc, &fault);
  const uint64_t end = dev_.time_ns();
  write_timestamp(c.ts[2 * half + 1], end);
  if (!ok || dev_.recording.load()) {
    std::lock_guard g(dev_.record_mu);
    if (!ok) dev_.faults.push_back({id_, fc.submit_seqno, c.index, fault});
    if (dev_.recording.load()) dev_.events.push_back({id_, fc.submit_seqno, queue, item.entry.text(), start, end});
  }
  if (!ok) dev_.write_crash_dump(*item.job->job, c, queue, *this, fault, end);
  return ok;
}

}  // namespace agx::kmd
