// `agx bench shader-test [--json]`: wall time of the fixed list of piglit
// compute files (src/shadertest/tests/data/piglit_compute.list) through
// `agx shader-test`'s runner, beside Mesa's llvmpipe running the same files
// through piglit's own shader_runner (PIGLIT_PLATFORM=surfaceless_egl) in
// the same run, one file at a time each, and the ratio. Both sides' verdicts
// are counted and printed (the work's result is used).
#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "command.h"
#include "shadertest/isolated.h"
#include "shadertest/runner.h"

namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

constexpr const char* kPiglitRoot = "/usr/lib/x86_64-linux-gnu/piglit";

// The list: $AGX_PIGLIT_LIST, else next to the tool's source tree
// (build/agx -> src/shadertest/tests/data), else relative to the working directory.
std::string find_list() {
  if (const char* env = std::getenv("AGX_PIGLIT_LIST")) return env;
  std::error_code ec;
  fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  const char* rel = "src/shadertest/tests/data/piglit_compute.list";
  if (!ec) {
    for (fs::path dir = exe.parent_path(); !dir.empty() && dir != dir.root_path(); dir = dir.parent_path())
      if (fs::exists(dir / rel)) return (dir / rel).string();
  }
  return rel;
}

std::vector<std::string> read_list(const std::string& path) {
  std::ifstream f(path);
  if (!f) agx::cli::fail(fmt::format("cannot read the piglit list {} (set AGX_PIGLIT_LIST)", path));
  std::vector<std::string> paths;
  std::string line;
  while (std::getline(f, line)) {
    if (line.empty() || line[0] == '#') continue;
    paths.push_back((fs::path(kPiglitRoot) / line).string());
  }
  return paths;
}

// One file through piglit's shader_runner on llvmpipe; the verdict word.
std::string run_shader_runner(const std::string& runner, const std::string& file) {
  int fds[2];
  if (pipe(fds) != 0) return "error";
  pid_t pid = fork();
  if (pid == 0) {
    dup2(fds[1], 1);
    int null = open("/dev/null", O_WRONLY);
    if (null >= 0) dup2(null, 2);
    close(fds[0]);
    setenv("PIGLIT_PLATFORM", "surfaceless_egl", 1);
    execl(runner.c_str(), runner.c_str(), file.c_str(), "-auto", "-fbo", static_cast<char*>(nullptr));
    _exit(127);
  }
  close(fds[1]);
  std::string out;
  char buf[4096];
  ssize_t n;
  while ((n = read(fds[0], buf, sizeof buf)) > 0) out.append(buf, size_t(n));
  close(fds[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  auto at = out.rfind("\"result\": \"");
  if (at == std::string::npos) return WIFSIGNALED(status) ? "crash" : "none";
  at += 11;
  return out.substr(at, out.find('"', at) - at);
}

int run(bool json) {
  auto paths = read_list(find_list());
  std::string runner = std::string(kPiglitRoot) + "/bin/shader_runner";
  if (access(runner.c_str(), X_OK) != 0) agx::cli::fail(fmt::format("{} not found (Debian package piglit)", runner));

  auto t0 = Clock::now();
  agx::shadertest::IsolationOptions iso;
  iso.jobs = 1;
  auto ours = agx::shadertest::run_isolated(
      paths, iso, [](const std::string& text, const std::string&) { return agx::shadertest::run_shader_test(text); }, nullptr);
  double agx_s = std::chrono::duration<double>(Clock::now() - t0).count();
  size_t agx_pass = 0;
  for (const auto& r : ours) agx_pass += r.verdict.outcome == agx::shadertest::Outcome::pass;

  t0 = Clock::now();
  size_t ref_pass = 0;
  for (const auto& p : paths) ref_pass += run_shader_runner(runner, p) == "pass";
  double ref_s = std::chrono::duration<double>(Clock::now() - t0).count();

  double ratio = agx_s / ref_s;
  if (json) {
    fmt::print("{{\"files\": {}, \"agx_s\": {:.3f}, \"agx_passed\": {}, \"llvmpipe_s\": {:.3f}, "
               "\"llvmpipe_passed\": {}, \"agx_over_llvmpipe\": {:.3f}}}\n",
               paths.size(), agx_s, agx_pass, ref_s, ref_pass, ratio);
  } else {
    fmt::print("piglit compute list: {} files, one at a time\n", paths.size());
    fmt::print("  agx shader-test        {:8.3f} s  {} passed\n", agx_s, agx_pass);
    fmt::print("  llvmpipe shader_runner {:8.3f} s  {} passed\n", ref_s, ref_pass);
    fmt::print("  ratio agx / llvmpipe   {:8.3f}\n", ratio);
  }
  return 0;
}

agx::cli::Bench kBench{"shader-test",
                       "Wall time of the fixed piglit compute list, agx vs llvmpipe's shader_runner", run};

}  // namespace
