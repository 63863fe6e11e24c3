// `agx bench shader-test [--json]`: wall time of two fixed lists of piglit
// files through `agx shader-test`'s runner, beside Mesa's llvmpipe running
// the same files through piglit's own shader_runner
// (PIGLIT_PLATFORM=surfaceless_egl) in the same run, one file at a time
// each, and the ratio: the compute list
// (src/shadertest/tests/data/piglit_compute.list) and the render gate list
// (piglit_render_pass.list: vertex/fragment files drawn on the software
// GPU). Both sides' verdicts are counted and printed (the work's result is
// used).
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

namespace AGX_UNITY_ID {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

constexpr const char* kPiglitRoot = "/usr/lib/x86_64-linux-gnu/piglit";

// A list: $`env` when set, else `rel` next to the tool's source tree
// (build/agx -> src/shadertest/tests/data), else relative to the working
// directory.
std::string find_list(const char* env, const char* rel) {
  if (const char* path = std::getenv(env)) return path;
  std::error_code ec;
  fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    for (fs::path dir = exe.parent_path(); !dir.empty() && dir != dir.root_path(); dir = dir.parent_path())
      if (fs::exists(dir / rel)) return (dir / rel).string();
  }
  return rel;
}

std::vector<std::string> read_list(const std::string& path) {
  std::ifstream f(path);
  if (!f) agx::cli::fail(fmt::format("cannot read the piglit list {} (set AGX_PIGLIT_LIST or AGX_PIGLIT_RENDER_LIST)", path));
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

// One list's figures: both sides' wall time and passes.
struct ListFigures {
  size_t files = 0, agx_passed = 0, llvmpipe_passed = 0;
  double agx_s = 0, llvmpipe_s = 0;
  double ratio() const { return agx_s / llvmpipe_s; }
};

ListFigures run_list(const std::vector<std::string>& paths, const std::string& runner) {
  ListFigures r;
  r.files = paths.size();
  auto t0 = Clock::now();
  agx::shadertest::IsolationOptions iso;
  iso.jobs = 1;
  auto ours = agx::shadertest::run_isolated(
      paths, iso, [](const std::string& text, const std::string&) { return agx::shadertest::run_shader_test(text); }, nullptr);
  r.agx_s = std::chrono::duration<double>(Clock::now() - t0).count();
  for (const auto& v : ours) r.agx_passed += v.verdict.outcome == agx::shadertest::Outcome::pass;

  t0 = Clock::now();
  for (const auto& p : paths) r.llvmpipe_passed += run_shader_runner(runner, p) == "pass";
  r.llvmpipe_s = std::chrono::duration<double>(Clock::now() - t0).count();
  return r;
}

void print_list(const char* name, const ListFigures& r) {
  fmt::print("piglit {} list: {} files, one at a time\n", name, r.files);
  fmt::print("  agx shader-test        {:8.3f} s  {} passed\n", r.agx_s, r.agx_passed);
  fmt::print("  llvmpipe shader_runner {:8.3f} s  {} passed\n", r.llvmpipe_s, r.llvmpipe_passed);
  fmt::print("  ratio agx / llvmpipe   {:8.3f}\n", r.ratio());
}

int run(bool json) {
  const auto compute_paths =
      read_list(find_list("AGX_PIGLIT_LIST", "src/shadertest/tests/data/piglit_compute.list"));
  const auto render_paths =
      read_list(find_list("AGX_PIGLIT_RENDER_LIST", "src/shadertest/tests/data/piglit_render_pass.list"));
  std::string runner = std::string(kPiglitRoot) + "/bin/shader_runner";
  if (access(runner.c_str(), X_OK) != 0) agx::cli::fail(fmt::format("{} not found (Debian package piglit)", runner));

  const ListFigures compute = run_list(compute_paths, runner);
  const ListFigures render = run_list(render_paths, runner);
  if (json) {
    // The compute list's keys are unprefixed (as before the render list);
    // the render list's are the same with "render_" before them.
    fmt::print("{{\"files\": {}, \"agx_s\": {:.3f}, \"agx_passed\": {}, \"llvmpipe_s\": {:.3f}, "
               "\"llvmpipe_passed\": {}, \"agx_over_llvmpipe\": {:.3f}, "
               "\"render_files\": {}, \"render_agx_s\": {:.3f}, \"render_agx_passed\": {}, "
               "\"render_llvmpipe_s\": {:.3f}, \"render_llvmpipe_passed\": {}, "
               "\"render_agx_over_llvmpipe\": {:.3f}}}\n",
               compute.files, compute.agx_s, compute.agx_passed, compute.llvmpipe_s, compute.llvmpipe_passed,
               compute.ratio(), render.files, render.agx_s, render.agx_passed, render.llvmpipe_s,
               render.llvmpipe_passed, render.ratio());
  } else {
    print_list("compute", compute);
    print_list("render", render);
  }
  return 0;
}

agx::cli::Bench kBench{"shader-test",
                       "Wall time of the fixed piglit compute and render lists, agx vs llvmpipe's shader_runner", run};

}  // namespace AGX_UNITY_ID
