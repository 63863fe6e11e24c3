// CDM (compute) control streams: Launch (both words, the G14X word only on
// G14X-class GPUs, then the sizes its mode selects), Barrier, Stream Link
// with and without return, Stream Return, Stream Terminate (lengths and
// order: bminor/mesa-mesa src/asahi/lib/decode.c; the indirect buffers'
// contents: src/asahi/genxml/cmdbuf.xml "CDM Mode").
#include "cmdstream/decode_internal.h"

namespace agx::cmdstream::detail {

namespace {

// Direct: global then local size. Indirect global: an indirect buffer of
// the 3 global-size words, then a local size. Indirect local: an indirect
// buffer of 6 words (global and local size).
void launch(Walker& w, GpuVa va, Block& b) {
  b.node.title = "CDM Launch";
  auto w0 = read_typed<CdmLaunchWord0>(w, va, GpuUnit::cdm, b.node);
  auto w1 = w0 ? read_typed<CdmLaunchWord1>(w, va + CdmLaunchWord0::kSize_B, GpuUnit::cdm, b.node) : std::nullopt;
  if (!w1) {
    b.flow = Flow::stop;
    return;
  }
  uint64_t at = va + CdmLaunchWord0::kSize_B + CdmLaunchWord1::kSize_B;
  auto next = [&]<class T>(T*) -> std::optional<T> {
    auto v = read_typed<T>(w, at, GpuUnit::cdm, b.node);
    at += T::kSize_B;
    return v;
  };
  bool ok = true;
  if (w.config().g14x) ok = next((CdmUnkG14x*)nullptr).has_value();
  auto indirect = [&](unsigned words, const char* what) {
    auto ind = next((CdmIndirect*)nullptr);
    if (!ind) return false;
    const GpuVa buffer = ind->address_hi << 32 | ind->address_lo;
    std::vector<uint8_t> bytes(4 * words);
    DecodeNode data;
    data.kind = DecodeNode::Kind::data;
    data.title = what;
    data.va = buffer;
    if (w.read(buffer, bytes, GpuUnit::cdm, what, b.node)) {
      data.size_B = bytes.size();
      data.lines = Walker::hexdump(buffer, bytes);
      b.node.children.push_back(std::move(data));
    }
    return true;
  };
  if (ok) {
    switch (w0->mode) {
      case CdmMode::kDirect:
        ok = next((CdmGlobalSize*)nullptr) && next((CdmLocalSize*)nullptr);
        break;
      case CdmMode::kIndirectGlobal:
        ok = indirect(3, "indirect global size") && next((CdmLocalSize*)nullptr);
        break;
      case CdmMode::kIndirectLocal:
        ok = indirect(6, "indirect global and local size");
        break;
      default:
        b.node.children.push_back(error_node(
            va, fmt::format("CDM Launch at 0x{:x}: unknown mode {}; its length is unknown, the stream stops", va,
                            uint32_t(w0->mode))));
        ok = false;
    }
  }
  b.node.size_B = at - va;
  b.size_B = at - va;
  // The pipeline is a USC word list; decode it even if the launch is cut.
  b.node.children.insert(b.node.children.begin(), usc_words(w, w.usc(w1->pipeline), "Pipeline (USC words)",
                                                            w0->sampler_state_register_count));
  if (!ok) b.flow = Flow::stop;
}

}  // namespace

// Every CDM block's first word carries its Block Type: read through the
// Launch word's table.
const StreamHead kCdmHead{kCdmLaunchWord0, GpuUnit::cdm, "CDM block (unreadable: the stream runs off mapped memory)"};

Block cdm_block(Walker& w, GpuVa va, std::span<const uint8_t> head_bytes) {
  Block b;
  const auto head = block_head<CdmLaunchWord0>(head_bytes, va, "CDM", b);
  auto simple = [&]<class T>(T*, const char* title, Flow flow) {
    return read_whole_block<T>(w, va, GpuUnit::cdm, b, title, flow);
  };
  switch (head.block_type) {
    case CdmBlockType::kLaunch:
      launch(w, va, b);
      break;
    case CdmBlockType::kBarrier:
      // Returns pops a call, as the VDM Barrier's and as the executor reads it.
      if (auto h = simple((CdmBarrier*)nullptr, "CDM Barrier", Flow::next); h && h->returns) {
        b.flow = Flow::ret;
        b.node.title = "CDM Barrier (returns)";
      }
      break;
    case CdmBlockType::kStreamLink:
      if (auto l = simple((CdmStreamLink*)nullptr, "CDM Stream Link", Flow::link)) {
        b.target = l->target_hi << 32 | l->target_lo;
        if (l->with_return) {
          b.flow = Flow::call;
          b.node.title = "CDM Stream Link (call)";
        }
        b.node.lines.push_back(fmt::format("target: 0x{:x}", b.target));
      }
      break;
    case CdmBlockType::kStreamTerminate:
      (void)simple((CdmStreamTerminate*)nullptr, "CDM Stream Terminate", Flow::terminate);
      break;
    case CdmBlockType::kStreamReturn:
      (void)simple((CdmStreamReturn*)nullptr, "CDM Stream Return", Flow::ret);
      break;
    default:
      stop_at_unknown_block(b, va, "CDM", uint32_t(head.block_type));
  }
  return b;
}

}  // namespace agx::cmdstream::detail

namespace agx::cmdstream {

DecodeNode decode_cdm_stream(GpuMemory& memory, GpuVa va, const DecodeConfig& config) {
  detail::Walker w(memory, config);
  return w.walk(va, "CDM stream", detail::kCdmHead, detail::cdm_block);
}

}  // namespace agx::cmdstream
