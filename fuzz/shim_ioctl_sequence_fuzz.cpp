// Random ioctl sequences through the shim's entry points (agx::shim: what
// the preloaded open/ioctl/mmap/munmap/close/dup2 forward to) with random,
// mostly invalid, pointers: inaccessible, read-only, null, wild,
// running past the end of a mapping, or a valid buffer of random bytes; and
// random sizes, counts and handles, in the argument and inside it. Every
// call must fail cleanly or succeed (the device copies caller memory with
// copy_from_user/copy_to_user, so no pointer can fault it), and the device's
// own descriptors must stay out of reach (close/dup2/dup3/mmap on them:
// EBADF). ASan/UBSan watch the rest.
#include <errno.h>
#include <fcntl.h>
#include <fuzzer/FuzzedDataProvider.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "kmd/kmd.h"
#include "shim/shim.h"
#include "shim/vfs.h"

namespace {

namespace shim = agx::shim;

// Pages the pointers point into: [rw][none][ro], set up once, and a
// reserved range nothing can be mapped into. Bad pointers must never land
// on memory the process owns: the device writes through any pointer the
// caller may write (as copy_to_user does), and libFuzzer learns addresses
// from comparisons, so a "wild" value could otherwise be a live address
// (a thread's TLS was overwritten that way) or a freed page mapped again.
struct Pages {
  static constexpr size_t kReserved_B = size_t{64} << 20;
  size_t page_B = size_t(sysconf(_SC_PAGESIZE));
  uint8_t* base = nullptr;
  uint64_t reserved = 0;  // kReserved_B of PROT_NONE, never unmapped
  Pages() {
    base = static_cast<uint8_t*>(::mmap(nullptr, 3 * page_B, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
    ::mprotect(base + page_B, page_B, PROT_NONE);
    ::mprotect(base + 2 * page_B, page_B, PROT_READ);
    void* r = ::mmap(nullptr, kReserved_B, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    reserved = reinterpret_cast<uintptr_t>(r);
  }
};
Pages& pages() {
  static Pages* p = new Pages;
  return *p;
}

[[noreturn]] void die(const char* what, int fd) {
  std::fprintf(stderr, "invariant broken: %s (fd %d, errno %d)\n", what, fd, errno);
  std::abort();
}

class Run {
 public:
  explicit Run(FuzzedDataProvider& p) : p_(p) {}
  ~Run() {
    for (void* m : maps_) shim::munmap_range(m, map_len_);
    for (int fd : nodes_) shim::close_fd(fd);
    for (int fd : fds_) ::close(fd);
  }

  // A pointer to `size_B` bytes of the input in valid memory, or one of the
  // bad kinds.
  uint64_t pointer(size_t size_B) {
    Pages& pg = pages();
    switch (p_.ConsumeIntegralInRange<int>(0, 9)) {
      case 0: return 0;
      case 1: return pg.reserved + p_.ConsumeIntegralInRange<uint64_t>(0, Pages::kReserved_B - 64);
      case 2: return reinterpret_cast<uintptr_t>(pg.base + pg.page_B);  // PROT_NONE
      case 3: return reinterpret_cast<uintptr_t>(pg.base + 2 * pg.page_B);  // read-only
      case 4: {  // valid bytes that run into the PROT_NONE page
        size_t n = std::min(size_B, pg.page_B);
        n = n ? p_.ConsumeIntegralInRange<size_t>(0, n - 1) : 0;
        uint8_t* at = pg.base + pg.page_B - n;
        fill(at, n);
        return reinterpret_cast<uintptr_t>(at);
      }
      case 5:  // wild: non-canonical (bit 56 set, 57-63 clear: no user
               // address under 4- or 5-level paging) or inside the reservation
        if (p_.ConsumeBool()) return uint64_t{1} << 56 | (p_.ConsumeIntegral<uint64_t>() & ((uint64_t{1} << 56) - 1));
        return pg.reserved + p_.ConsumeIntegralInRange<uint64_t>(0, Pages::kReserved_B - 1);
      case 6: return uint64_t{0xffff'8000'0000'0000} + p_.ConsumeIntegral<uint32_t>();  // kernel half
      default: {  // a valid buffer of random bytes; a huge size (a wild
                  // count times a stride) gets a short buffer, so the
                  // device's reads run past its end as a bad pointer would
        constexpr size_t kMaxBuffer_B = size_t{1} << 20;
        bufs_.emplace_back(std::clamp<size_t>(size_B, 1, kMaxBuffer_B) + 8);
        fill(bufs_.back().data(), bufs_.back().size());
        return reinterpret_cast<uintptr_t>(bufs_.back().data() + (p_.ConsumeBool() ? 0 : 1));
      }
    }
  }

  uint32_t handle() { return p_.ConsumeBool() ? p_.ConsumeIntegralInRange<uint32_t>(0, 4) : p_.ConsumeIntegral<uint32_t>(); }
  uint32_t count() {
    switch (p_.ConsumeIntegralInRange<int>(0, 3)) {
      case 0: return 0;
      case 1: return p_.ConsumeIntegralInRange<uint32_t>(1, 4);
      case 2: return p_.ConsumeIntegralInRange<uint32_t>(5, 5000);
      default: return p_.ConsumeIntegral<uint32_t>();
    }
  }

  int node() {
    if (nodes_.empty() || (nodes_.size() < 3 && p_.ConsumeIntegralInRange<int>(0, 15) == 0)) {
      int fd = shim::open_at(AT_FDCWD, agx::shim::kRenderNodePath, O_RDWR | O_CLOEXEC, 0);
      if (fd < 0) die("open of the node failed", fd);
      nodes_.push_back(fd);
    }
    return nodes_[p_.ConsumeIntegralInRange<size_t>(0, nodes_.size() - 1)];
  }

  void call(unsigned long request, void* arg) {
    int ret = shim::ioctl_fd(node(), request, arg);
    if (ret < -1) die("ioctl returned below -1", ret);
    if (ret == -1 && errno == 0) die("ioctl failed without errno", ret);
  }

  template <typename T>
  void with_arg(unsigned long request, T& arg) {
    // The argument itself: usually valid, sometimes a bad pointer.
    if (p_.ConsumeIntegralInRange<int>(0, 7) == 0)
      call(request, reinterpret_cast<void*>(pointer(sizeof(T))));
    else
      call(request, &arg);
  }

  void step();

 private:
  void fill(uint8_t* at, size_t n) {
    auto bytes = p_.ConsumeBytes<uint8_t>(n);
    if (!bytes.empty()) std::memcpy(at, bytes.data(), bytes.size());
    if (n > bytes.size()) std::memset(at + bytes.size(), 0, n - bytes.size());
  }

  FuzzedDataProvider& p_;
  std::vector<int> nodes_, fds_;
  std::vector<void*> maps_;
  size_t map_len_ = 16384;
  std::vector<std::vector<uint8_t>> bufs_;
};

const unsigned long kRequests[] = {
    DRM_IOCTL_VERSION, DRM_IOCTL_GET_CAP, DRM_IOCTL_GEM_CLOSE, DRM_IOCTL_PRIME_HANDLE_TO_FD,
    DRM_IOCTL_PRIME_FD_TO_HANDLE, DRM_IOCTL_SYNCOBJ_CREATE, DRM_IOCTL_SYNCOBJ_DESTROY, DRM_IOCTL_SYNCOBJ_TRANSFER,
    DRM_IOCTL_GEM_FLINK, DRM_IOCTL_GEM_OPEN, DRM_IOCTL_SET_MASTER, DRM_IOCTL_GET_UNIQUE, DRM_IOCTL_MODE_GETRESOURCES,
    DRM_IOCTL_ASAHI_GET_TIME, DRM_IOCTL_ASAHI_VM_CREATE, DRM_IOCTL_ASAHI_VM_DESTROY, DRM_IOCTL_ASAHI_GEM_MMAP_OFFSET,
    DRM_IOCTL_ASAHI_GEM_BIND_OBJECT, DRM_IOCTL_ASAHI_QUEUE_CREATE, DRM_IOCTL_ASAHI_QUEUE_DESTROY,
};

void Run::step() {
  switch (p_.ConsumeIntegralInRange<int>(0, 12)) {
    case 0: {  // a known request, or a random one, on random memory of random size
      unsigned long req = kRequests[p_.ConsumeIntegralInRange<size_t>(0, std::size(kRequests) - 1)];
      if (p_.ConsumeIntegralInRange<int>(0, 3) == 0) req = p_.ConsumeIntegral<uint32_t>();
      if (p_.ConsumeBool()) req = (req & ~(uint64_t{0x3fff} << 16)) | (p_.ConsumeIntegralInRange<uint64_t>(0, 0x3fff) << 16);
      call(req, reinterpret_cast<void*>(pointer(_IOC_SIZE(req))));
      break;
    }
    case 1: {  // valid state to reach deeper: a VM, objects, a queue, syncobjs
      drm_asahi_vm_create v{0x40'0000'0000, 0x40'2000'0000, 0, 0};
      call(DRM_IOCTL_ASAHI_VM_CREATE, &v);
      drm_asahi_gem_create g{p_.ConsumeIntegralInRange<uint64_t>(1, 0x10000), p_.ConsumeIntegralInRange<uint32_t>(0, 3),
                             p_.ConsumeIntegralInRange<uint32_t>(0, 2), 0, 0};
      call(DRM_IOCTL_ASAHI_GEM_CREATE, &g);
      drm_asahi_queue_create q{0, p_.ConsumeIntegralInRange<uint32_t>(0, 2), 0, 0, 0};
      call(DRM_IOCTL_ASAHI_QUEUE_CREATE, &q);
      drm_syncobj_create s{0, p_.ConsumeIntegralInRange<uint32_t>(0, 1)};
      call(DRM_IOCTL_SYNCOBJ_CREATE, &s);
      break;
    }
    case 2: {  // GET_PARAMS.pointer
      uint64_t size = p_.ConsumeIntegralInRange<uint64_t>(0, 600);
      drm_asahi_get_params g{0, 0, pointer(size), size};
      with_arg(DRM_IOCTL_ASAHI_GET_PARAMS, g);
      break;
    }
    case 3: {  // VERSION strings
      drm_version v{};
      v.name_len = p_.ConsumeIntegralInRange<size_t>(0, 64);
      v.name = reinterpret_cast<char*>(pointer(v.name_len));
      v.date_len = p_.ConsumeIntegralInRange<size_t>(0, 64);
      v.date = reinterpret_cast<char*>(pointer(v.date_len));
      v.desc_len = p_.ConsumeIntegralInRange<size_t>(0, 64);
      v.desc = reinterpret_cast<char*>(pointer(v.desc_len));
      with_arg(DRM_IOCTL_VERSION, v);
      break;
    }
    case 4: {  // VM_BIND.userptr, num_binds, stride
      uint32_t n = p_.ConsumeIntegralInRange<uint32_t>(0, 8);
      if (p_.ConsumeIntegralInRange<int>(0, 7) == 0) n = count();
      uint32_t stride = p_.ConsumeBool() ? sizeof(drm_asahi_gem_bind_op) : p_.ConsumeIntegralInRange<uint32_t>(0, 64);
      drm_asahi_vm_bind b{p_.ConsumeIntegralInRange<uint32_t>(0, 2), n, stride, 0, pointer(size_t(n) * stride)};
      with_arg(DRM_IOCTL_ASAHI_VM_BIND, b);
      break;
    }
    case 5: {  // SUBMIT.cmdbuf, syncs and sizes
      uint32_t size = p_.ConsumeIntegralInRange<uint32_t>(0, 600);
      if (p_.ConsumeIntegralInRange<int>(0, 7) == 0) size = p_.ConsumeIntegral<uint32_t>();
      uint32_t in = p_.ConsumeIntegralInRange<uint32_t>(0, 3), out = p_.ConsumeIntegralInRange<uint32_t>(0, 3);
      drm_asahi_submit s{pointer((in + out) * sizeof(drm_asahi_sync)), pointer(size), 0,
                         p_.ConsumeIntegralInRange<uint32_t>(0, 2), in, out, size, 0};
      with_arg(DRM_IOCTL_ASAHI_SUBMIT, s);
      break;
    }
    case 6: {  // syncobj arrays (timeouts in the past: nothing blocks)
      uint32_t n = count();
      uint64_t handles = pointer(size_t(std::min<uint32_t>(n, 64)) * 4), points = pointer(size_t(std::min<uint32_t>(n, 64)) * 8);
      uint32_t flags = p_.ConsumeIntegralInRange<uint32_t>(0, 15);
      drm_syncobj_array a{handles, n, 0};
      drm_syncobj_timeline_array t{handles, points, n, flags & 1};
      drm_syncobj_wait w{handles, 0, n, flags, 0, 0};
      drm_syncobj_timeline_wait tw{handles, points, 0, n, flags, 0, 0};
      switch (p_.ConsumeIntegralInRange<int>(0, 5)) {
        case 0: with_arg(DRM_IOCTL_SYNCOBJ_SIGNAL, a); break;
        case 1: with_arg(DRM_IOCTL_SYNCOBJ_RESET, a); break;
        case 2: with_arg(DRM_IOCTL_SYNCOBJ_TIMELINE_SIGNAL, t); break;
        case 3: with_arg(DRM_IOCTL_SYNCOBJ_QUERY, t); break;
        case 4: with_arg(DRM_IOCTL_SYNCOBJ_WAIT, w); break;
        case 5: with_arg(DRM_IOCTL_SYNCOBJ_TIMELINE_WAIT, tw); break;
      }
      break;
    }
    case 7: {  // bind a valid object so submits and timestamps do something
      drm_asahi_gem_bind_op op{DRM_ASAHI_BIND_READ | DRM_ASAHI_BIND_WRITE, handle(), 0, 0x4000,
                               0x1'0000'0000 + p_.ConsumeIntegralInRange<uint64_t>(0, 8) * 0x4000};
      drm_asahi_vm_bind b{p_.ConsumeIntegralInRange<uint32_t>(0, 2), 1, sizeof op, 0, reinterpret_cast<uintptr_t>(&op)};
      call(DRM_IOCTL_ASAHI_VM_BIND, &b);
      drm_asahi_gem_bind_object o{0, DRM_ASAHI_BIND_OBJECT_USAGE_TIMESTAMPS, handle(), 0, 0, 0x4000, 0, 0};
      call(DRM_IOCTL_ASAHI_GEM_BIND_OBJECT, &o);
      break;
    }
    case 8: {  // mmap of random offsets through the shim, touch, unmap
      drm_asahi_gem_mmap_offset m{handle(), 0, 0};
      call(DRM_IOCTL_ASAHI_GEM_MMAP_OFFSET, &m);
      off_t off = p_.ConsumeBool() ? off_t(m.offset) : off_t(p_.ConsumeIntegral<uint32_t>()) << 12;
      void* at = shim::mmap_fd(nullptr, map_len_, PROT_READ | PROT_WRITE, MAP_SHARED, node(), off);
      if (at != MAP_FAILED) {
        static_cast<volatile uint8_t*>(at)[0] = 1;
        if (p_.ConsumeBool())
          shim::munmap_range(at, map_len_);
        else
          maps_.push_back(at);
      }
      break;
    }
    case 9: {  // PRIME and syncobj descriptors, exported and imported across files
      drm_prime_handle ph{handle(), DRM_CLOEXEC, -1};
      if (shim::ioctl_fd(node(), DRM_IOCTL_PRIME_HANDLE_TO_FD, &ph) == 0) {
        fds_.push_back(ph.fd);
        if (p_.ConsumeBool() && ::ftruncate(ph.fd, 0) == 0) die("a dma-buf shrank", ph.fd);
      }
      drm_syncobj_handle sh{handle(), p_.ConsumeIntegralInRange<uint32_t>(0, 1), -1, 0};
      if (shim::ioctl_fd(node(), DRM_IOCTL_SYNCOBJ_HANDLE_TO_FD, &sh) == 0) fds_.push_back(sh.fd);
      int fd = fds_.empty() || p_.ConsumeBool() ? p_.ConsumeIntegralInRange<int>(-1, 64) : fds_[p_.ConsumeIntegralInRange<size_t>(0, fds_.size() - 1)];
      drm_prime_handle imp{0, 0, fd};
      call(DRM_IOCTL_PRIME_FD_TO_HANDLE, &imp);
      drm_syncobj_handle simp{handle(), p_.ConsumeIntegralInRange<uint32_t>(0, 1), fd, 0};
      call(DRM_IOCTL_SYNCOBJ_FD_TO_HANDLE, &simp);
      break;
    }
    case 10: {  // the device's own descriptors are out of reach
      std::vector<int> own = agx::kmd::internal_fds();
      if (own.empty()) break;
      int fd = own[p_.ConsumeIntegralInRange<size_t>(0, own.size() - 1)];
      int spare = ::dup(0);
      if (shim::close_fd(fd) != -1 || errno != EBADF) die("close of an own descriptor", fd);
      if (spare >= 0 && (shim::dup2_fd(spare, fd) != -1 || errno != EBADF)) die("dup2 onto an own descriptor", fd);
      if (spare >= 0 && (shim::dup3_fd(spare, fd, O_CLOEXEC) != -1 || errno != EBADF)) die("dup3 onto an own descriptor", fd);
      if (shim::mmap_fd(nullptr, 4096, PROT_READ, MAP_SHARED, fd, 0) != MAP_FAILED) die("mmap of an own descriptor", fd);
      if (shim::dup_fd(fd) != -1) die("dup of an own descriptor", fd);
      if (spare >= 0) ::close(spare);
      break;
    }
    case 11: {  // GEM_CLOSE, destroy and reopen: objects die while mapped or exported
      drm_gem_close c{handle(), 0};
      call(DRM_IOCTL_GEM_CLOSE, &c);
      if (p_.ConsumeIntegralInRange<int>(0, 7) == 0 && !nodes_.empty()) {
        shim::close_fd(nodes_.back());
        nodes_.pop_back();
      }
      break;
    }
    case 12: {  // the client name (a string read from caller memory)
      uint64_t len = p_.ConsumeIntegralInRange<uint64_t>(0, 80);
      uint64_t raw[2] = {len, pointer(len)};
      with_arg(DRM_IOWR(0xD1, uint64_t[2]), raw);
      break;
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  FuzzedDataProvider p(data, size);
  {
    Run run(p);
    for (int i = 0; i < 48 && p.remaining_bytes() > 0; i++) run.step();
  }
  if (!agx::kmd::internal_fds().empty()) {
    // Every object died with its files (exported descriptors are closed).
    std::fprintf(stderr, "own descriptors left after the run\n");
    std::abort();
  }
  return 0;
}
