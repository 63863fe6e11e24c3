// Hardware varyings: how a value travels from a vertex shader's st_var
// through remapping and coefficient-register bindings to the fragment
// shader's iter/ldcf (seed "Hardware varyings", Mesa docs/drivers/asahi.rst;
// packet layouts from cmdbuf.xml through agx::cmdstream).
//
//   vertex outputs  position (4 words), 32-bit smooth, flat, linear user
//                   varyings, packed 16-bit pairs smooth, flat, linear,
//                   point size, layer/viewport, clip distances.
//   slots           W, optional Z, then user varying words in vertex output
//                   order (32-bit slots first, then 16-bit pairs).
//   bindings        a header and one CF binding per (vector of) slots.
//   coefficients    per coefficient register <A, B, C>: d/dx, d/dy and the
//                   value at the corner of the pixel's 32x32 tile.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "cmdstream/enums.h"
#include "util/result.h"

namespace agx::varyings {

enum class Interp : uint8_t { smooth, flat, linear };
const char* to_string(Interp interp);

struct Varying {
  std::string name;
  unsigned components = 4;  // 1..4
  unsigned bits = 32;       // 32, or 16 (two components per vertex output word)
  Interp interp = Interp::smooth;
};

// A vertex shader's outputs (equally: the fragment shader's inputs).
struct Interface {
  std::vector<Varying> varyings;
  bool point_size = false;
  bool layer_viewport = false;
  unsigned clip_distances = 0;  // 0..16 (Output Select has 16 plane bits)
  bool fragcoord_z = false;     // the fragment shader reads gl_FragCoord.z
};

// The hardware's limits, each the width of the field that holds it
// (cmdbuf.xml): output counts, slot numbers and coefficient registers are
// 8-bit fields; "CF binding count" in Fragment Shader Word 0 is 7 bits.
inline constexpr unsigned kMaxVertexOutputs = 255;
inline constexpr unsigned kMaxSlots = 256;            // "Base slot" 0..255
inline constexpr unsigned kMax32BitSlots = 255;       // header field
inline constexpr unsigned kMaxGroupWords = 255;       // each Varying Counts field
inline constexpr unsigned kCoefficientRegisterFile = 256;  // cf0..cf255 (iter's 8-bit cf operand)
inline constexpr unsigned kMaxCoefficientRegisters = 255;  // header field
inline constexpr unsigned kMaxBindings = 127;

// ---- 1. vertex output layout ----------------------------------------------

enum class OutputKind : uint8_t { position, varying, point_size, layer_viewport, clip_distance };

struct OutputRange {
  std::string name;   // "position", a varying's name, "point_size", "layer_viewport", "clip_distance_i"
  OutputKind kind;
  unsigned index;     // first vertex output index (a 16-bit varying: the word of its first component)
  unsigned words;     // 32-bit vertex outputs used
  int varying = -1;   // index into Interface::varyings, or -1
  Interp interp = Interp::smooth;  // varyings: the interpolation group written in
};

struct GroupCounts {
  unsigned smooth = 0, flat = 0, linear = 0;  // in vertex output words
};

struct VertexOutputLayout {
  std::vector<OutputRange> outputs;  // in index order
  unsigned output_count = 0;         // total vertex output words
  unsigned first_16bit_index = 0;    // 16-bit pairs start here
  unsigned user_words_32 = 0;        // 32-bit user varying words
  unsigned user_pairs_16 = 0;        // 16-bit pair words
  GroupCounts counts_32, counts_16;
  // Packed hardware words.
  uint32_t output_select = 0;        // "Output Select"
  uint32_t varying_counts_32 = 0;    // "Varying Counts" for 32-bit outputs
  uint32_t varying_counts_16 = 0;    // "Varying Counts" for 16-bit pairs
  uint32_t vdm_vertex_outputs = 0;   // "VDM State Vertex Outputs"

  // The range of a varying (index into Interface::varyings).
  const OutputRange* find_varying(int varying) const;
};

// Checks the interface (names, components, bits, limits) and lays it out.
Result<VertexOutputLayout> layout_vertex_outputs(const Interface& iface);

// The layout the hardware words describe (a draw's Output Select, Varying
// Counts 32 and 16 and VDM State Vertex Outputs "Output count 1"), for the
// unit that reads vertex outputs without the shader's interface: position,
// then one varying range per non-empty interpolation group (32-bit smooth,
// flat, linear, then 16-bit pairs; `varying` -1, named "smooth_32",
// "flat_16", ...), point size, layer/viewport, clip distances. Faults when
// the clip planes are not planes 0..n-1 (as Mesa's agx_nir_lower_uvs.c
// sets them), when Viewport and Render target differ, or when the words add
// up to another count than `output_count`.
Result<VertexOutputLayout> layout_from_words(uint32_t output_select, uint32_t varying_counts_32,
                                             uint32_t varying_counts_16, uint32_t output_count);

// Clip distances reach only the clipper; a fragment shader that reads them
// needs them written again as a user varying, and there is no clip-plane
// enable mask, so an API with one (OpenGL) must lower it in the shader.
struct ClipDistancePlan {
  unsigned hardware_planes = 0;       // clip distance outputs to write (Output Select bits)
  std::vector<Varying> user_varyings; // the FS reads them: also write these (vec4 chunks)
  uint32_t planes_to_force_inside = 0;  // API-disabled planes the VS must write as 0.0
};
// `written`: distances the VS writes; `fragment_reads`: the FS reads
// gl_ClipDistance; `api_enable_mask`: the API's enable bits (OpenGL), or
// none (Vulkan: every written plane clips).
Result<ClipDistancePlan> plan_clip_distances(unsigned written, bool fragment_reads,
                                             std::optional<uint32_t> api_enable_mask);

// ---- 2. remapping ---------------------------------------------------------

enum class SlotSource : uint8_t { w, z, varying32, pair16 };

struct Slot {
  SlotSource source;
  unsigned vertex_output = 0;  // the word it comes from (none for W and Z)
  int varying = -1;            // Interface::varyings index
  unsigned component = 0;      // first component of the varying held here
};

struct SlotMap {
  std::vector<Slot> slots;     // slot index order
  unsigned num_32bit_slots = 0;  // W, Z and 32-bit user words
  unsigned num_16bit_pairs = 0;  // slots from num_32bit_slots on
  bool has_z = false;
};

// The slots that an Output Select word produces for this layout. The word
// must agree with the layout (point size, layer/viewport, clip planes).
Result<SlotMap> remap(uint32_t output_select, const VertexOutputLayout& layout);

// ---- 3. coefficient-register bindings ---------------------------------------

// cmdbuf.xml enums "Shade model" and "Coefficient source", from the one
// table of cmdbuf.xml enums (format/genxml_enums.h via cmdstream/enums.h).
using ShadeModel = cmdstream::ShadeModel;
using CoefficientSource = cmdstream::CoefficientSource;
const char* to_string(ShadeModel m);
const char* to_string(CoefficientSource s);
bool is_flat(ShadeModel m);
unsigned provoking_vertex(ShadeModel m);  // flat models only
ShadeModel flat_shade_model(unsigned provoking_vertex);  // 0..2

struct CfBinding {
  unsigned components = 1;  // 1..4
  ShadeModel shade_model = ShadeModel::kPerspective;
  CoefficientSource source = CoefficientSource::kVarying;
  unsigned base_slot = 0;
  unsigned base_cf = 0;     // first coefficient register
};

struct CfBindings {
  unsigned num_32bit_slots = 1;  // never 0: W is always there
  unsigned num_cf = 0;           // coefficient registers bound
  std::vector<CfBinding> bindings;
};

// Slot-order bindings fixed at compile time: W in cf0, Z (if read) next,
// then every user varying in slot order, one coefficient register per
// component. `provoking` (0..2) picks the flat shade model.
Result<CfBindings> compile_time_bindings(const SlotMap& slots, const Interface& iface,
                                         unsigned provoking = 0);

// Separable shaders: the driver picks each varying's coefficient register.
struct SeparableEntry {
  int varying = -1;  // Interface::varyings index; -1 with source != varying
  CoefficientSource source = CoefficientSource::kVarying;
  unsigned base_cf = 0;
  unsigned components = 0;  // for non-varying sources (point coord: 2, ...)
};
Result<CfBindings> separable_bindings(const SlotMap& slots, const Interface& iface,
                                      std::span<const SeparableEntry> entries,
                                      unsigned w_cf, unsigned provoking = 0);

// Everything the hardware needs to hold: counts, register file, slot
// ranges, vec2 barycentrics, and 16-bit pairs bound with the interpolation
// of the vertex output group they were written in.
Status validate(const CfBindings& b, const SlotMap& slots, const Interface& iface);

// Header word followed by one word per binding.
Result<std::vector<uint32_t>> pack_bindings(const CfBindings& b);
Result<CfBindings> unpack_bindings(std::span<const uint32_t> words);

// What each coefficient register holds after setup.
struct CfContent {
  bool bound = false;
  CoefficientSource source = CoefficientSource::kVarying;
  ShadeModel shade_model = ShadeModel::kLinear;
  unsigned slot = 0;
  unsigned half = 0;  // 16-bit slots: 0 low, 1 high
  bool is_16bit = false;
  unsigned component = 0;  // which of the binding's components (point coord: 0 = s, 1 = t)
};
Result<std::vector<CfContent>> coefficient_contents(const CfBindings& b, const SlotMap& slots);

// ---- 4. the math ----------------------------------------------------------

inline constexpr unsigned kTileSize_px = 32;

// A screen-space vertex after the viewport transform.
struct ScreenVertex {
  double x_px, y_px;  // window coordinates
  double z;           // depth
  double w;           // clip-space w (> 0)
};

// One coefficient register: value(x, y) = a*x + b*y + c, with (x, y)
// relative to the tile's upper-left corner (Mesa agx_nir_lower_interpolation.c).
struct Coefficients {
  float a = 0, b = 0, c = 0;
};

// A point drawn as a sprite, for the point coordinate (gl_PointCoord): its
// centre and size in window pixels, and which edge has t = 0. Fragment
// Face 2's Object type says it: Point sprite UV=01 (what Mesa's drivers set
// for GL's upper-left sprite origin and for Vulkan) puts t = 0 on the top
// edge, UV=10 (GL's lower-left origin) on the bottom edge; s = 0 is the
// left edge (bminor/mesa-mesa src/gallium/drivers/asahi/agx_state.c
// agx_point_object_type, src/asahi/vulkan/hk_cmd_draw.c).
struct PointSprite {
  double x_px = 0, y_px = 0, size_px = 1;
  bool t_zero_at_top = true;
};

struct Triangle {
  std::array<ScreenVertex, 3> v;
  // Each vertex's vertex output words, as the vertex shader wrote them.
  std::array<std::span<const uint32_t>, 3> outputs;
  uint32_t primitive_id = 0;
  std::optional<PointSprite> sprite;  // points only
};

// Fills the coefficient registers for the tile at (tile_x, tile_y).
// Perspective bindings hold the plane of value/w, the W slot the plane of
// 1/w, linear bindings the plane of the value and flat bindings (0, 0,
// provoking vertex's value). Source primitive ID: (0, 0, the primitive ID's
// bits as an integer). Source point coord: the planes of s and t across
// the sprite (screen-linear, whatever the shade model), (0, 0, 0) for a
// primitive that is not a point. Barycentrics: unsupported.
Result<std::vector<Coefficients>> setup_coefficients(const Triangle& tri, const SlotMap& slots,
                                                     const CfBindings& b, unsigned tile_x,
                                                     unsigned tile_y);

// Where iter evaluates within pixel (px, py) (window coordinates).
struct SamplePoint {
  unsigned px = 0, py = 0;
  float dx = 0.5f, dy = 0.5f;  // position inside the pixel, 0..1
};
// The centre; a sample at `pos`; the centroid for a coverage mask over
// `positions` (all covered: the centre; else the first covered sample).
SamplePoint pixel_centre(unsigned px, unsigned py);
SamplePoint sample_point(unsigned px, unsigned py, std::array<float, 2> pos);
SamplePoint centroid_point(unsigned px, unsigned py, std::span<const std::array<float, 2>> positions,
                           uint32_t coverage);

// iter: the plane at the point (fp32: two fused multiply-adds).
float iterate(const Coefficients& cf, SamplePoint p);
// iter with perspective correction through the W coefficient register.
float iterate_perspective(const Coefficients& cf, const Coefficients& w_cf, SamplePoint p);
// The same rounded to half precision (16-bit destinations), nearest-even.
uint16_t iterate_f16(const Coefficients& cf, SamplePoint p);
uint16_t iterate_perspective_f16(const Coefficients& cf, const Coefficients& w_cf, SamplePoint p);
// ldcf: the raw coefficients.
inline Coefficients load_coefficients(const Coefficients& cf) { return cf; }

// ---- 5. the report behind `agx varyings` ----------------------------------

Result<Interface> parse_interface_json(std::string_view text);
struct Report {
  Interface iface;
  VertexOutputLayout layout;
  SlotMap slots;
  CfBindings bindings;
  std::vector<uint32_t> binding_words;
};
Result<Report> make_report(const Interface& iface);
std::string report_text(const Report& r);
std::string report_json(const Report& r);

}  // namespace agx::varyings
