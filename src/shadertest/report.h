// `agx shader-test --report DIR`: an HTML page over a run, piglit's
// summaries as the model (X11Libre/mirror.fdo.piglit framework/summary/):
// each file's verdict and time, its window as a PNG, and for a failed probe
// the expected and observed colours with the probed region marked on the
// picture. The model is ReportFile; report_html() presents it, and the
// probe records travel from the child process that ran the file as JSON
// (probe_failures_json / parse_probe_failures).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "shadertest/framebuffer.h"
#include "shadertest/runner.h"
#include "util/result.h"

namespace agx::shadertest {

struct ReportFile {
  std::string name;  // the file's path as the run names it (relative to --root when given)
  Outcome outcome = Outcome::fail;
  std::string detail;  // the verdict's detail
  double ms = 0;       // wall time of the file's child process
  std::string png;     // the window's PNG, relative to the report's page; empty: none
  std::vector<ProbeFailure> probes;
};

// The page (a whole HTML document): counts, one row per file in the order
// given, then every failed file with a picture or failed probes: the picture
// with each failed probe's region outlined and its first failing pixel
// marked, the expected and observed colours as swatches and numbers.
std::string report_html(const std::vector<ReportFile>& files, std::string_view title);

// The probe records as one JSON array, and back. A malformed text is an
// error naming what is wrong.
std::string probe_failures_json(const std::vector<ProbeFailure>& probes);
Result<std::vector<ProbeFailure>> parse_probe_failures(std::string_view json);

}  // namespace agx::shadertest
