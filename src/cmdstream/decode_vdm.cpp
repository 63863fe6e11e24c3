// VDM (vertex) control streams: PPP State Update (the record it points to),
// Barrier (its Returns bit pops a call), VDM State Update and Index List
// (a header whose present bits select the words that follow, in fixed
// order), Stream Link, Tessellate, Stream Terminate. Orders and lengths:
// bminor/mesa-mesa src/asahi/lib/decode.c.
#include "cmdstream/decode_internal.h"

namespace agx::cmdstream::detail {

namespace {

// Reads the words of a header in order while their present bit is set.
struct Words {
  Walker& w;
  Block& b;
  GpuVa at;
  bool ok = true;
  template <class T>
  std::optional<T> take(bool present) {
    if (!present || !ok) return std::nullopt;
    auto v = read_typed<T>(w, at, GpuUnit::vdm, b.node);
    if (!v) ok = false;
    at += T::kSize_B;
    return v;
  }
};

void finish(Block& b, GpuVa va, GpuVa end, bool ok) {
  b.node.size_B = end - va;
  b.size_B = end - va;
  if (!ok) b.flow = Flow::stop;
}

void vdm_state(Walker& w, GpuVa va, const VdmState& h, Block& b) {
  Words r{w, b, va + VdmState::kSize_B};
  r.take<VdmStateRestartIndex>(h.restart_index_present);
  auto w0 = r.take<VdmStateVertexShaderWord0>(h.vertex_shader_word_0_present);
  auto w1 = r.take<VdmStateVertexShaderWord1>(h.vertex_shader_word_1_present);
  r.take<VdmStateVertexOutputs>(h.vertex_outputs_present);
  r.take<VdmStateTessellation>(h.tessellation_present);
  r.take<VdmStateVertexUnknown>(h.vertex_unknown_present);
  r.take<VdmStateTessellationScale>(h.tessellation_scale_present);
  // Without the scale word the update is padded to 8 bytes.
  GpuVa end = r.at;
  if (!h.tessellation_scale_present) end = va + ((end - va + 7) & ~uint64_t(7));
  finish(b, va, end, r.ok);
  if (w1)
    b.node.children.push_back(usc_words(w, w.usc(w1->pipeline), "Vertex pipeline (USC words)",
                                        w0 ? w0->sampler_state_register_count : SamplerStates::k0));
}

void index_list(Walker& w, GpuVa va, const IndexList& h, Block& b) {
  Words r{w, b, va + IndexList::kSize_B};
  r.take<IndexListBufferLo>(h.index_buffer_present);
  r.take<IndexListCount>(h.index_count_present);
  r.take<IndexListInstances>(h.instance_count_present);
  r.take<IndexListStart>(h.start_present);
  r.take<IndexListIndirectBuffer>(h.indirect_buffer_present);
  r.take<IndexListBufferSize>(h.index_buffer_size_present);
  finish(b, va, r.at, r.ok);
}

void tessellate(Walker& w, GpuVa va, const VdmTessellate& h, Block& b) {
  Words r{w, b, va + VdmTessellate::kSize_B};
  r.take<VdmTessellateFactorBuffer>(h.factor_buffer_present);
  r.take<VdmTessellatePatchCount>(h.patch_count_present);
  r.take<VdmTessellateInstanceCount>(h.instance_count_present);
  r.take<VdmTessellateBasePatch>(h.base_patch_present);
  r.take<VdmTessellateBaseInstance>(h.base_instance_present);
  r.take<VdmTessellateInstanceStride>(h.instance_stride_present);
  r.take<VdmTessellateIndirect>(h.indirect_present);
  r.take<VdmTessellateFactorBufferSize>(h.factor_buffer_size_present);
  finish(b, va, r.at, r.ok);
}

}  // namespace

const StreamHead kVdmHead{kVdmBarrier, GpuUnit::vdm, "VDM block (unreadable: the stream runs off mapped memory)"};

Block vdm_block(Walker& w, GpuVa va, std::span<const uint8_t> head_bytes) {
  Block b;
  // Every VDM block's first word carries its Block Type: read it through
  // the Barrier word's table.
  const auto head = block_head<VdmBarrier>(head_bytes, va, "VDM", b);
  auto header = [&]<class T>(T*, const char* title, Flow flow) {
    return read_whole_block<T>(w, va, GpuUnit::vdm, b, title, flow);
  };
  switch (head.block_type) {
    case VdmBlockType::kPppStateUpdate:
      if (auto p = header((PppState*)nullptr, "PPP State Update", Flow::next)) {
        const GpuVa record = p->pointer_hi << 32 | p->pointer_lo;
        b.node.children.push_back(ppp_record(w, record, 4 * p->size_words));
      }
      break;
    case VdmBlockType::kBarrier:
      if (auto h = header((VdmBarrier*)nullptr, "VDM Barrier", Flow::next); h && h->returns) {
        b.flow = Flow::ret;
        b.node.title = "VDM Barrier (returns)";
      }
      break;
    case VdmBlockType::kVdmStateUpdate:
      if (auto h = header((VdmState*)nullptr, "VDM State Update", Flow::next)) vdm_state(w, va, *h, b);
      break;
    case VdmBlockType::kIndexList:
      if (auto h = header((IndexList*)nullptr, "Index List", Flow::next)) index_list(w, va, *h, b);
      break;
    case VdmBlockType::kStreamLink:
      if (auto l = header((VdmStreamLink*)nullptr, "VDM Stream Link", Flow::link)) {
        b.target = l->target_hi << 32 | l->target_lo;
        if (l->with_return) {
          b.flow = Flow::call;
          b.node.title = "VDM Stream Link (call)";
        }
        b.node.lines.push_back(fmt::format("target: 0x{:x}", b.target));
      }
      break;
    case VdmBlockType::kTessellate:
      if (auto h = header((VdmTessellate*)nullptr, "VDM Tessellate", Flow::next)) tessellate(w, va, *h, b);
      break;
    case VdmBlockType::kStreamTerminate:
      (void)header((VdmStreamTerminate*)nullptr, "VDM Stream Terminate", Flow::terminate);
      break;
    default:
      stop_at_unknown_block(b, va, "VDM", uint32_t(head.block_type));
  }
  return b;
}

}  // namespace agx::cmdstream::detail

namespace agx::cmdstream {

DecodeNode decode_vdm_stream(GpuMemory& memory, GpuVa va, const DecodeConfig& config) {
  detail::Walker w(memory, config);
  return w.walk(va, "VDM stream", detail::kVdmHead, detail::vdm_block);
}

}  // namespace agx::cmdstream
