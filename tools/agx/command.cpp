#include "command.h"

#include <fmt/format.h>

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

Command::Command(std::string name, std::string description, Setup setup) {
  commands().push_back({std::move(name), std::move(description), std::move(setup)});
}

Bench::Bench(std::string unit, std::string description, Run run) {
  benches().push_back({std::move(unit), std::move(description), std::move(run)});
}

void fail(const std::string& message, int code) {
  fmt::print(stderr, "agx: {}\n", message);
  throw Exit{code};
}

void fail(const Error& error, int code) { fail(error.message(), code); }

Result<std::string> read_file(const std::string& path) {
  if (path == "-") {
    std::ostringstream ss;
    ss << std::cin.rdbuf();
    return ss.str();
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) return Error::io("cannot open '{}': {}", path, std::strerror(errno));
  std::ostringstream ss;
  ss << in.rdbuf();
  if (in.bad()) return Error::io("cannot read '{}'", path);
  return ss.str();
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
