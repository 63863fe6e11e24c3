// Subcommand registry of the `agx` tool. Each subcommand lives in its own
// cmd_<name>.cpp in this folder and registers itself at static-init time:
//
//   static agx::cli::Command kLayout{"layout", "Print an image layout", setup_layout};
//
// `setup` adds options to the given CLI11 subcommand and sets its callback.
// A callback reports failure by throwing agx::cli::Exit{code} after printing
// a message to stderr (see fail()).
#pragma once

#include <CLI/CLI.hpp>

#include <functional>
#include <string>
#include <vector>

#include "util/result.h"

namespace agx::cli {

struct Command {
  using Setup = std::function<void(CLI::App& sub)>;
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
