// Inside the PDM: the command as read once (programs, draw shaders, set-up
// primitives), a tile's state, and the GraphicsHook fragment-side programs
// run with (docs/gpu.md, "The fragment half").
#pragma once

#include <array>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "gpu/isp/isp.h"
#include "gpu/pdm/pdm.h"
#include "gpu/zls/zls.h"
#include "usc/graphics.h"

namespace agx::gpu::pdm {

// A USC program with the state of its word list.
struct Shader {
  UscState usc;
  ProgramPtr program;
  GpuVa words = 0;
};

// A draw's fragment shader, its coefficient bindings and what the ISP needs.
struct DrawShader {
  bool has_shader = false;  // the PPP words set Fragment shader
  Shader shader;
  varyings::CfBindings bindings;
  bool early_z = true;      // Fragment Properties' Early-z testing (late Z otherwise)
};

// Everything a tile reads, fixed for the command.
struct Command {
  const kmd::FirmwareCommand* cmd = nullptr;
  const drm_asahi_cmd_render* render = nullptr;
  const Scene* scene = nullptr;
  uint32_t tile_w = 32, tile_h = 32, tiles_x = 0, tiles_y = 0, layers = 1;
  uint32_t samples = 1, sample_stride_B = 0;
  SamplePositions positions;
  ZlsPlan zls;
  std::optional<Shader> bg, eot, partial_bg, partial_eot;
  // Split the scene after every `partial_every` primitives (0: never):
  // parts = ceil(primitives / partial_every), every tile split between them.
  uint64_t partial_every = 0;
  std::vector<DrawShader> draws;         // one per Scene::states entry
  std::vector<RasterPrimitive> prims;    // one per Scene::primitives entry
  // The tiles' primitive lists (bin_primitives): tile t (Tile::index) walks
  // bins[bin_start[t] .. bin_start[t + 1]), primitive indices in
  // submission order.
  std::vector<uint64_t> bin_start;
  std::vector<uint32_t> bins;
  usc::RunOptions run;
  FixedFunctionFactory fixed_function;
  // The fragment helper's header (fragment_helper.data; 0: no bookkeeping)
  // and the lock that makes its requests one at a time.
  GpuVa helper_header = 0;
  std::mutex* helper_mu = nullptr;
  uint64_t tiles() const { return uint64_t(tiles_x) * tiles_y * layers; }
};

// One lane of a fragment-side SIMD group.
struct Lane {
  uint32_t x = 0, y = 0;    // pixel within the tile
  uint32_t coverage = 0;    // samples the primitive covers there
  uint32_t live = 0;        // samples still alive (sample_mask, the tests)
  bool tested = true;       // the ISP's late test has run
  std::array<double, kMaxSamples> depth{};  // per sample: the fragment's depth
  bool stencil_emitted = false;
  uint8_t stencil = 0;
};

// The fragment's ISP state while a primitive is shaded.
struct PrimitiveTest {
  FaceTest face;
  DepthFormat format = DepthFormat::f32;
  uint32_t query = 0;     // occlusion query index
  cmdstream::VisibilityMode visibility = cmdstream::VisibilityMode::kNone;
};

struct Tile {
  uint64_t index = 0;
  int32_t x0 = 0, y0 = 0;
  uint32_t layer = 0;
  std::vector<uint8_t> memory;  // the tilebuffer (Mesa's layout, tile_sample_offset_B order)
  DepthStencilTile zs;
  // (occlusion query index, Visibility mode) -> samples passed
  std::map<std::pair<uint32_t, cmdstream::VisibilityMode>, uint64_t> visibility;
  uint64_t binned = 0, quads = 0, passed = 0, splits = 0;
};

// The GraphicsHook of one SIMD group: its lanes' pixels in the tile.
class FragmentHook final : public usc::GraphicsHook {
 public:
  FragmentHook(const Command& c, Tile& t) : command_(c), tile_(t) {}
  std::array<Lane, usc::kLanes> lanes{};
  // Set while a primitive's fragment shader runs; null for bg / eot.
  const std::vector<varyings::Coefficients>* coefficients = nullptr;
  PrimitiveTest* test = nullptr;

  // The late test of the lanes in `active` not yet tested.
  void late_test(uint32_t active);

  Status iterate(usc::IterRequest& r) override;
  Status store_varying(const usc::VaryingStore& s) override;
  Status access_tile(usc::TileAccess& a) override;
  Status emit_depth_stencil(const usc::DepthStencilEmit& e) override;
  Status update_sample_mask(const usc::SampleMaskUpdate& u) override;
  Status order_pixels(const usc::PixelOrder& o) override;

 private:
  const Command& command_;
  Tile& tile_;
};

// Runs the ISP test of one sample and counts it for the query.
bool test_sample(const Command& c, Tile& t, const PrimitiveTest& pt, uint32_t x, uint32_t y, uint32_t s,
                 double z, std::optional<uint8_t> stencil_reference = std::nullopt);

// Reads the command (tile size, programs, draw shaders, primitives).
Status prepare(Command& c, ProgramCache& programs, GpuFault* where);

// ppp_ctrl, isp_merge_upper_x / _y and isp_zls_pixels: 0 or the values
// Mesa sets, else a fault naming the field (fields.cpp).
Status check_register_fields(const drm_asahi_cmd_render& r, GpuFault* where);

// Tag write disable in either Fragment control word: the draw's fragment
// shader does not run (ppp_fields.cpp).
bool tag_write_disabled(const PppWords& w);
// Sample mask after depth/stencil set, or a Pass type / Object type that is
// no value of its enum: a fault naming draw state `state`, the word and the
// field (ppp_fields.cpp).
Status check_ppp_fields(const PppWords& w, uint32_t state, GpuFault* where);

// Fills c.bins from c.prims: each primitive (not degenerate, on a layer
// the command renders) into every tile its bounding box touches.
void bin_primitives(Command& c);

// Per worker: a core, the VM view, the fixed-function units.
struct Worker {
  usc::Core core;
  RecordingMemory memory;
};

// One tile from ZLS load to ZLS store.
Status run_tile(const Command& c, Worker& w, Tile& t, GpuFault* where);
// bg / eot: one program over every pixel of the tile, 8x4 pixels a group.
Status run_tile_program(const Command& c, Worker& w, Tile& t, const Shader& s, const char* what,
                        GpuFault* where);
// What a SIMD group runs, for its faults: a tile program (`program`), or
// the fragment shader of `primitive`; the text is made only when a fault
// needs it (not once per group).
struct GroupName {
  const char* program = nullptr;  // null: the fragment shader of `primitive`
  uint32_t primitive = 0;
  std::string text(const Tile& t, unsigned group) const;
};
// Places one SIMD group of `s` (lanes as hook.lanes say) and runs it to
// its end; `name` names it in faults.
Status run_group_for(const Command& c, Worker& w, Tile& t, const Shader& s, FragmentHook& hook, uint32_t present,
                     unsigned group, bool backfacing, usc::FixedFunction* ff, const GroupName& name,
                     GpuFault* where);
// One primitive's fragments in the tile.
Status shade_primitive(const Command& c, Worker& w, Tile& t, uint32_t primitive, GpuFault* where);

// Lane l's position in a SIMD group of 8 quads: quad l / 4, 4 quads per
// row of an 8x4 block; in the quad, lanes 0, 1 on top, 2, 3 below (the
// layout dfdx / dfdy use).
inline std::array<uint32_t, 2> lane_offset(unsigned l) {
  const unsigned q = l / 4, i = l % 4;
  return {(q % 4) * 2 + (i & 1), (q / 4) * 2 + (i >> 1)};
}

}  // namespace agx::gpu::pdm
