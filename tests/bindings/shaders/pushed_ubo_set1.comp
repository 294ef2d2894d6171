#version 450
// Set 1 is pushed: one uniform buffer; set 0 holds the output, a storage texel buffer.
// Neither converts (uniform buffers stay native by default), so the layout converts
// nothing. Bound after a pipeline that ran natively with another set at number 1
// (push_descriptor_test.cpp).
layout(local_size_x = 64) in;
layout(set = 0, binding = 0, r32ui) uniform writeonly uimageBuffer outb;
layout(set = 1, binding = 0) uniform U { uvec4 v[16]; } u;
void main() {
  uint i = gl_GlobalInvocationID.x;
  imageStore(outb, int(i), uvec4(u.v[i % 16u].x * 7u + i));
}
