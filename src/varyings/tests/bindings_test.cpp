// Remapping and coefficient-register bindings: the seed's "Ordering of
// remapped slots" and the CF binding words of cmdbuf.xml.
#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <random>

#include "varyings/tests/test_interfaces.h"
#include "varyings/varyings.h"

namespace agx::varyings {
namespace AGX_UNITY_ID {

struct Linked {
  Interface iface;
  VertexOutputLayout layout;
  SlotMap slots;
};

Linked link(Interface iface) {
  Linked k{std::move(iface), {}, {}};
  auto l = layout_vertex_outputs(k.iface);
  EXPECT_TRUE(l.ok()) << l.error().message();
  k.layout = *l;
  auto s = remap(k.layout.output_select, k.layout);
  EXPECT_TRUE(s.ok()) << s.error().message();
  k.slots = *s;
  return k;
}

TEST(Remap, SeedSlotOrder) {
  Interface i = test::every_kind();
  i.fragcoord_z = true;
  Linked k = link(i);
  // 0 W, 1 Z, 2.. 32-bit words in vertex output order, then the pairs.
  ASSERT_EQ(k.slots.slots.size(), 2u + 10u + 6u);
  EXPECT_EQ(k.slots.slots[0].source, SlotSource::w);
  EXPECT_EQ(k.slots.slots[1].source, SlotSource::z);
  EXPECT_EQ(k.slots.num_32bit_slots, 12u);
  EXPECT_EQ(k.slots.num_16bit_pairs, 6u);
  for (unsigned s = 2; s < 12; ++s) {
    EXPECT_EQ(k.slots.slots[s].source, SlotSource::varying32);
    EXPECT_EQ(k.slots.slots[s].vertex_output, 4 + (s - 2));  // the words follow position
  }
  for (unsigned s = 12; s < 18; ++s) {
    EXPECT_EQ(k.slots.slots[s].source, SlotSource::pair16);
    EXPECT_EQ(k.slots.slots[s].vertex_output, 14 + (s - 12));
  }
  // Slot 14 is f's second pair: component z (and an unused high half).
  EXPECT_EQ(k.iface.varyings[k.slots.slots[14].varying].name, "f");
  EXPECT_EQ(k.slots.slots[14].component, 2u);
}

TEST(Remap, ZIsOptionalWIsNot) {
  Linked k = link(test::every_kind());
  EXPECT_FALSE(k.slots.has_z);
  EXPECT_EQ(k.slots.num_32bit_slots, 11u);
  EXPECT_EQ(k.slots.slots[1].source, SlotSource::varying32);
  auto none = remap(0, *layout_vertex_outputs(Interface{}));
  ASSERT_TRUE(none.ok());
  EXPECT_EQ(none->slots.size(), 1u);
  EXPECT_EQ(none->num_32bit_slots, 1u);
}

TEST(Remap, OutputSelectMustMatchTheLayout) {
  Linked k = link(test::every_kind());
  auto no_psiz = remap(k.layout.output_select & ~(1u << 18), k.layout);
  ASSERT_FALSE(no_psiz.ok());
  EXPECT_NE(no_psiz.error().message().find("point size"), std::string::npos);
  auto extra_plane = remap(k.layout.output_select | (1u << 5), k.layout);
  ASSERT_FALSE(extra_plane.ok());
  EXPECT_NE(extra_plane.error().message().find("clip distance plane 5 is set"), std::string::npos)
      << extra_plane.error().message();
  auto stray = remap(k.layout.output_select | (1u << 17), k.layout);
  ASSERT_FALSE(stray.ok());
  EXPECT_NE(stray.error().message().find("outside every field"), std::string::npos);
}

TEST(Bindings, CompileTimeWordsInSlotOrder) {
  Interface i = test::every_kind();
  i.fragcoord_z = true;
  Linked k = link(i);
  auto b = compile_time_bindings(k.slots, k.iface, 1);
  ASSERT_TRUE(b.ok()) << b.error().message();
  auto words = pack_bindings(*b);
  ASSERT_TRUE(words.ok());
  // Header: 12 32-bit slots; 1 (W) + 1 (Z) + 4+2+1+3 + 2+3+1+4 = 22 registers.
  EXPECT_EQ((*words)[0], 0x160Cu);
  EXPECT_EQ((*words)[1], 0x0000000Cu);  // W: 1 component, Linear, slot 0, cf0
  EXPECT_EQ((*words)[2], 0x0001012Cu);  // Z: Linear, source Fragcoord Z, slot 1, cf1
  EXPECT_EQ((*words)[3], 0x0002021Fu);  // a: vec4 Perspective, slot 2, cf2
  EXPECT_EQ((*words)[5], 0x00080818u);  // c: vec1 Flat vertex 1 (6), slot 8, cf8
  EXPECT_EQ((*words)[8], 0x000E0D1Eu);  // f: vec3 Perspective, pair slot 13, cf14..16
  EXPECT_EQ((*words)[9], 0x00110F18u);  // g: 16-bit vec1 Flat vertex 1, pair slot 15, cf17
  ASSERT_EQ(b->bindings.size(), 10u);
}

TEST(Bindings, PackUnpackRoundTrip) {
  Linked k = link(test::every_kind());
  auto b = compile_time_bindings(k.slots, k.iface);
  ASSERT_TRUE(b.ok());
  auto words = *pack_bindings(*b);
  auto back = unpack_bindings(words);
  ASSERT_TRUE(back.ok()) << back.error().message();
  EXPECT_EQ(back->num_32bit_slots, b->num_32bit_slots);
  EXPECT_EQ(back->num_cf, b->num_cf);
  ASSERT_EQ(back->bindings.size(), b->bindings.size());
  for (size_t i = 0; i < words.size() - 1; ++i) {
    EXPECT_EQ(back->bindings[i].base_cf, b->bindings[i].base_cf);
    EXPECT_EQ(back->bindings[i].base_slot, b->bindings[i].base_slot);
    EXPECT_EQ(back->bindings[i].shade_model, b->bindings[i].shade_model);
    EXPECT_EQ(back->bindings[i].source, b->bindings[i].source);
    EXPECT_EQ(back->bindings[i].components, b->bindings[i].components);
  }
  EXPECT_EQ(*pack_bindings(*back), words);
  EXPECT_TRUE(validate(*back, k.slots, k.iface).ok());
}

void expect_invalid(const CfBindings& b, const Linked& k, std::string_view what) {
  Status s = validate(b, k.slots, k.iface);
  ASSERT_FALSE(s.ok()) << what;
  EXPECT_NE(s.error().message().find(what), std::string::npos) << s.error().message();
}

TEST(Bindings, BadBindingsAreClearErrors) {
  Linked k = link(test::every_kind());
  CfBindings good = *compile_time_bindings(k.slots, k.iface);

  CfBindings past_file = good;
  past_file.num_cf = 255;
  past_file.bindings.push_back({4, ShadeModel::kPerspective, CoefficientSource::kVarying, 1, 253});
  expect_invalid(past_file, k, "past the coefficient register file");

  CfBindings past_header = good;
  past_header.bindings.back().base_cf = good.num_cf;
  expect_invalid(past_header, k, "past the " + std::to_string(good.num_cf) + " coefficient registers");

  // g is a 16-bit flat pair (slot 14 here); binding it perspective mixes modes.
  CfBindings mixed = good;
  for (CfBinding& c : mixed.bindings)
    if (c.base_slot == 14) c.shade_model = ShadeModel::kPerspective;
  expect_invalid(mixed, k, "cannot mix interpolation modes");

  CfBindings overlap = good;
  overlap.bindings[2].base_cf = 1;
  expect_invalid(overlap, k, "already bound");

  CfBindings cross = good;  // slot 10 (d.z) as a vec4 runs into the pairs at 11
  cross.bindings.push_back({4, ShadeModel::kLinear, CoefficientSource::kVarying, 10, good.num_cf});
  cross.num_cf += 4;
  expect_invalid(cross, k, "cross from 32-bit slots into 16-bit pairs");

  CfBindings zero_slots = good;
  zero_slots.num_32bit_slots = 0;
  expect_invalid(zero_slots, k, "W is always a slot");

  CfBindings bary = good;
  bary.bindings.push_back({3, ShadeModel::kPerspective, CoefficientSource::kBarycentricCoord, 0, good.num_cf});
  bary.num_cf += 3;
  expect_invalid(bary, k, "vec2 only");

  CfBindings w_persp = good;
  w_persp.bindings[0].shade_model = ShadeModel::kPerspective;
  expect_invalid(w_persp, k, "W (slot 0) cannot be perspective-divided");
}

TEST(Bindings, UnpackRejectsBadWords) {
  EXPECT_FALSE(unpack_bindings({}).ok());
  std::vector<uint32_t> words = {0x0101, 0x00000010};  // shade model 4: not in the enum
  auto r = unpack_bindings(words);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message().find("binding 0"), std::string::npos) << r.error().message();
}

Interface random_interface(std::mt19937& rng) {
  Interface i;
  unsigned n = 1 + rng() % 12;
  for (unsigned v = 0; v < n; ++v)
    i.varyings.push_back({"v" + std::to_string(v), unsigned(1 + rng() % 4), rng() % 3 ? 32u : 16u,
                          Interp(rng() % 3)});
  i.fragcoord_z = rng() % 2;
  i.point_size = rng() % 2;
  return i;
}

TEST(Bindings, RandomSeparableMappingsRoundTrip) {
  std::mt19937 rng(6);
  for (int iter = 0; iter < 500; ++iter) {
    Linked k = link(random_interface(rng));
    // Place W, every varying, Z (when read) and a point coord at random,
    // non-overlapping registers. Item 0 is W, 1..n the varyings, then the
    // point coord and Z.
    size_t n = k.iface.varyings.size();
    std::vector<unsigned> size(n + 1, 1);
    for (size_t v = 0; v < n; ++v) size[v + 1] = k.iface.varyings[v].components;
    size.push_back(2);                      // point coord
    if (k.slots.has_z) size.push_back(1);  // Z
    std::vector<unsigned> order(size.size());
    std::iota(order.begin(), order.end(), 0);
    std::shuffle(order.begin(), order.end(), rng);
    std::vector<unsigned> base(order.size());
    unsigned cf = rng() % 8;
    for (unsigned item : order) {
      base[item] = cf;
      cf += size[item] + rng() % 3;
    }
    std::vector<SeparableEntry> entries;
    for (size_t v = 0; v < n; ++v) entries.push_back({int(v), CoefficientSource::kVarying, base[v + 1]});
    entries.push_back({-1, CoefficientSource::kPointCoord, base[n + 1], 2});
    if (k.slots.has_z) entries.push_back({-1, CoefficientSource::kFragcoordZ, base[n + 2]});
    std::shuffle(entries.begin(), entries.end(), rng);
    unsigned provoking = rng() % 3;
    auto b = separable_bindings(k.slots, k.iface, entries, base[0], provoking);
    ASSERT_TRUE(b.ok()) << b.error().message();
    auto back = unpack_bindings(*pack_bindings(*b));
    ASSERT_TRUE(back.ok());
    ASSERT_TRUE(validate(*back, k.slots, k.iface).ok());
    auto contents = coefficient_contents(*back, k.slots);
    ASSERT_TRUE(contents.ok());
    EXPECT_EQ(k.slots.slots[(*contents)[base[0]].slot].source, SlotSource::w);
    EXPECT_EQ((*contents)[base[n + 1]].source, CoefficientSource::kPointCoord);
    EXPECT_EQ((*contents)[base[n + 1] + 1].source, CoefficientSource::kPointCoord);
    if (k.slots.has_z) {
      EXPECT_EQ((*contents)[base[n + 2]].source, CoefficientSource::kFragcoordZ);
    }
    for (size_t v = 0; v < k.iface.varyings.size(); ++v) {
      const Varying& var = k.iface.varyings[v];
      for (unsigned c = 0; c < var.components; ++c) {
        const CfContent& got = (*contents)[base[v + 1] + c];
        ASSERT_TRUE(got.bound);
        const Slot& s = k.slots.slots[got.slot];
        EXPECT_EQ(s.varying, int(v)) << "iteration " << iter;
        EXPECT_EQ(s.component + got.half, c) << "iteration " << iter;
        EXPECT_EQ(is_flat(got.shade_model), var.interp == Interp::flat);
        if (var.interp == Interp::flat) {
          EXPECT_EQ(provoking_vertex(got.shade_model), provoking);
        }
      }
    }
  }
}

}  // namespace
}  // namespace agx::varyings
