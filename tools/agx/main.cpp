// The `agx` command-line tool: one subcommand per cmd_*.cpp in this folder.
#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <algorithm>
#include <memory>
#include <vector>

#include "command.h"
#include "util/printable.h"

namespace {

void setup_bench(CLI::App& app) {
  auto* bench = app.add_subcommand("bench", "Run a unit's benchmark; figures are printed beside a "
                                            "reference measured in the same run");
  bench->require_subcommand(1);
  auto& list = agx::cli::benches();
  std::sort(list.begin(), list.end(), [](auto& a, auto& b) { return a.unit < b.unit; });
  for (auto& b : list) {
    auto* sub = bench->add_subcommand(b.unit, b.description);
    auto json = std::make_shared<bool>(false);
    sub->add_flag("--json", *json, "Print one JSON object of the measured figures");
    auto run = b.run;
    sub->callback([run, json] {
      int rc = run(*json);
      if (rc != 0) throw agx::cli::Exit{rc};
    });
  }
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"agx: an Apple AGX (G13) GPU stack in software: layouts, ISA, emulator, UAPI"};
  app.require_subcommand(1);
  app.set_help_all_flag("--help-all", "Print help for every subcommand");
  auto& list = agx::cli::commands();
  std::sort(list.begin(), list.end(), [](auto& a, auto& b) { return a.name < b.name; });
  // Each subcommand's Args lives as long as the app: callbacks may ask it
  // which options were given.
  std::vector<std::unique_ptr<agx::cli::Args>> args;
  for (auto& c : list) {
    args.push_back(std::make_unique<agx::cli::Args>(*app.add_subcommand(c.name, c.description)));
    c.setup(*args.back());
  }
  if (!agx::cli::benches().empty()) setup_bench(app);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // --help and --help-all print and succeed; every usage error is like
    // every other error: "agx: ..." on stderr and exit code 1 (README).
    if (e.get_exit_code() == 0) return app.exit(e);
    std::string where = "agx";
    for (const CLI::App* sub = &app; !sub->get_subcommands().empty();) {
      sub = sub->get_subcommands().front();
      where += " " + sub->get_name();
    }
    fmt::print(stderr, "agx: {}\nagx: see '{} --help'\n", agx::printable(e.what(), 200), where);
    return 1;
  } catch (const agx::cli::Exit& e) {
    return e.code;
  } catch (const std::exception& e) {
    fmt::print(stderr, "agx: internal error: {}\n", e.what());
    return 70;
  }
  return 0;
}
