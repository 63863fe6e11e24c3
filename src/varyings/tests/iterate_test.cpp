// Coefficient setup and iteration against a plain barycentric reference.
//
// Tolerance (stated once, used by every random test): setup fits each plane
// in double and rounds A, B, C to fp32 (relative error <= u = 2^-24 each);
// iter evaluates fma(x, A, fma(y, B, C)) with two more roundings. With
// S = |x*A| + |y*B| + |C| the error of a linear value is <= 3u*S + O(u^2);
// we allow 4u*S. A perspective value N/D adds the error of D scaled by
// |N/D|, divided by |D|, plus the division's rounding: we allow
// (4u*S_N + |q|*4u*S_D) / |D| * 1.01 + 2u*|q|. A 16-bit result is the fp32
// result rounded to nearest-even half: where the reference lies farther
// than the fp32 tolerance from a half rounding boundary it must equal the
// reference rounded to half exactly, elsewhere a half within the
// tolerance's rounded bounds.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstring>
#include <random>

#include "util/half.h"
#include "varyings/varyings.h"

namespace agx::varyings {
namespace AGX_UNITY_ID {

constexpr double kU = 1.0 / (1 << 24);

struct Linkage {
  Interface iface;
  VertexOutputLayout layout;
  SlotMap slots;
  CfBindings b;
  unsigned cf(const char* name) const {  // base register of a varying
    for (const CfBinding& c : b.bindings)
      if (c.source == CoefficientSource::kVarying && c.base_slot > 0 &&
          iface.varyings[slots.slots[c.base_slot].varying].name == name)
        return c.base_cf;
    ADD_FAILURE() << name;
    return 0;
  }
};

Linkage make_setup(unsigned provoking) {
  Linkage s;
  s.iface.varyings = {{"s", 1, 32, Interp::smooth}, {"l", 1, 32, Interp::linear},
                      {"f", 1, 32, Interp::flat},   {"h", 2, 16, Interp::smooth},
                      {"hl", 1, 16, Interp::linear}};
  s.iface.fragcoord_z = true;
  s.layout = *layout_vertex_outputs(s.iface);
  s.slots = *remap(s.layout.output_select, s.layout);
  s.b = *compile_time_bindings(s.slots, s.iface, provoking);
  return s;
}

uint32_t fbits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}

struct Tri {
  Triangle t;
  std::array<std::vector<uint32_t>, 3> out;
  std::array<std::array<double, 5>, 3> val;  // s, l, f, h.x, h.y (hl = h.x reused below)
  std::array<double, 3> hl;
};

Tri random_triangle(std::mt19937& rng, const Linkage& s) {
  std::uniform_real_distribution<double> pos(0, 300), w(0.25, 4), z(0, 1), v(-100, 100);
  Tri t;
  for (;;) {
    for (auto& vx : t.t.v) vx = {pos(rng), pos(rng), z(rng), w(rng)};
    const auto& p = t.t.v;
    double area2 = (p[1].x_px - p[0].x_px) * (p[2].y_px - p[0].y_px) -
                   (p[2].x_px - p[0].x_px) * (p[1].y_px - p[0].y_px);
    if (std::abs(area2) > 100) break;
  }
  for (unsigned i = 0; i < 3; ++i) {
    t.out[i].assign(s.layout.output_count, 0);
    for (unsigned k = 0; k < 3; ++k) {
      float f = float(v(rng));
      t.val[i][k] = f;
      t.out[i][s.layout.find_varying(int(k))->index] = fbits(f);
    }
    uint16_t hx = float_to_half(float(v(rng))), hy = float_to_half(float(v(rng)));
    uint16_t hl = float_to_half(float(v(rng)));
    t.val[i][3] = half_to_double(hx);
    t.val[i][4] = half_to_double(hy);
    t.hl[i] = half_to_double(hl);
    t.out[i][s.layout.find_varying(3)->index] = uint32_t(hx) | uint32_t(hy) << 16;
    t.out[i][s.layout.find_varying(4)->index] = hl;
    t.t.outputs[i] = t.out[i];
  }
  return t;
}

std::array<double, 3> barycentric(const Triangle& t, double x, double y) {
  const auto& p = t.v;
  double area2 = (p[1].x_px - p[0].x_px) * (p[2].y_px - p[0].y_px) -
                 (p[2].x_px - p[0].x_px) * (p[1].y_px - p[0].y_px);
  auto edge = [&](int a, int b) {
    return (p[b].x_px - p[a].x_px) * (y - p[a].y_px) - (p[b].y_px - p[a].y_px) * (x - p[a].x_px);
  };
  return {edge(1, 2) / area2, edge(2, 0) / area2, edge(0, 1) / area2};
}

double sum_s(const Coefficients& c, SamplePoint p) {
  double x = float(p.px % 32) + p.dx, y = float(p.py % 32) + p.dy;
  return std::abs(x * c.a) + std::abs(y * c.b) + std::abs(c.c);
}

struct Checker {
  int checked = 0;
  void linear(const Coefficients& c, SamplePoint p, double ref) {
    double tol = 4 * kU * sum_s(c, p);
    ASSERT_NEAR(iterate(c, p), ref, tol);
    ++checked;
  }
  double perspective_tol(const Coefficients& c, const Coefficients& w, SamplePoint p, double q,
                         double den) {
    return (4 * kU * sum_s(c, p) + std::abs(q) * 4 * kU * sum_s(w, p)) / std::abs(den) * 1.01 +
           2 * kU * std::abs(q);
  }
  void perspective(const Coefficients& c, const Coefficients& w, SamplePoint p, double q,
                   double den) {
    ASSERT_NEAR(iterate_perspective(c, w, p), q, perspective_tol(c, w, p, q, den));
    ++checked;
  }
  void half(uint16_t got, double ref, double tol) {
    uint16_t lo = double_to_half(ref - tol), hi = double_to_half(ref + tol);
    if (lo == hi) {
      ASSERT_EQ(got, double_to_half(ref)) << ref;
    } else {  // the tolerance spans rounding boundaries: any half within it
      double g = half_to_double(got);
      ASSERT_TRUE(g >= half_to_double(lo) && g <= half_to_double(hi))
          << ref << " tol " << tol << " got " << g;
    }
    ++checked;
  }
};

// 4x MSAA positions used only as test points inside the pixel.
constexpr std::array<float, 2> kSamples[] = {
    {0.375f, 0.125f}, {0.875f, 0.375f}, {0.125f, 0.625f}, {0.625f, 0.875f}};

SamplePoint random_point(std::mt19937& rng, unsigned px, unsigned py, int mode) {
  if (mode == 0) return pixel_centre(px, py);
  if (mode == 1) return sample_point(px, py, kSamples[rng() % 4]);
  return centroid_point(px, py, kSamples, uint32_t(rng() % 16));
}

TEST(Iterate, MatchesBarycentricReferenceOnRandomTriangles) {
  std::mt19937 rng(62);
  Checker check;
  for (int tri_index = 0; tri_index < 4000; ++tri_index) {
    unsigned provoking = tri_index % 3;
    static const Linkage setups[3] = {make_setup(0), make_setup(1), make_setup(2)};
    const Linkage& s = setups[provoking];
    Tri t = random_triangle(rng, s);
    for (int point = 0; point < 6; ++point) {
      // A pixel whose evaluation point lies inside the triangle.
      std::uniform_real_distribution<double> u01(0, 1);
      double l1 = u01(rng), l2 = u01(rng);
      if (l1 + l2 > 1) l1 = 1 - l1, l2 = 1 - l2;
      double x = t.t.v[0].x_px + l1 * (t.t.v[1].x_px - t.t.v[0].x_px) + l2 * (t.t.v[2].x_px - t.t.v[0].x_px);
      double y = t.t.v[0].y_px + l1 * (t.t.v[1].y_px - t.t.v[0].y_px) + l2 * (t.t.v[2].y_px - t.t.v[0].y_px);
      unsigned px = unsigned(x), py = unsigned(y);
      SamplePoint p = random_point(rng, px, py, point % 3);
      double ex = double(px / 32 * 32) + double(float(px % 32) + p.dx);
      double ey = double(py / 32 * 32) + double(float(py % 32) + p.dy);
      auto lam = barycentric(t.t, ex, ey);
      if (lam[0] < 0 || lam[1] < 0 || lam[2] < 0) continue;
      auto regs = setup_coefficients(t.t, s.slots, s.b, px / 32, py / 32);
      ASSERT_TRUE(regs.ok()) << regs.error().message();
      const Coefficients& w = (*regs)[0];
      double den = 0;
      for (int i = 0; i < 3; ++i) den += lam[i] / t.t.v[i].w;
      auto persp = [&](auto value) {
        double n = 0;
        for (int i = 0; i < 3; ++i) n += lam[i] * value(i) / t.t.v[i].w;
        return n / den;
      };
      auto lin = [&](auto value) {
        double n = 0;
        for (int i = 0; i < 3; ++i) n += lam[i] * value(i);
        return n;
      };
      check.linear((*regs)[1], p, lin([&](int i) { return t.t.v[i].z; }));
      check.perspective((*regs)[s.cf("s")], w, p, persp([&](int i) { return t.val[i][0]; }), den);
      check.linear((*regs)[s.cf("l")], p, lin([&](int i) { return t.val[i][1]; }));
      const Coefficients& f = (*regs)[s.cf("f")];
      ASSERT_EQ(f.a, 0.0f);
      ASSERT_EQ(f.b, 0.0f);
      ASSERT_EQ(iterate(f, p), float(t.val[provoking][2]));  // the provoking vertex, exactly
      for (unsigned c = 0; c < 2; ++c) {
        const Coefficients& h = (*regs)[s.cf("h") + c];
        double q = persp([&](int i) { return t.val[i][3 + c]; });
        check.half(iterate_perspective_f16(h, w, p), q, check.perspective_tol(h, w, p, q, den));
      }
      const Coefficients& hl = (*regs)[s.cf("hl")];
      double ql = lin([&](int i) { return t.hl[i]; });
      check.half(iterate_f16(hl, p), ql, 4 * kU * sum_s(hl, p));
      if (HasFatalFailure()) return;
    }
  }
  EXPECT_GT(check.checked, 40000);
}

TEST(Iterate, PlaneValueSitsAtTheTileCorner) {
  // v = 2x + 3y + 1 (a linear varying); tile (1, 2) has its corner at
  // (32, 64), where v = 257; pixel (33, 70)'s centre is (1.5, 6.5) in it.
  Linkage s = make_setup(0);
  Triangle t;
  t.v = {ScreenVertex{0, 0, 0, 1}, ScreenVertex{100, 0, 0, 1}, ScreenVertex{0, 100, 0, 1}};
  std::array<std::vector<uint32_t>, 3> out;
  unsigned l = s.layout.find_varying(1)->index;
  for (int i = 0; i < 3; ++i) {
    out[i].assign(s.layout.output_count, 0);
    out[i][l] = fbits(float(2 * t.v[i].x_px + 3 * t.v[i].y_px + 1));
    t.outputs[i] = out[i];
  }
  auto regs = setup_coefficients(t, s.slots, s.b, 1, 2);
  ASSERT_TRUE(regs.ok());
  Coefficients c = load_coefficients((*regs)[s.cf("l")]);  // ldcf: the raw <A, B, C>
  EXPECT_EQ(c.a, 2.0f);
  EXPECT_EQ(c.b, 3.0f);
  EXPECT_EQ(c.c, 257.0f);
  EXPECT_EQ(iterate(c, pixel_centre(33, 70)), 279.5f);
  EXPECT_EQ((*regs)[0].c, 1.0f);  // W register: 1/w = 1 everywhere
}

TEST(Iterate, FlatWordsKeepTheirBits) {
  // 0xffb7ffb8, the low word of a double (or an integer), reads as a
  // signalling NaN: a flat binding hands it on unchanged from the
  // provoking vertex (2 here).
  Linkage s = make_setup(2);
  Triangle t;
  t.v = {ScreenVertex{0, 0, 0, 1}, ScreenVertex{100, 0, 0, 1}, ScreenVertex{0, 100, 0, 1}};
  std::array<std::vector<uint32_t>, 3> out;
  const unsigned f = s.layout.find_varying(2)->index;
  for (uint32_t i = 0; i < 3; ++i) {
    out[i].assign(s.layout.output_count, 0);
    out[i][f] = i == 2 ? 0xffb7ffb8u : i;
    t.outputs[i] = out[i];
  }
  auto regs = setup_coefficients(t, s.slots, s.b, 0, 0);
  ASSERT_TRUE(regs.ok()) << regs.error().message();
  EXPECT_EQ(std::bit_cast<uint32_t>(load_coefficients((*regs)[s.cf("f")]).c), 0xffb7ffb8u);
}

// Point coordinates and the primitive ID, bound with separable_bindings:
// an 8-pixel sprite centred at (40, 20) in tile (1, 0). Pixel (37, 17)'s
// centre is 2.5 left of and above the centre: s = t = 0.5 - 2.5 / 8 with
// t = 0 on the top edge (UV=01), t = 0.5 + 2.5 / 8 from the bottom (UV=10).
TEST(Iterate, PointCoordAndPrimitiveIdSources) {
  Linkage s = make_setup(0);
  const SeparableEntry entries[] = {{-1, CoefficientSource::kPointCoord, 1, 2},
                                    {-1, CoefficientSource::kPrimitiveId, 3, 0}};
  auto b = separable_bindings(s.slots, s.iface, entries, 0, 0);
  ASSERT_TRUE(b.ok()) << b.error().message();
  std::vector<uint32_t> out(s.layout.output_count, 0);
  Triangle t;
  t.v = {ScreenVertex{36, 16, 0, 1}, ScreenVertex{44, 16, 0, 1}, ScreenVertex{36, 24, 0, 1}};
  t.outputs = {out, out, out};
  t.primitive_id = 77;
  t.sprite = PointSprite{40, 20, 8, true};
  auto regs = setup_coefficients(t, s.slots, *b, 1, 0);
  ASSERT_TRUE(regs.ok()) << regs.error().message();
  const SamplePoint p = pixel_centre(37, 17);
  EXPECT_EQ(iterate((*regs)[1], p), 0.1875f);
  EXPECT_EQ(iterate((*regs)[2], p), 0.1875f);
  EXPECT_EQ(iterate((*regs)[1], pixel_centre(43, 23)), 0.9375f);  // the last pixel
  EXPECT_EQ(std::bit_cast<uint32_t>((*regs)[3].c), 77u);          // the ID's bits, flat
  EXPECT_EQ((*regs)[3].a, 0.0f);
  t.sprite->t_zero_at_top = false;
  regs = setup_coefficients(t, s.slots, *b, 1, 0);
  ASSERT_TRUE(regs.ok());
  EXPECT_EQ(iterate((*regs)[1], p), 0.1875f);
  EXPECT_EQ(iterate((*regs)[2], p), 0.8125f);
  // Not a point: the point coordinate is (0, 0).
  t.sprite.reset();
  regs = setup_coefficients(t, s.slots, *b, 1, 0);
  ASSERT_TRUE(regs.ok());
  EXPECT_EQ(iterate((*regs)[1], p), 0.0f);
  EXPECT_EQ(iterate((*regs)[2], p), 0.0f);
  t.sprite = PointSprite{40, 20, 0, true};
  regs = setup_coefficients(t, s.slots, *b, 1, 0);
  ASSERT_FALSE(regs.ok());
  EXPECT_NE(regs.error().message().find("point sprite of size 0"), std::string::npos) << regs.error().message();
}

TEST(Iterate, CentroidIsTheCentreWhenFullyCovered) {
  SamplePoint all = centroid_point(3, 4, kSamples, 0xF);
  EXPECT_EQ(all.dx, 0.5f);
  EXPECT_EQ(all.dy, 0.5f);
  SamplePoint part = centroid_point(3, 4, kSamples, 0b0100);
  EXPECT_EQ(part.dx, 0.125f);
  EXPECT_EQ(part.dy, 0.625f);
}

TEST(Iterate, BadTrianglesAreClearErrors) {
  Linkage s = make_setup(0);
  std::vector<uint32_t> out(s.layout.output_count, 0);
  Triangle t;
  t.v = {ScreenVertex{0, 0, 0, 1}, ScreenVertex{10, 10, 0, 1}, ScreenVertex{20, 20, 0, 1}};
  t.outputs = {out, out, out};
  auto flat = setup_coefficients(t, s.slots, s.b, 0, 0);
  ASSERT_FALSE(flat.ok());
  EXPECT_NE(flat.error().message().find("degenerate"), std::string::npos);
  t.v[2] = {0, 20, 0, -1};
  auto behind = setup_coefficients(t, s.slots, s.b, 0, 0);
  ASSERT_FALSE(behind.ok());
  EXPECT_NE(behind.error().message().find("vertex 2: w = -1"), std::string::npos);
  t.v[2].w = 1;
  std::vector<uint32_t> short_out(3, 0);
  t.outputs[1] = short_out;
  auto missing = setup_coefficients(t, s.slots, s.b, 0, 0);
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.error().message().find("vertex 1 has 3 vertex outputs"), std::string::npos)
      << missing.error().message();
}

}  // namespace
}  // namespace agx::varyings
