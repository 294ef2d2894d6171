#version 450
// Set 0 only, nothing converted: a uniform buffer in, a storage texel buffer out. Its
// layout has a push-descriptor set 1 it does not read (push_descriptor_test.cpp).
layout(local_size_x = 64) in;
layout(set = 0, binding = 0, r32ui) uniform writeonly uimageBuffer outb;
layout(set = 0, binding = 1) uniform U { uvec4 v[16]; } u;
void main() {
  uint i = gl_GlobalInvocationID.x;
  imageStore(outb, int(i), uvec4(u.v[i % 16u].y * 5u + i));
}
