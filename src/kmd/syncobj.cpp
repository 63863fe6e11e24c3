// Syncobjs (binary and timeline) and fence signalling.
#include "kmd/internal.h"

namespace agx::kmd {

namespace {
bool done(const FencePtr& f) { return f && f->signaled.load(std::memory_order_acquire); }
}  // namespace

void Syncobj::replace(FencePtr fence) {
  std::lock_guard g(mu_);
  head_ = std::move(fence);
  points_.clear();
}

void Syncobj::add_point(uint64_t point, FencePtr fence) {
  std::lock_guard g(mu_);
  head_ = fence;
  points_[point] = std::move(fence);
  collect();
}

// Drops fully signaled points except the newest of them, which carries the
// payload.
void Syncobj::collect() {
  while (points_.size() >= 2 && done(points_.begin()->second) && done(std::next(points_.begin())->second))
    points_.erase(points_.begin());
}

Syncobj::State Syncobj::state(uint64_t point) {
  std::lock_guard g(mu_);
  if (point == 0) return !head_ ? State::unsubmitted : done(head_) ? State::signaled : State::pending;
  if (points_.empty() || points_.rbegin()->first < point) return State::unsubmitted;
  collect();
  for (auto& [p, f] : points_) {
    if (!done(f)) return State::pending;
    if (p >= point) return State::signaled;
  }
  return State::signaled;
}

bool Syncobj::dependencies(uint64_t point, std::vector<FencePtr>& out) {
  std::lock_guard g(mu_);
  if (point == 0) {
    if (!head_) return false;
    out.push_back(head_);
    return true;
  }
  if (points_.empty() || points_.rbegin()->first < point) return false;
  for (auto& [p, f] : points_) {
    if (!done(f)) out.push_back(f);
    if (p >= point) break;
  }
  return true;
}

FencePtr Syncobj::fence_at(uint64_t point) {
  std::lock_guard g(mu_);
  if (point == 0) return head_;
  if (points_.empty() || points_.rbegin()->first < point) return nullptr;
  // The first unsignaled fence at or before the point stands for it, since
  // points complete in order; if none, the point is signaled.
  FencePtr last;
  for (auto& [p, f] : points_) {
    last = f;
    if (!done(f) || p >= point) break;
  }
  return last;
}

uint64_t Syncobj::payload() {
  std::lock_guard g(mu_);
  collect();
  uint64_t value = 0;
  for (auto& [p, f] : points_) {
    if (!done(f)) break;
    value = p;
  }
  return value;
}

uint64_t Syncobj::last_submitted() {
  std::lock_guard g(mu_);
  return points_.empty() ? 0 : points_.rbegin()->first;
}

void Device::Impl::notify() {
  if (sync_waiters.load() > 0) {
    { std::lock_guard g(sync_mu); }
    sync_cv.notify_all();
  }
}

void Device::Impl::signal(Fence& fence, int error) {
  if (error) fence.error.store(error);
  fence.timestamp_ns.store(time_ns());
  fence.signaled.store(true, std::memory_order_seq_cst);
  notify();
}

}  // namespace agx::kmd
