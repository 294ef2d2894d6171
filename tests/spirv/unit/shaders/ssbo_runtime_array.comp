#version 450
// A storage buffer with a header and a runtime array: access chains, load/store,
// atomics and .length().
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) buffer Data { uint count; float values[]; } data;
layout(set = 0, binding = 1) readonly buffer Input { vec4 header; float src[]; } inp;
void main() {
  uint i = gl_GlobalInvocationID.x;
  if (i < uint(data.values.length())) {
    data.values[i] = inp.src[i] * inp.header.x + float(inp.src.length());
    atomicAdd(data.count, 1u);
  }
}
