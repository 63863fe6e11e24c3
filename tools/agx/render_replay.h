// `agx render-replay`: the render commands of an AGX_TRACE file run again
// on the software GPU (gpu::GpuExecutor), and the images they leave (the
// render targets the end-of-tile program's PBE descriptors name, the depth
// and stencil buffers zls_ctrl stores) read back as PNG-ready pixels.
// The model only; cmd_gpu_render_replay.cpp prints and writes files
// (docs/cmdstream.md, "Render replay").
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "cmdstream/trace_file.h"
#include "util/png.h"
#include "util/result.h"

namespace agx::cli {

// One image a replayed render command left.
struct ReplayImage {
  uint32_t submit = 0;        // index of the submit in the file
  uint64_t seqno = 0;         // its SUBM seqno
  uint32_t command = 0;       // #N among the submit's hardware commands
  std::string target;         // "rt<N>" (texture register N of the end-of-tile program), "depth", "stencil"
  uint32_t layer = 0;
  std::string format;         // of the image in memory ("R8G8B8A8 Unorm", "Z32_FLOAT", "S8_UINT")
  GpuVa address = 0;          // of the image (layer 0, the level written)
  PngImage image;             // rgba8 for render targets, grey16 for depth, grey8 for stencil
};

// What became of one render command: replayed (its images read back) or
// faulted (either half, or reading its images back), with the reason.
struct ReplayOutcome {
  uint32_t submit = 0;
  uint64_t seqno = 0;
  uint32_t command = 0;
  bool faulted = false;
  std::string reason;   // "submit S (seqno Q), render command #C: ..." when faulted
  uint32_t images = 0;  // images it left in ReplayResult::images
};

struct ReplayResult {
  std::vector<ReplayImage> images;      // of the commands that did not fault
  std::vector<ReplayOutcome> commands;  // every render command replayed, in order
  bool any_faulted() const;
};

struct ReplayOptions {
  int64_t submit = -1;   // only this submit (index in the file); -1: every submit
  unsigned threads = 0;  // per GPU unit; 0: the executor's default
};

// Replays every render command (of `options.submit`), each submit on its
// own writable copy of the submit's captured mappings, its render commands
// in order, vertex half then fragment half. A fault of either half or a
// target that cannot be read back ends that command alone: its outcome
// names the submit, the command and the fault, and the replay goes on with
// the next command and submit. A trace without render commands, a submit
// index out of range or a command buffer that cannot be parsed is an error.
Result<ReplayResult> replay_renders(const cmdstream::Trace& trace, const ReplayOptions& options);

// "submit<S>_command<C>_<target>_layer<L>.png".
std::string replay_file_name(const ReplayImage& image);

}  // namespace agx::cli
