// Shared by the decode_*.cpp files: the walk state and its helpers.
#pragma once

#include <fmt/format.h>

#include <functional>
#include <set>
#include <span>
#include <string>
#include <vector>

#include "cmdstream/decode.h"
#include "cmdstream/stream_walk.h"
#include "cmdstream/typed.h"

namespace agx::cmdstream::detail {

// What a stream's blocks start with: the struct whose table reads the
// first word (the walker reads its size first), the reader, and the title
// of a block that cannot be read.
struct StreamHead {
  const StructDesc& head;
  GpuUnit unit;
  const char* unreadable;  // "CDM block (unreadable: the stream runs off mapped memory)"
};

struct Block {
  Flow flow = Flow::next;
  uint64_t size_B = 0;  // bytes to the next packet (Flow::next)
  GpuVa target = 0;     // Flow::link / Flow::call
  DecodeNode node;
};

class Walker {
 public:
  Walker(GpuMemory& memory, const DecodeConfig& config) : mem_(memory), config_(config) {}
  const DecodeConfig& config() const { return config_; }

  // Reads `size` bytes; on a fault appends an error node to `errors_to`
  // naming `what` and the faulting address, and returns false.
  bool read(GpuVa va, std::span<uint8_t> out, GpuUnit unit, const char* what, DecodeNode& errors_to);
  // Reads up to out.size() bytes, stopping at the first unreadable byte;
  // returns how many were read.
  size_t read_upto(GpuVa va, std::span<uint8_t> out, GpuUnit unit);

  // Reads one struct of `desc` at va into node.structs (false, with an
  // error child, when unreadable).
  bool read_struct(const StructDesc& desc, GpuVa va, GpuUnit unit, DecodeNode& node);

  // Walks a stream from va with the cmdstream walker (stream_walk.h):
  // `block` decodes the packet at an address, whose head the walker has
  // read. The walker handles links, calls (bounded depth), returns, link
  // cycles, the length bound and unreadable heads; the packets, then any
  // error that ended the walk, become the children of the returned node.
  using BlockFn = std::function<Block(Walker&, GpuVa, std::span<const uint8_t> head)>;
  DecodeNode walk(GpuVa va, std::string title, const StreamHead& head, const BlockFn& block);

  // Hexdump lines of bytes read at va ("0x...: 00 11 ...  |..|").
  static std::vector<std::string> hexdump(GpuVa va, std::span<const uint8_t> bytes);
  // The shader at a GPU address, disassembled until `stop` (or the limit).
  DecodeNode shader(GpuVa va, std::string title);
  uint64_t usc(uint64_t usc_address) const { return config_.usc_exec_base + usc_address; }

 private:
  GpuMemory& mem_;
  DecodeConfig config_;
};

DecodeNode error_node(GpuVa va, std::string message);

// Reads a struct of type T at va into node.structs and returns its typed
// value (nullopt, with an error child in node, when unreadable).
template <class T>
std::optional<T> read_typed(Walker& w, GpuVa va, GpuUnit unit, DecodeNode& node) {
  if (!w.read_struct(desc_of<T>(), va, unit, node)) return std::nullopt;
  auto v = unpack<T>(node.structs.back().bytes);
  if (!v) {
    node.children.push_back(error_node(va, v.error().message()));
    return std::nullopt;
  }
  return *v;
}

// The packet node of a block at va.
inline DecodeNode packet_node(GpuVa va, std::string title) {
  DecodeNode n;
  n.kind = DecodeNode::Kind::packet;
  n.va = va;
  n.title = std::move(title);
  return n;
}

// The head of the block at va (the walker read it: it unpacks) as `Head`, a
// struct whose first word carries the stream's Block Type, for dispatching
// on it; b becomes the block's packet node named `stream`.
template <class Head>
Head block_head(std::span<const uint8_t> head, GpuVa va, const char* stream, Block& b) {
  b.node = packet_node(va, fmt::format("{} block", stream));
  auto v = unpack<Head>(head);
  return v ? *v : Head{};
}

// A block that is exactly one struct T: titles b, sets its size and flow,
// and reads it into b's node (flow stop when unreadable).
template <class T>
std::optional<T> read_whole_block(Walker& w, GpuVa va, GpuUnit unit, Block& b, const char* title, Flow flow) {
  b.node.title = title;
  b.node.size_B = T::kSize_B;
  b.size_B = T::kSize_B;
  b.flow = flow;
  auto v = read_typed<T>(w, va, unit, b.node);
  if (!v) b.flow = Flow::stop;
  return v;
}

// A block type the stream's table does not name: its length is unknown, so
// the walk stops there with an error naming the type and the address.
inline void stop_at_unknown_block(Block& b, GpuVa va, const char* stream, uint32_t type) {
  b.node.children.push_back(error_node(
      va, fmt::format("unknown {} block type {} at 0x{:x}; its length is unknown, the stream stops", stream,
                      type, va)));
  b.node.size_B = 4;
  b.flow = Flow::stop;
}

// Texture state words in end-of-tile programs are PBE descriptors.
enum class ImageKind : uint8_t { texture, pbe };

// A USC word list at a GPU address (usc_exec_base already added).
DecodeNode usc_words(Walker& w, GpuVa va, std::string title, SamplerStates samplers,
                     ImageKind images = ImageKind::texture);
// A PPP state record of size_B bytes.
DecodeNode ppp_record(Walker& w, GpuVa va, uint64_t size_B);
// Block of a CDM / VDM stream at va, and how their blocks start.
Block cdm_block(Walker& w, GpuVa va, std::span<const uint8_t> head);
Block vdm_block(Walker& w, GpuVa va, std::span<const uint8_t> head);
extern const StreamHead kCdmHead, kVdmHead;

}  // namespace agx::cmdstream::detail
