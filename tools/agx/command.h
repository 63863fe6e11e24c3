// Subcommand registry of the `agx` tool. Each subcommand lives in its own
// cmd_<name>.cpp in this folder and registers itself at static-init time:
//
//   static agx::cli::Command kLayout{"layout", "Print an image layout", setup_layout};
//
// `setup` adds options to the given subcommand (Args, a thin face of the
// CLI11 subcommand) and sets its callback. A callback reports failure by
// throwing agx::cli::Exit{code} after printing a message to stderr (see
// fail()).
//
// Only main.cpp and command.cpp include CLI11: it is header-only, and every
// file that includes it compiles its global validators, formatter and
// config parser again (about 7 s of g++ per file, measured), so the
// subcommands see it through Args.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "util/result.h"

namespace CLI {
class App;
class Option;
}  // namespace CLI

namespace agx::cli {

// One option or flag of a subcommand, as Args::add_option returns it.
class Arg {
 public:
  explicit Arg(CLI::Option* option) : option_(option) {}
  Arg* required();                            // the option must be given
  Arg* check_range(int64_t lo, int64_t hi);   // lo <= value <= hi
  Arg* check_positive();                      // value > 0

 private:
  CLI::Option* option_;
};

// A subcommand's options, with CLI11's names: add_option / add_flag bind a
// variable (names "--long,-s" or a positional "NAME"), callback runs the
// command, count says how often an option was given.
class Args {
 public:
  explicit Args(CLI::App& app);
  ~Args();
  Args(const Args&) = delete;
  Args& operator=(const Args&) = delete;

  // T: std::string, std::vector<std::string>, the integer types, double
  // (instantiated in command.cpp).
  template <class T>
  Arg* add_option(const std::string& names, T& into, const std::string& help);
  Arg* add_flag(const std::string& names, bool& into, const std::string& help);
  void callback(std::function<void()> run);
  size_t count(const std::string& name) const;
  // Arguments no option takes are kept (remaining()) instead of an error.
  void allow_extras();
  std::vector<std::string> remaining() const;

 private:
  CLI::App& app_;
  std::vector<std::unique_ptr<Arg>> args_;
};

struct Command {
  using Setup = std::function<void(Args& sub)>;
  Command(std::string name, std::string description, Setup setup);
};

// `agx bench <unit> [--json]`: a benchmark registers a function that runs
// the measurement and prints it (one JSON object with --json).
struct Bench {
  using Run = std::function<int(bool json)>;
  Bench(std::string unit, std::string description, Run run);
};

// Thrown from a callback to end the program with `code` (the message was
// already printed).
struct Exit {
  int code;
};

// Prints "agx: <message>" to stderr (terminal_safe) and throws Exit{code}.
[[noreturn]] void fail(const Error& error, int code = 1);
std::string terminal_safe(std::string_view message);
[[noreturn]] void fail(const std::string& message, int code = 1);

// Reads a whole file (or standard input for "-"); errors name the path.
// Only regular files and pipes are read (a directory or a device such as
// /dev/zero is an error), at most kMaxInput_B bytes.
inline constexpr uint64_t kMaxInput_B = uint64_t{256} << 20;
// Standard input must be a file, pipe or terminal (not a directory or a
// device such as /dev/zero).
Status check_stdin();
// One line of at most kMaxLine_B bytes (without the '\n'); the rest of a
// longer line is read and dropped, and *too_long says so. False at the end.
inline constexpr size_t kMaxLine_B = 65536;
bool read_line(std::istream& in, std::string& line, bool* too_long);
Result<std::string> read_file(const std::string& path);
Result<std::vector<uint8_t>> read_binary(const std::string& path);
Status write_binary(const std::string& path, const std::vector<uint8_t>& bytes);

// Used by main.cpp.
struct Registered {
  std::string name, description;
  Command::Setup setup;
};
struct RegisteredBench {
  std::string unit, description;
  Bench::Run run;
};
std::vector<Registered>& commands();
std::vector<RegisteredBench>& benches();

}  // namespace agx::cli
