// The submit capture format (AGX_TRACE) and the crash dump format
// (AGX_CRASH_DIR): one definition, written by the kmd (capture.cpp,
// crash_dump.cpp) and read by cmdstream/trace_file.cpp. Specified in
// docs/cmdstream.md ("Trace format"). Our own format, little-endian.
//
//   file   = FileHeader, then chunks
//   chunk  = ChunkHeader, `size_B` payload bytes, zero padding to 8 bytes
//
// A trace is a PARM chunk (the device's drm_asahi_params_global) and then,
// per accepted SUBMIT, a SUBM chunk followed by the chunks of that submit
// (CMDB, SYNC, MAP*), written when the submit's job has completed. A crash
// dump has the same shape with one submit and a FALT chunk; its MAP chunks
// hold the memory at the time of the fault.
//
// Version 2 (this writer): MAP chunks hold only the pages the job touched
// and its control stream pages (kMapWritten marks pages it wrote), and a
// chunk whose flags say kChunkZlib is compressed. Version 1 (still read):
// MAP chunks are every bound range of the VM at SUBMIT, chunk flags 0.
#pragma once

#include <cstdint>

namespace agx::kmd::trace {

inline constexpr char kMagic[8] = {'A', 'G', 'X', 'T', 'R', 'A', 'C', 'E'};
inline constexpr uint32_t kVersion = 2;
inline constexpr uint32_t kOldestVersion = 1;  // the oldest a reader accepts

enum class FileKind : uint32_t { trace = 1, crash_dump = 2 };

struct FileHeader {
  char magic[8];
  uint32_t version;
  uint32_t kind;  // FileKind
};
static_assert(sizeof(FileHeader) == 16);

constexpr uint32_t tag(char a, char b, char c, char d) {
  return uint32_t(uint8_t(a)) | uint32_t(uint8_t(b)) << 8 | uint32_t(uint8_t(c)) << 16 | uint32_t(uint8_t(d)) << 24;
}
inline constexpr uint32_t kTagParams = tag('P', 'A', 'R', 'M');   // drm_asahi_params_global bytes
inline constexpr uint32_t kTagSubmit = tag('S', 'U', 'B', 'M');   // SubmitInfo
inline constexpr uint32_t kTagCmdbuf = tag('C', 'M', 'D', 'B');   // the command buffer bytes
inline constexpr uint32_t kTagSyncs = tag('S', 'Y', 'N', 'C');    // drm_asahi_sync array (in, then out)
inline constexpr uint32_t kTagMapping = tag('M', 'A', 'P', ' ');  // MappingInfo + bytes
inline constexpr uint32_t kTagFault = tag('F', 'A', 'L', 'T');    // FaultInfo + reason text

struct ChunkHeader {
  uint32_t tag;
  uint32_t flags;    // kChunk* (version 1: 0)
  uint64_t size_B;   // payload bytes (padding excluded)
};
static_assert(sizeof(ChunkHeader) == 16);

// Chunk flags (version 2). kChunkZlib: the payload is the size of the raw
// payload (u64) and then a zlib stream (RFC 1950) of it. The writer
// compresses chunks of at least kCompressMin_B bytes when that is smaller.
inline constexpr uint32_t kChunkZlib = 1;
inline constexpr uint64_t kCompressMin_B = 256;

struct SubmitInfo {
  uint64_t seqno;          // 1-based count of submits on the device
  uint64_t time_ns;        // GET_TIME clock at SUBMIT
  uint32_t queue_id;
  uint32_t vm_id;
  uint64_t usc_exec_base;  // of the queue
  uint32_t priority;       // drm_asahi_priority of the queue
  uint32_t submit_flags;   // drm_asahi_submit.flags
  uint32_t in_sync_count;
  uint32_t out_sync_count;
  uint32_t pid;            // of the submitting process
  uint32_t reserved;       // 0
};
static_assert(sizeof(SubmitInfo) == 56);

// MAP flags: page permissions, a range repeating one page (SINGLE_PAGE
// binds), and (version 2) pages the job wrote: their bytes are the ones
// after the job.
inline constexpr uint32_t kMapRead = 1, kMapWrite = 2, kMapSinglePage = 4, kMapWritten = 8;

// One range of the queue's VM (version 2: page-aligned pieces of bound
// ranges; version 1: a whole bound range). The payload continues with the
// bytes: size_B of them, or one page (kPageSize_B) repeated over the range
// when kMapSinglePage is set.
struct MappingInfo {
  uint64_t va;
  uint64_t size_B;
  uint32_t flags;
  uint32_t reserved;  // 0
};
static_assert(sizeof(MappingInfo) == 24);

inline constexpr uint64_t kPageSize_B = 0x4000;

// The fault that made a crash dump. The payload continues with
// reason_size_B bytes of text ("unmapped", ...).
struct FaultInfo {
  uint64_t va;
  uint64_t time_ns;
  uint32_t command_index;   // #N among the hardware commands of the submit
  uint8_t firmware_queue;   // kmd::FirmwareQueue: 0 compute, 1 vertex, 2 fragment
  uint8_t access;           // agx::Access: 0 read, 1 write
  uint8_t unit;             // agx::GpuUnit
  uint8_t reserved;         // 0
  uint32_t reason_size_B;
  uint32_t reserved2;       // 0
};
static_assert(sizeof(FaultInfo) == 32);

}  // namespace agx::kmd::trace
