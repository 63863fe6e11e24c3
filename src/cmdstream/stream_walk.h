// The one walk of a control stream (CDM, VDM, a USC word list): blocks in
// order from a start address, Stream Links, calls and returns, and the
// bounds that keep a broken stream from running forever. A visitor decodes
// or executes each block and says where control goes; the walker reads
// each block's first word, follows the control transfers and reports why
// the walk ended. The decoder (decode.h) and the software GPU's CDM use it.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "util/gpu_memory.h"

namespace agx::cmdstream {

// How a block hands control on.
enum class Flow : uint8_t {
  next,       // to the block after this one (Step::size_B on)
  link,       // to Step::target
  call,       // to Step::target; a return comes back to the block after this one
  ret,        // back to where the last call would have gone next
  terminate,  // the stream ends here
  stop,       // the visitor cannot go on (a bad or unreadable block; it reported why)
};

struct Step {
  Flow flow = Flow::next;
  uint64_t size_B = 0;          // the block's length (next; a call's return address)
  GpuVa target = 0;             // link / call
  const char* what = nullptr;   // names the transfer in errors; null: "Stream Link",
                                // "Stream Link call", "Stream Return"
};

class StreamVisitor {
 public:
  virtual ~StreamVisitor() = default;
  // Before the block at va is read: false stops the walk (Flow::stop).
  virtual bool enter(GpuVa /*va*/) { return true; }
  // The block at va, whose first head_B bytes (StreamFormat) are `head`.
  virtual Step block(GpuVa va, std::span<const uint8_t> head) = 0;
};

// What every block starts with and the walk's bounds.
struct StreamFormat {
  GpuUnit unit = GpuUnit::cdm;       // the reader of the stream (faults name it)
  size_t head_B = 4;                 // bytes of a block the walker reads (at most 16)
  std::string_view head_name = "block";  // names the head in errors ("CDM Launch Word 0")
  uint64_t max_blocks = 100000;      // blocks in one walk
  unsigned max_call_depth = 8;       // nested calls
};

// Why a walk ended. Every kind but terminate and stop is an error of the
// stream, whose text `message` holds (the walker's one wording of it):
//  unreadable:  the head at `at` cannot be read ("CDM Launch Word 0 at 0x10
//               (4 bytes): REASON at 0x10"); `fault` says where and why;
//  runaway:     more than max_blocks blocks; `at` is the next block;
//  call_depth:  a call at `at` nests deeper than max_call_depth;
//  no_call:     a return at `at` with no call to go back to;
//  cycle:       a transfer at `at` to an address already reached with the
//               same calls pending (the hardware would loop forever).
struct WalkEnd {
  enum class Kind : uint8_t { terminate, stop, unreadable, runaway, call_depth, no_call, cycle };
  Kind kind = Kind::terminate;
  GpuVa at = 0;
  uint64_t blocks = 0;  // blocks visited
  GpuFault fault;       // unreadable
  std::string message;
  bool error() const { return kind != Kind::terminate && kind != Kind::stop; }
};

WalkEnd walk_stream(GpuMemory& memory, GpuVa start, const StreamFormat& format, StreamVisitor& visitor);

}  // namespace agx::cmdstream
