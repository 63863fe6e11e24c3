// Runs .shader_test files each in its own child process (fork), N at a time,
// with a time limit: a crash, hang or leak in one file never touches the
// others or the caller. The caller gets one FileResult per file, in order of
// completion.
#pragma once

#include <chrono>
#include <functional>
#include <string>
#include <vector>

#include "shadertest/runner.h"

namespace agx::shadertest {

struct FileResult {
  std::string path;
  Verdict verdict;
  double ms = 0;  // wall time of the child
};

struct IsolationOptions {
  unsigned jobs = 1;
  double timeout_s = 60;
};

// `run` is called in the child on the file's text and path. Results arrive through
// `done` in the parent (order of completion); the return value is every
// result in the order of `paths`.
std::vector<FileResult> run_isolated(const std::vector<std::string>& paths,
                                     const IsolationOptions& options,
                                     const std::function<Verdict(const std::string& text, const std::string& path)>& run,
                                     const std::function<void(const FileResult&)>& done);

}  // namespace agx::shadertest
