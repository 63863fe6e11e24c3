// Random ioctl sequences through agx::kmd::File: structured calls whose
// pointers are valid (binds, submits with random command buffers, syncobj
// arrays, mmap) mixed with raw argument bytes for the pointer-free ioctls.
// Every call must return 0 or -errno; ASan/UBSan watch the rest.
#include <fcntl.h>
#include <fuzzer/FuzzedDataProvider.h>
#include <unistd.h>

#include <cstring>
#include <vector>

#include "kmd/kmd.h"

namespace {

const unsigned long kRaw[] = {
    DRM_IOCTL_ASAHI_GET_TIME,      DRM_IOCTL_ASAHI_VM_CREATE,       DRM_IOCTL_ASAHI_VM_DESTROY,
    DRM_IOCTL_ASAHI_GEM_CREATE,    DRM_IOCTL_ASAHI_GEM_MMAP_OFFSET, DRM_IOCTL_ASAHI_GEM_BIND_OBJECT,
    DRM_IOCTL_ASAHI_QUEUE_CREATE,  DRM_IOCTL_ASAHI_QUEUE_DESTROY,   DRM_IOCTL_GEM_CLOSE,
    DRM_IOCTL_GET_CAP,             DRM_IOCTL_SYNCOBJ_CREATE,        DRM_IOCTL_SYNCOBJ_DESTROY,
    DRM_IOCTL_SYNCOBJ_TRANSFER,    _IOWR('d', 0x4b, int),           _IOWR('d', 0x3f, int),
};

uint32_t small(FuzzedDataProvider& p) { return p.ConsumeIntegralInRange<uint32_t>(0, 6); }

void run(FuzzedDataProvider& p) {
  agx::kmd::Device dev;
  auto file = agx::kmd::open_file(dev);
  std::vector<int> fds;
  for (int step = 0; step < 64 && p.remaining_bytes() > 0; step++) {
    switch (p.ConsumeIntegralInRange<int>(0, 9)) {
      case 0: {  // raw pointer-free ioctl, or the right one with random bytes
        unsigned long req = kRaw[p.ConsumeIntegralInRange<size_t>(0, std::size(kRaw) - 1)];
        uint8_t arg[64] = {};
        auto bytes = p.ConsumeBytes<uint8_t>(_IOC_SIZE(req) < sizeof arg ? _IOC_SIZE(req) : sizeof arg);
        if (!bytes.empty()) std::memcpy(arg, bytes.data(), bytes.size());
        if (req == DRM_IOCTL_ASAHI_GEM_CREATE) reinterpret_cast<drm_asahi_gem_create*>(arg)->size &= 0xfffff;
        file->ioctl(req, arg);
        break;
      }
      case 1: {  // a valid VM, object or queue
        drm_asahi_vm_create v{0x40'0000'0000, 0x40'2000'0000, 0, 0};
        file->ioctl(DRM_IOCTL_ASAHI_VM_CREATE, &v);
        drm_asahi_gem_create g{p.ConsumeIntegralInRange<uint64_t>(1, 0x20000), p.ConsumeIntegral<uint32_t>() & 3,
                               small(p), 0, 0};
        file->ioctl(DRM_IOCTL_ASAHI_GEM_CREATE, &g);
        drm_asahi_queue_create q{0, small(p), p.ConsumeIntegralInRange<uint32_t>(0, 4), 0, 0};
        file->ioctl(DRM_IOCTL_ASAHI_QUEUE_CREATE, &q);
        break;
      }
      case 2: {  // VM_BIND with random ops
        std::vector<drm_asahi_gem_bind_op> ops(p.ConsumeIntegralInRange<size_t>(1, 4));
        for (auto& op : ops) {
          op.flags = p.ConsumeIntegralInRange<uint32_t>(0, 16);
          op.handle = small(p);
          op.offset = p.ConsumeIntegralInRange<uint64_t>(0, 8) * 0x4000 + (p.ConsumeBool() ? 0 : 1);
          op.range = p.ConsumeIntegralInRange<uint64_t>(0, 16) * 0x4000;
          op.addr = p.ConsumeBool() ? p.ConsumeIntegral<uint64_t>() : 0x1'0000'0000 + p.ConsumeIntegralInRange<uint64_t>(0, 64) * 0x4000;
        }
        drm_asahi_vm_bind b{small(p), uint32_t(ops.size()), uint32_t(sizeof ops[0]), 0,
                            reinterpret_cast<uint64_t>(ops.data())};
        if (p.ConsumeBool()) b.stride = p.ConsumeIntegralInRange<uint32_t>(0, 32);
        file->ioctl(DRM_IOCTL_ASAHI_VM_BIND, &b);
        break;
      }
      case 3: {  // SUBMIT with a random command buffer and syncs
        auto cmdbuf = p.ConsumeBytes<uint8_t>(p.ConsumeIntegralInRange<size_t>(0, 600));
        std::vector<drm_asahi_sync> syncs(p.ConsumeIntegralInRange<size_t>(0, 3));
        for (auto& s : syncs) s = {p.ConsumeIntegralInRange<uint32_t>(0, 2), small(p), p.ConsumeIntegralInRange<uint64_t>(0, 3)};
        uint32_t in = p.ConsumeIntegralInRange<uint32_t>(0, uint32_t(syncs.size()));
        drm_asahi_submit s{reinterpret_cast<uint64_t>(syncs.data()), reinterpret_cast<uint64_t>(cmdbuf.data()), 0,
                           small(p), in, uint32_t(syncs.size()) - in, uint32_t(cmdbuf.size()), 0};
        file->ioctl(DRM_IOCTL_ASAHI_SUBMIT, &s);
        break;
      }
      case 4: {  // syncobj arrays
        uint32_t h[3] = {small(p), small(p), small(p)};
        uint64_t pts[3] = {p.ConsumeIntegralInRange<uint64_t>(0, 4), p.ConsumeIntegralInRange<uint64_t>(0, 4), 0};
        uint32_t n = p.ConsumeIntegralInRange<uint32_t>(0, 3);
        drm_syncobj_array a{reinterpret_cast<uint64_t>(h), n, 0};
        drm_syncobj_timeline_array t{reinterpret_cast<uint64_t>(h), reinterpret_cast<uint64_t>(pts), n,
                                     p.ConsumeIntegralInRange<uint32_t>(0, 1)};
        drm_syncobj_wait w{reinterpret_cast<uint64_t>(h), 0, n, p.ConsumeIntegralInRange<uint32_t>(0, 7), 0, 0};
        drm_syncobj_timeline_wait tw{reinterpret_cast<uint64_t>(h), reinterpret_cast<uint64_t>(pts), 0, n,
                                     p.ConsumeIntegralInRange<uint32_t>(0, 7), 0, 0};
        switch (p.ConsumeIntegralInRange<int>(0, 5)) {
          case 0: file->ioctl(DRM_IOCTL_SYNCOBJ_SIGNAL, &a); break;
          case 1: file->ioctl(DRM_IOCTL_SYNCOBJ_RESET, &a); break;
          case 2: file->ioctl(DRM_IOCTL_SYNCOBJ_TIMELINE_SIGNAL, &t); break;
          case 3: file->ioctl(DRM_IOCTL_SYNCOBJ_QUERY, &t); break;
          case 4: file->ioctl(DRM_IOCTL_SYNCOBJ_WAIT, &w); break;
          case 5: file->ioctl(DRM_IOCTL_SYNCOBJ_TIMELINE_WAIT, &tw); break;
        }
        break;
      }
      case 5: {  // mmap, touch, unmap
        drm_asahi_gem_mmap_offset m{small(p), 0, 0};
        if (file->ioctl(DRM_IOCTL_ASAHI_GEM_MMAP_OFFSET, &m) == 0) {
          int err;
          size_t len = p.ConsumeIntegralInRange<size_t>(1, 0x8000);
          auto* ptr = static_cast<uint8_t*>(file->mmap(m.offset + (p.ConsumeBool() ? 0 : 0x4000), len, &err));
          if (ptr) {
            ptr[0] = 1;
            file->munmap(ptr, len);
          }
        }
        break;
      }
      case 6: {  // PRIME and syncobj fds
        drm_prime_handle ph{small(p), DRM_CLOEXEC, -1};
        if (file->ioctl(DRM_IOCTL_PRIME_HANDLE_TO_FD, &ph) == 0) fds.push_back(ph.fd);
        drm_syncobj_handle sh{small(p), p.ConsumeIntegralInRange<uint32_t>(0, 1), -1, 0};
        if (file->ioctl(DRM_IOCTL_SYNCOBJ_HANDLE_TO_FD, &sh) == 0) fds.push_back(sh.fd);
        if (!fds.empty()) {
          int fd = fds[p.ConsumeIntegralInRange<size_t>(0, fds.size() - 1)];
          drm_prime_handle imp{0, 0, fd};
          file->ioctl(DRM_IOCTL_PRIME_FD_TO_HANDLE, &imp);
          drm_syncobj_handle simp{small(p), p.ConsumeIntegralInRange<uint32_t>(0, 1), fd, 0};
          file->ioctl(DRM_IOCTL_SYNCOBJ_FD_TO_HANDLE, &simp);
        }
        break;
      }
      case 7: {  // GET_PARAMS with a short buffer, VERSION
        uint8_t buf[sizeof(drm_asahi_params_global)];
        drm_asahi_get_params g{0, 0, reinterpret_cast<uint64_t>(buf), p.ConsumeIntegralInRange<uint64_t>(0, 4096)};
        file->ioctl(DRM_IOCTL_ASAHI_GET_PARAMS, &g);
        char name[8];
        drm_version v{};
        v.name_len = p.ConsumeIntegralInRange<size_t>(0, sizeof name);
        v.name = name;
        file->ioctl(DRM_IOCTL_VERSION, &v);
        break;
      }
      case 8: {  // timestamp objects
        drm_asahi_gem_bind_object o{p.ConsumeIntegralInRange<uint32_t>(0, 2), p.ConsumeIntegralInRange<uint32_t>(0, 1),
                                    small(p), 0, 0, p.ConsumeIntegralInRange<uint64_t>(0, 2) * 0x4000, small(p), 0};
        file->ioctl(DRM_IOCTL_ASAHI_GEM_BIND_OBJECT, &o);
        break;
      }
      case 9: {  // a new file on the same device, then back
        if (p.ConsumeBool()) file = agx::kmd::open_file(dev);
        break;
      }
    }
  }
  file.reset();
  for (int fd : fds) ::close(fd);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  FuzzedDataProvider p(data, size);
  run(p);
  return 0;
}
