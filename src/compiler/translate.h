// SPIR-V (spirv_module.h) -> IR (ir.h) for GLCompute shaders. Internal to
// the unit: translate.cpp walks the structured control flow,
// translate_alu.cpp, translate_memory.cpp and translate_image*.cpp
// translate instructions.
#pragma once

#include <map>
#include <optional>
#include <unordered_map>

#include "compiler/builder.h"
#include "compiler/fp64_lowering.h"
#include "compiler/compiler.h"
#include "compiler/spirv_module.h"

namespace agx::compiler::detail {

// The translator's handlers name SPIR-V's opcodes SpvOp and the IR's IrOp
// (a using-declaration of spv::Op would hide compiler::Op from every later
// file of a unity build).
using SpvOp = spv::Op;

// A boolean kept as the comparison that made it, materialized as 0/1 only
// when stored or combined.
struct Cmp {
  Cond cond = Cond::ueq;
  bool invert = false;
  Src a, b;
};

// Where a pointer points: a buffer (64-bit base address in a uniform pair),
// the push constant / loose uniform area, threadgroup memory, a built-in
// input or a local variable (translate_local.cpp). The byte offset is
// const_B + sum(index * stride_B).
struct Ptr {
  enum class Space : uint8_t { buffer, push, shared, builtin, local } space{};
  uint32_t local = 0;           // local: index in Translator::locals_
  uint32_t dynamic_max_B = 0;   // local: the largest sum(index * stride_B) (indices clamped)
  uint32_t uniform = 0;         // buffer: base address pair u<N>_u<N+1>
  // buffer: an element of a descriptor array picked at run time: the
  // elements' base pairs and the index (kind none: `uniform` holds).
  std::vector<uint32_t> desc_uniforms;
  Src desc_index;
  uint32_t const_B = 0;
  std::vector<std::pair<Src, uint32_t>> terms;
  uint32_t type = 0;            // pointee type
  int32_t builtin = -1;
  // Matrix layout from the enclosing struct member (MatrixStride, RowMajor;
  // 0: none given), and the byte step between the components of a vector
  // this points to (0: packed; a row-major matrix's column is strided).
  uint32_t matrix_stride_B = 0;
  bool row_major = false;
  uint32_t comp_stride_B = 0;
};

// Where a matrix's scalars sit: column c, row r at c * col_stride_B +
// r * comp_stride_B.
struct MatrixLayout {
  uint32_t col_stride_B = 0, comp_stride_B = 4;
};

// A scalar of a local variable in its natural layout: byte offset, and
// whether it is a 64-bit integer (two words, low first).
struct LocalLeaf {
  uint32_t off_B = 0;
  bool wide = false;
};

// A 32-bit word of a local variable to store: byte offset and data.
struct LocalWord {
  uint32_t off_B = 0;
  Src data;
};

struct TVal {
  enum class Kind : uint8_t { none, data, ptr, image } kind = Kind::none;
  uint32_t type = 0;
  // An empty data value of SPIR-V type `t` (the result an instruction
  // builds component by component).
  static TVal data(uint32_t t) {
    TVal v;
    v.kind = Kind::data;
    v.type = t;
    return v;
  }
  std::vector<Src> c;           // scalar components (flattened for vectors)
  std::optional<Cmp> cmp;       // scalar bool from a comparison
  Ptr ptr;
  uint32_t image = 0;           // image: index in Abi::images
  // image: an element of an array of images picked at run time: the
  // elements' Abi::images indices and the index (kind none: `image` holds).
  std::vector<uint32_t> image_elems;
  Src image_index;
  // image: the sampler state register of a separate sampler, set by
  // OpSampledImage (or a sampler value itself, image = UINT32_MAX);
  // UINT32_MAX: the texture's own.
  uint32_t sampler_state = UINT32_MAX;
};

struct Ctx {
  uint32_t end = 0;             // the region ends where control reaches this block
  uint32_t header = 0, merge = 0, cont = 0;  // innermost loop (0: none)
  bool in_continue = false;     // walking the continue construct
  bool* saw_continue = nullptr;
  // The construct around the innermost loop or switch (each one IR loop:
  // a switch is a loop that runs once), for branches that leave several
  // levels at once (`break` of a loop from inside a switch). Null: none.
  const Ctx* outer = nullptr;
};

// A scalar of a composite in memory: byte offset from the composite's
// start, scalar type.
struct MemoryLeaf {
  uint32_t off_B = 0;
  uint32_t type = 0;
};

// A vector in consecutive registers for a store or an atomic.
Src gather(Builder& b, const std::vector<Src>& c);

// The SPIR-V image operands of a texture lookup (translate_texture.cpp).
struct TexOperands {
  uint32_t mask = 0;
  Src bias, lod, min_lod;
  std::vector<Src> ddx, ddy, offset, offsets;  // offsets: ConstOffsets, 4 x (x, y)
};

class Translator {
 public:
  Translator(const spirv::Module& m, Function& f, Abi& abi, const Options& o) : m_(m), b_(f), abi_(abi), o_(o) {}
  Status run();

 private:
  // translate.cpp: control flow
  Status walk(uint32_t pred, uint32_t start, const Ctx& ctx, int depth);
  Status block(uint32_t id, const Ctx& ctx, int depth);
  Status phi_moves(uint32_t pred, uint32_t target);
  Status terminator(const spirv::Block& blk, const Ctx& ctx, int depth);
  Status if_cmp(const Cmp& c);
  Status switch_(const spirv::Block& blk, const Ctx& ctx, int depth);
  // A branch to the merge or continue target of a construct around the
  // innermost one: a break/continue that leaves `levels` more IR loops.
  Result<bool> outer_exit(uint32_t target, const Ctx& ctx);
  static bool leaves_outer(uint32_t target, const Ctx& ctx);

  // translate_alu.cpp
  Status instruction(const spirv::Inst& in);
  Status alu(const spirv::Inst& in, bool& handled);
  Status composite(const spirv::Inst& in, bool& handled);  // translate_alu.cpp
  Status logic(const spirv::Inst& in, bool& handled);
  Status check_arith_width(const spirv::Inst& in, uint32_t type_id);

  // translate_glsl_std.cpp
  Status ext_glsl(const spirv::Inst& in);
  Status glsl_arity(const spirv::Inst& in, size_t given, size_t k);
  Result<Src> glsl_float_math(const spirv::Inst& in, uint32_t inst, const std::vector<Src>& s, bool& handled);
  Result<Src> glsl_select_math(const spirv::Inst& in, uint32_t inst, const std::vector<Src>& s, bool& handled);
  Status ext_glsl_vector(const spirv::Inst& in);
  Status ext_glsl_struct(const spirv::Inst& in);
  Status ext_glsl_pack(const spirv::Inst& in);
  Status ext_glsl_half(const spirv::Inst& in);
  Status float_remainder(const spirv::Inst& in);

  // translate_trinary.cpp
  Status ext_amd_trinary(const spirv::Inst& in);

  // translate_array_length.cpp
  Status array_length(const spirv::Inst& in);

  // translate_vote.cpp
  Status vote(const spirv::Inst& in);

  // translate_struct_copy.cpp: whole structs/arrays in memory
  Result<std::vector<MemoryLeaf>> composite_leaves(const Ptr& p, const spirv::Inst& in);
  Ptr small_leaf(const Ptr& p, const MemoryLeaf& leaf) const;
  unsigned small_run(const Ptr& p, const std::vector<MemoryLeaf>& leaves, size_t first) const;
  Result<Src> load_word(const Ptr& p, uint32_t off_B, const spirv::Inst& in);
  Status store_word(const Ptr& p, uint32_t off_B, Src data, const spirv::Inst& in);
  Result<std::vector<Src>> load_composite(const Ptr& p, const spirv::Inst& in);
  Status store_composite(const spirv::Inst& in, const Ptr& p, const std::vector<Src>& data);
  Status copy(const spirv::Inst& in);  // OpCopyMemory, OpCopyMemorySized, OpCopyLogical
  Status copy_sized(const spirv::Inst& in, const Ptr& target, const Ptr& source);
  Result<uint32_t> pointee_extent_B(const Ptr& p, const spirv::Inst& in);

  // translate_subgroup.cpp: OpGroupNonUniform* (but the votes) and the
  // SPV_KHR_shader_ballot ops; the subgroup built-ins (nullopt: not one)
  static bool is_subgroup_op(spv::Op op);
  Status subgroup(const spirv::Inst& in);
  class SubgroupCall;
  Status subgroup_lanes(const spirv::Inst& in, SubgroupCall& call, bool& handled);
  Status subgroup_reduce(const spirv::Inst& in, SubgroupCall& call, bool dbl);
  Src subgroup_fold_double(unsigned red, Src lo, Src hi, Src mask);
  std::optional<Src> subgroup_builtin(int32_t builtin, unsigned comp);
  Src read_lane(Src x, Src index);  // x of lane `index`, exact under divergence
  Result<Src> subgroup_scan(unsigned red, unsigned group_op, uint32_t cluster, Src x, Src mask, Src active, Src lane);
  // translate_subgroup_imul64.cpp: the 64-bit product over the lanes of `mask`.
  Src subgroup_imul64(Src lo, Src hi, Src mask);
  // translate_vote.cpp: allEqual of a vector (every component).
  Result<Src> vote_all_equal_vector(const spirv::Inst& in, uint32_t id, unsigned comps);

  // translate_derivatives.cpp
  Status derivative(const spirv::Inst& in);
  Result<std::pair<Src, Src>> quad_derivatives(Src v, bool coarse, const spirv::Inst& in);

  // translate_memory.cpp
  Status setup_resources();
  void place_push_block();
  Status access_chain(const spirv::Inst& in);
  Result<Ptr> variable_pointer(uint32_t var, const spirv::Inst& in);
  // A buffer pointer's 64-bit base: its uniform pair, or for a descriptor
  // array indexed at run time the pair a select chain picks.
  Src buffer_base(const Ptr& p);
  // choices[index] by a select chain (the last choice when out of range).
  Src select_by_index(const Src& index, const std::vector<Src>& choices);
  Src select_uniform(const Src& index, const std::vector<uint32_t>& uniforms, uint32_t plus);
  Status load(const spirv::Inst& in);
  Status store(const spirv::Inst& in);
  Status atomic(const spirv::Inst& in);
  Result<Src> buffer_index(const Ptr& p, uint32_t elem_B, const spirv::Inst& in, uint32_t* shift = nullptr);
  Result<Src> shared_address(const Ptr& p);
  // A 32-bit word's address for a read-modify-write loop: the buffer index
  // in words (with the base pair p.uniform) or the threadgroup byte address.
  Result<Src> word_address(const Ptr& p, const spirv::Inst& in);
  // translate_push_dynamic.cpp: a push constant / loose uniform word at
  // p + off_B, a select chain over the reachable words for run-time indices
  Result<Src> push_word(const Ptr& p, uint32_t off_B, const spirv::Inst& in);
  // A pointer into the push constant / loose uniform block as a buffer
  // pointer through the block's address when the block is in memory
  // (Abi::push_memory_uniform; a run-time offset past the loose uniform
  // reads its element 0, as push_word); any other pointer as it is.
  Result<Ptr> memory_view(const Ptr& p, const spirv::Inst& in);
  bool in_push_memory(const Ptr& p) const {
    return p.space == Ptr::Space::push && abi_.push_memory_uniform != Resource::kNoUniform;
  }

  // translate_local.cpp: Function/Private variables in registers or on the
  // thread's stack (docs/compiler.md, "Local arrays").
  struct Local {
    uint32_t var = 0, type = 0, size_B = 0;
    bool registers = false;        // words below, else the stack at offset_B
    uint32_t offset_B = 0;
    std::vector<ValueId> words;    // registers: one IR variable per 32-bit word
  };
  Status setup_locals();
  std::vector<uint8_t> mentioned_ids() const;
  // translate_fragment.cpp: a fragment shader's inputs, outputs, built-ins
  // and discard (docs/compiler.md, "Fragment shaders").
  bool fragment_io(uint32_t var) const;
  Status setup_fragment();
  Status fragment_input(uint32_t var, uint32_t& next_cf);
  Result<Src> fragment_builtin(int32_t builtin, unsigned comp, const spirv::Inst& in);
  Status discard();
  Status finish_fragment();
  void drop_dead_local_inits();
  Result<std::vector<LocalLeaf>> local_leaves(uint32_t type_id) const;
  Src local_clamp(Src idx, uint32_t count);
  Src local_offset(const Ptr& p, uint32_t plus_B);
  Result<std::vector<Src>> local_load(const Ptr& p, const spirv::Inst& in);
  Status local_store(const Ptr& p, const std::vector<Src>& data, const spirv::Inst& in);
  Result<std::vector<Src>> local_load_words(const Ptr& p, const std::vector<uint32_t>& rel_B, const spirv::Inst& in);
  Status local_store_words(const Ptr& p, std::vector<LocalWord> words, const spirv::Inst& in);

  // translate_matrix.cpp: matrix arithmetic, Determinant/MatrixInverse,
  // matrix layout in memory, loads and stores of matrices and strided vectors
  Status matrix_op(const spirv::Inst& in, bool& handled);
  Status matrix_ext(const spirv::Inst& in);
  Result<MatrixLayout> matrix_layout(Ptr::Space space, uint32_t matrix_stride_B, bool row_major, uint32_t mtype,
                                     const spirv::Inst& in) const;
  Result<std::vector<Src>> load_vector_at(const Ptr& p, unsigned n, uint32_t comp_stride_B, const spirv::Inst& in);
  Status store_vector_at(const Ptr& p, const std::vector<Src>& data, uint32_t comp_stride_B, const spirv::Inst& in);
  Status load_matrix(const spirv::Inst& in, const Ptr& p, TVal& out);
  Status store_matrix(const spirv::Inst& in, const Ptr& p, const std::vector<Src>& data);
  unsigned matrix_rows(uint32_t mtype) const { return components(type(mtype).elem); }

  // translate_image.cpp: image and sampler uniforms (docs/compiler.md,
  // "Images and samplers"). `image_instruction` runs first for every
  // instruction and sets `handled` for the ones it translates.
  Status setup_images();
  Status image_instruction(const spirv::Inst& in, bool& handled);
  Result<const ImageBinding*> image_of(uint32_t id, const spirv::Inst& in);
  Status image_write(const spirv::Inst& in);
  Status image_read(const spirv::Inst& in);     // imageLoad, texelFetch
  Status image_query(const spirv::Inst& in);    // imageSize, textureSize, imageSamples
  Status texel_pointer(const spirv::Inst& in);  // image atomics (translate_image_atomic.cpp)
  Result<uint32_t> txf_sampler(const spirv::Inst& in);
  Status texel_result(const spirv::Inst& in, ValueId texel);
  Result<Src> image_coords(uint32_t id, const ImageBinding& img, const spirv::Inst& in, uint32_t* n);

  // translate_texture.cpp: the GLSL sampling functions (docs/compiler.md,
  // "Texture sampling")
  Status texture_lookup(const spirv::Inst& in);  // OpImageSample*, OpImage*Gather, OpImageQueryLod
  Status query_levels(const spirv::Inst& in);    // textureQueryLevels
  Status size_at_level(const spirv::Inst& in, ImageBinding& img, Src lod, TVal& out);
  Result<TexOperands> texture_operands(const spirv::Inst& in, size_t at);
  struct TexLodKind {
    bool implicit, query_lod, gather, rect;
  };
  Result<Src> texture_lod(const spirv::Inst& in, ImageBinding& img, const TexOperands& ops, const std::vector<Src>& c,
                          TexLodKind k, uint64_t& flags);
  Result<uint32_t> image_size_uniform(ImageBinding& img, const spirv::Inst& in);
  // The same without the refusal for an element picked at run time (image
  // queries select among every element's uniforms).
  Result<uint32_t> size_uniform_of(ImageBinding& img, const spirv::Inst& in);
  Result<Src> texture_layer(Src layer, ImageBinding& img, const spirv::Inst& in);
  Src packed_offset(const std::vector<Src>& offset, unsigned count);
  Src fp16_word(Src x);
  bool texture_is_rect(uint32_t id) const;

  // helpers
  Result<const TVal*> get(uint32_t id, const spirv::Inst& in);
  Result<Src> scalar(uint32_t id, const spirv::Inst& in, unsigned comp = 0);
  Result<Cmp> condition(uint32_t id, const spirv::Inst& in);
  Src materialize(const Cmp& c);
  TVal constant(uint32_t id);
  const spirv::Type& type(uint32_t id) const {
    static const spirv::Type kNone;
    return id < m_.types.size() ? m_.types[id] : kNone;
  }
  unsigned components(uint32_t type_id) const;      // scalars of a scalar/vector, 0 otherwise
  unsigned flat_count(uint32_t type_id) const;      // scalars of any composite, flattened
  uint32_t scalar_type(uint32_t type_id) const;
  bool is_float(uint32_t type_id) const;
  bool is_bool(uint32_t type_id) const;
  Error unsupported(const spirv::Inst& in, std::string_view what) const;
  uint32_t natural_size_B(uint32_t type_id, uint32_t* align_B, bool widened = false) const;
  // An array's element step in the natural layout: the element's size
  // rounded up to its alignment.
  uint32_t natural_stride_B(uint32_t elem_type_id, bool widened = false) const;
  // An array's element step at `p` in an explicit layout (buffers, push
  // constants, loose uniforms): its ArrayStride, or the natural stride for
  // the arrays OpenGL SPIR-V leaves without one (loose uniforms, atomic
  // counters); an unsupported error when neither applies.
  Result<uint32_t> explicit_array_stride_B(const Ptr& p, uint32_t array_type_id, const spirv::Inst& in) const;
  // The loose uniform layout (docs/compiler.md "Compute ABI").
  uint32_t loose_size_B(uint32_t type_id) const;
  uint32_t loose_stride_B(uint32_t elem_type_id) const;

  // translate_int64.cpp: 64-bit integers on 32-bit halves
  bool is_int64(uint32_t type_id) const;
  Status int64_instruction(const spirv::Inst& in, bool& handled);  // ALU and GLSL.std.450 ops on int64
  Status alu64(const spirv::Inst& in, bool& handled);
  class Int64Call;
  Status alu64_convert(const spirv::Inst& in, Int64Call& c, bool& handled);
  Status ext_glsl64(const spirv::Inst& in, bool& handled);
  Status load64(const spirv::Inst& in, const Ptr& p);
  Status store64(const spirv::Inst& in, const Ptr& p, const std::vector<Src>& data);
  Status atomic64(const spirv::Inst& in, const Ptr& p);
  // translate_fp64*.cpp: doubles (fp64_lowering.h); 64-bit storage is the
  // int64 code's (is_wide64)
  bool is_double(uint32_t type_id) const;       // double scalar or vector
  bool holds_doubles(uint32_t type_id) const;   // ... or matrix / array of them
  bool is_wide64(uint32_t type_id) const;       // 64-bit int or float scalars inside
  uint32_t element_scalar(uint32_t type_id) const;
  bool value_is_double(uint32_t id) const;
  Result<Pair> dpair(uint32_t id, const spirv::Inst& in, unsigned comp);
  Status fp64_instruction(const spirv::Inst& in, bool& handled);
  Status fp64_alu(const spirv::Inst& in);
  Status fp64_ext(const spirv::Inst& in);
  class Fp64Call;
  Status fp64_ext_vector(const spirv::Inst& in, Fp64Call& c);
  Status fp64_matrix(const spirv::Inst& in);
  Status fp64_matrix_ext(const spirv::Inst& in);  // Determinant, MatrixInverse
  Pair fp64_dot(Fp64& fp, const std::vector<Pair>& a, const std::vector<Pair>& c);
  // translate_fp64_memory.cpp: dmat layouts, loads and stores
  Result<MatrixLayout> double_matrix_layout(Ptr::Space space, uint32_t matrix_stride_B, bool row_major, uint32_t mtype,
                                            const spirv::Inst& in) const;
  Result<Src> load_double_at(const Ptr& p, const spirv::Inst& in);
  Status store_double_at(const Ptr& p, Src v, const spirv::Inst& in);
  Status load_double_matrix(const spirv::Inst& in, const Ptr& p);
  Status store_double_matrix(const spirv::Inst& in, const Ptr& p, const std::vector<Src>& data);
  Status load_double_vector(const spirv::Inst& in, const Ptr& p);
  Status store_double_vector(const spirv::Inst& in, const Ptr& p, const std::vector<Src>& data);
  // translate_float_atomic.cpp: float add/min/max as compare-exchange loops
  Status float_atomic(const spirv::Inst& in);
  Src float_atomic_minmax(bool is_min, Src a, Src b);
  Src lo32(const Src& s);
  Src hi32(const Src& s);
  Src pack64(Src lo, Src hi);
  ValueId pair_value(ValueId v);
  std::optional<Src> native_add64(agx::compiler::Op op, const Src& a, const Src& b);
  ValueId phi_var64();
  void phi_move64(ValueId dest, const Src& src);

  // translate_small.cpp, translate_small_convert.cpp, translate_small_memory.cpp: 8/16-bit integers
  // and 16-bit floats, widened in 32-bit values (docs/compiler.md, "8- and
  // 16-bit types"). While small_active_, the 32-bit code takes them.
  unsigned small_width(uint32_t type_id) const;  // 8/16 for such a scalar/vector, else 0
  bool is_half(uint32_t type_id) const;
  uint32_t operand_type(uint32_t id) const;
  Src small_constant(uint32_t type_id, uint64_t bits) const;
  Status small_instruction(const spirv::Inst& in, bool& handled);
  Status small_convert(const spirv::Inst& in);
  Status small_bitcast(const spirv::Inst& in);
  Status load_small(const spirv::Inst& in, const Ptr& p);
  Result<std::vector<Src>> load_small_values(const spirv::Inst& in, const Ptr& p, uint32_t rtype, unsigned count = 0);
  Result<uint32_t> push_end_B(const Ptr& p, const spirv::Inst& in);
  Src push_dynamic_offset(const Ptr& p, uint32_t* step);
  Result<Src> push_small(const Ptr& p, uint32_t off_B, unsigned bits, const spirv::Inst& in);
  Status store_small(const spirv::Inst& in, const Ptr& p, const std::vector<Src>& data, unsigned count = 0);
  Src sext(Src v, unsigned bits);
  Src truncate(Src v, unsigned bits);
  Src round_half(Src f32, size_t window_start = SIZE_MAX);
  Src half_bits(Src f32);
  Src half_register(Src f32);
  Src from_half_bits(Src v, bool zero_extended = false);
  Src double_to_half(Pair d);
  void narrow_half_sources(size_t first_instr, TVal& out);
  bool small_active_ = false;
  bool round_half_lanes_ = false;  // subgroup_scan: half sums/products rounded per step
  Status small_lanes(const spirv::Inst& in);  // translate_small_lanes.cpp
  // A widened half -> where its 16 bits already are: a 16-bit register
  // (the rounding's) or a zero-extended 32-bit value (a loaded element).
  std::unordered_map<ValueId, Src> half_source_;

  // translate_vertex.cpp: Stage::vertex (docs/compiler.md, "Vertex
  // shaders"): attributes and outputs are register locals; the attribute
  // words start as the preloaded registers, the output words are stored
  // with st_var at the end.
  // One location: byte offset in the variable, 32-bit components (a
  // double takes two); `spill`: the words of a dvec3 / dvec4 past its
  // first four, in the location after the previous element's.
  struct InterfaceElement {
    uint32_t off_B = 0, comps = 0;
    bool spill = false;
  };
  Result<std::vector<InterfaceElement>> interface_elements(uint32_t type_id, uint32_t var) const;
  bool vertex_local(uint32_t var) const;
  Status setup_vertex();
  Status setup_vertex_outputs();
  Status vertex_builtin_output(uint32_t var, int32_t builtin, uint32_t off_B, uint32_t type_id,
                               varyings::Interface& iface);
  Status init_vertex_input(Local& l);
  std::optional<Src> vertex_builtin(int32_t builtin);
  Status store_vertex_outputs();
  enum class OutputKind : uint8_t { position, point_size, clip_distance, layer, viewport, varying };
  struct OutputWord {
    uint32_t var = 0, word = 0;  // the output variable and its 32-bit word
    OutputKind kind{};
    uint32_t index = 0;          // position component, clip plane, varying index, ...
    uint32_t comp = 0;           // varyings: the component
  };
  std::vector<OutputWord> output_words_;
  uint32_t first_uniform_ = 0;   // the shader's own uniforms start here
  Src vertex_id_, instance_id_;

  const spirv::Module& m_;
  Builder b_;
  Abi& abi_;
  const Options& o_;
  std::vector<TVal> vals_;
  std::vector<std::vector<ValueId>> phi_vars_;  // phi id -> a variable per component
  std::vector<uint32_t> shared_offset_B_;       // workgroup variable id -> byte offset
  std::vector<int32_t> resource_uniform_;       // buffer variable id -> uniform index, -1
  std::map<uint32_t, std::vector<uint32_t>> resource_array_uniforms_;  // descriptor array variable -> each element's pair
  std::vector<uint32_t> loose_uniform_;         // loose uniform variable id -> uniform index
  // The image operand of the instruction being translated is an array
  // element picked at run time (state registers from registers; per-image
  // uniforms are not reachable): image_size_uniform refuses.
  bool dynamic_image_ = false;
  // For such an element: the T (and, sampled, S) state indices as 16-bit
  // sources appended to `srcs`, kTexStateReg added to `imm`.
  Status dynamic_state_srcs(const TVal& v, bool sampler, bool pbe, std::vector<Src>& srcs, uint64_t& imm,
                            const spirv::Inst& in);
  std::map<uint32_t, std::vector<uint32_t>> image_array_;  // image/sampler array variable -> each element's Abi::images index
  std::map<uint32_t, uint32_t> sampler_var_state_;  // separate sampler variable -> its ss<N>
  std::vector<int32_t> image_index_;            // image/sampler variable id -> Abi::images index, -1
  std::vector<int32_t> local_index_;            // Function/Private variable id -> locals_ index, -1
  std::vector<Local> locals_;
  bool uses_workgroup_count_ = false;
  int loop_depth_ = 0;
  uint32_t lock_offset_B_ = UINT32_MAX;         // threadgroup lock word of the 64-bit atomics
};

}  // namespace agx::compiler::detail
