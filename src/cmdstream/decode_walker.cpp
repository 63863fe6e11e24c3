// The stream walk: packets in order, Stream Link / call / return, and the
// bounds that keep a broken stream from running forever.
#include <algorithm>
#include <map>

#include "cmdstream/decode_internal.h"
#include "isa/isa.h"
#include "util/hex.h"

namespace agx::cmdstream::detail {

DecodeNode error_node(GpuVa va, std::string message) {
  DecodeNode n;
  n.kind = DecodeNode::Kind::error;
  n.title = "error";
  n.va = va;
  n.size_B = 1;
  n.lines.push_back(std::move(message));
  return n;
}

bool Walker::read(GpuVa va, std::span<uint8_t> out, GpuUnit unit, const char* what, DecodeNode& errors_to) {
  GpuFault fault;
  if (mem_.read(va, out.data(), out.size(), unit, &fault)) return true;
  errors_to.children.push_back(error_node(
      fault.va, fmt::format("{} at 0x{:x} ({} bytes): {} at 0x{:x}", what, va, out.size(), fault.reason, fault.va)));
  return false;
}

size_t Walker::read_upto(GpuVa va, std::span<uint8_t> out, GpuUnit unit) {
  GpuFault fault;
  if (mem_.read(va, out.data(), out.size(), unit, &fault)) return out.size();
  size_t n = 0;
  while (n < out.size() && mem_.read(va + n, out.data() + n, 1, unit, &fault)) n++;
  return n;
}

bool Walker::read_struct(const StructDesc& desc, GpuVa va, GpuUnit unit, DecodeNode& node) {
  DecodedStruct s{&desc, va, std::vector<uint8_t>(desc.size_B), {}};
  const std::string what = fmt::format("{}", desc.name);
  if (!read(va, s.bytes, unit, what.c_str(), node)) return false;
  node.structs.push_back(std::move(s));
  return true;
}

DecodeNode Walker::walk(GpuVa start, std::string title, const StreamHead& head, const BlockFn& block) {
  DecodeNode stream;
  stream.kind = DecodeNode::Kind::stream;
  stream.title = std::move(title);
  stream.va = start;
  class Visitor final : public StreamVisitor {
   public:
    Visitor(Walker& w, DecodeNode& stream, const BlockFn& block) : w_(w), stream_(stream), block_(block) {}
    Step block(GpuVa va, std::span<const uint8_t> head) override {
      Block b = block_(w_, va, head);
      stream_.children.push_back(std::move(b.node));
      return {b.flow, b.size_B, b.target};
    }

   private:
    Walker& w_;
    DecodeNode& stream_;
    const BlockFn& block_;
  } visitor(*this, stream, block);
  StreamFormat format;
  format.unit = head.unit;
  format.head_B = head.head.size_B;
  format.head_name = head.head.name;
  format.max_blocks = config_.limits.max_packets;
  format.max_call_depth = config_.limits.max_call_depth;
  WalkEnd end = walk_stream(mem_, start, format, visitor);
  switch (end.kind) {
    case WalkEnd::Kind::terminate:
    case WalkEnd::Kind::stop:
      break;
    case WalkEnd::Kind::unreadable: {
      DecodeNode n = packet_node(end.at, head.unreadable);
      n.children.push_back(error_node(end.fault.va, std::move(end.message)));
      stream.children.push_back(std::move(n));
      break;
    }
    case WalkEnd::Kind::runaway:
      stream.children.push_back(error_node(end.at, end.message + "; decoding stops"));
      break;
    default:
      stream.children.push_back(error_node(end.at, std::move(end.message)));
  }
  return stream;
}

std::vector<std::string> Walker::hexdump(GpuVa va, std::span<const uint8_t> bytes) {
  std::vector<std::string> lines;
  for (size_t off = 0; off < bytes.size(); off += 16) {
    std::string hex, text;
    for (size_t i = off; i < off + 16; i++) {
      if (i < bytes.size()) {
        hex += fmt::format("{:02x} ", bytes[i]);
        text += (bytes[i] >= 0x20 && bytes[i] < 0x7f) ? char(bytes[i]) : '.';
      } else {
        hex += "   ";
      }
    }
    lines.push_back(fmt::format("0x{:010x}: {} |{}|", va + off, hex, text));
  }
  return lines;
}

DecodeNode Walker::shader(GpuVa va, std::string title) {
  DecodeNode n;
  n.kind = DecodeNode::Kind::shader;
  n.title = std::move(title);
  n.va = va;
  uint64_t off = 0;
  while (off < config_.limits.max_shader_B) {
    uint8_t buf[isa::kMaxLength_B];
    const size_t got = read_upto(va + off, buf, GpuUnit::usc);
    if (got == 0) {
      n.children.push_back(error_node(va + off, fmt::format("shader at 0x{:x}: unreadable at 0x{:x} before a stop",
                                                            va, va + off)));
      break;
    }
    auto instr = isa::decode(std::span<const uint8_t>(buf, got), va + off);
    if (!instr) {
      n.children.push_back(error_node(va + off, fmt::format("shader at 0x{:x}: {}", va, instr.error().message())));
      break;
    }
    const size_t len = instr->length_B;
    n.lines.push_back(fmt::format("{:6x}: {:<24} {}", off, to_hex(std::span<const uint8_t>(buf, len)),
                                  isa::disassemble(*instr, va + off)));
    off += len;
    n.size_B = off;
    if (instr->op == isa::Opcode::stop) return n;
  }
  if (off >= config_.limits.max_shader_B)
    n.children.push_back(error_node(
        va + off, fmt::format("shader at 0x{:x}: no stop in {} bytes; disassembly stops", va, off)));
  return n;
}

}  // namespace agx::cmdstream::detail

namespace agx::cmdstream {
DecodeConfig config_for(const drm_asahi_params_global& params, uint64_t usc_exec_base) {
  DecodeConfig c;
  c.usc_exec_base = usc_exec_base;
  c.g14x = params.gpu_generation >= 14 && params.num_clusters_total > 1;
  return c;
}
}  // namespace agx::cmdstream
