#version 430
layout(local_size_x = 256) in;
layout(std430, binding = 0) buffer X { float x[]; };
layout(std430, binding = 1) buffer Y { float y[]; };
uniform float a;
void main() { uint i = gl_GlobalInvocationID.x; y[i] = a * x[i] + y[i]; }
