// The stream walk (stream_walk.h): the order of blocks and control
// transfers is the hardware's as bminor/mesa-mesa src/asahi/lib/decode.c
// follows it (a call returns to the block after the link).
#include "cmdstream/stream_walk.h"

#include <fmt/format.h>

#include <array>
#include <set>
#include <utility>
#include <vector>

namespace agx::cmdstream {

WalkEnd walk_stream(GpuMemory& memory, GpuVa start, const StreamFormat& format, StreamVisitor& visitor) {
  std::vector<GpuVa> stack;  // return addresses of pending calls
  // A transfer to the same address with the same return stack as before
  // would repeat forever: the hardware loops there.
  std::set<std::pair<GpuVa, std::vector<GpuVa>>> transfers;
  transfers.insert({start, stack});
  std::array<uint8_t, 16> head{};
  const size_t head_B = std::min(format.head_B, head.size());
  WalkEnd end;
  auto finish = [&](WalkEnd::Kind kind, GpuVa at, std::string message) {
    end.kind = kind;
    end.at = at;
    end.message = std::move(message);
    return end;
  };
  auto transfer = [&](GpuVa from, GpuVa to, const char* how) {
    if (transfers.insert({to, stack}).second) return true;
    finish(WalkEnd::Kind::cycle, from,
           fmt::format("link cycle: {} at 0x{:x} to 0x{:x} repeats an earlier path (the hardware would loop)", how,
                       from, to));
    return false;
  };
  GpuVa va = start;
  for (;;) {
    if (end.blocks == format.max_blocks)
      return finish(WalkEnd::Kind::runaway, va,
                    fmt::format("stream longer than {} packets at 0x{:x}", format.max_blocks, va));
    end.blocks++;
    if (!visitor.enter(va)) return finish(WalkEnd::Kind::stop, va, {});
    GpuFault fault;
    if (!memory.read(va, head.data(), head_B, format.unit, &fault)) {
      end.fault = fault;
      return finish(WalkEnd::Kind::unreadable, va,
                    fmt::format("{} at 0x{:x} ({} bytes): {} at 0x{:x}", format.head_name, va, head_B, fault.reason,
                                fault.va));
    }
    const GpuVa at = va;
    const Step s = visitor.block(at, std::span<const uint8_t>(head.data(), head_B));
    switch (s.flow) {
      case Flow::next:
        va += s.size_B;
        break;
      case Flow::link:
        if (!transfer(at, s.target, s.what ? s.what : "Stream Link")) return end;
        va = s.target;
        break;
      case Flow::call:
        if (stack.size() == format.max_call_depth)
          return finish(WalkEnd::Kind::call_depth, at,
                        fmt::format("{} at 0x{:x}: call depth {} exceeds the limit",
                                    s.what ? s.what : "Stream Link call", at, stack.size() + 1));
        stack.push_back(at + s.size_B);
        if (!transfer(at, s.target, s.what ? s.what : "Stream Link call")) return end;
        va = s.target;
        break;
      case Flow::ret:
        if (stack.empty())
          return finish(WalkEnd::Kind::no_call, at,
                        fmt::format("{} at 0x{:x} with no call to return to", s.what ? s.what : "Stream Return", at));
        va = stack.back();
        stack.pop_back();
        if (!transfer(at, va, s.what ? s.what : "Stream Return")) return end;
        break;
      case Flow::terminate:
        return finish(WalkEnd::Kind::terminate, at, {});
      case Flow::stop:
        return finish(WalkEnd::Kind::stop, at, {});
    }
  }
}

}  // namespace agx::cmdstream
