// SPIR-V (spirv_module.h) -> IR (ir.h) for GLCompute shaders. Internal to
// the unit: translate.cpp walks the structured control flow,
// translate_alu.cpp, translate_memory.cpp and translate_image*.cpp
// translate instructions.
#pragma once

#include <optional>

#include "compiler/builder.h"
#include "compiler/compiler.h"
#include "compiler/spirv_module.h"

namespace agx::compiler::detail {

// A boolean kept as the comparison that made it, materialized as 0/1 only
// when stored or combined.
struct Cmp {
  Cond cond = Cond::ueq;
  bool invert = false;
  Src a, b;
};

// Where a pointer points: a buffer (64-bit base address in a uniform pair),
// the push constant / loose uniform area, threadgroup memory or a built-in
// input. The byte offset is const_B + sum(index * stride_B).
struct Ptr {
  enum class Space : uint8_t { buffer, push, shared, builtin } space{};
  uint32_t uniform = 0;         // buffer: base address pair u<N>_u<N+1>
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

struct TVal {
  enum class Kind : uint8_t { none, data, ptr, image } kind = Kind::none;
  uint32_t type = 0;
  std::vector<Src> c;           // scalar components (flattened for vectors)
  std::optional<Cmp> cmp;       // scalar bool from a comparison
  Ptr ptr;
  uint32_t image = 0;           // image: index in Abi::images
};

struct Ctx {
  uint32_t end = 0;             // the region ends where control reaches this block
  uint32_t header = 0, merge = 0, cont = 0;  // innermost loop (0: none)
  bool in_continue = false;     // walking the continue construct
  bool* saw_continue = nullptr;
  uint32_t outer_merge = 0, outer_cont = 0;  // a loop around a switch: not reachable from inside it
};

// A vector in consecutive registers for a store or an atomic.
Src gather(Builder& b, const std::vector<Src>& c);

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

  // translate_alu.cpp
  Status instruction(const spirv::Inst& in);
  Status alu(const spirv::Inst& in, bool& handled);

  // translate_glsl_std.cpp
  Status ext_glsl(const spirv::Inst& in);
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

  // translate_derivatives.cpp
  Status derivative(const spirv::Inst& in);
  Result<std::pair<Src, Src>> quad_derivatives(Src v, bool coarse, const spirv::Inst& in);

  // translate_memory.cpp
  Status setup_resources();
  Status access_chain(const spirv::Inst& in);
  Result<Ptr> variable_pointer(uint32_t var, const spirv::Inst& in);
  Status load(const spirv::Inst& in);
  Status store(const spirv::Inst& in);
  Status atomic(const spirv::Inst& in);
  Result<Src> buffer_index(const Ptr& p, uint32_t elem_B, const spirv::Inst& in, uint32_t* shift = nullptr);
  Result<Src> shared_address(const Ptr& p);
  // A 32-bit word's address for a read-modify-write loop: the buffer index
  // in words (with the base pair p.uniform) or the threadgroup byte address.
  Result<Src> word_address(const Ptr& p, const spirv::Inst& in);

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
  Status image_sample(const spirv::Inst& in);   // texture(), textureLod()
  Status image_query(const spirv::Inst& in);    // imageSize, textureSize, imageSamples
  Status texel_pointer(const spirv::Inst& in);  // image atomics (translate_image_atomic.cpp)
  Result<uint32_t> txf_sampler(const spirv::Inst& in);
  Status texel_result(const spirv::Inst& in, ValueId texel);
  Result<Src> image_coords(uint32_t id, const ImageBinding& img, const spirv::Inst& in, uint32_t* n);

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
  uint32_t natural_size_B(uint32_t type_id, uint32_t* align_B) const;

  // translate_int64.cpp: 64-bit integers on 32-bit halves
  bool is_int64(uint32_t type_id) const;
  Status int64_instruction(const spirv::Inst& in, bool& handled);  // ALU and GLSL.std.450 ops on int64
  Status alu64(const spirv::Inst& in, bool& handled);
  Status ext_glsl64(const spirv::Inst& in, bool& handled);
  Status load64(const spirv::Inst& in, const Ptr& p);
  Status store64(const spirv::Inst& in, const Ptr& p, const std::vector<Src>& data);
  Status atomic64(const spirv::Inst& in, const Ptr& p);
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

  const spirv::Module& m_;
  Builder b_;
  Abi& abi_;
  const Options& o_;
  std::vector<TVal> vals_;
  std::vector<std::vector<ValueId>> phi_vars_;  // phi id -> a variable per component
  std::vector<uint32_t> shared_offset_B_;       // workgroup variable id -> byte offset
  std::vector<int32_t> resource_uniform_;       // buffer variable id -> uniform index, -1
  std::vector<uint32_t> loose_uniform_;         // loose uniform variable id -> uniform index
  std::vector<int32_t> image_index_;            // image/sampler variable id -> Abi::images index, -1
  bool uses_workgroup_count_ = false;
  int loop_depth_ = 0;
  uint32_t lock_offset_B_ = UINT32_MAX;         // threadgroup lock word of the 64-bit atomics
};

}  // namespace agx::compiler::detail
