#version 450
// Test workload: the compute stage's view of its push constants, written to a buffer.
layout(local_size_x = 1) in;
layout(push_constant) uniform Push { uvec4 values; } push;
layout(set = 0, binding = 1, std430) writeonly buffer Seen { uvec4 values; } seen;
void main() { seen.values = push.values; }
