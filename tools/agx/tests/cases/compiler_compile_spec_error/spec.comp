#version 450
// Specialization constants: the workgroup size and an expression on them.
layout(local_size_x_id = 0) in;
layout(constant_id = 1) const uint SCALE = 2u;
layout(constant_id = 2) const bool TWICE = false;
const uint FACTOR = TWICE ? SCALE * 2u : SCALE;
layout(set = 0, binding = 0) buffer A { uint a[]; };
void main() {
  a[gl_GlobalInvocationID.x] *= FACTOR + gl_WorkGroupSize.x;
}
