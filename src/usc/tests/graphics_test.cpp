// Graphics instructions through the GraphicsHook: the emulator reads the
// register operands of every lane as the ISA decodes them, hands one
// request per SIMD group with the exec mask, and writes the hook's results
// to the destination registers of the active lanes only.
#include <gtest/gtest.h>

#include <vector>

#include "helpers.h"
#include "usc/graphics.h"

namespace agx::usc::test {
namespace AGX_UNITY_ID {

using isa::Opcode;

constexpr uint32_t kExec = 0x5A5AF00Fu;
bool active(unsigned lane) { return (kExec >> lane) & 1; }

// Records every request; iterate and ld_tile return 1000 * k + lane (+ a
// per-instruction base) for component k.
class Recorder : public GraphicsHook {
 public:
  Status iterate(IterRequest& r) override {
    iters.push_back(r);
    for (unsigned k = 0; k < r.components; ++k)
      for (unsigned l = 0; l < kLanes; ++l) r.values[k][l] = base + 1000 * k + l;
    return result();
  }
  Status store_varying(const VaryingStore& s) override {
    varyings.push_back(s);
    return result();
  }
  Status access_tile(TileAccess& t) override {
    tiles.push_back(t);
    if (t.load)
      for (unsigned k = 0; k < 4; ++k)
        for (unsigned l = 0; l < kLanes; ++l) t.values[k][l] = base + 1000 * k + l;
    return result();
  }
  Status emit_depth_stencil(const DepthStencilEmit& e) override {
    zs.push_back(e);
    return result();
  }
  Status update_sample_mask(const SampleMaskUpdate& m) override {
    masks.push_back(m);
    return result();
  }
  Status order_pixels(const PixelOrder& p) override {
    orders.push_back(p);
    return result();
  }
  Status result() { return fail ? Status(Error::unsupported("tilebuffer not bound")) : Status(); }

  uint32_t base = 0;
  bool fail = false;
  std::vector<IterRequest> iters;
  std::vector<VaryingStore> varyings;
  std::vector<TileAccess> tiles;
  std::vector<DepthStencilEmit> zs;
  std::vector<SampleMaskUpdate> masks;
  std::vector<PixelOrder> orders;
};

struct Outcome {
  Core before, after;
  Status status;
};

Outcome run_with(Recorder& hook, const std::vector<uint8_t>& code, uint32_t seed = 7) {
  Memories mem;
  mem.graphics = &hook;
  Outcome r;
  r.before = random_core(seed, true);
  r.before.exec = kExec;
  r.after = r.before;
  r.status = run_code(code, r.after, mem);
  return r;
}

uint16_t half(const Core& c, unsigned h, unsigned lane) { return c.r16(h, lane); }

TEST(Graphics, IterWritesEachComponentToActiveLanesOnly) {
  // iter r8_r9_r10, cf5, center (Dt = 1: 32-bit; count 3).
  auto code = enc(Opcode::iter, {{"Dt", 1}, {"D", 16}, {"count", 3}, {"I", 5}});
  Recorder hook;
  hook.base = 0x40000000u;
  Outcome r = run_with(hook, code);
  ASSERT_TRUE(r.status.ok()) << r.status.error().message();
  ASSERT_EQ(hook.iters.size(), 1u);
  const IterRequest& q = hook.iters[0];
  EXPECT_EQ(q.op, Opcode::iter);
  EXPECT_EQ(q.pc, 0u);
  EXPECT_EQ(q.active, kExec);
  EXPECT_FALSE(q.cf.per_lane);
  EXPECT_EQ(q.cf.imm, 5u);
  EXPECT_EQ(q.components, 3u);
  EXPECT_TRUE(q.dest32);
  EXPECT_FALSE(q.perspective);
  EXPECT_EQ(q.interpolation, Interpolation::center);
  for (unsigned k = 0; k < 3; ++k)
    for (unsigned l = 0; l < kLanes; ++l) {
      uint32_t want = active(l) ? hook.base + 1000 * k + l : r.before.r[8 + k][l];
      EXPECT_EQ(r.after.r[8 + k][l], want) << k << " " << l;
    }
  EXPECT_EQ(r.after.r[11], r.before.r[11]);
  EXPECT_TRUE(r.after.written[8] && r.after.written[10]);
}

TEST(Graphics, IterReadsCoefficientAndSampleRegistersPerLane) {
  // iterproj r2l_r2h, r10l (It = 1), cf7 (J), r3l sample index
  // (interpolation 3: sample, index in a register), with fwd and kill.
  auto code = enc(Opcode::iterproj, {{"Dt", 0}, {"D", 4}, {"count", 2}, {"It", 1}, {"I", 20},
                                     {"J", 7}, {"S", 6}, {"interpolation", 3},
                                     {"forwarding", 1}, {"kill", 1}});
  Recorder hook;
  Outcome r = run_with(hook, code, 11);
  ASSERT_TRUE(r.status.ok()) << r.status.error().message();
  ASSERT_EQ(hook.iters.size(), 1u);
  const IterRequest& q = hook.iters[0];
  EXPECT_TRUE(q.cf.per_lane);
  EXPECT_TRUE(q.perspective);
  EXPECT_EQ(q.perspective_cf, 7u);
  EXPECT_EQ(q.interpolation, Interpolation::sample_register);
  EXPECT_TRUE(q.sample.per_lane);
  EXPECT_TRUE(q.forward && q.kill && !q.elide);
  EXPECT_FALSE(q.dest32);
  EXPECT_EQ(q.components, 2u);
  for (unsigned l = 0; l < kLanes; ++l) {
    EXPECT_EQ(q.cf.at(l), half(r.before, 20, l));
    EXPECT_EQ(q.sample.at(l), half(r.before, 6, l));
    // 16-bit results land in r2l and r2h; the low 16 bits of each value.
    for (unsigned k = 0; k < 2; ++k) {
      uint16_t want = active(l) ? static_cast<uint16_t>(1000 * k + l) : half(r.before, 4 + k, l);
      EXPECT_EQ(half(r.after, 4 + k, l), want);
    }
  }
}

TEST(Graphics, IterSampleImmediateAndLdcf) {
  // iter r1 (count 1), cf2, sample 3 (interpolation 1: immediate index);
  // then ldcf r4_r5_r6, cf9 (count 1: one coefficient register).
  auto code = cat({enc(Opcode::iter, {{"Dt", 1}, {"D", 2}, {"count", 1}, {"I", 2}, {"S", 3},
                                      {"interpolation", 1}}),
                   enc(Opcode::ldcf, {{"Dt", 1}, {"D", 8}, {"count", 1}, {"I", 9}})});
  Recorder hook;
  Outcome r = run_with(hook, code);
  ASSERT_TRUE(r.status.ok()) << r.status.error().message();
  ASSERT_EQ(hook.iters.size(), 2u);
  EXPECT_EQ(hook.iters[0].interpolation, Interpolation::sample);
  EXPECT_FALSE(hook.iters[0].sample.per_lane);
  EXPECT_EQ(hook.iters[0].sample.imm, 3u);
  const IterRequest& ldcf = hook.iters[1];
  EXPECT_EQ(ldcf.op, Opcode::ldcf);
  EXPECT_EQ(ldcf.pc, code.size() - 4);  // the short form of ldcf
  EXPECT_EQ(ldcf.cf.imm, 9u);
  EXPECT_EQ(ldcf.components, 3u);
  for (unsigned l = 0; l < kLanes; ++l)
    EXPECT_EQ(r.after.r[6][l], active(l) ? 2000 + l : r.before.r[6][l]);
}

TEST(Graphics, VaryingStoresCarryTheValueRegisterAndSlot) {
  // st_var r5 to UVS slot 3; st_var_final r6 to the slot in r2h.
  auto code = cat({enc(Opcode::st_var, {{"u", 1}, {"r", 5}, {"It", 1}, {"I", 3}}),
                   enc(Opcode::st_var_final, {{"u", 1}, {"r", 6}, {"It", 0}, {"I", 5}})});
  Recorder hook;
  Outcome r = run_with(hook, code);
  ASSERT_TRUE(r.status.ok()) << r.status.error().message();
  ASSERT_EQ(hook.varyings.size(), 2u);
  EXPECT_FALSE(hook.varyings[0].final);
  EXPECT_EQ(hook.varyings[0].slot.imm, 3u);
  EXPECT_EQ(hook.varyings[0].value, r.before.r[5]);
  EXPECT_TRUE(hook.varyings[1].final);
  EXPECT_TRUE(hook.varyings[1].slot.per_lane);
  for (unsigned l = 0; l < kLanes; ++l) EXPECT_EQ(hook.varyings[1].slot.at(l), half(r.before, 5, l));
  EXPECT_EQ(hook.varyings[1].value, r.before.r[6]);
  EXPECT_EQ(hook.varyings[1].active, kExec);
}

TEST(Graphics, StTileHandsTheMaskedComponentsAndCoordinates) {
  // st_tile r6_r7 (y, w), u8norm, explicit coords r9l_r9h, pixel offset
  // 300, sample mask in r3l.
  auto code = enc(Opcode::st_tile, {{"Rt", 1}, {"R", 12}, {"F", 4}, {"u0", 1}, {"mask", 0b1010},
                                    {"O", 300}, {"St", 1}, {"S", 6}, {"C", 18}, {"Ct", 1}});
  Recorder hook;
  Outcome r = run_with(hook, code);
  ASSERT_TRUE(r.status.ok()) << r.status.error().message();
  ASSERT_EQ(hook.tiles.size(), 1u);
  const TileAccess& t = hook.tiles[0];
  EXPECT_FALSE(t.load);
  EXPECT_EQ(t.format, 4u);
  EXPECT_EQ(t.mask, 0b1010u);
  EXPECT_EQ(t.pixel_offset, 300u);
  EXPECT_TRUE(t.explicit_coords);
  EXPECT_TRUE(t.coords_in_registers);
  EXPECT_TRUE(t.reg32);
  EXPECT_TRUE(t.samples.per_lane);
  for (unsigned l = 0; l < kLanes; ++l) {
    EXPECT_EQ(t.values[1][l], r.before.r[6][l]);
    EXPECT_EQ(t.values[3][l], r.before.r[7][l]);
    EXPECT_EQ(t.x[l], half(r.before, 18, l));
    EXPECT_EQ(t.y[l], half(r.before, 19, l));
    EXPECT_EQ(t.samples.at(l), half(r.before, 6, l));
  }
  EXPECT_EQ(r.after.r, r.before.r);  // a store writes no register
}

TEST(Graphics, LdTileWritesTheMaskedComponentsInOrder) {
  // ld_tile r5l_r5h (x, z), f16, coordinates immediate 0, sample mask 255.
  auto code = enc(Opcode::ld_tile, {{"Rt", 0}, {"R", 10}, {"F", 3}, {"u0", 1}, {"mask", 0b0101},
                                    {"St", 0}, {"S", 255}});
  Recorder hook;
  hook.base = 0x10000u;  // bits above 16 must not reach the other half
  Outcome r = run_with(hook, code);
  ASSERT_TRUE(r.status.ok()) << r.status.error().message();
  ASSERT_EQ(hook.tiles.size(), 1u);
  const TileAccess& t = hook.tiles[0];
  EXPECT_TRUE(t.load);
  EXPECT_FALSE(t.reg32);
  EXPECT_FALSE(t.coords_in_registers);
  EXPECT_EQ(t.coords_imm, 0u);
  EXPECT_EQ(t.samples.imm, 255u);
  for (unsigned l = 0; l < kLanes; ++l) {
    bool on = active(l);
    EXPECT_EQ(half(r.after, 10, l), on ? l : half(r.before, 10, l));           // x
    EXPECT_EQ(half(r.after, 11, l), on ? 2000 + l : half(r.before, 11, l));    // z
  }
  EXPECT_EQ(r.after.r[6], r.before.r[6]);
}

TEST(Graphics, DepthStencilSampleMaskAndPixelOrder) {
  // zs_emit 255, r4l_r4h_r5l (depth and stencil); sample_mask r1l, 3;
  // wait_pix 2, 1; signal_pix 5, 0.
  auto code = cat({enc(Opcode::zs_emit, {{"St", 1}, {"S", 255}, {"z", 1}, {"s", 1}, {"T", 8}}),
                   enc(Opcode::sample_mask, {{"St", 0}, {"S", 2}, {"Mt", 1}, {"M", 3}}),
                   enc(Opcode::wait_pix, {{"i", 2}, {"j", 1}}),
                   enc(Opcode::signal_pix, {{"i", 5}})});
  Recorder hook;
  Outcome r = run_with(hook, code);
  ASSERT_TRUE(r.status.ok()) << r.status.error().message();
  ASSERT_EQ(hook.zs.size(), 1u);
  const DepthStencilEmit& e = hook.zs[0];
  EXPECT_TRUE(e.depth && e.stencil);
  EXPECT_EQ(e.samples.imm, 255u);
  for (unsigned l = 0; l < kLanes; ++l) {
    EXPECT_EQ(e.depth_bits[l], r.before.r[4][l]);
    EXPECT_EQ(e.stencil_value[l], half(r.before, 10, l));
  }
  ASSERT_EQ(hook.masks.size(), 1u);
  EXPECT_TRUE(hook.masks[0].samples.per_lane);
  EXPECT_EQ(hook.masks[0].samples.at(3), half(r.before, 2, 3));
  EXPECT_EQ(hook.masks[0].live.imm, 3u);
  EXPECT_FALSE(hook.masks[0].live.per_lane);
  ASSERT_EQ(hook.orders.size(), 2u);
  EXPECT_TRUE(hook.orders[0].wait);
  EXPECT_EQ(hook.orders[0].writeout, 2u);
  EXPECT_EQ(hook.orders[0].j, 1u);
  EXPECT_FALSE(hook.orders[1].wait);
  EXPECT_EQ(hook.orders[1].writeout, 5u);
  EXPECT_EQ(hook.orders[1].pc, 12u);
}

TEST(Graphics, DepthOnlyAndStencilOnly) {
  auto code = cat({enc(Opcode::zs_emit, {{"St", 1}, {"S", 1}, {"z", 1}, {"T", 6}}),
                   enc(Opcode::zs_emit, {{"St", 1}, {"S", 1}, {"s", 1}, {"T", 7}})});
  Recorder hook;
  Outcome r = run_with(hook, code);
  ASSERT_TRUE(r.status.ok()) << r.status.error().message();
  ASSERT_EQ(hook.zs.size(), 2u);
  EXPECT_TRUE(hook.zs[0].depth && !hook.zs[0].stencil);
  EXPECT_EQ(hook.zs[0].depth_bits, r.before.r[3]);
  EXPECT_TRUE(!hook.zs[1].depth && hook.zs[1].stencil);
  for (unsigned l = 0; l < kLanes; ++l) EXPECT_EQ(hook.zs[1].stencil_value[l], half(r.before, 7, l));
}

TEST(Graphics, HookErrorsNameThePc) {
  auto code = cat({enc(Opcode::wait_pix, {{"i", 1}}), enc(Opcode::st_var, {{"u", 1}, {"r", 1}, {"It", 1}})});
  Recorder hook;
  hook.fail = true;
  Outcome r = run_with(hook, code);
  ASSERT_FALSE(r.status.ok());
  EXPECT_EQ(r.status.error().message(), "pc 0x0: tilebuffer not bound");
}

TEST(Graphics, WithoutAHookEachIsAnErrorNamingInstructionAndPc) {
  struct Case {
    std::vector<uint8_t> code;
    const char* mnemonic;
  };
  const Case cases[] = {
      {enc(Opcode::iter, {{"Dt", 1}, {"D", 2}, {"count", 1}}), "iter"},
      {enc(Opcode::iterproj, {{"Dt", 1}, {"D", 2}, {"count", 1}}), "iterproj"},
      {enc(Opcode::ldcf, {{"Dt", 1}, {"D", 2}, {"count", 1}}), "ldcf"},
      {enc(Opcode::st_var, {{"u", 1}, {"It", 1}}), "st_var"},
      {enc(Opcode::st_var_final, {{"u", 1}, {"It", 1}}), "st_var_final"},
      {enc(Opcode::ld_tile, {{"mask", 1}, {"u0", 1}}), "ld_tile"},
      {enc(Opcode::st_tile, {{"mask", 1}}), "st_tile"},
      {enc(Opcode::zs_emit, {{"z", 1}}), "zs_emit"},
      {enc(Opcode::sample_mask, {{"St", 1}}), "sample_mask"},
      {enc(Opcode::wait_pix, {}), "wait_pix"},
      {enc(Opcode::signal_pix, {}), "signal_pix"},
  };
  auto first = enc(Opcode::wait, {});  // something before it: the pc is 2
  for (const Case& k : cases) {
    Core c = make_core();
    Status st = run_code(cat({first, k.code}), c);
    ASSERT_FALSE(st.ok()) << k.mnemonic;
    EXPECT_EQ(st.error().message(),
              std::string("pc 0x2: not supported by the emulator: ") + k.mnemonic +
                  " (no fixed-function unit attached, no graphics hook)");
  }
}

// With both hooks, graphics instructions go to the GraphicsHook and the
// texture instructions still to the FixedFunction unit.
class TextureOnly : public FixedFunction {
 public:
  Status execute(const isa::Instr& in, Core&) override {
    ops.push_back(in.op);
    return {};
  }
  std::vector<Opcode> ops;
};

TEST(Graphics, GraphicsHookTakesGraphicsTextureUnitTakesTextures) {
  auto code = cat({enc(Opcode::iter, {{"Dt", 1}, {"D", 2}, {"count", 1}}),
                   enc(Opcode::texture_sample, {{"mask", 1}})});
  Recorder graphics;
  TextureOnly texture;
  Memories mem;
  mem.graphics = &graphics;
  mem.fixed_function = &texture;
  Core c = make_core();
  Status st = run_code(code, c, mem);
  ASSERT_TRUE(st.ok()) << st.error().message();
  EXPECT_EQ(graphics.iters.size(), 1u);
  ASSERT_EQ(texture.ops.size(), 1u);
  EXPECT_EQ(texture.ops[0], Opcode::texture_sample);
}

}  // namespace
}  // namespace agx::usc::test
