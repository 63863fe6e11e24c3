// Differential test: random integer and float expressions written as GLSL
// and evaluated in C++ with the same semantics, compiled and run on the
// emulator over 64 invocations of random inputs (32-bit, 16-bit and 8-bit
// integers).
#include <bit>
#include <cstring>
#include <functional>
#include <random>

#include "compiler/tests/run_helpers.h"

namespace agx::compiler::test {
namespace AGX_UNITY_ID {

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

// 8/16-bit integer expressions over x, y, z (T = uint8_t or uint16_t, the
// signed forms through int8_t/int16_t casts): every result wraps at the
// width, as SPIR-V's arithmetic on 8/16-bit integers does.
template <typename U>
Expr random_small(std::mt19937& rng, int depth, const std::string& t, const std::string& st) {
  using S = std::make_signed_t<U>;
  constexpr uint32_t kMask = (1u << (8 * sizeof(U))) - 1, kShift = 8 * sizeof(U) - 1;
  auto w = [](uint32_t v) { return static_cast<uint32_t>(static_cast<U>(v)); };
  auto sx = [](uint32_t v) { return static_cast<int32_t>(static_cast<S>(static_cast<U>(v))); };
  auto leaf = [&]() -> Expr {
    switch (rng() % 5) {
      case 0: return {"x", [](uint32_t x, uint32_t, uint32_t) { return x; }};
      case 1: return {"y", [](uint32_t, uint32_t y, uint32_t) { return y; }};
      case 2: return {"z", [](uint32_t, uint32_t, uint32_t z) { return z; }};
      default: {
        uint32_t c = (rng() % 3 ? rng() % 20 : rng()) & kMask;
        return {t + "(" + std::to_string(c) + ")", [c](uint32_t, uint32_t, uint32_t) { return c; }};
      }
    }
  };
  if (depth == 0 || rng() % 5 == 0) return leaf();
  Expr a = random_small<U>(rng, depth - 1, t, st), b = random_small<U>(rng, depth - 1, t, st);
  auto A = a.eval, B = b.eval;
  std::string sh = t + "(" + std::to_string(kShift) + ")";
  switch (rng() % 14) {
    case 0: return {"(" + a.glsl + " + " + b.glsl + ")", [=](auto x, auto y, auto z) { return w(A(x, y, z) + B(x, y, z)); }};
    case 1: return {"(" + a.glsl + " - " + b.glsl + ")", [=](auto x, auto y, auto z) { return w(A(x, y, z) - B(x, y, z)); }};
    case 2: return {"(" + a.glsl + " * " + b.glsl + ")", [=](auto x, auto y, auto z) { return w(A(x, y, z) * B(x, y, z)); }};
    case 3: return {"(" + a.glsl + " & " + b.glsl + ")", [=](auto x, auto y, auto z) { return A(x, y, z) & B(x, y, z); }};
    case 4: return {"(" + a.glsl + " | " + b.glsl + ")", [=](auto x, auto y, auto z) { return A(x, y, z) | B(x, y, z); }};
    case 5: return {"(" + a.glsl + " ^ " + b.glsl + ")", [=](auto x, auto y, auto z) { return A(x, y, z) ^ B(x, y, z); }};
    case 6: return {"(" + a.glsl + " << (" + b.glsl + " & " + sh + "))",
                    [=](auto x, auto y, auto z) { return w(A(x, y, z) << (B(x, y, z) & kShift)); }};
    case 7: return {"(" + a.glsl + " >> (" + b.glsl + " & " + sh + "))",
                    [=](auto x, auto y, auto z) { return A(x, y, z) >> (B(x, y, z) & kShift); }};
    case 8: return {t + "(" + st + "(" + a.glsl + ") >> " + st + "(" + b.glsl + " & " + sh + "))",
                    [=](auto x, auto y, auto z) { return w(static_cast<uint32_t>(sx(A(x, y, z)) >> (B(x, y, z) & kShift))); }};
    case 9: return {"min(" + a.glsl + ", " + b.glsl + ")", [=](auto x, auto y, auto z) { return std::min(A(x, y, z), B(x, y, z)); }};
    case 10: return {t + "(max(" + st + "(" + a.glsl + "), " + st + "(" + b.glsl + ")))",
                     [=](auto x, auto y, auto z) { return w(static_cast<uint32_t>(std::max(sx(A(x, y, z)), sx(B(x, y, z))))); }};
    case 11: {
      Expr c = random_small<U>(rng, depth - 1, t, st);
      auto C = c.eval;
      return {"(" + st + "(" + a.glsl + ") < " + st + "(" + b.glsl + ") ? " + c.glsl + " : " + b.glsl + ")",
              [=](auto x, auto y, auto z) { return sx(A(x, y, z)) < sx(B(x, y, z)) ? C(x, y, z) : B(x, y, z); }};
    }
    case 12: {
      uint32_t c = 1 + rng() % kMask;
      std::string cs = t + "(" + std::to_string(c) + ")";
      if (rng() % 2) return {"(" + a.glsl + " / " + cs + ")", [=](auto x, auto y, auto z) { return A(x, y, z) / c; }};
      return {"(" + a.glsl + " % " + cs + ")", [=](auto x, auto y, auto z) { return A(x, y, z) % c; }};
    }
    default: return {"(~" + a.glsl + ")", [=](auto x, auto y, auto z) { return w(~A(x, y, z)); }};
  }
}

template <typename U>
void small_programs(const std::string& t, const std::string& st, uint32_t seed) {
  std::mt19937 rng(seed);
  for (int prog = 0; prog < 8; ++prog) {
    std::vector<Expr> exprs;
    for (int k = 0; k < 4; ++k) exprs.push_back(random_small<U>(rng, 4, t, st));
    std::string src = "#version 450\n#extension GL_EXT_shader_explicit_arithmetic_types : require\n"
                      "layout(local_size_x = 64) in;\n"
                      "layout(set = 0, binding = 0) buffer I { " + t + " v[]; };\n"
                      "layout(set = 0, binding = 1) buffer O { " + t + " o[]; };\n"
                      "void main() {\n  uint i = gl_GlobalInvocationID.x;\n"
                      "  " + t + " x = v[i * 3u], y = v[i * 3u + 1u], z = v[i * 3u + 2u];\n";
    for (int k = 0; k < 4; ++k) src += "  o[i * 4u + " + std::to_string(k) + "u] = " + exprs[k].glsl + ";\n";
    src += "}\n";
    auto s = compile(src);
    ASSERT_TRUE(s.ok()) << s.error().message() << "\n" << src;
    std::vector<U> in(64 * 3);
    for (auto& v : in) v = static_cast<U>(rng() % 4 ? rng() : rng() % 40);
    std::vector<uint32_t> words((in.size() * sizeof(U) + 3) / 4);
    std::memcpy(words.data(), in.data(), in.size() * sizeof(U));
    Job r;
    r.buffers = {words, std::vector<uint32_t>(64 * 4 * sizeof(U) / 4)};
    auto st2 = execute(*s, r);
    ASSERT_TRUE(st2.ok()) << st2.error().message() << "\n" << src;
    std::vector<U> out(64 * 4);
    std::memcpy(out.data(), r.buffers[1].data(), out.size() * sizeof(U));
    for (uint32_t i = 0; i < 64; ++i)
      for (int k = 0; k < 4; ++k) {
        uint32_t want = exprs[k].eval(in[i * 3], in[i * 3 + 1], in[i * 3 + 2]);
        ASSERT_EQ(uint32_t{out[i * 4 + k]}, want) << t << " program " << prog << " expr " << k << " lane " << i << ": "
                                                  << exprs[k].glsl;
      }
  }
}

TEST(RandomExpr, Int16ExpressionsMatchCpp) { small_programs<uint16_t>("uint16_t", "int16_t", 16); }
TEST(RandomExpr, Int8ExpressionsMatchCpp) { small_programs<uint8_t>("uint8_t", "int8_t", 8); }

}  // namespace
}  // namespace agx::compiler::test
