#version 450
layout(location = 0) in vec4 colour;
layout(location = 1) flat in int id;
layout(location = 0) out vec4 o;
void main() {
  if (id == 3) discard;
  o = colour;
}
