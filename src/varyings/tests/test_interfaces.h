// Interfaces shared by the varyings tests.
#pragma once

#include "varyings/varyings.h"

namespace agx::varyings::test {

// Every kind of vertex output at once, listed out of hardware order so the
// grouping shows: 32-bit smooth a (vec4), b (vec2); 32-bit flat c (vec1);
// 32-bit linear d (vec3); 16-bit smooth e (vec2), f (vec3); 16-bit flat g
// (vec1); 16-bit linear h (vec4); point size, layer/viewport, 3 clip
// distances.
inline Interface every_kind() {
  Interface i;
  i.varyings = {
      {"h", 4, 16, Interp::linear}, {"a", 4, 32, Interp::smooth}, {"e", 2, 16, Interp::smooth},
      {"c", 1, 32, Interp::flat},   {"d", 3, 32, Interp::linear}, {"g", 1, 16, Interp::flat},
      {"b", 2, 32, Interp::smooth}, {"f", 3, 16, Interp::smooth},
  };
  i.point_size = true;
  i.layer_viewport = true;
  i.clip_distances = 3;
  return i;
}

}  // namespace agx::varyings::test
