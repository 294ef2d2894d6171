// Vertex stage reading and writing storage buffers (rewritten and validated, not run).
// @target vulkan1.2
#version 450
layout(set = 0, binding = 0) readonly buffer Positions { vec4 p[]; } positions;
layout(set = 0, binding = 1) buffer Stats { uint visited; uint ids[]; } stats;
layout(set = 1, binding = 0) uniform Camera { mat4 view_proj; } camera;
layout(location = 0) out vec4 color;
void main() {
  vec4 p = positions.p[gl_VertexIndex];
  atomicAdd(stats.visited, 1u);
  stats.ids[gl_VertexIndex] = uint(gl_InstanceIndex);
  color = vec4(p.xyz * 0.5 + 0.5, 1.0);
  gl_Position = camera.view_proj * p;
}
