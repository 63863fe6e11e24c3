// Differential test: random integer and float expressions written as GLSL
// and evaluated in C++ with the same semantics, compiled and run on the
// emulator over 64 invocations of random inputs.
#include <bit>
#include <functional>
#include <random>

#include "compiler/tests/run_helpers.h"

namespace agx::compiler::test {
namespace {

struct Expr {
  std::string glsl;
  std::function<uint32_t(uint32_t, uint32_t, uint32_t)> eval;
};

// Integer expressions over x, y, z (uint).
Expr random_int(std::mt19937& rng, int depth) {
  auto leaf = [&]() -> Expr {
    switch (rng() % 5) {
      case 0: return {"x", [](uint32_t x, uint32_t, uint32_t) { return x; }};
      case 1: return {"y", [](uint32_t, uint32_t y, uint32_t) { return y; }};
      case 2: return {"z", [](uint32_t, uint32_t, uint32_t z) { return z; }};
      default: {
        uint32_t c = rng() % 3 ? rng() % 300 : rng();
        return {std::to_string(c) + "u", [c](uint32_t, uint32_t, uint32_t) { return c; }};
      }
    }
  };
  if (depth == 0 || rng() % 5 == 0) return leaf();
  Expr a = random_int(rng, depth - 1), b = random_int(rng, depth - 1);
  auto A = a.eval, B = b.eval;
  switch (rng() % 15) {
    case 0: return {"(" + a.glsl + " + " + b.glsl + ")", [=](auto x, auto y, auto z) { return A(x, y, z) + B(x, y, z); }};
    case 1: return {"(" + a.glsl + " - " + b.glsl + ")", [=](auto x, auto y, auto z) { return A(x, y, z) - B(x, y, z); }};
    case 2: return {"(" + a.glsl + " * " + b.glsl + ")", [=](auto x, auto y, auto z) { return A(x, y, z) * B(x, y, z); }};
    case 3: return {"(" + a.glsl + " & " + b.glsl + ")", [=](auto x, auto y, auto z) { return A(x, y, z) & B(x, y, z); }};
    case 4: return {"(" + a.glsl + " | " + b.glsl + ")", [=](auto x, auto y, auto z) { return A(x, y, z) | B(x, y, z); }};
    case 5: return {"(" + a.glsl + " ^ " + b.glsl + ")", [=](auto x, auto y, auto z) { return A(x, y, z) ^ B(x, y, z); }};
    case 6: return {"(" + a.glsl + " << (" + b.glsl + " & 31u))", [=](auto x, auto y, auto z) { return A(x, y, z) << (B(x, y, z) & 31); }};
    case 7: return {"(" + a.glsl + " >> (" + b.glsl + " & 31u))", [=](auto x, auto y, auto z) { return A(x, y, z) >> (B(x, y, z) & 31); }};
    case 8: return {"uint(int(" + a.glsl + ") >> int(" + b.glsl + " & 31u))",
                    [=](auto x, auto y, auto z) { return uint32_t(int32_t(A(x, y, z)) >> (B(x, y, z) & 31)); }};
    case 9: return {"min(" + a.glsl + ", " + b.glsl + ")", [=](auto x, auto y, auto z) { return std::min(A(x, y, z), B(x, y, z)); }};
    case 10: return {"uint(max(int(" + a.glsl + "), int(" + b.glsl + ")))",
                     [=](auto x, auto y, auto z) { return uint32_t(std::max(int32_t(A(x, y, z)), int32_t(B(x, y, z)))); }};
    case 11: {
      Expr c = random_int(rng, depth - 1);
      auto C = c.eval;
      return {"(" + a.glsl + " < " + b.glsl + " ? " + c.glsl + " : " + b.glsl + ")",
              [=](auto x, auto y, auto z) { return A(x, y, z) < B(x, y, z) ? C(x, y, z) : B(x, y, z); }};
    }
    case 12: case 13: {
      // Division and remainder by a constant (lower_idiv's multiply form).
      uint32_t c = rng() % 3 ? 1 + rng() % 1000 : std::max<uint32_t>(1, rng());
      std::string cs = std::to_string(c) + "u";
      if (rng() % 2) return {"(" + a.glsl + " / " + cs + ")", [=](auto x, auto y, auto z) { return A(x, y, z) / c; }};
      return {"(" + a.glsl + " % " + cs + ")", [=](auto x, auto y, auto z) { return A(x, y, z) % c; }};
    }
    default: return {"(~" + a.glsl + ")", [=](auto x, auto y, auto z) { return ~A(x, y, z); }};
  }
}

TEST(RandomExpr, IntegerExpressionsMatchCpp) {
  std::mt19937 rng(2024);
  for (int prog = 0; prog < 16; ++prog) {
    std::vector<Expr> exprs;
    for (int k = 0; k < 4; ++k) exprs.push_back(random_int(rng, 4));
    std::string src = "#version 450\nlayout(local_size_x = 64) in;\n"
                      "layout(set = 0, binding = 0) buffer I { uint v[]; };\n"
                      "layout(set = 0, binding = 1) buffer O { uint o[]; };\n"
                      "void main() {\n  uint i = gl_GlobalInvocationID.x;\n"
                      "  uint x = v[i * 3u], y = v[i * 3u + 1u], z = v[i * 3u + 2u];\n";
    for (int k = 0; k < 4; ++k) src += "  o[i * 4u + " + std::to_string(k) + "u] = " + exprs[k].glsl + ";\n";
    src += "}\n";
    auto s = compile(src);
    ASSERT_TRUE(s.ok()) << s.error().message() << "\n" << src;
    std::vector<uint32_t> in(64 * 3);
    for (auto& v : in) v = rng() % 4 ? rng() : rng() % 40;
    Job r;
    r.buffers = {in, std::vector<uint32_t>(64 * 4)};
    auto st = execute(*s, r);
    ASSERT_TRUE(st.ok()) << st.error().message() << "\n" << src;
    for (uint32_t i = 0; i < 64; ++i)
      for (int k = 0; k < 4; ++k) {
        uint32_t want = exprs[k].eval(in[i * 3], in[i * 3 + 1], in[i * 3 + 2]);
        ASSERT_EQ(r.buffers[1][i * 4 + k], want) << "program " << prog << " expr " << k << " lane " << i << ": "
                                                  << exprs[k].glsl;
      }
  }
}

}  // namespace
}  // namespace agx::compiler::test
