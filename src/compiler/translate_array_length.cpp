// OpArrayLength -> IR: the elements of a buffer block's trailing runtime
// array that fit in the bound range, (size_B - offset_B) / stride_B, with
// size_B from a uniform the runtime fills (Resource::size_uniform, one per
// buffer that asks, placed after the push constant / loose uniform area).
#include <fmt/format.h>

#include "compiler/translate.h"

namespace agx::compiler::detail {

using IrOp = agx::compiler::Op;

Status Translator::array_length(const spirv::Inst& in) {
  const auto& w = in.w;
  if (w.size() != 4) return unsupported(in, "OpArrayLength operand count");
  AGX_TRY(auto pv, get(w[2], in));
  if (pv->kind != TVal::Kind::ptr || pv->ptr.space != Ptr::Space::buffer)
    return unsupported(in, "OpArrayLength of something other than a buffer block");
  const Ptr& p = pv->ptr;
  if (!p.terms.empty()) return unsupported(in, "OpArrayLength through a dynamically indexed pointer");
  const spirv::Type& st = type(p.type);
  uint32_t member = w[3];
  if (st.kind != spirv::Type::Kind::struct_ || member >= st.members.size() || member + 1 != st.members.size())
    return unsupported(in, "OpArrayLength of other than a struct's last member");
  const spirv::Type& arr = type(st.members[member]);
  uint32_t off = member < st.member_offsets.size() ? st.member_offsets[member] : UINT32_MAX;
  if (arr.kind != spirv::Type::Kind::runtime_array || !arr.array_stride || off == UINT32_MAX)
    return unsupported(in, "OpArrayLength of a runtime array without Offset/ArrayStride");
  // The size uniform of the buffer whose base pair is u<base>.
  auto size_uniform = [&](uint32_t base) -> Result<uint32_t> {
    Resource* res = nullptr;
    for (Resource& r : abi_.resources)
      if (r.uniform == base && r.kind == Resource::Kind::storage_buffer) res = &r;
    if (!res) return unsupported(in, "OpArrayLength of a buffer that is not a storage buffer");
    if (res->size_uniform == Resource::kNoUniform) {
      if (abi_.uniform_count >= 256) return unsupported(in, "no uniform register left for a buffer size");
      res->size_uniform = abi_.uniform_count++;
    }
    return res->size_uniform;
  };
  uint32_t start_B = p.const_B + off;
  Src size;
  if (p.desc_index.kind == Src::Kind::none) {
    AGX_TRY(uint32_t u, size_uniform(p.uniform));
    size = Src::uniform(u);
  } else {  // a descriptor array indexed at run time: its elements' sizes, selected
    std::vector<uint32_t> sizes;
    for (uint32_t base : p.desc_uniforms) {
      AGX_TRY(uint32_t u, size_uniform(base));
      sizes.push_back(u);
    }
    size = select_uniform(p.desc_index, sizes, 0);
  }
  Src bytes = b_.binary(IrOp::isub, size, Src::immediate(start_B));
  Src n = b_.binary(IrOp::udiv, bytes, Src::immediate(arr.array_stride));
  TVal out = TVal::data(w[0]);
  // A range shorter than the fixed part holds no elements.
  out.c.push_back(b_.select(Cond::ult, false, size, Src::immediate(start_B), Src::immediate(0), n));
  vals_[w[1]] = std::move(out);
  return {};
}

}  // namespace agx::compiler::detail
