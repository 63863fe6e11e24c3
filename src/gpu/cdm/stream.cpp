// The CDM control stream: blocks from cdm_ctrl_stream_base, each starting
// with a word whose Block Type says what it is (cmdbuf.xml "CDM Block
// Type"). The cmdstream unit's walker (cmdstream/stream_walk.h, the walk
// `agx decode` makes too) reads each block's first word, follows Stream
// Links, calls and returns and stops runaway, looping and unmapped streams;
// the executor's visitor reads the rest of each block and runs each Launch
// to completion before the next block is read, so a Barrier orders nothing
// further here.
#include <fmt/format.h>

#include "gpu/cdm/cdm_internal.h"

namespace agx::gpu::detail {

namespace {

namespace cs = cmdstream;

class CdmRun final : public cs::StreamVisitor {
 public:
  CdmRun(Engine& engine, const kmd::FirmwareCommand& cmd, GpuFault* where)
      : engine_(engine), cmd_(cmd), where_(where) {}

  Status status;  // the first fault (the walk stops there)

  // A block read at or beyond cdm_ctrl_stream_end before any link faults.
  bool enter(GpuVa va) override {
    const GpuVa end = cmd_.compute->cdm_ctrl_stream_end;
    if (!first_segment_ || end == 0 || va < end) return true;
    status = fail(where_, va, GpuUnit::cdm,
                  Error::decode("the stream reached cdm_ctrl_stream_end 0x{:x} without a Stream Terminate", end));
    return false;
  }

  cs::Step block(GpuVa va, std::span<const uint8_t> head) override {
    auto step = visit(va, head);
    if (!step) {
      status = std::move(step).error();
      return {cs::Flow::stop};
    }
    if (step->flow == cs::Flow::link || step->flow == cs::Flow::call) first_segment_ = false;
    return *step;
  }

 private:
  // Reads the T at va (a fault fills *where_) and checks it.
  template <class T>
  Result<T> word(GpuVa va) {
    uint8_t b[T::kSize_B];
    AGX_CHECK(read_gpu(*cmd_.memory, va, b, sizeof b, GpuUnit::cdm, where_));
    auto w = read_word<T>(b);
    if (!w) return bad(va, T::kName, std::move(w).error());
    return *w;
  }
  Error bad(GpuVa va, std::string_view what, Error e) {
    return fail(where_, va, GpuUnit::cdm, Error::decode("stream {} at 0x{:x}: {}", what, va, e.message()));
  }

  Result<cs::Step> visit(GpuVa va, std::span<const uint8_t> head) {
    auto type = block_type(head);
    if (!type) return bad(va, "word", std::move(type).error());
    switch (*type) {
      case cs::CdmBlockType::kLaunch: return launch(va);
      case cs::CdmBlockType::kBarrier: {
        AGX_TRY(cs::CdmBarrier b, word<cs::CdmBarrier>(va));
        engine_.counters.barriers++;
        return cs::Step{b.returns ? cs::Flow::ret : cs::Flow::next, cs::CdmBarrier::kSize_B, 0,
                        "Barrier with Returns"};
      }
      case cs::CdmBlockType::kStreamLink: {
        AGX_TRY(cs::CdmStreamLink l, word<cs::CdmStreamLink>(va));
        return cs::Step{l.with_return ? cs::Flow::call : cs::Flow::link, cs::CdmStreamLink::kSize_B,
                        address(l.target_hi, l.target_lo)};
      }
      case cs::CdmBlockType::kStreamReturn:
        AGX_CHECK(word<cs::CdmStreamReturn>(va));
        return cs::Step{cs::Flow::ret, cs::CdmStreamReturn::kSize_B};
      case cs::CdmBlockType::kStreamTerminate:
        AGX_CHECK(word<cs::CdmStreamTerminate>(va));
        return cs::Step{cs::Flow::terminate};
    }
    return bad(va, "word", Error::decode("CDM Block Type {} names no block", uint32_t(*type)));
  }

  // Launch Word 0 and 1, then Global size (direct) or Indirect, then Local
  // size (unless indirect local).
  Result<cs::Step> launch(GpuVa va) {
    LaunchBlock block;
    block.at = va;
    AGX_TRY(cs::CdmLaunchWord0 w0, word<cs::CdmLaunchWord0>(va));
    auto counts = launch_counts(w0);
    if (!counts) return bad(va, cs::CdmLaunchWord0::kName, std::move(counts).error());
    block.counts = *counts;
    block.mode = w0.mode;
    GpuVa p = va + cs::CdmLaunchWord0::kSize_B;
    AGX_TRY(cs::CdmLaunchWord1 w1, word<cs::CdmLaunchWord1>(p));
    block.usc_words = cmd_.usc_exec_base + w1.pipeline;
    p += cs::CdmLaunchWord1::kSize_B;
    if (block.mode == cs::CdmMode::kDirect) {
      AGX_TRY(cs::CdmGlobalSize g, word<cs::CdmGlobalSize>(p));
      block.global = {uint32_t(g.x), uint32_t(g.y), uint32_t(g.z)};
      p += cs::CdmGlobalSize::kSize_B;
    } else {
      AGX_TRY(cs::CdmIndirect ind, word<cs::CdmIndirect>(p));
      block.indirect = address(ind.address_hi, ind.address_lo);
      p += cs::CdmIndirect::kSize_B;
    }
    if (block.mode != cs::CdmMode::kIndirectLocal) {
      AGX_TRY(cs::CdmLocalSize l, word<cs::CdmLocalSize>(p));
      block.local = {uint32_t(l.x), uint32_t(l.y), uint32_t(l.z)};
      p += cs::CdmLocalSize::kSize_B;
    }
    AGX_CHECK(run_launch(engine_, cmd_, block, where_));
    return cs::Step{cs::Flow::next, p - va};
  }

  Engine& engine_;
  const kmd::FirmwareCommand& cmd_;
  GpuFault* where_;
  bool first_segment_ = true;
};

}  // namespace

Status run_stream(Engine& engine, const kmd::FirmwareCommand& cmd, GpuFault* where) {
  CdmRun run(engine, cmd, where);
  cs::StreamFormat format;
  format.unit = GpuUnit::cdm;
  format.head_B = cs::CdmBarrier::kSize_B;  // the word every block starts with
  format.head_name = "CDM block word";
  format.max_blocks = engine.options.stream_block_limit;
  format.max_call_depth = kMaxStreamCallDepth;
  const cs::WalkEnd end = cs::walk_stream(*cmd.memory, cmd.compute->cdm_ctrl_stream_base, format, run);
  return walk_outcome(end, std::move(run.status), GpuUnit::cdm, where);
}

}  // namespace agx::gpu::detail
