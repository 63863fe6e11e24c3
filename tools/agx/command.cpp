#include "command.h"

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <iterator>
#include <sstream>

namespace agx::cli {

std::vector<Registered>& commands() {
  static std::vector<Registered> list;
  return list;
}

std::vector<RegisteredBench>& benches() {
  static std::vector<RegisteredBench> list;
  return list;
}

Arg* Arg::required() {
  option_->required();
  return this;
}

Arg* Arg::check_range(int64_t lo, int64_t hi) {
  option_->check(CLI::Range(lo, hi));
  return this;
}

// CLI11's PositiveNumber names its range as 0.000000 to DBL_MAX; this one
// says what is wrong in words.
Arg* Arg::check_positive() {
  option_->check(CLI::Validator(
      [](std::string& text) -> std::string {
        double value = 0;
        if (!CLI::detail::lexical_cast(text, value) || !(value > 0))
          return fmt::format("value {} is not a positive number", text);
        return {};
      },
      "POSITIVE"));
  return this;
}

Args::Args(CLI::App& app) : app_(app) {}
Args::~Args() = default;

template <class T>
Arg* Args::add_option(const std::string& names, T& into, const std::string& help) {
  args_.push_back(std::make_unique<Arg>(app_.add_option(names, into, help)));
  return args_.back().get();
}

// The option types the subcommands use.
template Arg* Args::add_option(const std::string&, std::string&, const std::string&);
template Arg* Args::add_option(const std::string&, std::vector<std::string>&, const std::string&);
template Arg* Args::add_option(const std::string&, int&, const std::string&);
template Arg* Args::add_option(const std::string&, unsigned&, const std::string&);
template Arg* Args::add_option(const std::string&, long&, const std::string&);
template Arg* Args::add_option(const std::string&, unsigned long&, const std::string&);
template Arg* Args::add_option(const std::string&, long long&, const std::string&);
template Arg* Args::add_option(const std::string&, unsigned long long&, const std::string&);
template Arg* Args::add_option(const std::string&, double&, const std::string&);

Arg* Args::add_flag(const std::string& names, bool& into, const std::string& help) {
  args_.push_back(std::make_unique<Arg>(app_.add_flag(names, into, help)));
  return args_.back().get();
}

void Args::callback(std::function<void()> run) { app_.callback(std::move(run)); }
size_t Args::count(const std::string& name) const { return app_.count(name); }
void Args::allow_extras() { app_.allow_extras(); }
std::vector<std::string> Args::remaining() const { return app_.remaining(); }

Command::Command(std::string name, std::string description, Setup setup) {
  commands().push_back({std::move(name), std::move(description), std::move(setup)});
}

Bench::Bench(std::string unit, std::string description, Run run) {
  benches().push_back({std::move(unit), std::move(description), std::move(run)});
}

// Messages quote the user's input: control bytes (escape sequences, NUL)
// are shown as \xNN, never sent to the terminal, and a message longer than
// kMaxMessage_B (a huge token) is cut. Line breaks and UTF-8 stay.
std::string terminal_safe(std::string_view message) {
  constexpr size_t kMaxMessage_B = 2000;
  std::string out;
  for (unsigned char c : message.substr(0, kMaxMessage_B)) {
    if ((c < 0x20 && c != '\n' && c != '\t') || c == 0x7f)
      out += fmt::format("\\x{:02x}", c);
    else
      out += char(c);
  }
  if (message.size() > kMaxMessage_B) out += "...";
  return out;
}

void fail(const std::string& message, int code) {
  fmt::print(stderr, "agx: {}\n", terminal_safe(message));
  throw Exit{code};
}

void fail(const Error& error, int code) { fail(error.message(), code); }

namespace {

// Reads all of `fd` up to kMaxInput_B; `what` names it in errors.
Result<std::string> read_all(int fd, const std::string& what) {
  std::string text;
  char buf[65536];
  for (;;) {
    ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return Error::io("cannot read {}: {}", what, std::strerror(errno));
    if (n == 0) return text;
    if (text.size() + size_t(n) > kMaxInput_B)
      return Error::limit("{} is larger than the {} MiB input limit", what, kMaxInput_B >> 20);
    text.append(buf, size_t(n));
  }
}

}  // namespace

Status check_stdin() {
  struct stat st;
  if (::fstat(0, &st) != 0) return Error::io("cannot read standard input: {}", std::strerror(errno));
  // /dev/null (character device 1:3) is an empty input.
  const bool null_device = S_ISCHR(st.st_mode) && major(st.st_rdev) == 1 && minor(st.st_rdev) == 3;
  if (S_ISDIR(st.st_mode) || S_ISBLK(st.st_mode) || (S_ISCHR(st.st_mode) && !::isatty(0) && !null_device))
    return Error::invalid_argument("standard input is not a file, pipe or terminal");
  return {};
}

bool read_line(std::istream& in, std::string& line, bool* too_long) {
  line.clear();
  *too_long = false;
  std::istream::int_type c;
  bool any = false;
  while ((c = in.get()) != std::istream::traits_type::eof()) {
    any = true;
    if (c == '\n') return true;
    if (line.size() < kMaxLine_B)
      line.push_back(char(c));
    else
      *too_long = true;  // the rest of the line is skipped, not kept
  }
  return any;
}

// Only regular files and pipes are inputs (a directory reads as nothing,
// /dev/zero never ends); standard input may also be a terminal or socket.
Result<std::string> read_file(const std::string& path) {
  struct stat st;
  if (path == "-") {
    AGX_CHECK(check_stdin());
    return read_all(0, "standard input");
  }
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return Error::io("cannot open '{}': {}", path, std::strerror(errno));
  if (::fstat(fd, &st) != 0 || !(S_ISREG(st.st_mode) || S_ISFIFO(st.st_mode))) {
    const bool dir = S_ISDIR(st.st_mode);
    ::close(fd);
    return Error::invalid_argument("'{}' is {}, not a regular file or pipe", path,
                                   dir ? "a directory" : "a device or special file");
  }
  if (S_ISREG(st.st_mode) && uint64_t(st.st_size) > kMaxInput_B) {
    ::close(fd);
    return Error::limit("'{}' ({} bytes) is larger than the {} MiB input limit", path, st.st_size, kMaxInput_B >> 20);
  }
  auto text = read_all(fd, fmt::format("'{}'", path));
  ::close(fd);
  return text;
}

Result<std::vector<uint8_t>> read_binary(const std::string& path) {
  AGX_TRY(std::string text, read_file(path));
  return std::vector<uint8_t>(text.begin(), text.end());
}

Status write_binary(const std::string& path, const std::vector<uint8_t>& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) return Error::io("cannot create '{}': {}", path, std::strerror(errno));
  out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  if (!out) return Error::io("cannot write '{}'", path);
  return {};
}

}  // namespace agx::cli
