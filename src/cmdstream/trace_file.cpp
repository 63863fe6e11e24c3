// Reader of trace files and crash dumps (kmd/trace_format.h). Nothing in
// the file is trusted: every size is checked against what is left.
#include "cmdstream/trace_file.h"

#include <zlib.h>

#include <algorithm>
#include <cstring>
#include <fstream>
#include <iterator>

namespace agx::cmdstream {

namespace trace = kmd::trace;

namespace {

std::string tag_name(uint32_t tag) {
  std::string s;
  for (int i = 0; i < 4; i++) {
    const char c = char(tag >> (8 * i));
    s += (c >= 0x20 && c < 0x7f) ? c : '?';
  }
  return s;
}

template <typename T>
T load(const uint8_t* p) {
  T v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

struct Chunk {
  size_t offset;  // of the header
  uint32_t tag;
  std::span<const uint8_t> payload;
};

Status fixed(const Chunk& c, size_t size_B) {
  if (c.payload.size() != size_B)
    return Error::decode("chunk {} at offset {}: {} payload bytes, expected {}", tag_name(c.tag), c.offset,
                         c.payload.size(), size_B);
  return {};
}

Status at_least(const Chunk& c, size_t size_B) {
  if (c.payload.size() < size_B)
    return Error::decode("chunk {} at offset {}: {} payload bytes, expected at least {}", tag_name(c.tag), c.offset,
                         c.payload.size(), size_B);
  return {};
}

// The payload of a kChunkZlib chunk: the raw size, then a zlib stream that
// must inflate to exactly that many bytes. The size is bounded by zlib's
// best ratio (about 1032:1), so a small file never asks for a huge buffer.
Result<std::vector<uint8_t>> inflate_payload(size_t offset, uint32_t tag, std::span<const uint8_t> payload) {
  const auto where = [&] { return fmt::format("chunk {} at offset {}", tag_name(tag), offset); };
  if (payload.size() < sizeof(uint64_t)) return Error::decode("{}: compressed payload without its size", where());
  const auto raw_B = load<uint64_t>(payload.data());
  const size_t packed_B = payload.size() - sizeof raw_B;
  if (raw_B > uint64_t(packed_B) * 1032 + 64)
    return Error::decode("{}: {} compressed bytes cannot hold {} bytes", where(), packed_B, raw_B);
  std::vector<uint8_t> raw(static_cast<size_t>(raw_B));
  uLongf out_B = uLongf(raw_B);
  const int rc = uncompress(raw.data(), &out_B, payload.data() + sizeof raw_B, uLong(packed_B));
  if (rc != Z_OK || out_B != raw_B)
    return Error::decode("{}: bad zlib data ({}, {} of {} bytes)", where(), rc == Z_OK ? "short" : zError(rc),
                         uint64_t(out_B), raw_B);
  return raw;
}

Result<TraceMapping> read_mapping(const Chunk& c, uint32_t version) {
  AGX_CHECK(at_least(c, sizeof(trace::MappingInfo)));
  const auto m = load<trace::MappingInfo>(c.payload.data());
  const auto where = [&] { return fmt::format("MAP at offset {} (va 0x{:x})", c.offset, m.va); };
  const uint32_t known =
      trace::kMapRead | trace::kMapWrite | trace::kMapSinglePage | (version >= 2 ? trace::kMapWritten : 0);
  if (m.flags & ~known || m.reserved)
    return Error::decode("{}: unknown flags 0x{:x}", where(), m.flags);
  if (m.size_B == 0 || m.va + m.size_B < m.va) return Error::decode("{}: bad size 0x{:x}", where(), m.size_B);
  const uint64_t want = (m.flags & trace::kMapSinglePage) ? trace::kPageSize_B : m.size_B;
  const uint64_t have = c.payload.size() - sizeof m;
  if (have != want) return Error::decode("{}: {} data bytes, expected {}", where(), have, want);
  TraceMapping out;
  out.va = m.va;
  out.size_B = m.size_B;
  out.flags = m.flags;
  out.data.assign(c.payload.begin() + sizeof m, c.payload.end());
  return out;
}

Result<TraceFault> read_fault(const Chunk& c) {
  AGX_CHECK(at_least(c, sizeof(trace::FaultInfo)));
  const auto f = load<trace::FaultInfo>(c.payload.data());
  if (c.payload.size() - sizeof f != f.reason_size_B)
    return Error::decode("FALT at offset {}: reason of {} bytes, {} present", c.offset, f.reason_size_B,
                         c.payload.size() - sizeof f);
  if (f.firmware_queue > 2 || f.access > 1 || f.unit > uint8_t(GpuUnit::host))
    return Error::decode("FALT at offset {}: queue {}, access {} or unit {} out of range", c.offset,
                         f.firmware_queue, f.access, f.unit);
  TraceFault out;
  out.va = f.va;
  out.time_ns = f.time_ns;
  out.command_index = f.command_index;
  out.queue = kmd::FirmwareQueue(f.firmware_queue);
  out.access = Access(f.access);
  out.unit = GpuUnit(f.unit);
  // The reason is text for people: anything but printable ASCII reads '?'.
  for (size_t i = sizeof f; i < c.payload.size(); i++) {
    const uint8_t ch = c.payload[i];
    out.reason += (ch >= 0x20 && ch < 0x7f) ? char(ch) : '?';
  }
  return out;
}

// Sorts a submit's mappings and refuses overlaps.
Status finish_submit(TraceSubmit& s) {
  std::sort(s.mappings.begin(), s.mappings.end(), [](auto& a, auto& b) { return a.va < b.va; });
  for (size_t i = 1; i < s.mappings.size(); i++)
    if (s.mappings[i - 1].va + s.mappings[i - 1].size_B > s.mappings[i].va)
      return Error::decode("submit {}: mappings at 0x{:x} and 0x{:x} overlap", s.info.seqno, s.mappings[i - 1].va,
                           s.mappings[i].va);
  return {};
}

}  // namespace

Result<Trace> read_trace(std::span<const uint8_t> bytes) {
  Trace t;
  if (bytes.size() < sizeof(trace::FileHeader)) return Error::decode("not an agx trace: {} bytes", bytes.size());
  const auto h = load<trace::FileHeader>(bytes.data());
  if (std::memcmp(h.magic, trace::kMagic, sizeof h.magic) != 0) return Error::decode("not an agx trace: bad magic");
  if (h.version < trace::kOldestVersion || h.version > trace::kVersion)
    return Error::unsupported("agx trace version {} (this reader knows versions {} to {})", h.version,
                              trace::kOldestVersion, trace::kVersion);
  if (h.kind != uint32_t(trace::FileKind::trace) && h.kind != uint32_t(trace::FileKind::crash_dump))
    return Error::decode("agx trace: unknown file kind {}", h.kind);
  t.kind = trace::FileKind(h.kind);
  t.version = h.version;
  bool have_params = false;
  TraceSubmit* cur = nullptr;
  size_t off = sizeof h;
  while (off < bytes.size()) {
    if (bytes.size() - off < sizeof(trace::ChunkHeader))
      return Error::decode("truncated chunk header at offset {}", off);
    const auto ch = load<trace::ChunkHeader>(bytes.data() + off);
    const size_t left = bytes.size() - off - sizeof ch;
    if (ch.size_B > left)
      return Error::decode("chunk {} at offset {}: {} bytes, only {} in the file", tag_name(ch.tag), off, ch.size_B,
                           left);
    const uint32_t known_flags = h.version >= 2 ? trace::kChunkZlib : 0;
    if (ch.flags & ~known_flags)
      return Error::decode("chunk {} at offset {}: flags 0x{:x}", tag_name(ch.tag), off, ch.flags);
    Chunk c{off, ch.tag, bytes.subspan(off + sizeof ch, size_t(ch.size_B))};
    std::vector<uint8_t> inflated;  // holds c.payload of a compressed chunk
    if (ch.flags & trace::kChunkZlib) {
      AGX_TRY(inflated, inflate_payload(off, ch.tag, c.payload));
      c.payload = inflated;
    }
    const size_t padded = size_t((ch.size_B + 7) / 8 * 8);
    off += sizeof ch + std::min(padded, left);
    const bool in_submit = cur != nullptr;
    auto need_submit = [&]() -> Status {
      if (!in_submit) return Error::decode("chunk {} at offset {} before any SUBM", tag_name(c.tag), c.offset);
      return {};
    };
    switch (c.tag) {
      case trace::kTagParams:
        if (have_params || in_submit) return Error::decode("PARM at offset {}: not the first chunk", c.offset);
        AGX_CHECK(fixed(c, sizeof t.params));
        std::memcpy(&t.params, c.payload.data(), sizeof t.params);
        have_params = true;
        break;
      case trace::kTagSubmit:
        if (!have_params) return Error::decode("SUBM at offset {} before PARM", c.offset);
        if (cur) AGX_CHECK(finish_submit(*cur));
        AGX_CHECK(fixed(c, sizeof(trace::SubmitInfo)));
        if (t.kind == trace::FileKind::crash_dump && !t.submits.empty())
          return Error::decode("crash dump with a second SUBM at offset {}", c.offset);
        t.submits.emplace_back();
        cur = &t.submits.back();
        cur->info = load<trace::SubmitInfo>(c.payload.data());
        break;
      case trace::kTagCmdbuf:
        AGX_CHECK(need_submit());
        cur->cmdbuf.assign(c.payload.begin(), c.payload.end());
        break;
      case trace::kTagSyncs:
        AGX_CHECK(need_submit());
        if (c.payload.size() % sizeof(drm_asahi_sync))
          return Error::decode("SYNC at offset {}: {} bytes is not a whole number of syncs", c.offset, c.payload.size());
        cur->syncs.resize(c.payload.size() / sizeof(drm_asahi_sync));
        if (!c.payload.empty()) std::memcpy(cur->syncs.data(), c.payload.data(), c.payload.size());
        break;
      case trace::kTagMapping: {
        AGX_CHECK(need_submit());
        AGX_TRY(TraceMapping m, read_mapping(c, h.version));
        cur->mappings.push_back(std::move(m));
        break;
      }
      case trace::kTagFault: {
        AGX_CHECK(need_submit());
        if (cur->fault) return Error::decode("second FALT at offset {}", c.offset);
        AGX_TRY(TraceFault f, read_fault(c));
        cur->fault = std::move(f);
        break;
      }
      default:
        return Error::decode("unknown chunk '{}' at offset {}", tag_name(c.tag), c.offset);
    }
  }
  if (!have_params) return Error::decode("agx trace without a PARM chunk");
  if (cur) AGX_CHECK(finish_submit(*cur));
  if (t.kind == trace::FileKind::crash_dump && (t.submits.size() != 1 || !t.submits[0].fault))
    return Error::decode("crash dump without its submit and fault");
  return t;
}

Result<Trace> read_trace_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Error::io("{}: cannot open", path);
  std::vector<uint8_t> bytes{std::istreambuf_iterator<char>(in), {}};
  if (in.bad()) return Error::io("{}: read error", path);
  auto t = read_trace(bytes);
  if (!t) return std::move(t).error().context(path);
  return t;
}

Result<std::vector<TraceCommand>> parse_cmdbuf(std::span<const uint8_t> buf) {
  std::vector<TraceCommand> out;
  std::vector<drm_asahi_attachment> attachments[3];  // vertex, fragment, compute
  size_t off = 0;
  while (off < buf.size()) {
    if (buf.size() - off < sizeof(drm_asahi_cmd_header))
      return Error::decode("command buffer: truncated header at offset {}", off);
    const auto h = load<drm_asahi_cmd_header>(buf.data() + off);
    const size_t at = off;
    off += sizeof h;
    if (h.size > buf.size() - off)
      return Error::decode("command buffer: payload of {} bytes at offset {} runs past the end", h.size, at);
    const auto payload = buf.subspan(off, h.size);
    off += h.size;
    auto zero_extend = [&](auto* dst) -> Status {
      std::memset(dst, 0, sizeof *dst);
      std::memcpy(dst, payload.data(), std::min(payload.size(), sizeof *dst));
      if (payload.size() > sizeof *dst &&
          !std::all_of(payload.begin() + sizeof *dst, payload.end(), [](uint8_t b) { return b == 0; }))
        return Error::decode("command buffer: payload at offset {} has nonzero bytes past its struct", at);
      return {};
    };
    switch (h.cmd_type) {
      case DRM_ASAHI_SET_VERTEX_ATTACHMENTS:
      case DRM_ASAHI_SET_FRAGMENT_ATTACHMENTS:
      case DRM_ASAHI_SET_COMPUTE_ATTACHMENTS: {
        if (payload.size() % sizeof(drm_asahi_attachment))
          return Error::decode("command buffer: attachment list at offset {} of {} bytes", at, payload.size());
        auto& list = attachments[h.cmd_type - DRM_ASAHI_SET_VERTEX_ATTACHMENTS];
        list.resize(payload.size() / sizeof(drm_asahi_attachment));
        if (!list.empty()) std::memcpy(list.data(), payload.data(), payload.size());
        break;
      }
      case DRM_ASAHI_CMD_RENDER:
      case DRM_ASAHI_CMD_COMPUTE: {
        TraceCommand c;
        c.index = uint32_t(out.size());
        c.offset_B = uint32_t(at);
        c.type = h.cmd_type;
        c.vdm_barrier = h.vdm_barrier;
        c.cdm_barrier = h.cdm_barrier;
        if (h.cmd_type == DRM_ASAHI_CMD_RENDER) {
          AGX_CHECK(zero_extend(&c.render));
          c.attachments = attachments[0];
          c.fragment_attachments = attachments[1];
        } else {
          AGX_CHECK(zero_extend(&c.compute));
          c.attachments = attachments[2];
        }
        out.push_back(std::move(c));
        break;
      }
      default:
        return Error::decode("command buffer: unknown command type {} at offset {}", h.cmd_type, at);
    }
  }
  return out;
}

const TraceMapping* TraceMemory::find(GpuVa va) const {
  auto it = std::upper_bound(maps_.begin(), maps_.end(), va, [](GpuVa v, const TraceMapping& m) { return v < m.va; });
  if (it == maps_.begin()) return nullptr;
  --it;
  return va - it->va < it->size_B ? &*it : nullptr;
}

bool TraceMemory::read(GpuVa va, void* dst, size_t size, GpuUnit unit, GpuFault* fault) {
  auto* out = static_cast<uint8_t*>(dst);
  size_t done = 0;
  while (done < size) {
    const GpuVa at = va + done;
    const TraceMapping* m = at < va ? nullptr : find(at);
    if (!m || !(m->flags & kmd::trace::kMapRead)) {
      if (fault) *fault = GpuFault{at, Access::read, unit, m ? "not readable" : "unmapped"};
      return false;
    }
    const uint64_t in_map = at - m->va;
    const size_t n = size_t(std::min<uint64_t>(size - done, m->size_B - in_map));
    if (m->flags & kmd::trace::kMapSinglePage) {
      for (size_t i = 0; i < n; i++) out[done + i] = m->data[(in_map + i) % kmd::trace::kPageSize_B];
    } else {
      std::memcpy(out + done, m->data.data() + in_map, n);
    }
    done += n;
  }
  return true;
}

bool TraceMemory::write(GpuVa va, const void*, size_t, GpuUnit unit, GpuFault* fault) {
  if (fault) *fault = GpuFault{va, Access::write, unit, "trace memory is read-only"};
  return false;
}

}  // namespace agx::cmdstream
