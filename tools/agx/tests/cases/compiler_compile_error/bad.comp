#version 450
layout(local_size_x = 1) in;
layout(set = 0, binding = 0) buffer A { uint a[]; };
void main() {
  a[0] = a[1] + missing;
}
