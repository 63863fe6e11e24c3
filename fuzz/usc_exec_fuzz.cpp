// Fuzzes the USC emulator: random instruction bytes run on a random state
// with a little device and threadgroup memory. Anything may be reported as
// an error (undecodable, unsupported, fault, step limit); nothing may crash.
#include <cstddef>
#include <cstdint>
#include <random>
#include <vector>

#include "usc/usc.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 5) return 0;
  uint32_t seed = data[0] | data[1] << 8 | data[2] << 16 | uint32_t(data[3]) << 24;
  std::mt19937 rng(seed);
  agx::usc::Core core = agx::usc::make_core();
  for (auto& reg : core.r)
    for (auto& v : reg) v = (rng() % 4 == 0) ? 0x1000 + rng() % 64 : rng();
  for (auto& u : core.u) u = rng() % 2 ? 0x1000 : rng();
  core.exec = rng();
  for (unsigned l = 0; l < agx::usc::kLanes; ++l)
    if (!((core.exec >> l) & 1)) core.r[0][l] |= 1;  // consistent r0l for inactive lanes
  agx::usc::RegionMemory mem;
  (void)mem.map(0x1000, std::vector<uint8_t>(256, data[4]));
  std::vector<uint8_t> threadgroup(1024);
  agx::usc::Memories m{&mem, &threadgroup, nullptr, 256};
  auto program = agx::usc::compile({data + 5, size - 5}, 0);
  if (!program.ok()) return 0;
  agx::usc::RunOptions opt;
  opt.step_limit = 2000;
  opt.debug = true;
  std::vector<std::string> warnings;
  opt.warnings = &warnings;
  (void)agx::usc::run(*program, core, m, opt);
  return 0;
}
