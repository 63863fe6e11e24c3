// The texture unit of the software GPU: texel fetch (texture_load) and
// filtered sampling (texture_sample) of images described by Texture
// descriptors and Sampler states, reading the image through the `layout`
// unit's addressing. The image-write path (PBE) is in gpu/pbe/pbe.h; the
// image memory both share is in image.h.
//
// Descriptors reach the unit as plain structs (TextureView, SamplerView):
// descriptor.cpp fills them from the Texture / Sampler / Border words with
// the cmdstream tables, so no bit position is written here. Rules follow the
// Vulkan specification where the hardware's precision is not public
// (docs/texture.md says which).
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "format/format.h"
#include "layout/layout.h"
#include "usc/usc.h"
#include "util/gpu_memory.h"
#include "util/result.h"

namespace agx::gpu {

struct ImageDesc;  // image.h

// Image dimensionality, in the order of cmdbuf.xml "Texture dimension" and
// of the ISA's texture dimension field (applegpu TEX_SIZES).
enum class Dim : uint8_t { d1, d1_array, d2, d2_array, d2_ms, d3, cube, cube_array, d2_ms_array };
inline constexpr unsigned kDimCount = 9;
const char* to_string(Dim d);
bool is_array(Dim d);
bool is_ms(Dim d);
bool is_cube(Dim d);

// Where a texture output component comes from (cmdbuf.xml enum "Channel").
enum class Swizzle : uint8_t { r, g, b, a, one, zero };

// The memory layout of an image (cmdbuf.xml enum "Layout"; lossless
// compression is the separate "Compressed 1" bit).
enum class ImageLayout : uint8_t { linear, gpu, twiddled, interchange };
const char* to_string(ImageLayout l);

// The logical content of a Texture descriptor (24 B).
struct TextureView {
  Dim dim = Dim::d2;
  ImageLayout layout = ImageLayout::twiddled;
  format::Channels channels = format::Channels::R8G8B8A8;
  format::TextureType type = format::TextureType::Unorm;
  std::array<Swizzle, 4> swizzle{Swizzle::r, Swizzle::g, Swizzle::b, Swizzle::a};
  uint32_t width_px = 1, height_px = 1;  // of level 0
  uint32_t depth = 1;   // layers (arrays), cubes (cube arrays), slices (3D)
  uint32_t first_level = 0, last_level = 0;
  uint32_t samples = 1;  // 1, 2 or 4
  GpuVa address = 0;     // the first layer, level 0
  bool mipmapped = false;  // "Unk mipmapped": the image has a full mip chain
  bool srgb = false;
  bool srgb_2_channel = false;  // the second channel of a 2-channel format is sRGB too
  bool null = false;            // no texture bound: every fetch gives zero
  bool page_aligned_layers = false;
  bool compressed = false;  // lossless compression with a metadata buffer
  bool sparse = false;      // "Mode" says the image is bound through a sparse table
  uint32_t linear_stride_B = 0;       // linear: bytes between rows
  uint64_t linear_layer_stride_B = 0;  // linear arrays: bytes between layers
  GpuVa acceleration_buffer = 0;       // compressed: the metadata of the first layer
  bool operator==(const TextureView&) const = default;
};

enum class Filter : uint8_t { nearest, linear, bicubic };
enum class MipFilter : uint8_t { none, nearest, linear };
enum class Wrap : uint8_t {
  clamp_to_edge, repeat, mirrored_repeat, clamp_to_border, clamp_gl, mirrored_clamp_to_edge
};
// A comparison (cmdbuf.xml "Compare func"): passes when ref OP texel.
enum class CompareFunc : uint8_t { lequal, gequal, less, greater, equal, not_equal, always, never };
enum class BorderColour : uint8_t { transparent_black, opaque_black, opaque_white, custom };

// The logical content of a Sampler state (8 B), and the Border (16 B) that
// follows it in extended sampler heaps.
struct SamplerView {
  float min_lod = 0.0f, max_lod = 1000.0f;
  uint32_t max_anisotropy = 1;
  Filter magnify = Filter::nearest, minify = Filter::nearest;
  MipFilter mip = MipFilter::none;
  std::array<Wrap, 3> wrap{Wrap::clamp_to_edge, Wrap::clamp_to_edge, Wrap::clamp_to_edge};
  bool pixel_coordinates = false;  // unnormalized coordinates
  CompareFunc compare_func = CompareFunc::lequal;
  bool compare_enable = false;
  BorderColour border = BorderColour::transparent_black;
  bool seamful_cube_maps = false;
  // Custom border: channel i in the format's memory channel i, encoded as the
  // format stores it (unorm/snorm as 8..16-bit fixed point, sRGB channels as
  // 12-bit linear unorm, floats as half or float bits, integers as is).
  std::array<uint32_t, 4> border_words{};
};

// Texture and sampler state registers (ts / ss operands), as the launch's
// USC Texture / USC Sampler words loaded them: each word copies `count`
// consecutive descriptors from an array in memory into the registers from
// `start` on, when the word runs (load_state_word). Texture and PBE
// descriptors are 24 B apart; samplers 8 B, or 24 B (Sampler + Border) when
// the shader's sampler count says "extended". The unit decodes the loaded
// words: a descriptor rewritten in memory during the launch is not seen.
struct StateRegister {
  std::array<uint32_t, 6> words{};  // a Texture/PBE descriptor; a Sampler (2) [+ Border (4)]
  bool loaded = false;
};
struct TextureState {
  std::vector<StateRegister> textures;  // ts0..
  std::vector<StateRegister> samplers;  // ss0..
  bool extended_samplers = false;
  // How many registers the launch declares (Launch Word 0); a word loading
  // past them is a decode error. The defaults are the fields' maxima.
  uint32_t texture_registers = 256, sampler_registers = 16;
  // The tile memory image_write_block stores from when the program runs on
  // a render tile (the PDM's end-of-tile program): the USC Shared word's
  // Sample count and Sample stride (bytes). 0: a compute imageblock, one
  // render target per record (docs/texture.md, "image_write_block").
  uint32_t tile_samples = 0, tile_sample_stride_B = 0;
};

// What one USC Texture / USC Sampler word (8 bytes) says.
enum class StateKind : uint8_t { texture, sampler };
struct StateBinding {
  StateKind kind = StateKind::texture;
  uint32_t start = 0, count = 0;
  GpuVa buffer = 0;
};
// The one parse of those words (the CDM, the PDM and tests): a word with
// another tag is a decode error.
Result<StateBinding> parse_state_word(std::span<const uint8_t> usc_word);
// Loads the registers `b` names from memory into `state`. A register past
// the declared count is a decode error; a descriptor that cannot be read is
// a fault naming the register and the address (also in *fault when given).
Status load_states(GpuMemory& memory, const StateBinding& b, TextureState& state, GpuFault* fault = nullptr);
// parse_state_word then load_states: what running the word does.
Status load_state_word(GpuMemory& memory, std::span<const uint8_t> usc_word, TextureState& state,
                       GpuFault* fault = nullptr);
// Whether a launch's "Sampler state register count" value is an extended
// form (a Border after each Sampler).
bool extended_sampler_states(uint32_t sampler_states);

inline constexpr uint32_t kTextureDescriptor_B = 24;
inline constexpr uint32_t kSamplerDescriptor_B = 8;
inline constexpr uint32_t kBorderDescriptor_B = 16;

// Descriptor decoding (descriptor.cpp, through the cmdstream tables).
Result<TextureView> decode_texture(std::span<const uint32_t> words);
Result<SamplerView> decode_sampler(std::span<const uint32_t> words, bool with_border);

// A decoded texel: four components, float bits for unorm/snorm/float
// textures, integers for uint/sint ones.
struct Texel {
  std::array<uint32_t, 4> c{};
};

// Where one texel fetch comes from.
struct FetchCoord {
  int32_t x = 0, y = 0, z = 0;  // z: slice of 3D images
  uint32_t layer = 0;           // array layer (cube arrays: cube index)
  uint32_t face = 0;            // cube face 0..5
  uint32_t sample = 0;
  int32_t lod = 0;              // relative to first_level
};

// How a texture_sample asks for texels.
struct SampleRequest {
  std::array<float, 3> coord{};  // s, t, r (cubes: the direction)
  uint32_t layer = 0;            // array layer (cube arrays: cube index)
  uint32_t sample = 0;
  std::array<int32_t, 3> offset{};  // texel offsets (-8..7)
  // LOD: an explicit value, or computed from the derivatives (du/dx etc.
  // of s, t, r), plus the bias; then clamped by the sampler and min_lod.
  bool explicit_lod = true;
  float lod = 0.0f;
  float bias = 0.0f;
  std::array<float, 3> ddx{}, ddy{};
  float min_lod = 0.0f;
  bool has_min_lod = false;
  bool compare = false;
  float reference = 0.0f;
  int gather = -1;  // output component 0..3, or -1
  // gather_depth (q6 = 3): gather the depth (memory channel 0, before the
  // descriptor swizzle), compared when comparison is on.
  bool gather_depth = false;
};

// query_lod (texture_sample mode 2): the LOD a sample would use, as
// GL's textureQueryLod defines it (docs/texture.md "query_lod").
struct LodQuery {
  float level = 0.0f;   // the level accessed, relative to the view's first level
  float lambda = 0.0f;  // the computed LOD relative to it, before min/max clamps
};

// The unit: state registers plus caches of decoded descriptors and level
// address tables. Not thread-safe; one per executing core.
class TextureUnit {
 public:
  TextureUnit(GpuMemory& memory, TextureState state);
  ~TextureUnit();
  TextureUnit(const TextureUnit&) = delete;
  TextureUnit& operator=(const TextureUnit&) = delete;

  const TextureState& state() const { return state_; }
  GpuMemory& memory() { return memory_; }

  // texture_load: the exact texel at integer coordinates (x, y[, z]) of
  // level `lod` (relative to first_level), with the sampler's wrap modes
  // applied to the integer coordinate (Mesa's txf sampler clamps to a
  // transparent-black border: out of range reads zero).
  Result<Texel> load(const TextureView& tex, const SamplerView& sampler, const FetchCoord& at);
  // texture_sample: filtering per the Vulkan texel filtering rules.
  Result<Texel> sample(const TextureView& tex, const SamplerView& sampler,
                       const SampleRequest& request);
  // query_lod: what `sample` would use as LOD for `request`.
  Result<LodQuery> query_lod(const TextureView& tex, const SamplerView& sampler,
                             const SampleRequest& request);

  // The descriptor in texture state register `ts`, or bindless at `va`.
  Result<TextureView> texture_at_register(uint32_t ts);
  Result<TextureView> texture_at(GpuVa va);
  Result<SamplerView> sampler_at_register(uint32_t ss);
  // The words texture state register `ts` holds (Texture or PBE descriptor);
  // an error when the launch did not load it.
  Result<std::span<const uint32_t, 6>> texture_register(uint32_t ts) const;

  struct Image;  // an image's geometry and address tables (texture_image.cpp)
  Result<const Image*> image(const TextureView& tex);
  Result<const Image*> internal_image(const ImageDesc& desc);

 private:
  // A view's texel format and image, checked against each other (sample.cpp):
  // the last one is kept, so the lanes of an instruction (and the pixels
  // of a tile) that read one texture resolve it once.
  struct Resolved;
  Result<const Resolved*> resolve(const TextureView& tex);

  GpuMemory& memory_;
  TextureState state_;
  std::vector<std::unique_ptr<Image>> images_;  // small cache, most recent last
  std::unique_ptr<Resolved> resolved_;          // null until a view resolves; reset when images_ drops one
};

// The USC hook for texture_sample, texture_load, image_write and
// image_write_block: reads operands from the core, runs the unit and writes
// the destination registers of the active lanes. Other instructions are an
// unsupported error naming them (chain another hook for varyings etc.).
class TextureHook : public usc::FixedFunction {
 public:
  TextureHook(GpuMemory& memory, TextureState state) : unit_(memory, std::move(state)) {}
  Status execute(const isa::Instr& instr, usc::Core& core) override;
  // image_write_block reads the threadgroup's memory (docs/texture.md,
  // "image_write_block"); the others go to execute().
  Status execute_in(const isa::Instr& instr, usc::Core& core, const usc::Memories& memories) override;
  TextureUnit& unit() { return unit_; }
  // True for the instructions this hook executes.
  static bool handles(isa::Opcode op);

 private:
  TextureUnit unit_;
};

}  // namespace agx::gpu
