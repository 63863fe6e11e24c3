// Loops left from inside a switch (continue / break / return of an
// enclosing loop from a case): each kernel's body is one C++ function that
// is both compiled here (the reference) and, stringified, the GLSL
// function every thread runs on its own input, with inputs that make the
// threads of one SIMD group take different cases.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>

#include "compiler/tests/buffer_words.h"
#include "compiler/tests/run_helpers.h"

// The bodies fall through between cases on purpose, and GLSL has no
// [[fallthrough]] to say so.
#pragma GCC diagnostic ignored "-Wimplicit-fallthrough"

namespace agx::compiler::test {
namespace AGX_UNITY_ID {

using uint = uint32_t;

void check_kernel(const char* body, uint (*ref)(uint), uint32_t seed) {
  std::string src = std::string(R"(#version 450
layout(local_size_x = 32) in;
layout(set = 0, binding = 0) buffer A { uint a[]; };
uint f(uint x) )") + body + R"(
void main() {
  uint i = gl_GlobalInvocationID.x;
  a[i] = f(a[i]);
})";
  Shader s = must_compile(src);
  ASSERT_FALSE(s.code.empty());
  Job r;
  r.buffers = {random_words(64, seed, 1000)};
  r.buffers[0][0] = 0;
  r.buffers[0][1] = 1;
  r.groups = {2, 1, 1};
  auto in = r.buffers[0];
  ASSERT_OK(execute(s, r));
  for (size_t i = 0; i < in.size(); ++i) EXPECT_EQ(r.buffers[0][i], ref(in[i])) << "thread " << i << " x=" << in[i];
}

// Defines namespace Name with the reference f and the GLSL text of its body.
#define SWITCH_KERNEL(Name, seed, ...)                                   \
  namespace Name {                                                      \
  uint f(uint x) __VA_ARGS__                                            \
  constexpr const char* kBody = #__VA_ARGS__;                           \
  }                                                                     \
  TEST(SwitchLoop, Name) { check_kernel(Name::kBody, Name::f, seed); }

// continue in a case, per thread different cases; default and fall-through.
SWITCH_KERNEL(ContinueInCase, 1, {
  uint s = 0u;
  for (uint k = 0u; k < 12u; ++k) {
    switch ((x + k * 7u) % 5u) {
      case 0u: s += 1u; continue;
      case 1u: s += 10u;
      case 2u: s += 100u; break;
      case 3u: if ((x & k) != 0u) continue; s += 1000u; break;
      default: s *= 3u; break;
    }
    s += k;
  }
  return s;
})

// return from a case inside a loop (SPIRV-Tools' merge-return makes it a
// break of the loop from inside the switch).
SWITCH_KERNEL(ReturnInCase, 2, {
  uint s = x;
  for (uint k = 0u; k < 10u; ++k) {
    switch ((s + k) % 4u) {
      case 0u: s += 3u; break;
      case 1u: if (s > 900u) return s * 2u; s += 17u; break;
      case 2u: return s + k * 1000u;
      default: s ^= k; break;
    }
    s += 1u;
  }
  return s;
})

// A switch in the inner of two loops: continue the inner loop from a case,
// returns leave both.
SWITCH_KERNEL(NestedLoops, 3, {
  uint s = 0u;
  for (uint j = 0u; j < 4u; ++j) {
    for (uint k = 0u; k < 6u; ++k) {
      switch ((x >> j) % 3u + k) {
        case 1u: s += j; continue;
        case 3u: s += 5u; break;
        case 7u: if (s > 40u) return s + 7000u; break;
        default: s += 2u; break;
      }
      s += 1u;
    }
    s *= 2u;
  }
  return s;
})

// A switch inside a switch inside a loop: continue from the inner one.
SWITCH_KERNEL(SwitchInSwitch, 4, {
  uint s = 0u;
  for (uint k = 0u; k < 8u; ++k) {
    switch ((x + k) % 3u) {
      case 0u:
        switch ((x / 3u + k) % 4u) {
          case 0u: s += 11u; continue;
          case 1u: s += 13u; break;
          case 2u: return s + 500u * k;
          default: s += 1u;
        }
        s += 2u;
        break;
      case 1u: s += 3u; continue;
      default: s += 4u; break;
    }
    s *= 3u;
    s %= 100000u;
  }
  return s;
})

// continue inside a loop's continue-less body with a do-while (the
// continue target is the condition block).
SWITCH_KERNEL(DoWhileContinue, 5, {
  uint s = 0u, k = 0u;
  do {
    k++;
    switch ((x * k) % 3u) {
      case 0u: s += 1u; continue;
      case 1u: s += 10u; break;
      default: break;
    }
    s += k;
  } while (k < 9u);
  return s;
})

}  // namespace
}  // namespace agx::compiler::test
