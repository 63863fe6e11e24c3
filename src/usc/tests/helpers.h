// Test helpers: encode one instruction from named fields, random cores, and
// running one step. Expected values in the tests come from independent
// reference code written from applegpu's documented rules, never from the
// emulator itself.
#pragma once

#include <gtest/gtest.h>

#include <initializer_list>
#include <random>
#include <string_view>
#include <utility>
#include <vector>

#include "isa/isa.h"
#include "usc/usc.h"

namespace agx::usc::test {

using Fields = std::initializer_list<std::pair<std::string_view, uint32_t>>;

inline std::vector<uint8_t> enc(isa::Opcode op, Fields fields) {
  std::vector<std::pair<std::string_view, uint32_t>> f(fields);
  auto e = isa::encode_fields(op, f);
  EXPECT_TRUE(e.ok()) << (e.ok() ? "" : e.error().message());
  if (!e.ok()) return {};
  auto s = e->span();
  return {s.begin(), s.end()};
}

inline std::vector<uint8_t> cat(std::initializer_list<std::vector<uint8_t>> parts) {
  std::vector<uint8_t> out;
  for (const auto& p : parts) out.insert(out.end(), p.begin(), p.end());
  return out;
}

// A 32-bit random source (std::mt19937 returns a wider type).
struct Rng {
  explicit Rng(uint32_t seed) : g(seed) {}
  uint32_t operator()() { return static_cast<uint32_t>(g()); }
  std::mt19937 g;
};

// Random registers and uniforms; a partial exec mask unless `all`.
inline Core random_core(uint32_t seed, bool all = false) {
  std::mt19937 rng(seed);
  Core c = make_core();
  for (auto& reg : c.r)
    for (auto& v : reg) v = rng();
  for (auto& u : c.u) u = rng();
  c.exec = all ? 0xFFFFFFFFu : (rng() | 1u) & ~0x80000000u;
  for (auto& v : c.r[0]) v &= 0xFFFF0000u;  // r0l = 0: the nesting counter at rest
  return c;
}

// Runs `code` from pc 0 to its end (or stop) on `c`.
inline Status run_code(const std::vector<uint8_t>& code, Core& c, const Memories& mem = {},
                       uint64_t step_limit = 100000) {
  auto p = compile(code, 0);
  if (!p) return p.error();
  c.pc = 0;
  RunOptions opt;
  opt.step_limit = step_limit;
  auto r = run(*p, c, mem, opt);
  if (!r) return r.error();
  return {};
}

inline bool on(const Core& c, unsigned lane) { return (c.exec >> lane) & 1; }

}  // namespace agx::usc::test
