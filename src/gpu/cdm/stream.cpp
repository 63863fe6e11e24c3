// The CDM control stream: blocks from cdm_ctrl_stream_base, each starting
// with a word whose Block Type says what it is (cmdbuf.xml "CDM Block
// Type"). Launches run in stream order, each to completion before the next
// block is read, so a Barrier orders nothing further here; links may call
// (with return) up to kMaxStreamCallDepth deep.
#include <vector>

#include <fmt/format.h>

#include "gpu/cdm/cdm_internal.h"

namespace agx::gpu::detail {

namespace {

const char* name(CdmBlock b) {
  switch (b) {
    case CdmBlock::launch: return "Launch";
    case CdmBlock::stream_link: return "Stream Link";
    case CdmBlock::stream_terminate: return "Stream Terminate";
    case CdmBlock::barrier: return "Barrier";
    case CdmBlock::stream_return: return "Stream Return";
  }
  return "?";
}

}  // namespace

Status run_stream(Engine& engine, const kmd::FirmwareCommand& cmd, GpuFault* where) {
  const drm_asahi_cmd_compute& cc = *cmd.compute;
  GpuMemory& m = *cmd.memory;
  const Lengths& len = lengths();
  GpuVa at = cc.cdm_ctrl_stream_base;
  bool first_segment = true;
  std::vector<GpuVa> returns;
  uint8_t b[kMaxWord_B];
  // Reads `n` bytes of the block at `va` into b.
  auto read = [&](GpuVa va, size_t n) { return read_gpu(m, va, b, n, GpuUnit::cdm, where); };
  auto bad = [&](GpuVa va, const char* what, Error e) {
    return fail(where, va, GpuUnit::cdm, Error::decode("stream {} at 0x{:x}: {}", what, va, e.message()));
  };
  for (uint32_t blocks = 0;; ++blocks) {
    if (blocks >= engine.options.stream_block_limit)
      return fail(where, at, GpuUnit::cdm,
                  Error::limit("the stream has more than {} blocks (a Stream Link loop?)", blocks));
    if (first_segment && cc.cdm_ctrl_stream_end && at >= cc.cdm_ctrl_stream_end)
      return fail(where, at, GpuUnit::cdm,
                  Error::decode("the stream reached cdm_ctrl_stream_end 0x{:x} without a Stream Terminate",
                                cc.cdm_ctrl_stream_end));
    AGX_CHECK(read(at, 4));
    auto type = block_type(b);
    if (!type) return bad(at, "word", std::move(type).error());
    switch (*type) {
      case CdmBlock::launch: {
        LaunchBlock block;
        block.at = at;
        auto st = unpack_launch_word0(b, block.counts, block.mode);
        if (!st) return bad(at, name(*type), std::move(st).error());
        GpuVa p = at + len.launch_word0;
        AGX_CHECK(read(p, len.launch_word1));
        auto pipeline = unpack_launch_word1(b);
        if (!pipeline) return bad(p, "Launch Word 1", std::move(pipeline).error());
        block.usc_words = cmd.usc_exec_base + *pipeline;
        p += len.launch_word1;
        if (block.mode == GridMode::direct) {
          AGX_CHECK(read(p, len.global_size));
          auto g = unpack_global_size(b);
          if (!g) return bad(p, "Global size", std::move(g).error());
          block.global = *g;
          p += len.global_size;
        } else {
          AGX_CHECK(read(p, len.indirect));
          auto ind = unpack_indirect(b);
          if (!ind) return bad(p, "Indirect", std::move(ind).error());
          block.indirect = *ind;
          p += len.indirect;
        }
        if (block.mode != GridMode::indirect_local) {
          AGX_CHECK(read(p, len.local_size));
          auto l = unpack_local_size(b);
          if (!l) return bad(p, "Local size", std::move(l).error());
          block.local = *l;
          p += len.local_size;
        }
        AGX_CHECK(run_launch(engine, cmd, block, where));
        at = p;
        break;
      }
      case CdmBlock::barrier: {
        auto returns_bit = unpack_barrier(b);
        if (!returns_bit) return bad(at, name(*type), std::move(returns_bit).error());
        engine.counters.barriers++;
        at += len.barrier;
        if (*returns_bit) {
          if (returns.empty())
            return fail(where, at - len.barrier, GpuUnit::cdm,
                        Error::decode("Barrier with Returns at 0x{:x} but no Stream Link with return to go back to",
                                      at - len.barrier));
          at = returns.back();
          returns.pop_back();
        }
        break;
      }
      case CdmBlock::stream_link: {
        AGX_CHECK(read(at, len.stream_link));
        auto link = unpack_stream_link(b);
        if (!link) return bad(at, name(*type), std::move(link).error());
        if (link->with_return) {
          if (returns.size() >= kMaxStreamCallDepth)
            return fail(where, at, GpuUnit::cdm,
                        Error::limit("Stream Link with return at 0x{:x} nests deeper than {}", at,
                                     kMaxStreamCallDepth));
          returns.push_back(at + len.stream_link);
        }
        at = link->target;
        first_segment = false;
        break;
      }
      case CdmBlock::stream_return: {
        AGX_CHECK(read(at, len.stream_return));
        auto st = unpack_stream_return(b);
        if (!st) return bad(at, name(*type), std::move(st).error());
        if (returns.empty())
          return fail(where, at, GpuUnit::cdm,
                      Error::decode("Stream Return at 0x{:x} with no Stream Link with return to go back to", at));
        at = returns.back();
        returns.pop_back();
        break;
      }
      case CdmBlock::stream_terminate: {
        AGX_CHECK(read(at, len.terminate));
        auto st = unpack_stream_terminate(b);
        if (!st) return bad(at, name(*type), std::move(st).error());
        return {};
      }
    }
  }
}

}  // namespace agx::gpu::detail
