// The shader compiler: compute shaders in GLSL (through glslang) or SPIR-V,
// validated and optimized with SPIRV-Tools, translated to our SSA IR
// (ir.h), lowered and register-allocated by the passes of passes.h and
// encoded into AGX (G13) machine code with the isa unit's table (isa::encode).
// docs/compiler.md has the compute ABI the code follows.
#pragma once

#include <array>
#include <span>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "compiler/fragment.h"
#include "compiler/vertex.h"
#include "util/result.h"

namespace agx::compiler {

// Which API's SPIR-V: Vulkan (glslang -V: descriptor sets, push constants)
// or OpenGL (glslang -G: loose uniforms, binding points, atomic counters).
enum class TargetEnv { vulkan, opengl };

// The pipeline stage of a shader. GLSL source says nothing about it, so
// compile_glsl takes it from Options::stage; a SPIR-V module's entry point
// names its execution model (GLCompute, Vertex, Fragment), which must
// agree with Options::stage.
enum class Stage { compute, vertex, fragment };
const char* stage_name(Stage s);  // "compute", "vertex", "fragment"

struct Options {
  TargetEnv env = TargetEnv::vulkan;
  Stage stage = Stage::compute;
  std::string entry = "main";    // entry point name
  std::string file_name = "<source>";  // for error messages
  bool optimize = true;          // SPIRV-Tools performance passes
  bool validate_ir = true;       // run the IR validator after every pass
  bool pressure_schedule = true; // reorder blocks for register pressure (pressure_schedule.cpp)
  bool preamble = true;          // move uniform work into a preamble (opt_preamble.cpp)
  // Specialization constants (`layout(constant_id = N)`, local_size_x_id):
  // SpecId -> value as text, read by the constant's type ("7", "-3",
  // "0x10", "1.5", "true"). Constants not listed take their defaults.
  std::map<uint32_t, std::string> specializations;
  // The same as raw bits, as glSpecializeShader / VkSpecializationInfo give
  // them (a bool: nonzero true; 64-bit types: all 64 bits). A SpecId in
  // both maps takes this value.
  std::map<uint32_t, uint64_t> specialization_bits;
};

// What the runtime must put where (docs/compiler.md, "Compute ABI"). Every
// location is a 32-bit uniform register index (u<N>).
struct Resource {
  enum class Kind { storage_buffer, uniform_buffer, atomic_counter } kind{};
  uint32_t set = 0, binding = 0;
  uint32_t uniform = 0;  // u<N>_u<N+1>: 64-bit base address
  std::string name;
  // u<N>: the bound range's size in bytes, when the shader asks for a
  // runtime array's length (OpArrayLength); kNoUniform otherwise.
  static constexpr uint32_t kNoUniform = UINT32_MAX;
  uint32_t size_uniform = kNoUniform;
  // A descriptor array (`buffer B { ... } b[4];`): each element is its own
  // Resource. array_size is the array's length (0: not an array) and
  // array_element this element. Vulkan: `binding` is the array's (one
  // binding, descriptor array_element); OpenGL: the element's own binding
  // point, the array's binding + array_element.
  uint32_t array_element = 0, array_size = 0;
};
// An OpenGL loose uniform (`layout(location = L) uniform uint n;`).
// Loose uniforms follow one layout (docs/compiler.md "Compute ABI", loose
// uniform layout): an array's elements `array_strides_B` apart (outermost
// first, one per array level: `float a[2][3]` {12, 4}, `mat3 m[2]` {36};
// empty for a non-array), each element as it would be alone (a matrix's
// columns packed).
struct LooseUniform {
  std::string name;
  uint32_t location = 0;
  uint32_t uniform = 0;  // first u<N>
  uint32_t size_B = 0;
  std::vector<uint32_t> array_strides_B;
};
// The dimensionality of an image or sampler (SPIR-V OpTypeImage Dim and
// Arrayed/MS), in the texture instructions' `n` order (applegpu) plus
// buffer images.
enum class ImageDim : uint8_t { d1, d1_array, d2, d2_array, d2_ms, d3, cube, cube_array, d2_ms_array, buffer };
const char* image_dim_name(ImageDim d);  // "1d", "2d_array", ...
// An image or sampler uniform and the state registers its descriptors go
// in (docs/compiler.md, "Images and samplers": Mesa's gallium layout,
// textures first, then each image's Texture and PBE descriptors side by
// side). `name` is what the runtime looks up to find the bound unit.
struct ImageBinding {
  enum class Kind { storage_image, sampled_image } kind{};
  uint32_t binding = 0;
  std::string name;
  ImageDim dim = ImageDim::d2;
  std::string format;             // SPIR-V image format ("rgba8", "r32f", "unknown")
  uint32_t texture_state = 0;     // ts<N>: Texture descriptor (reads, queries)
  uint32_t pbe_state = UINT32_MAX;      // ts<N>: PBE descriptor (storage images: writes)
  uint32_t sampler_state = UINT32_MAX;  // ss<N>: the unit's sampler (sampled images)
  // u<N..N+3>: what imageSize / textureSize return for level 0 (the
  // dimension's extents, then the layer count; cube arrays count cubes),
  // zero-padded to 3 words, then the sample count; the runtime writes them
  // when the shader queries them (UINT32_MAX when it does not).
  uint32_t size_uniform = UINT32_MAX;
  // u<N..N+4> (N even): level 0's base address (a pair), tiles per row,
  // log2 of the tile width and of the tile height in texels, which the
  // runtime writes when the shader uses image atomics: they become device
  // atomics on the texel's address (UINT32_MAX when unused).
  uint32_t atomic_uniform = UINT32_MAX;
  // u<N>: the view's level count (textureQueryLevels), written by the
  // runtime when the shader asks (UINT32_MAX when it does not).
  uint32_t levels_uniform = UINT32_MAX;
  // An array of images or samplers (`uniform sampler2D s[3]`): one
  // ImageBinding per element, named "s[i]"; array_size is the array's
  // length (0: not an array). Vulkan: `binding` is the array's; OpenGL: the
  // element's own unit / binding point, the array's binding + array_element.
  uint32_t array_element = 0, array_size = 0;
};
// A separate sampler (Vulkan GLSL `uniform sampler s;`, combined with a
// texture by `sampler2D(t, s)`: OpSampledImage): its sampler state
// register, after the sampled textures' (docs/compiler.md, "Images and
// samplers").
struct SamplerBinding {
  uint32_t set = 0, binding = 0;
  std::string name;
  uint32_t sampler_state = 0;  // ss<N>
};
struct Abi {
  std::vector<Resource> resources;
  std::vector<ImageBinding> images;
  std::vector<SamplerBinding> samplers;  // separate samplers
  uint32_t texture_state_count = 0;     // ts0..ts(N-1) the launch loads
  uint32_t sampler_state_count = 0;     // ss0..ss(N-1)
  uint32_t txf_sampler_state = UINT32_MAX;  // ss<N>: clamp-to-border nearest sampler of texel fetches
  std::vector<LooseUniform> loose_uniforms;
  uint32_t push_constants_uniform = 0;  // first uniform of the push constant / loose uniform block
  uint32_t push_constants_size_B = 0;
  // u<N>_u<N+1>: the 64-bit address of the push constant / loose uniform
  // block when it does not fit in the uniform file (kNoUniform: pushed).
  // The whole block is then in memory, the same bytes, and its words are
  // numbered from push_constants_uniform = kPushMemoryFirstWord, past the
  // 256 uniform registers: the word index in the uniform list a runner
  // builds, which the runtime moves into the buffer (docs/compiler.md,
  // "Push constants in memory").
  uint32_t push_memory_uniform = Resource::kNoUniform;
  static constexpr uint32_t kPushMemoryFirstWord = 256;
  uint32_t workgroup_count_uniform = 0; // u<N..N+2>: gl_NumWorkGroups (always reserved)
  std::array<uint32_t, 3> workgroup_size{1, 1, 1};
  uint32_t threadgroup_memory_B = 0;    // shared variables
  uint32_t uniform_count = 0;           // 32-bit uniform registers the shader reads
  // u<N>_u<N+1>: address of a zeroed 4-byte device word, the spin lock of
  // 64-bit buffer atomics (UINT32_MAX: the shader has none).
  uint32_t atomic_lock_uniform = UINT32_MAX;
  // u<N>..u<N+count-1>: what the preamble (Shader::preamble) stores for
  // the main shader, after every uniform above (inside uniform_count);
  // the runtime loads nothing there.
  uint32_t preamble_uniform = 0, preamble_uniform_count = 0;
  // Stage::vertex: attributes, the prolog's uniforms, outputs (vertex.h).
  VertexAbi vertex;
  // Stage::fragment: inputs, outputs and reserved uniforms (fragment.h).
  FragmentAbi fragment;
};

// shader-db style figures.
struct Stats {
  uint32_t instructions = 0;     // preamble + main shader
  uint32_t bytes = 0;            // main shader (Shader::code)
  uint32_t gprs = 0;             // 16-bit register halves allocated, r0 included
  uint32_t preamble_instructions = 0, preamble_bytes = 0;
  uint32_t preamble_gprs = 0;    // the preamble's register halves (Launch Word 0's preshader count)
  uint32_t uniforms = 0;         // 16-bit uniform halves
  uint32_t spills = 0, fills = 0;  // stack stores / loads added by spilling
  uint32_t scratch_B = 0;          // stack bytes per thread they use
  uint32_t threads_per_core = 0;
  uint32_t loops = 0;
};

struct Shader {
  std::vector<uint8_t> code;   // AGX machine code, from offset 0, ends in stop
  // The preamble (USC Preshader): run once per launch before the main
  // shader, one thread; fills Abi::preamble_uniform... Empty: none.
  std::vector<uint8_t> preamble;
  Abi abi;
  Stats stats;
  std::string ir_text;         // the final IR (printer), for debugging
  std::string preamble_ir_text;  // the preamble's, empty without one
};

// GLSL compute source -> SPIR-V words (glslang; Vulkan 1.1 / OpenGL 4.5
// semantics by options.env). Errors name the file and line glslang reports.
Result<std::vector<uint32_t>> glsl_to_spirv(std::string_view source, const Options& options);
// Validate, legalize and (options.optimize) optimize SPIR-V (SPIRV-Tools).
Result<std::vector<uint32_t>> optimize_spirv(std::span<const uint32_t> words, const Options& options);

Result<Shader> compile_spirv(std::span<const uint32_t> words, const Options& options);
Result<Shader> compile_glsl(std::string_view source, const Options& options);

// The fragment epilog (docs/compiler.md, "Fragment shaders"): converts,
// blends and stores the colour the main shader left in r4.. to the
// tilebuffer (st_tile, ld_tile when blending, a logic op or a write mask
// needs the destination) and emits depth / stencil (zs_emit) from r2 / r3l.
Result<Shader> compile_fragment_epilog(const FragmentEpilogKey& key);
// One program: the main shader (its final stop dropped) followed by the
// epilog; registers and uniforms are the larger of both.
Result<Shader> link_fragment(const Shader& main, const Shader& epilog);

// AGX disassembly of a compiled shader, one instruction per line
// ("OFFSET: HEX  TEXT" as `agx disasm` prints).
std::string disassemble(std::span<const uint8_t> code);

}  // namespace agx::compiler
