// Timing shared by the `agx bench` commands: a figure is the best of
// several timed runs, the one least disturbed by other processes on the
// host; the emulated work and its reference are measured alike.
#pragma once

#include <algorithm>
#include <chrono>

namespace agx::cli {

template <typename F>
double best_seconds(int repetitions, F&& run_once) {
  double best_s = 1e300;
  for (int i = 0; i < repetitions; ++i) {
    auto start = std::chrono::steady_clock::now();
    run_once();
    std::chrono::duration<double> d = std::chrono::steady_clock::now() - start;
    best_s = std::min(best_s, d.count());
  }
  return best_s;
}

}  // namespace agx::cli
