#version 450
// Test workload: the vertex stage's view of its push constants, written to a buffer
// (one point, rasterization discarded).
layout(push_constant) uniform Push { uvec4 values; } push;
layout(set = 0, binding = 0, std430) writeonly buffer Seen { uvec4 values; } seen;
void main() {
  if (gl_VertexIndex == 0) seen.values = push.values;
  gl_Position = vec4(0.0, 0.0, 0.0, 1.0);
  gl_PointSize = 1.0;
}
