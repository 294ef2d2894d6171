#version 450
// A fragment shader writing to a storage buffer.
layout(set = 0, binding = 1) buffer Hits { uint hits; float last[]; } hits;
layout(location = 0) in vec4 color;
layout(location = 0) out vec4 result;
void main() {
  atomicAdd(hits.hits, 1u);
  hits.last[uint(gl_FragCoord.x) % 8u] = color.r;
  result = color;
}
