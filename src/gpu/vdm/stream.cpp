// The VDM control stream: blocks from vdm_ctrl_stream_base, each starting
// with a word whose Block Type says what it is (cmdbuf.xml "VDM Block
// Type"), walked by the cmdstream unit's walker (cmdstream/stream_walk.h,
// the walk `agx decode` makes too). VDM State and Index List are a header
// whose present bits select the words that follow, in the order of
// bminor/mesa-mesa src/asahi/lib/decode.c (the decoder's, decode_vdm.cpp).
// Each draw runs to completion before the next block is read.
#include <fmt/format.h>

#include "gpu/vdm/vdm_internal.h"

namespace agx::gpu::detail {

namespace {

namespace cs = cmdstream;

class VdmVisitor final : public cs::StreamVisitor {
 public:
  VdmVisitor(VertexEngine& engine, VdmRun& run) : engine_(engine), run_(run) {}

  Status status;  // the first fault (the walk stops there)

  cs::Step block(GpuVa va, std::span<const uint8_t> head) override {
    auto step = visit(va, head);
    if (!step) {
      status = std::move(step).error();
      return {cs::Flow::stop};
    }
    return *step;
  }

 private:
  // Reads the T at va (a fault fills the run's *where) and checks it.
  template <class T>
  Result<T> word(GpuVa va, std::string_view block, GpuVa block_at) {
    uint8_t b[T::kSize_B];
    AGX_CHECK(read_gpu(*run_.cmd.memory, va, b, sizeof b, GpuUnit::vdm, run_.where));
    auto w = read_word<T>(b);
    if (!w) return bad(block_at, block, std::move(w).error());
    return *w;
  }
  Error bad(GpuVa va, std::string_view block, Error e) {
    return fail(run_.where, va, GpuUnit::vdm, Error::decode("{} at 0x{:x}: {}", block, va, e.message()));
  }

  Result<cs::Step> visit(GpuVa va, std::span<const uint8_t> head) {
    // Every VDM block has its Block Type where the Barrier word has it.
    AGX_TRY(cs::VdmBarrier h, cs::unpack<cs::VdmBarrier>(head));
    switch (h.block_type) {
      case cs::VdmBlockType::kPppStateUpdate: return ppp_state(va);
      case cs::VdmBlockType::kBarrier: {
        AGX_TRY(cs::VdmBarrier b, word<cs::VdmBarrier>(va, "VDM Barrier", va));
        engine_.counters.barriers++;
        return cs::Step{b.returns ? cs::Flow::ret : cs::Flow::next, cs::VdmBarrier::kSize_B, 0,
                        "VDM Barrier with Returns"};
      }
      case cs::VdmBlockType::kVdmStateUpdate: return vdm_state(va);
      case cs::VdmBlockType::kIndexList: return index_list(va);
      case cs::VdmBlockType::kStreamLink: {
        AGX_TRY(cs::VdmStreamLink l, word<cs::VdmStreamLink>(va, "VDM Stream Link", va));
        return cs::Step{l.with_return ? cs::Flow::call : cs::Flow::link, cs::VdmStreamLink::kSize_B,
                        address(l.target_hi, l.target_lo)};
      }
      case cs::VdmBlockType::kTessellate:
        return fail(run_.where, va, GpuUnit::vdm,
                    Error::unsupported("VDM Tessellate at 0x{:x}: tessellation is not supported", va));
      case cs::VdmBlockType::kStreamTerminate:
        AGX_CHECK(word<cs::VdmStreamTerminate>(va, "VDM Stream Terminate", va));
        return cs::Step{cs::Flow::terminate};
    }
    return bad(va, "VDM block", Error::decode("VDM Block Type {} names no block", uint32_t(h.block_type)));
  }

  // PPP State: the update at Pointer, Size words long.
  Result<cs::Step> ppp_state(GpuVa va) {
    AGX_TRY(cs::PppState p, word<cs::PppState>(va, "PPP State", va));
    const GpuVa record = address(p.pointer_hi, p.pointer_lo);
    std::vector<uint8_t> bytes(4 * p.size_words);
    AGX_CHECK(read_gpu(*run_.cmd.memory, record, bytes.data(), bytes.size(), GpuUnit::ppp, run_.where));
    if (Status st = apply_ppp_update(bytes, record, run_.ppp); !st)
      return fail(run_.where, record, GpuUnit::ppp,
                  std::move(st).error().context(fmt::format("PPP State at 0x{:x}", va)));
    run_.state_dirty = true;
    return cs::Step{cs::Flow::next, cs::PppState::kSize_B};
  }

  // VDM State: the header, then each present word; without the
  // tessellation scale word the block is padded to 8 bytes.
  Result<cs::Step> vdm_state(GpuVa va) {
    static constexpr std::string_view kBlock = "VDM State";
    AGX_TRY(cs::VdmState h, word<cs::VdmState>(va, kBlock, va));
    if (h.tessellation_present || h.tessellation_scale_present)
      return fail(run_.where, va, GpuUnit::vdm,
                  Error::unsupported("VDM State at 0x{:x}: {} word: tessellation is not supported", va,
                                     h.tessellation_present ? "Tessellation" : "Tessellation Scale"));
    GpuVa p = va + cs::VdmState::kSize_B;
    VdmWords& v = run_.vdm;
    auto take = [&]<class T>(bool present, T& into) -> Status {
      if (!present) return {};
      AGX_TRY(into, word<T>(p, kBlock, va));
      p += T::kSize_B;
      return {};
    };
    cs::VdmStateRestartIndex restart{};
    cs::VdmStateVertexShaderWord0 w0{};
    cs::VdmStateVertexShaderWord1 w1{};
    AGX_CHECK(take(h.restart_index_present, restart));
    AGX_CHECK(take(h.vertex_shader_word_0_present, w0));
    AGX_CHECK(take(h.vertex_shader_word_1_present, w1));
    AGX_CHECK(take(h.vertex_outputs_present, v.outputs));
    AGX_CHECK(take(h.vertex_unknown_present, v.unknown));
    if (h.restart_index_present) v.restart_index = restart;
    if (h.vertex_shader_word_0_present) v.shader_0 = w0;
    if (h.vertex_shader_word_1_present) v.shader_1 = w1;
    run_.state_dirty = true;
    return cs::Step{cs::Flow::next, (p - va + 7) & ~uint64_t{7}};
  }

  // Index List: the header, then each present word (Buffer lo, Count,
  // Instances, Start, Indirect buffer, Buffer size), then the draw.
  Result<cs::Step> index_list(GpuVa va) {
    static constexpr std::string_view kBlock = "Index List";
    IndexListBlock b;
    b.at = va;
    AGX_TRY(b.header, word<cs::IndexList>(va, kBlock, va));
    const cs::IndexList& h = b.header;
    if (h.unk_1_present || h.unk_2_present)
      return bad(va, kBlock, Error::unsupported("Unk {} present: what that word holds is not public",
                                                h.unk_1_present ? 1 : 2));
    GpuVa p = va + cs::IndexList::kSize_B;
    auto take = [&]<class T>(bool present) -> Result<std::optional<T>> {
      if (!present) return std::optional<T>();
      AGX_TRY(T w, word<T>(p, kBlock, va));
      p += T::kSize_B;
      return std::optional<T>(w);
    };
    AGX_TRY(auto lo, take.template operator()<cs::IndexListBufferLo>(h.index_buffer_present));
    AGX_TRY(auto count, take.template operator()<cs::IndexListCount>(h.index_count_present));
    AGX_TRY(auto instances, take.template operator()<cs::IndexListInstances>(h.instance_count_present));
    AGX_TRY(auto start, take.template operator()<cs::IndexListStart>(h.start_present));
    AGX_TRY(auto indirect, take.template operator()<cs::IndexListIndirectBuffer>(h.indirect_buffer_present));
    AGX_TRY(auto size, take.template operator()<cs::IndexListBufferSize>(h.index_buffer_size_present));
    if (lo) b.index_buffer = address(h.index_buffer_hi, lo->buffer_lo);
    if (count) b.count = static_cast<uint32_t>(count->count);
    if (instances) b.instances = static_cast<uint32_t>(instances->count);
    if (start) b.start = static_cast<uint32_t>(start->start);
    if (indirect) b.indirect = address(indirect->address_hi, indirect->address_lo);
    if (size) b.buffer_size_B = static_cast<uint32_t>(size->size);
    AGX_CHECK(run_draw(engine_, run_, b));
    return cs::Step{cs::Flow::next, p - va};
  }

  VertexEngine& engine_;
  VdmRun& run_;
};

}  // namespace

Status walk_vdm_stream(VertexEngine& engine, VdmRun& run) {
  VdmVisitor visitor(engine, run);
  cs::StreamFormat format;
  format.unit = GpuUnit::vdm;
  format.head_B = cs::VdmBarrier::kSize_B;  // the word every block starts with
  format.head_name = "VDM block word";
  format.max_blocks = engine.options.stream_block_limit;
  format.max_call_depth = kMaxVdmCallDepth;
  const cs::WalkEnd end = cs::walk_stream(*run.cmd.memory, run.cmd.render->vdm_ctrl_stream_base, format, visitor);
  return walk_outcome(end, std::move(visitor.status), GpuUnit::vdm, run.where);
}

}  // namespace agx::gpu::detail
