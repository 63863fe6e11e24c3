// The worker threads that run a launch's threadgroups (and a render
// command's vertex batches and tiles). The caller of run()
// is worker 0; the others sleep between launches. Items are claimed from
// one counter in increasing order.
#include <cstdlib>

#include "gpu/shader/shader.h"

namespace agx::gpu {

WorkerPool::WorkerPool(unsigned threads) : threads_(threads ? threads : 1) {
  for (unsigned w = 1; w < threads_; ++w) pool_.emplace_back([this, w] { loop(w); });
}

WorkerPool::~WorkerPool() {
  {
    std::lock_guard g(mu_);
    closing_ = true;
  }
  cv_.notify_all();
  for (auto& t : pool_) t.join();
}

void WorkerPool::work(unsigned worker) {
  const uint64_t count = count_.load();
  const auto* fn = fn_.load();
  for (uint64_t i = next_.fetch_add(1); i < count; i = next_.fetch_add(1)) (*fn)(worker, i);
}

void WorkerPool::loop(unsigned worker) {
  uint64_t seen = 0;
  std::unique_lock lock(mu_);
  while (true) {
    cv_.wait(lock, [&] { return closing_ || generation_ != seen; });
    if (closing_) return;
    seen = generation_;
    ++busy_;
    lock.unlock();
    work(worker);
    lock.lock();
    if (--busy_ == 0) done_cv_.notify_all();
  }
}

void WorkerPool::run(uint64_t count, const std::function<void(unsigned, uint64_t)>& fn) {
  if (count == 0) return;
  if (threads_ == 1 || count == 1) {
    for (uint64_t i = 0; i < count; ++i) fn(0, i);
    return;
  }
  {
    std::lock_guard g(mu_);
    next_.store(count);  // a late worker of an earlier run claims nothing
    fn_.store(&fn);
    count_.store(count);
    next_.store(0);
    ++generation_;
  }
  cv_.notify_all();
  work(0);
  // Every claimed item is finished once no worker is inside work(); a
  // worker that wakes late finds the counter past the end.
  std::unique_lock lock(mu_);
  done_cv_.wait(lock, [&] { return busy_ == 0; });
  count_.store(0);
}

unsigned default_threads_from_env() {
  if (const char* env = std::getenv("AGX_GPU_THREADS")) {
    char* end = nullptr;
    unsigned long n = std::strtoul(env, &end, 10);
    if (end != env && *end == '\0' && n >= 1 && n <= 256) return static_cast<unsigned>(n);
  }
  unsigned n = std::thread::hardware_concurrency();
  return n ? n : 1;
}

uint64_t step_limit_from_env(uint64_t option, uint64_t fallback) {
  return count_from_env("AGX_GPU_STEP_LIMIT", option, fallback);
}

uint64_t count_from_env(const char* name, uint64_t option, uint64_t fallback) {
  if (option) return option;
  if (const char* env = std::getenv(name)) {
    char* end = nullptr;
    unsigned long long n = std::strtoull(env, &end, 10);
    if (end != env && *end == '\0' && n >= 1) return n;
  }
  return fallback;
}

}  // namespace agx::gpu
