// The resources of one compiled stage, bound as the compiler's ABI lays
// them out (docs/compiler.md "Compute ABI", "Images and samplers"): each
// buffer's 64-bit address (and, for runtime arrays, its size) at the
// uniforms the Abi names, the 64-bit atomics' lock word, and the texture
// and sampler state registers of its images (image_binding.h). One rule
// for every stage: compute launches and the vertex and fragment programs
// of graphics pipelines bind through it alike.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "compiler/compiler.h"
#include "runtime/image_binding.h"
#include "runtime/runtime.h"

namespace agx::runtime {

struct ResourceLookup {
  // The buffer bound for one of the ABI's resources (storage, uniform or
  // atomic counter buffer), or the error naming what is missing.
  std::function<Result<const Buffer*>(const compiler::Resource&)> buffer_for;
  ImageLookup image_for;
  // A zeroed 4-byte word: the lock of 64-bit buffer atomics; asked for
  // only when the shader has them.
  std::function<Result<const Buffer*>()> atomic_lock;
};

// Writes the ABI's resource uniforms into `uniforms` (grown as needed)
// and returns the state descriptors (their `uniforms` already written).
Result<StateDescriptors> bind_resources(const compiler::Abi& abi, const ResourceLookup& lookup,
                                        std::vector<uint32_t>& uniforms);

}  // namespace agx::runtime
