#version 430
// imageStore of a verdict colour (piglit generated_tests cs-abs-float.shader_test)
writeonly uniform image2D tex;
layout(local_size_x = 5) in;
uniform float arg0;
uniform float tolerance;
uniform float expected;

void main()
{
  vec4 tmp_color;
  float result = abs(arg0);
  tmp_color = distance(result, expected) <= tolerance ? vec4(0.0, 1.0, 0.0, 1.0) : vec4(1.0, 0.0, 0.0, 1.0);
  ivec2 coord = ivec2(gl_GlobalInvocationID.xy);
  imageStore(tex, coord, tmp_color);
}
