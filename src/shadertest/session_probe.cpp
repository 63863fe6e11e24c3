// The buffer probes of a session: `probe ssbo` and `probe atomic counter`.
// A mismatch is recorded with the lines piglit's shader_runner prints for it
// (X11Libre/mirror.fdo.piglit tests/shaders/shader_runner.c probe_ssbo_* and
// probe_atomic_counter) and the file goes on; so does a range GL could not
// map (shader_runner prints "Couldn't map ..." and counts the probe failed).
#include <cinttypes>
#include <cstring>

#include "shadertest/session.h"

namespace agx::shadertest {

namespace {

uint32_t probe_size_B(ProbeType t) {
  return t == ProbeType::uint64 || t == ProbeType::int64 || t == ProbeType::float64 ? 8 : 4;
}

// One value as shader_runner prints it: %u, %d, PRIu64, PRId64, %g.
std::string probe_text(ProbeType t, uint64_t bits) {
  switch (t) {
    case ProbeType::uint32: return fmt::format("{}", uint32_t(bits));
    case ProbeType::int32: return fmt::format("{}", int32_t(uint32_t(bits)));
    case ProbeType::uint64: return fmt::format("{}", bits);
    case ProbeType::int64: return fmt::format("{}", int64_t(bits));
    case ProbeType::float32: {
      float f;
      uint32_t b = uint32_t(bits);
      std::memcpy(&f, &b, 4);
      char buf[64];
      std::snprintf(buf, sizeof buf, "%g", double(f));
      return buf;
    }
    case ProbeType::float64: {
      double d;
      std::memcpy(&d, &bits, 8);
      char buf[64];
      std::snprintf(buf, sizeof buf, "%g", d);
      return buf;
    }
  }
  return "?";
}

}  // namespace

Status Session::probe_ssbo(const CmdProbeSsbo& p) {
  auto it = ssbos_.find(p.index);
  uint32_t n = probe_size_B(p.type);
  if (it == ssbos_.end() || p.offset_B > it->second->size_B() || n > it->second->size_B() - p.offset_B)
    return probe_failed("Couldn't map ssbo to verify expected value.");
  uint64_t observed = 0;
  std::memcpy(&observed, it->second->host().data() + p.offset_B, n);
  if (probe_value(p.type, observed, p.bits, p.cmp)) return {};
  // shader_runner names the offset where "SSBO %d" reads as an index.
  return probe_failed(fmt::format("SSBO {} test failed: Reference {} Observed\n  Reference: {}\n  Observed:  {}",
                                  p.offset_B, to_string(p.cmp), probe_text(p.type, p.bits),
                                  probe_text(p.type, observed)));
}

Status Session::probe_atomic_counter(const CmdProbeAtomicCounter& p) {
  auto it = atomic_buffers_.find(p.binding);
  uint64_t at = p.by_buffer ? p.index : uint64_t(p.index) * 4;
  if (it == atomic_buffers_.end() || at + 4 > it->second->size_B())
    return probe_failed("Couldn't map atomic counter to verify expected value.");
  uint32_t observed;
  std::memcpy(&observed, it->second->host().data() + at, 4);
  if (compare(p.value, observed, p.cmp)) return {};
  std::string head = p.by_buffer ? fmt::format("Atomic counter (binding = {}, offset = {}) test failed: Reference {} Observed",
                                               p.binding, p.index, to_string(p.cmp))
                                 : fmt::format("Atomic counter {} test failed: Reference {} Observed", p.index,
                                               to_string(p.cmp));
  return probe_failed(fmt::format("{}\n  Reference: {}\n  Observed:  {}", head, p.value, observed));
}

}  // namespace agx::shadertest
