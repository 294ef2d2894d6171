#version 450
// A vertex shader reading positions from a storage buffer.
layout(set = 0, binding = 0) readonly buffer Positions { vec4 p[]; } positions;
layout(location = 0) out vec4 color;
void main() {
  gl_Position = positions.p[gl_VertexIndex];
  color = vec4(1.0);
}
