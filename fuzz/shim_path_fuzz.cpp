// Fuzzes the shim's path resolution (agx::shim::lookup_path and
// normalize_path): any byte string, however long or full of "..", "//" and
// symlinks, resolves to a real path, a virtual node or hidden, never a crash
// or a loop; normalization is idempotent.
#include <cstddef>
#include <cstdint>
#include <string>

#include "shim/vfs.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string path(reinterpret_cast<const char*>(data), size);
  path = path.substr(0, path.find('\0'));  // C paths end at the first NUL
  std::string once = agx::shim::normalize_path(path);
  if (agx::shim::normalize_path(once) != once) __builtin_trap();
  for (bool follow : {true, false}) {
    auto lookup = agx::shim::lookup_path(path.c_str(), follow);
    if (lookup.cls == agx::shim::PathClass::node && lookup.node == nullptr) __builtin_trap();
  }
  return 0;
}
