#version 450
layout(location = 0) in vec4 pos;
layout(location = 1) in vec2 uv;
layout(location = 0) out vec2 tex;
layout(set = 0, binding = 0) uniform M { mat4 mvp; };
void main() {
  gl_Position = mvp * pos;
  tex = uv;
}
