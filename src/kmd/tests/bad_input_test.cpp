// Bad input in the style of IGT: each -EINVAL / -ENOENT / -ENOTTY / -EACCES case of the
// Asahi kernel driver and the DRM core, and the state after each failed call.
#include "kmd/tests/fixture.h"

namespace agx::kmd::test {
namespace AGX_UNITY_ID {

class BadInput : public KmdTest {
 protected:
  // True if a page at va is mapped in vm (probed by a compute command).
  bool mapped(uint32_t q, uint64_t va) {
    struct Probe : Executor {
      uint64_t va;
      bool hit = false;
      bool execute(const FirmwareCommand& c, GpuFault*) override {
        uint8_t b;
        hit = c.memory->read(va, &b, 1, GpuUnit::host, nullptr);
        return true;
      }
    };
    auto probe = std::make_shared<Probe>();
    probe->va = va;
    device.set_executor(probe);
    uint32_t done = syncobj();
    std::vector<uint8_t> cmds;
    append(cmds, DRM_ASAHI_CMD_COMPUTE, drm_asahi_cmd_compute{});
    EXPECT_EQ(submit(q, cmds, {}, {binary(done)}), 0);
    EXPECT_EQ(wait(done), 0);
    device.set_executor(nullptr);
    return probe->hit;
  }
};

// torvalds/linux drivers/gpu/drm/drm_ioctl.c, drm_ioctl(): another ioctl
// type is -ENOTTY; a DRM number with no table entry (past the driver's
// ioctls, past the core table, or a core slot emptied when the legacy
// ioctls were removed) is -EINVAL.
TEST_F(BadInput, UnknownIoctls) {
  int x = 0;
  EXPECT_EQ(file->ioctl(_IOWR('x', 1, int), &x), -ENOTTY);
  EXPECT_EQ(file->ioctl(_IOWR(DRM_IOCTL_BASE, DRM_COMMAND_BASE + 11, int), &x), -EINVAL);  // past SUBMIT
  EXPECT_EQ(file->ioctl(_IOWR(DRM_IOCTL_BASE, DRM_COMMAND_BASE + 0x3f, int), &x), -EINVAL);
  EXPECT_EQ(file->ioctl(_IOWR(DRM_IOCTL_BASE, 0xf0, int), &x), -EINVAL);  // past the core table
  EXPECT_EQ(file->ioctl(_IOWR(DRM_IOCTL_BASE, 0x3d, int), &x), -EINVAL);  // never assigned
  EXPECT_EQ(file->ioctl(DRM_IOCTL_LOCK, &x), -EINVAL);                     // legacy, removed
  EXPECT_EQ(file->ioctl(DRM_IOCTL_GET_MAP, &x), -EINVAL);                  // legacy, removed
  EXPECT_EQ(x, 0);
}

// torvalds/linux drivers/gpu/drm/drm_ioctl.c, drm_ioctl_permit(): a core
// ioctl without DRM_RENDER_ALLOW is -EACCES on a render node: GEM_FLINK and
// GEM_OPEN (global names, drm_gem.c), SET_MASTER/DROP_MASTER (drm_auth.c),
// GET_UNIQUE, AUTH_MAGIC, mode setting.
TEST_F(BadInput, PrimaryNodeIoctlsAreEacces) {
  uint32_t bo = gem(kPage);
  drm_gem_flink flink{bo, 0};
  EXPECT_EQ(io(DRM_IOCTL_GEM_FLINK, flink), -EACCES);
  EXPECT_EQ(flink.name, 0u);
  drm_gem_open open{1, 0, 0};
  EXPECT_EQ(io(DRM_IOCTL_GEM_OPEN, open), -EACCES);
  EXPECT_EQ(file->ioctl(DRM_IOCTL_SET_MASTER, nullptr), -EACCES);
  EXPECT_EQ(file->ioctl(DRM_IOCTL_DROP_MASTER, nullptr), -EACCES);
  drm_unique u{};
  EXPECT_EQ(io(DRM_IOCTL_GET_UNIQUE, u), -EACCES);
  drm_auth a{};
  EXPECT_EQ(io(DRM_IOCTL_AUTH_MAGIC, a), -EACCES);
  drm_mode_card_res res{};
  EXPECT_EQ(io(DRM_IOCTL_MODE_GETRESOURCES, res), -EACCES);
  drm_mode_create_dumb dumb{};
  EXPECT_EQ(io(DRM_IOCTL_MODE_CREATE_DUMB, dumb), -EACCES);
  // The argument is copied in before the permission check: a bad pointer
  // is -EFAULT first.
  EXPECT_EQ(file->ioctl(DRM_IOCTL_GEM_FLINK, nullptr), -EFAULT);
}

TEST_F(BadInput, GetParams) {
  drm_asahi_params_global p{};
  drm_asahi_get_params g{1, 0, reinterpret_cast<uint64_t>(&p), sizeof p};
  EXPECT_EQ(io(DRM_IOCTL_ASAHI_GET_PARAMS, g), -EINVAL);  // param_group MBZ
  g = {0, 1, reinterpret_cast<uint64_t>(&p), sizeof p};
  EXPECT_EQ(io(DRM_IOCTL_ASAHI_GET_PARAMS, g), -EINVAL);  // pad MBZ
  EXPECT_EQ(p.chip_id, 0u);                               // nothing written
  drm_asahi_get_time t{1, 0};
  EXPECT_EQ(io(DRM_IOCTL_ASAHI_GET_TIME, t), -EINVAL);
}

TEST_F(BadInput, VmCreateKernelRange) {
  auto create = [&](uint64_t s, uint64_t e, uint32_t pad = 0) {
    drm_asahi_vm_create c{s, e, 0, pad};
    return io(DRM_IOCTL_ASAHI_VM_CREATE, c);
  };
  EXPECT_EQ(create(kKernelStart, kKernelEnd, 1), -EINVAL);                  // pad
  EXPECT_EQ(create(kKernelStart, kKernelStart + 0x1000'0000), -EINVAL);     // smaller than minimum
  EXPECT_EQ(create(kKernelStart + 0x100, kKernelEnd + 0x100), -EINVAL);     // misaligned
  EXPECT_EQ(create(0, 0x20000000), -EINVAL);                                // below vm_start
  EXPECT_EQ(create(0x7fe0000000, 0x8000000000), -EINVAL);                   // past vm_end
  EXPECT_EQ(create(kKernelEnd, kKernelStart), -EINVAL);                     // reversed
  EXPECT_EQ(vm(), 1u);  // no id was used by the failures
  drm_asahi_vm_destroy d{7, 0};
  EXPECT_EQ(io(DRM_IOCTL_ASAHI_VM_DESTROY, d), -ENOENT);
  d = {1, 1};
  EXPECT_EQ(io(DRM_IOCTL_ASAHI_VM_DESTROY, d), -EINVAL);
  d = {1, 0};
  EXPECT_EQ(io(DRM_IOCTL_ASAHI_VM_DESTROY, d), 0);
}

TEST_F(BadInput, GemCreate) {
  uint32_t v = vm();
  auto create = [&](uint64_t size, uint32_t flags, uint32_t vm_id, uint32_t pad = 0) {
    drm_asahi_gem_create c{size, flags, vm_id, 0, pad};
    return io(DRM_IOCTL_ASAHI_GEM_CREATE, c);
  };
  EXPECT_EQ(create(kPage, 4, 0), -EINVAL);                          // unknown flag
  EXPECT_EQ(create(kPage, 0, v), -EINVAL);                          // vm_id without VM_PRIVATE
  EXPECT_EQ(create(kPage, DRM_ASAHI_GEM_VM_PRIVATE, 99), -ENOENT);  // unknown VM
  EXPECT_EQ(create(kPage, 0, 0, 1), -EINVAL);                       // pad
  EXPECT_EQ(create(0, 0, 0), -EINVAL);                              // empty
  EXPECT_EQ(gem(kPage), 1u);
  drm_asahi_gem_mmap_offset m{1, 1, 0};
  EXPECT_EQ(io(DRM_IOCTL_ASAHI_GEM_MMAP_OFFSET, m), -EINVAL);
  m = {5, 0, 0};
  EXPECT_EQ(io(DRM_IOCTL_ASAHI_GEM_MMAP_OFFSET, m), -ENOENT);
  drm_gem_close c{1, 1};
  EXPECT_EQ(io(DRM_IOCTL_GEM_CLOSE, c), -EINVAL);
  int err = 0;
  EXPECT_EQ(file->mmap(0x1234000, kPage, &err), nullptr);
  EXPECT_EQ(err, -EINVAL);
}

TEST_F(BadInput, VmBind) {
  uint32_t v = vm(), bo = gem(2 * kPage), q = queue(v);
  const uint32_t rw = DRM_ASAHI_BIND_READ | DRM_ASAHI_BIND_WRITE;
  EXPECT_EQ(bind(v, bo, 0, kPage, kUserVa + 1), -EINVAL);              // misaligned address
  EXPECT_EQ(bind(v, bo, 0, 100, kUserVa), -EINVAL);                    // misaligned range
  EXPECT_EQ(bind(v, bo, 1, kPage, kUserVa), -EINVAL);                  // misaligned offset
  EXPECT_EQ(bind(v, bo, 0, 0, kUserVa), -EINVAL);                      // empty
  EXPECT_EQ(bind(v, bo, 0, 4 * kPage, kUserVa), -EINVAL);              // past the object
  EXPECT_EQ(bind(v, bo, kPage, 2 * kPage, kUserVa), -EINVAL);          // offset + range past it
  EXPECT_EQ(bind(v, bo, 0, kPage, 0), -EINVAL);                        // below vm_start
  EXPECT_EQ(bind(v, bo, 0, kPage, 0x7fffff8000), -EINVAL);             // past vm_end
  EXPECT_EQ(bind(v, bo, 0, 2 * kPage, ~0ull & ~(kPage - 1)), -EINVAL); // wraps
  EXPECT_EQ(bind(v, bo, 0, kPage, kKernelStart), -EINVAL);             // kernel range
  EXPECT_EQ(bind(v, bo, 0, 2 * kPage, kKernelStart - kPage), -EINVAL); // straddles it
  EXPECT_EQ(bind(v, bo, 0, kPage, kUserVa, 0), -EINVAL);               // neither READ nor WRITE
  EXPECT_EQ(bind(v, bo, 0, kPage, kUserVa, rw | 0x10), -EINVAL);       // unknown flag
  EXPECT_EQ(bind(v, 77, 0, kPage, kUserVa), -ENOENT);                  // unknown object
  EXPECT_EQ(bind(9, bo, 0, kPage, kUserVa), -ENOENT);                  // unknown VM
  EXPECT_EQ(bind(v, bo, 0, kPage, kUserVa, DRM_ASAHI_BIND_UNBIND), -EINVAL);  // unbind with a handle
  EXPECT_EQ(bind(v, 0, kPage, kPage, kUserVa, DRM_ASAHI_BIND_UNBIND), -EINVAL);  // unbind with an offset
  EXPECT_EQ(bind(v, 0, 0, kPage, kUserVa, DRM_ASAHI_BIND_UNBIND | DRM_ASAHI_BIND_READ), -EINVAL);
  EXPECT_EQ(bind(v, 0, 0, kPage, kKernelStart, DRM_ASAHI_BIND_UNBIND), -EINVAL);
  drm_asahi_gem_bind_op op{rw, bo, 0, kPage, kUserVa};
  drm_asahi_vm_bind b{v, 1, 0, 0, reinterpret_cast<uint64_t>(&op)};
  EXPECT_EQ(io(DRM_IOCTL_ASAHI_VM_BIND, b), -EINVAL);  // stride 0
  b = {v, 1, sizeof op, 1, reinterpret_cast<uint64_t>(&op)};
  EXPECT_EQ(io(DRM_IOCTL_ASAHI_VM_BIND, b), -EINVAL);  // pad
  // A batch whose second op is bad applies nothing.
  drm_asahi_gem_bind_op ops[2] = {{rw, bo, 0, kPage, kUserVa}, {rw, bo, 0, kPage, kUserVa + 3}};
  b = {v, 2, sizeof ops[0], 0, reinterpret_cast<uint64_t>(ops)};
  EXPECT_EQ(io(DRM_IOCTL_ASAHI_VM_BIND, b), -EINVAL);
  EXPECT_FALSE(mapped(q, kUserVa));
  // A longer stride is fine when the extra bytes are zero, not otherwise.
  struct Longer {
    drm_asahi_gem_bind_op op;
    uint64_t future;
  } longer{{rw, bo, 0, kPage, kUserVa}, 1};
  b = {v, 1, sizeof longer, 0, reinterpret_cast<uint64_t>(&longer)};
  EXPECT_EQ(io(DRM_IOCTL_ASAHI_VM_BIND, b), -EINVAL);
  longer.future = 0;
  EXPECT_EQ(io(DRM_IOCTL_ASAHI_VM_BIND, b), 0);
  EXPECT_TRUE(mapped(q, kUserVa));
}

TEST_F(BadInput, BindObject) {
  uint32_t bo = gem(kPage);
  auto call = [&](drm_asahi_gem_bind_object o) { return io(DRM_IOCTL_ASAHI_GEM_BIND_OBJECT, o); };
  const uint32_t ts = DRM_ASAHI_BIND_OBJECT_USAGE_TIMESTAMPS;
  EXPECT_EQ(call({2, ts, bo, 0, 0, kPage, 0, 0}), -EINVAL);   // unknown op
  EXPECT_EQ(call({0, 0, bo, 0, 0, kPage, 0, 0}), -EINVAL);    // no usage
  EXPECT_EQ(call({0, ts, bo, 1, 0, kPage, 0, 0}), -EINVAL);   // vm_id MBZ
  EXPECT_EQ(call({0, ts, bo, 0, 0, kPage, 0, 1}), -EINVAL);   // pad
  EXPECT_EQ(call({0, ts, bo, 0, 8, kPage, 0, 0}), -EINVAL);   // misaligned offset
  EXPECT_EQ(call({0, ts, bo, 0, 0, 2 * kPage, 0, 0}), -EINVAL);  // past the object
  EXPECT_EQ(call({0, ts, 42, 0, 0, kPage, 0, 0}), -ENOENT);
  EXPECT_EQ(call({1, 0, 0, 0, 0, 0, 5, 0}), -ENOENT);
  EXPECT_EQ(call({1, 0, bo, 0, 0, 0, 5, 0}), -EINVAL);        // unbind with a handle
}

TEST_F(BadInput, QueueCreateAndDestroy) {
  uint32_t v = vm();
  auto create = [&](uint32_t flags, uint32_t vm_id, uint32_t prio) {
    drm_asahi_queue_create q{flags, vm_id, prio, 0, 0};
    return io(DRM_IOCTL_ASAHI_QUEUE_CREATE, q);
  };
  EXPECT_EQ(create(1, v, 0), -EINVAL);
  EXPECT_EQ(create(0, v, DRM_ASAHI_PRIORITY_HIGH), -EINVAL);
  EXPECT_EQ(create(0, v, DRM_ASAHI_PRIORITY_REALTIME), -EINVAL);
  EXPECT_EQ(create(0, v, 4), -EINVAL);
  EXPECT_EQ(create(0, 5, 0), -ENOENT);
  EXPECT_EQ(queue(v), 1u);
  drm_asahi_queue_destroy d{2, 0};
  EXPECT_EQ(io(DRM_IOCTL_ASAHI_QUEUE_DESTROY, d), -ENOENT);
  d = {1, 1};
  EXPECT_EQ(io(DRM_IOCTL_ASAHI_QUEUE_DESTROY, d), -EINVAL);
}

TEST_F(BadInput, Submit) {
  uint32_t v = vm(), q = queue(v), s = syncobj(), unsignaled = syncobj();
  drm_asahi_cmd_compute c{};
  std::vector<uint8_t> one;
  append(one, DRM_ASAHI_CMD_COMPUTE, c);
  auto raw = [&](drm_asahi_submit sub) { return io(DRM_IOCTL_ASAHI_SUBMIT, sub); };
  drm_asahi_submit base{};
  base.queue_id = q;
  base.cmdbuf = reinterpret_cast<uint64_t>(one.data());
  base.cmdbuf_size = uint32_t(one.size());
  auto with = [&](auto f) { drm_asahi_submit x = base; f(x); return raw(x); };
  EXPECT_EQ(with([](auto& x) { x.flags = 1; }), -EINVAL);
  EXPECT_EQ(with([](auto& x) { x.pad = 1; }), -EINVAL);
  EXPECT_EQ(with([](auto& x) { x.queue_id = 9; }), -ENOENT);
  EXPECT_EQ(with([](auto& x) { x.cmdbuf_size = 0; }), -EINVAL);       // no commands
  EXPECT_EQ(with([](auto& x) { x.cmdbuf_size = 4; }), -EINVAL);       // truncated header
  EXPECT_EQ(with([](auto& x) { x.cmdbuf_size -= 1; }), -EINVAL);      // truncated payload
  auto cmdbuf = [&](std::vector<uint8_t> buf, std::vector<drm_asahi_sync> in = {},
                    std::vector<drm_asahi_sync> out = {}) { return submit(q, buf, in, out); };
  std::vector<uint8_t> buf;
  append(buf, 9, c);
  EXPECT_EQ(cmdbuf(buf), -EINVAL);  // unknown command type
  buf.clear();
  append(buf, DRM_ASAHI_CMD_COMPUTE, c, 1, DRM_ASAHI_BARRIER_NONE);
  EXPECT_EQ(cmdbuf(buf), -EINVAL);  // barrier on a future render boundary
  buf.clear();
  append(buf, DRM_ASAHI_CMD_COMPUTE, c, DRM_ASAHI_BARRIER_NONE, 1);
  EXPECT_EQ(cmdbuf(buf), -EINVAL);  // waits on itself
  buf.clear();
  for (int i = 0; i < 65; i++) append(buf, DRM_ASAHI_CMD_COMPUTE, c);
  EXPECT_EQ(cmdbuf(buf), -EINVAL);  // more than 64 hardware commands
  buf.clear();
  drm_asahi_cmd_compute bad_flags{};
  bad_flags.flags = 1;
  append(buf, DRM_ASAHI_CMD_COMPUTE, bad_flags);
  EXPECT_EQ(cmdbuf(buf), -EINVAL);
  buf.clear();
  append(buf, DRM_ASAHI_CMD_COMPUTE, c, DRM_ASAHI_BARRIER_NONE, DRM_ASAHI_BARRIER_NONE, sizeof c + 8);
  buf.back() = 1;  // a nonzero byte past the struct
  EXPECT_EQ(cmdbuf(buf), -EINVAL);
  buf.clear();
  drm_asahi_cmd_render r = valid_render();
  r.samples = 3;
  append(buf, DRM_ASAHI_CMD_RENDER, r);
  EXPECT_EQ(cmdbuf(buf), -EINVAL);
  buf.clear();
  drm_asahi_cmd_compute ts = c;
  ts.ts.start = {7, 0};
  append(buf, DRM_ASAHI_CMD_COMPUTE, ts);
  EXPECT_EQ(cmdbuf(buf), -ENOENT);  // unknown timestamp object
  buf.clear();
  drm_asahi_attachment att{0x1000, 64, 0, 1};
  append(buf, DRM_ASAHI_SET_COMPUTE_ATTACHMENTS, att);
  append(buf, DRM_ASAHI_CMD_COMPUTE, c);
  EXPECT_EQ(cmdbuf(buf), -EINVAL);  // attachment flags MBZ
  buf.clear();
  att.flags = 0;
  append(buf, DRM_ASAHI_SET_COMPUTE_ATTACHMENTS, att, 0, 0);
  append(buf, DRM_ASAHI_CMD_COMPUTE, c);
  EXPECT_EQ(cmdbuf(buf), -EINVAL);  // attachment commands must pass NONE barriers
  buf.clear();
  append(buf, DRM_ASAHI_SET_COMPUTE_ATTACHMENTS, att, DRM_ASAHI_BARRIER_NONE, DRM_ASAHI_BARRIER_NONE, 20);
  EXPECT_EQ(cmdbuf(buf), -EINVAL);  // not a whole number of attachments
  // Syncs.
  EXPECT_EQ(cmdbuf(one, {{5, s, 0}}), -EINVAL);                 // unknown sync type
  EXPECT_EQ(cmdbuf(one, {{DRM_ASAHI_SYNC_SYNCOBJ, s, 3}}), -EINVAL);  // binary with a value
  EXPECT_EQ(cmdbuf(one, {binary(99)}), -ENOENT);
  EXPECT_EQ(cmdbuf(one, {}, {binary(99)}), -ENOENT);
  EXPECT_EQ(cmdbuf(one, {binary(unsignaled)}), -EINVAL);        // nothing submitted to wait on
  EXPECT_EQ(cmdbuf(one, {point(s, 5)}), -EINVAL);               // point not submitted
  // None of the failures touched the out-sync or queued work.
  EXPECT_EQ(cmdbuf(one, {}, {binary(s)}), -0);
  EXPECT_EQ(wait(s), 0);
  EXPECT_EQ(wait(unsignaled, 0), -EINVAL);  // still empty
}

TEST_F(BadInput, Syncobjs) {
  uint32_t s = syncobj();
  drm_syncobj_create c{0, 2};
  EXPECT_EQ(io(DRM_IOCTL_SYNCOBJ_CREATE, c), -EINVAL);
  drm_syncobj_destroy d{s, 1};
  EXPECT_EQ(io(DRM_IOCTL_SYNCOBJ_DESTROY, d), -EINVAL);
  d = {42, 0};
  EXPECT_EQ(io(DRM_IOCTL_SYNCOBJ_DESTROY, d), -EINVAL);
  uint32_t handles[2] = {s, 42};
  drm_syncobj_array a{reinterpret_cast<uint64_t>(handles), 2, 0};
  EXPECT_EQ(io(DRM_IOCTL_SYNCOBJ_SIGNAL, a), -ENOENT);
  EXPECT_EQ(wait(s, 0), -EINVAL);  // the failed signal changed nothing
  a = {reinterpret_cast<uint64_t>(handles), 0, 0};
  EXPECT_EQ(io(DRM_IOCTL_SYNCOBJ_RESET, a), -EINVAL);  // empty array
  a = {reinterpret_cast<uint64_t>(handles), 1, 1};
  EXPECT_EQ(io(DRM_IOCTL_SYNCOBJ_RESET, a), -EINVAL);  // pad
  EXPECT_EQ(wait(s, 0, 0x100), -EINVAL);                // unknown wait flag
  EXPECT_EQ(wait(s, 0, DRM_SYNCOBJ_WAIT_FLAGS_WAIT_AVAILABLE), -EINVAL);  // timeline-only flag
  drm_syncobj_handle h{s, 4, -1, 0};
  EXPECT_EQ(io(DRM_IOCTL_SYNCOBJ_HANDLE_TO_FD, h), -EINVAL);
  h = {77, 0, -1, 0};
  EXPECT_EQ(io(DRM_IOCTL_SYNCOBJ_HANDLE_TO_FD, h), -ENOENT);
  h = {s, DRM_SYNCOBJ_HANDLE_TO_FD_FLAGS_EXPORT_SYNC_FILE, -1, 0};
  EXPECT_EQ(io(DRM_IOCTL_SYNCOBJ_HANDLE_TO_FD, h), -EINVAL);  // no fence to export
  h = {0, 0, 0, 0};  // fd 0 is not a syncobj
  EXPECT_EQ(io(DRM_IOCTL_SYNCOBJ_FD_TO_HANDLE, h), -EINVAL);
  drm_syncobj_transfer t{s, 42, 0, 0, 0, 0};
  EXPECT_EQ(io(DRM_IOCTL_SYNCOBJ_TRANSFER, t), -ENOENT);
  t = {s, s, 0, 0, 0, 1};
  EXPECT_EQ(io(DRM_IOCTL_SYNCOBJ_TRANSFER, t), -EINVAL);
  uint64_t p = 0;
  drm_syncobj_timeline_array q{reinterpret_cast<uint64_t>(&s), reinterpret_cast<uint64_t>(&p), 1, 4};
  EXPECT_EQ(io(DRM_IOCTL_SYNCOBJ_QUERY, q), -EINVAL);
  drm_prime_handle ph{5, 0, -1};
  EXPECT_EQ(io(DRM_IOCTL_PRIME_HANDLE_TO_FD, ph), -ENOENT);
  ph = {0, 0, 0};
  EXPECT_EQ(io(DRM_IOCTL_PRIME_FD_TO_HANDLE, ph), -EINVAL);  // stdin is no object
}

}  // namespace
}  // namespace agx::kmd::test
