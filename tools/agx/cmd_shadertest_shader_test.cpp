// `agx shader-test FILE|DIR... [--list FILE] [--root DIR] [-j N] [--timeout S]
//  [--json | --piglit] [--png DIR] [--report DIR]`: runs piglit .shader_test files on the stack, each in
// its own child process (docs/shadertest.md gives the output formats).
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "command.h"
#include "shadertest/census.h"
#include "shadertest/isolated.h"
#include "shadertest/report.h"
#include "shadertest/runner.h"

namespace AGX_UNITY_ID {

namespace fs = std::filesystem;
using agx::shadertest::Outcome;

agx::Result<std::vector<std::string>> collect(const std::vector<std::string>& args,
                                              const std::string& list, const std::string& root) {
  std::vector<std::string> paths;
  for (const auto& a : args) {
    std::error_code ec;
    if (fs::is_directory(a, ec)) {
      std::vector<std::string> found;
      for (auto it = fs::recursive_directory_iterator(a, ec); !ec && it != fs::end(it); it.increment(ec))
        if (it->is_regular_file() && it->path().extension() == ".shader_test")
          found.push_back(it->path().string());
      if (ec) return agx::Error::io("{}: {}", a, ec.message());
      std::sort(found.begin(), found.end());
      paths.insert(paths.end(), found.begin(), found.end());
    } else if (fs::exists(a, ec)) {
      paths.push_back(a);
    } else {
      return agx::Error::not_found("{}: no such file or directory", a);
    }
  }
  if (!list.empty()) {
    auto text = agx::cli::read_file(list);
    if (!text.ok()) return std::move(text).error();
    size_t pos = 0;
    unsigned line = 0;
    while (pos < text->size()) {
      size_t nl = text->find('\n', pos);
      std::string l = text->substr(pos, nl == std::string::npos ? std::string::npos : nl - pos);
      pos = nl == std::string::npos ? text->size() : nl + 1;
      ++line;
      while (!l.empty() && (l.back() == '\r' || l.back() == ' ')) l.pop_back();
      if (l.empty() || l[0] == '#') continue;
      paths.push_back(root.empty() ? l : (fs::path(root) / l).string());
    }
  }
  return paths;
}

// The PNG of `path` under --png: its path (relative to --root when given),
// '/' as '_', ".png" for ".shader_test".
std::string png_name(const std::string& path, const std::string& root) {
  fs::path p = fs::path(path).lexically_normal();
  if (!root.empty()) p = p.lexically_relative(fs::path(root).lexically_normal());
  std::string name = p.string();
  while (name.starts_with("../")) name.erase(0, 3);
  while (name.starts_with("/")) name.erase(0, 1);
  if (name.ends_with(".shader_test")) name.resize(name.size() - 12);
  std::replace(name.begin(), name.end(), '/', '_');
  return name + ".png";
}

// Where --report keeps the probe records of `path`'s child: DIR/probes/NAME.json
// (NAME as png_name gives it).
fs::path probe_record_path(const std::string& dir, const std::string& path, const std::string& root) {
  return fs::path(dir) / "probes" / fs::path(png_name(path, root)).replace_extension(".json");
}

// `--report DIR`: the page from the run's results, the PNGs the children
// wrote to DIR/png and the probe records they left in DIR/probes.
void write_report(const std::string& dir, const std::vector<agx::shadertest::FileResult>& results,
                  const std::string& root) {
  std::vector<agx::shadertest::ReportFile> files;
  for (const auto& r : results) {
    agx::shadertest::ReportFile f;
    f.name = fs::path(r.path).lexically_normal().string();
    if (!root.empty()) f.name = fs::path(r.path).lexically_relative(fs::path(root).lexically_normal()).string();
    f.outcome = r.verdict.outcome;
    f.detail = r.verdict.detail;
    f.ms = r.ms;
    const std::string png = png_name(r.path, root);
    std::error_code ec;
    if (fs::exists(fs::path(dir) / "png" / png, ec)) f.png = "png/" + png;
    const fs::path probes = probe_record_path(dir, r.path, root);
    if (fs::exists(probes, ec)) {
      auto text = agx::cli::read_file(probes.string());
      auto parsed = text.ok() ? agx::shadertest::parse_probe_failures(*text)
                              : agx::Result<std::vector<agx::shadertest::ProbeFailure>>(text.error());
      if (!parsed.ok()) agx::cli::fail(fmt::format("--report: {}: {}", probes.string(), parsed.error().message()));
      f.probes = std::move(*parsed);
    }
    files.push_back(std::move(f));
  }
  const std::string page = (fs::path(dir) / "index.html").string();
  std::ofstream out(page);
  out << agx::shadertest::report_html(files, "agx shader-test");
  if (!out) agx::cli::fail(fmt::format("--report: cannot write {}", page));
  fmt::print(stderr, "report: {}\n", page);
}

// `--census`: the model is agx::shadertest::Census; this prints it.
void print_census(const std::vector<std::string>& paths) {
  agx::shadertest::Census census;
  for (const auto& path : paths) {
    auto text = agx::cli::read_file(path);
    if (!text.ok()) agx::cli::fail(text.error());
    census.add(path, *text, /*compile=*/true);
  }
  fmt::print("vertex/fragment files: {} ({} parse, {} do not)\n", census.vertex_fragment_files, census.parsed,
             census.failures.size());
  fmt::print("geometry/tessellation files: {} (SKIP: geometry/tessellation shaders are not supported)\n",
             census.geometry_tessellation_files);
  fmt::print("other files (compute, no shader stage): {}\n", census.other_files);
  auto by_count = [](const std::map<std::string, size_t>& m) {
    std::vector<std::pair<std::string, size_t>> v(m.begin(), m.end());
    std::stable_sort(v.begin(), v.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
    return v;
  };
  fmt::print("sections (files using them):\n");
  for (const auto& [name, n] : by_count(census.sections)) fmt::print("  {:6}  [{}]\n", n, name);
  fmt::print("commands (uses):\n");
  for (const auto& [name, n] : by_count(census.commands)) fmt::print("  {:6}  {}\n", n, name);
  fmt::print("lowered GLSL to SPIR-V (glslang): {} of {} files\n", census.compiled, census.parsed);
  for (const auto& [kind, n] : by_count(census.compile_failures)) fmt::print("  {:6}  {}\n", n, kind);
  if (!census.failures.empty()) fmt::print("parse failures:\n");
  for (const auto& f : census.failures) fmt::print("  {}\n", f);
}

void setup_shader_test(agx::cli::Args& sub) {
  struct Opts {
    std::vector<std::string> inputs;
    std::string list, root, png, report;
    unsigned jobs = 1;
    double timeout_s = 60;
    bool json = false, piglit = false, census = false;
  };
  auto o = std::make_shared<Opts>();
  sub.add_option("FILE", o->inputs, ".shader_test files or directories (searched recursively)");
  sub.add_option("--list", o->list, "A file naming .shader_test files, one per line ('#' comments)");
  sub.add_option("--root", o->root, "Directory the --list paths are relative to");
  sub.add_option("-j,--jobs", o->jobs, "Files run in parallel (child processes)")->check_range(1, 256);
  sub.add_option("--timeout", o->timeout_s, "Seconds one file may take before it is killed (CRASH)")
      ->check_positive();
  sub.add_option("--png", o->png,
                 "Directory to write each vertex/fragment file's final window to, as PATH.png (the file's path, "
                 "relative to --root, with '/' as '_')");
  sub.add_option("--report", o->report,
                 "Directory to write an HTML page to (DIR/index.html): each file's verdict, time and window "
                 "(DIR/png), failed probes marked on the picture (DIR/probes holds their records)");
  sub.add_flag("--json", o->json, "One JSON object per file: {\"file\", \"result\", \"detail\", \"ms\"}");
  sub.add_flag("--piglit", o->piglit,
               "For one file, print what piglit's shader_runner prints: PIGLIT: {\"result\": \"pass\" }");
  sub.add_flag("--census", o->census,
               "Count the sections and [test] commands of the vertex/fragment files and how many parse and "
               "compile to SPIR-V after the GLSL lowering (nothing runs)");
  // piglit's framework passes shader_runner's flags (-auto -fbo ...): accepted
  // and ignored with --piglit.
  sub.allow_extras();
  sub.callback([o, &sub] {
    for (const auto& extra : sub.remaining()) {
      if (!o->piglit || extra.empty() || extra[0] != '-') agx::cli::fail(fmt::format("unexpected argument '{}'", extra));
    }
    if (o->json && o->piglit) agx::cli::fail("--json and --piglit exclude each other");
    auto paths = collect(o->inputs, o->list, o->root);
    if (!paths.ok()) agx::cli::fail(paths.error());
    if (paths->empty()) agx::cli::fail("no .shader_test files given");
    if (o->piglit && paths->size() != 1) agx::cli::fail("--piglit runs exactly one file");
    if (o->census) {
      if (o->json || o->piglit) agx::cli::fail("--census excludes --json and --piglit");
      print_census(*paths);
      return;
    }

    agx::shadertest::IsolationOptions iso;
    iso.jobs = o->jobs;
    iso.timeout_s = o->timeout_s;
    if (!o->report.empty() && !o->png.empty()) agx::cli::fail("--report writes the PNGs itself (DIR/png): drop --png");
    const std::string png_dir = o->report.empty() ? o->png : (fs::path(o->report) / "png").string();
    // The report owns DIR/png and DIR/probes: what an earlier run left there
    // would be shown for files this run does not draw.
    for (const std::string& d : {png_dir, o->report.empty() ? std::string() : (fs::path(o->report) / "probes").string()}) {
      std::error_code ec;
      if (!d.empty() && !o->report.empty()) fs::remove_all(d, ec);
      if (!d.empty()) fs::create_directories(d, ec);
      if (ec) agx::cli::fail(fmt::format("{}: {}", d, ec.message()));
    }
    auto run = [o, png_dir](const std::string& text, const std::string& path) {
      agx::shadertest::RunOptions ro;
      if (!png_dir.empty()) ro.png_path = (fs::path(png_dir) / png_name(path, o->root)).string();
      auto verdict = agx::shadertest::run_shader_test(text, ro);
      if (!o->report.empty() && !verdict.probe_failures.empty()) {
        const fs::path probes = probe_record_path(o->report, path, o->root);
        std::ofstream out(probes);
        out << agx::shadertest::probe_failures_json(verdict.probe_failures);
        // Without the records the page would show the file with no marks:
        // say so in the verdict the page and the output show.
        if (!out) verdict.detail += fmt::format("\n--report: cannot write {}", probes.string());
      }
      return verdict;
    };
    auto print = [&](const agx::shadertest::FileResult& r) {
      const auto& v = r.verdict;
      if (o->piglit) {
        if (!v.detail.empty()) fmt::print("{}\n", v.detail);
        fmt::print("PIGLIT: {{\"result\": \"{}\" }}\n", agx::shadertest::to_string(v.outcome));
      } else if (o->json) {
        nlohmann::json j = {{"file", r.path},
                            {"result", agx::shadertest::to_string(v.outcome)},
                            {"detail", v.detail},
                            {"ms", std::round(r.ms * 1000) / 1000}};
        fmt::print("{}\n", j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
      } else {
        std::string detail = v.detail;
        std::replace(detail.begin(), detail.end(), '\n', ' ');
        fmt::print("{:<5}  {}{}{}\n", agx::shadertest::to_upper_string(v.outcome), r.path,
                   detail.empty() ? "" : "  ", detail);
      }
      std::fflush(stdout);
    };
    auto results = agx::shadertest::run_isolated(*paths, iso, run, print);
    size_t pass = 0, fail = 0, skip = 0, crash = 0;
    for (const auto& r : results) {
      switch (r.verdict.outcome) {
        case Outcome::pass: ++pass; break;
        case Outcome::fail: ++fail; break;
        case Outcome::skip: ++skip; break;
        case Outcome::crash: ++crash; break;
      }
    }
    if (!o->json && !o->piglit) {
      fmt::print("{} passed, {} failed, {} skipped", pass, fail + crash, skip);
      if (crash) fmt::print(" ({} crashed)", crash);
      fmt::print("\n");
    }
    std::fflush(stdout);
    if (!o->report.empty()) write_report(o->report, results, o->root);
    // piglit reads the verdict from the output; the exit code says whether
    // anything failed (skips are not failures).
    if (fail + crash > 0) throw agx::cli::Exit{1};
  });
}

agx::cli::Command kShaderTest{"shader-test",
                              "Run piglit .shader_test files (compute) on the software AGX through "
                              "the UAPI",
                              setup_shader_test};

}  // namespace AGX_UNITY_ID
