// The Asahi ioctls except SUBMIT: params, time, VMs, objects, binds, queues.
// Checks follow the Asahi kernel driver (AsahiLinux/linux
// drivers/gpu/drm/asahi/file.rs); a failed call changes nothing.
#include <algorithm>
#include <cerrno>
#include <cstring>

#include "kmd/file_impl.h"
#include "kmd/uaccess.h"

namespace agx::kmd {

namespace {
constexpr uint64_t kPageMask = mem::kPageMask;
bool overlaps(uint64_t a0, uint64_t a1, uint64_t b0, uint64_t b1) { return a0 < b1 && b0 < a1; }
}  // namespace

int FileImpl::get_params(void* arg) {
  auto* p = static_cast<drm_asahi_get_params*>(arg);
  if (p->param_group != 0 || p->pad != 0) return -EINVAL;
  size_t n = std::min<uint64_t>(p->size, sizeof(drm_asahi_params_global));
  return copy_to_user(p->pointer, &dev_.params, n);
}

int FileImpl::get_time(void* arg) {
  auto* t = static_cast<drm_asahi_get_time*>(arg);
  if (t->flags) return -EINVAL;
  t->gpu_timestamp = dev_.time_ns();
  return 0;
}

int FileImpl::vm_create(void* arg) {
  auto* v = static_cast<drm_asahi_vm_create*>(arg);
  const auto& P = dev_.params;
  if (v->pad || v->kernel_start >= v->kernel_end || v->kernel_start < P.vm_start || v->kernel_end > P.vm_end ||
      v->kernel_end - v->kernel_start < P.vm_kernel_min_size || ((v->kernel_start | v->kernel_end) & kPageMask))
    return -EINVAL;
  auto vm = std::make_shared<Vm>();
  vm->kernel_start = v->kernel_start;
  vm->kernel_end = v->kernel_end;
  std::lock_guard g(mu_);
  v->vm_id = insert(vms_, next_vm_, vm);
  return 0;
}

int FileImpl::vm_destroy(void* arg) {
  auto* v = static_cast<drm_asahi_vm_destroy*>(arg);
  if (v->pad) return -EINVAL;
  VmPtr vm;  // released outside the lock
  std::lock_guard g(mu_);
  auto it = vms_.find(v->vm_id);
  if (it == vms_.end()) return -ENOENT;
  vm = std::move(it->second);
  vms_.erase(it);
  return 0;
}

int FileImpl::gem_create(void* arg) {
  auto* c = static_cast<drm_asahi_gem_create*>(arg);
  const uint32_t known = DRM_ASAHI_GEM_WRITEBACK | DRM_ASAHI_GEM_VM_PRIVATE;
  const bool priv = c->flags & DRM_ASAHI_GEM_VM_PRIVATE;
  if ((c->flags & ~known) || c->pad || (!priv && c->vm_id)) return -EINVAL;
  if (c->size == 0) return -EINVAL;
  VmPtr vm;
  if (priv) {
    std::lock_guard g(mu_);
    auto it = vms_.find(c->vm_id);
    if (it == vms_.end()) return -ENOENT;
    vm = it->second;
  }
  auto obj = create_gem(c->size, c->flags);
  if (!obj) return obj.error().kind() == ErrorKind::invalid_argument ? -EINVAL : -ENOMEM;
  (*obj)->private_vm = vm;
  std::lock_guard g(mu_);
  c->handle = insert(gems_, next_gem_, *obj);
  return 0;
}

int FileImpl::gem_mmap_offset(void* arg) {
  auto* m = static_cast<drm_asahi_gem_mmap_offset*>(arg);
  if (m->flags) return -EINVAL;
  GemPtr obj = gem(m->handle);
  if (!obj) return -ENOENT;
  std::lock_guard g(dev_.table_mu);
  if (!obj->mmap_offset) {
    obj->mmap_offset = dev_.next_mmap_offset;
    dev_.next_mmap_offset += obj->size_B + mem::kPageSize_B;  // a guard gap
    if (dev_.mmap_offsets.size() % 64 == 63) sweep_expired(dev_.mmap_offsets);
    dev_.mmap_offsets[obj->mmap_offset] = obj;
  }
  m->offset = obj->mmap_offset;
  return 0;
}

// Every check of one bind op, without changing anything.
int FileImpl::bind_op_check(const Vm& vm, const drm_asahi_gem_bind_op& op, GemPtr* object) {
  const auto& P = dev_.params;
  const bool unbind = op.flags & DRM_ASAHI_BIND_UNBIND;
  if (unbind) {
    if (op.flags != DRM_ASAHI_BIND_UNBIND || op.offset || op.handle) return -EINVAL;
  } else {
    const uint32_t known = DRM_ASAHI_BIND_READ | DRM_ASAHI_BIND_WRITE | DRM_ASAHI_BIND_SINGLE_PAGE;
    if ((op.flags & ~known) || !(op.flags & (DRM_ASAHI_BIND_READ | DRM_ASAHI_BIND_WRITE))) return -EINVAL;
  }
  if ((op.addr | op.range | op.offset) & kPageMask) return -EINVAL;
  if (op.range == 0 || op.addr + op.range < op.addr) return -EINVAL;
  const uint64_t end = op.addr + op.range;
  if (op.addr < P.vm_start || end > P.vm_end) return -EINVAL;
  if (overlaps(op.addr, end, vm.kernel_start, vm.kernel_end)) return -EINVAL;
  if (unbind) return 0;
  GemPtr obj = gem(op.handle);
  if (!obj) return -ENOENT;
  const uint64_t used = (op.flags & DRM_ASAHI_BIND_SINGLE_PAGE) ? mem::kPageSize_B : op.range;
  if (op.offset + used < op.offset || op.offset + used > obj->size_B) return -EINVAL;
  if (obj->flags & DRM_ASAHI_GEM_VM_PRIVATE) {
    VmPtr owner = obj->private_vm.lock();
    if (owner.get() != &vm) return -EINVAL;
  }
  *object = std::move(obj);
  return 0;
}

// Replaces whatever [addr, addr+range) held (splitting neighbours), then
// maps the object there. Caller holds vm.mu.
void FileImpl::bind_apply(Vm& vm, const drm_asahi_gem_bind_op& op, const GemPtr& object) {
  const uint64_t start = op.addr, end = op.addr + op.range;
  auto& maps = vm.maps;
  auto it = maps.lower_bound(start);
  if (it != maps.begin()) {
    auto prev = std::prev(it);
    if (prev->second.end > start) {
      Mapping tail = prev->second;
      uint64_t prev_end = prev->second.end;
      prev->second.end = start;
      if (prev_end > end) {
        if (!tail.repeated) tail.offset += end - prev->first;
        maps.emplace(end, std::move(tail));
      }
    }
  }
  it = maps.lower_bound(start);
  while (it != maps.end() && it->first < end) {
    if (it->second.end > end) {
      Mapping tail = std::move(it->second);
      if (!tail.repeated) tail.offset += end - it->first;
      maps.erase(it);
      maps.emplace(end, std::move(tail));
      break;
    }
    it = maps.erase(it);
  }
  if (!object) {
    (void)vm.memory.unmap(start, op.range);
    return;
  }
  uint8_t perms = ((op.flags & DRM_ASAHI_BIND_READ) ? mem::kRead : 0) | ((op.flags & DRM_ASAHI_BIND_WRITE) ? mem::kWrite : 0);
  const bool repeated = op.flags & DRM_ASAHI_BIND_SINGLE_PAGE;
  maps.emplace(start, Mapping{end, object, op.offset, repeated});
  if (repeated)
    (void)vm.memory.map_repeated(start, object->host + op.offset, op.range, perms);
  else
    (void)vm.memory.map(start, object->host + op.offset, op.range, perms);
}

int FileImpl::vm_bind(void* arg) {
  auto* b = static_cast<drm_asahi_vm_bind*>(arg);
  if (b->stride == 0 || b->pad) return -EINVAL;
  if (uint64_t(b->num_binds) * b->stride > (uint64_t{1} << 26)) return -ENOMEM;
  VmPtr vm;
  {
    std::lock_guard g(mu_);
    auto it = vms_.find(b->vm_id);
    if (it == vms_.end()) return -ENOENT;
    vm = it->second;
  }
  // Read every op (zero-extended to our struct when the stride is shorter)
  // and check them all before changing anything.
  std::vector<uint8_t> user(size_t(b->num_binds) * b->stride);
  if (int err = copy_from_user(user.data(), b->userptr, user.size())) return err;
  const uint8_t* base = user.data();
  std::vector<drm_asahi_gem_bind_op> ops(b->num_binds);
  std::vector<GemPtr> objects(b->num_binds);
  for (uint32_t i = 0; i < b->num_binds; i++) {
    std::memcpy(&ops[i], base + uint64_t(i) * b->stride, std::min<size_t>(b->stride, sizeof ops[i]));
    if (b->stride > sizeof ops[i]) {  // a newer op: unknown fields must be zero
      const uint8_t* extra = base + uint64_t(i) * b->stride + sizeof ops[i];
      if (std::any_of(extra, extra + (b->stride - sizeof ops[i]), [](uint8_t x) { return x != 0; })) return -EINVAL;
    }
    if (int err = bind_op_check(*vm, ops[i], &objects[i])) return err;
  }
  std::lock_guard g(vm->mu);
  for (uint32_t i = 0; i < b->num_binds; i++) bind_apply(*vm, ops[i], objects[i]);
  return 0;
}

int FileImpl::gem_bind_object(void* arg) {
  auto* o = static_cast<drm_asahi_gem_bind_object*>(arg);
  if (o->pad || o->vm_id) return -EINVAL;
  if (o->op == DRM_ASAHI_BIND_OBJECT_OP_BIND) {
    if ((o->range | o->offset) & kPageMask) return -EINVAL;
    if (o->flags != DRM_ASAHI_BIND_OBJECT_USAGE_TIMESTAMPS || o->range == 0) return -EINVAL;
    GemPtr obj = gem(o->handle);
    if (!obj) return -ENOENT;
    if (o->offset + o->range < o->offset || o->offset + o->range > obj->size_B) return -EINVAL;
    std::lock_guard g(mu_);
    o->object_handle = insert(timestamps_, next_timestamp_, TimestampBinding{obj, o->offset, o->range});
    return 0;
  }
  if (o->op == DRM_ASAHI_BIND_OBJECT_OP_UNBIND) {
    if (o->range || o->offset || o->flags || o->handle) return -EINVAL;
    std::lock_guard g(mu_);
    return timestamps_.erase(o->object_handle) ? 0 : -ENOENT;
  }
  return -EINVAL;
}

int FileImpl::queue_create(void* arg) {
  auto* q = static_cast<drm_asahi_queue_create*>(arg);
  // HIGH and REALTIME need privileges the kernel does not grant yet.
  if (q->flags || q->priority > DRM_ASAHI_PRIORITY_MEDIUM) return -EINVAL;
  std::lock_guard g(mu_);
  auto it = vms_.find(q->vm_id);
  if (it == vms_.end()) return -ENOENT;
  uint32_t id = next_queue_;
  while (id == 0 || queues_.count(id)) id++;
  auto queue = std::make_shared<Queue>(dev_, id, it->second, q->priority, q->usc_exec_base);
  q->queue_id = insert(queues_, next_queue_, std::move(queue));
  return 0;
}

int FileImpl::queue_destroy(void* arg) {
  auto* q = static_cast<drm_asahi_queue_destroy*>(arg);
  if (q->pad) return -EINVAL;
  QueuePtr queue;  // joined outside the lock
  {
    std::lock_guard g(mu_);
    auto it = queues_.find(q->queue_id);
    if (it == queues_.end()) return -ENOENT;
    queue = std::move(it->second);
    queues_.erase(it);
  }
  queue.reset();
  return 0;
}

}  // namespace agx::kmd
