#include "shadertest/isolated.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

namespace agx::shadertest {

namespace {

using Clock = std::chrono::steady_clock;

struct Child {
  size_t index = 0;
  pid_t pid = -1;
  int fd = -1;
  std::string output;
  Clock::time_point start;
  bool eof = false;
};

// Child -> parent message: "OUTCOME\nDETAIL" (detail may hold newlines).
void child_main(const std::string& path, int fd,
                const std::function<Verdict(const std::string&, const std::string&)>& run) {
  Verdict v;
  std::ifstream f(path, std::ios::binary);
  if (!f) {
    v = {Outcome::fail, fmt::format("cannot read {}: {}", path, std::strerror(errno))};
  } else {
    std::stringstream ss;
    ss << f.rdbuf();
    v = run(ss.str(), path);
  }
  std::string msg = fmt::format("{}\n{}", to_string(v.outcome), v.detail);
  const char* p = msg.data();
  size_t left = msg.size();
  while (left > 0) {
    ssize_t n = write(fd, p, left);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    p += n;
    left -= size_t(n);
  }
  close(fd);
}

Verdict decode(const std::string& out, int status) {
  if (WIFSIGNALED(status)) {
    int sig = WTERMSIG(status);
    return {Outcome::crash, fmt::format("killed by signal {} ({})", sig, strsignal(sig))};
  }
  size_t nl = out.find('\n');
  std::string word = out.substr(0, nl);
  std::string detail = nl == std::string::npos ? "" : out.substr(nl + 1);
  if (WIFEXITED(status) && WEXITSTATUS(status) != 0)
    return {Outcome::crash, fmt::format("exited with status {}", WEXITSTATUS(status))};
  for (Outcome o : {Outcome::pass, Outcome::fail, Outcome::skip, Outcome::crash})
    if (word == to_string(o)) return {o, detail};
  return {Outcome::crash, "the child process ended without a verdict"};
}

}  // namespace

std::vector<FileResult> run_isolated(const std::vector<std::string>& paths,
                                     const IsolationOptions& options,
                                     const std::function<Verdict(const std::string&, const std::string&)>& run,
                                     const std::function<void(const FileResult&)>& done) {
  std::vector<FileResult> results(paths.size());
  std::vector<Child> running;
  size_t next = 0;
  unsigned jobs = options.jobs == 0 ? 1 : options.jobs;
  auto finish = [&](Child& c, Verdict v) {
    FileResult& r = results[c.index];
    r.path = paths[c.index];
    r.verdict = std::move(v);
    r.ms = std::chrono::duration<double, std::milli>(Clock::now() - c.start).count();
    if (done) done(r);
  };
  while (next < paths.size() || !running.empty()) {
    while (running.size() < jobs && next < paths.size()) {
      Child c;
      c.index = next++;
      c.start = Clock::now();
      int fds[2];
      if (pipe2(fds, O_CLOEXEC) != 0) {
        finish(c, {Outcome::crash, fmt::format("pipe: {}", std::strerror(errno))});
        continue;
      }
      fflush(stdout);
      fflush(stderr);
      pid_t pid = fork();
      if (pid < 0) {
        close(fds[0]);
        close(fds[1]);
        finish(c, {Outcome::crash, fmt::format("fork: {}", std::strerror(errno))});
        continue;
      }
      if (pid == 0) {
        close(fds[0]);
        child_main(paths[c.index], fds[1], run);
        _exit(0);
      }
      close(fds[1]);
      c.pid = pid;
      c.fd = fds[0];
      running.push_back(std::move(c));
    }
    if (running.empty()) continue;
    std::vector<pollfd> pfds;
    for (auto& c : running) pfds.push_back({c.fd, POLLIN, 0});
    // Wake at least every 100 ms to check time limits.
    int rc = poll(pfds.data(), pfds.size(), 100);
    if (rc < 0 && errno != EINTR) break;
    for (size_t i = 0; i < running.size(); ++i) {
      Child& c = running[i];
      if (pfds[i].revents & (POLLIN | POLLHUP | POLLERR)) {
        char buf[4096];
        ssize_t n = read(c.fd, buf, sizeof buf);
        if (n > 0) c.output.append(buf, size_t(n));
        else if (n == 0 || (errno != EINTR && errno != EAGAIN)) c.eof = true;
      }
    }
    for (size_t i = 0; i < running.size();) {
      Child& c = running[i];
      double elapsed_s = std::chrono::duration<double>(Clock::now() - c.start).count();
      bool timed_out = !c.eof && elapsed_s > options.timeout_s;
      if (!c.eof && !timed_out) {
        ++i;
        continue;
      }
      if (timed_out) kill(c.pid, SIGKILL);
      int status = 0;
      while (waitpid(c.pid, &status, 0) < 0 && errno == EINTR) {
      }
      close(c.fd);
      finish(c, timed_out ? Verdict{Outcome::crash, fmt::format("timed out after {} s", options.timeout_s)}
                          : decode(c.output, status));
      running.erase(running.begin() + long(i));
    }
  }
  return results;
}

}  // namespace agx::shadertest
