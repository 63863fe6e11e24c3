// The end of a control-stream walk as a data master's fault.
#include <fmt/format.h>

#include "gpu/shader/shader.h"

namespace agx::gpu {

Status walk_outcome(const cmdstream::WalkEnd& end, Status stopped, GpuUnit unit, GpuFault* where) {
  using Kind = cmdstream::WalkEnd::Kind;
  switch (end.kind) {
    case Kind::terminate: return {};
    case Kind::stop: return stopped;
    case Kind::unreadable:
      if (where) *where = end.fault;
      return fail(where, end.fault.va, end.fault.unit, Error::fault("{}", end.message));
    case Kind::runaway:
    case Kind::call_depth: return fail(where, end.at, unit, Error::limit("{}", end.message));
    case Kind::no_call:
    case Kind::cycle: break;
  }
  return fail(where, end.at, unit, Error::decode("{}", end.message));
}

}  // namespace agx::gpu
