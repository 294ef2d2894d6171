#version 450
// Vertex stage of the indirect-bindings render test: positions from a storage buffer, and
// a storage-buffer write per vertex.
layout(set = 0, binding = 0) readonly buffer Positions { vec4 p[]; } positions;
layout(set = 0, binding = 1) buffer Seen { uint ids[]; } seen;
void main() {
  seen.ids[gl_VertexIndex] = uint(gl_VertexIndex) * 7u + 1u;
  gl_Position = positions.p[gl_VertexIndex];
}
