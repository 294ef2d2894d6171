// 8-bit storage only (StorageBuffer8BitAccess, no Int8 arithmetic): bytes loaded and
// widened, and copied through as they are.
// @requires int8
// @dispatch 1 1 1
// @buffer 0 0 256 bytes
// @buffer 0 1 512 zero
#version 450
#extension GL_EXT_shader_8bit_storage : require
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) readonly buffer In { uint8_t b[]; } inb;
layout(set = 0, binding = 1) buffer Out { uint w[64]; uint8_t copy[64]; } outb;
void main() {
  uint i = gl_LocalInvocationIndex;
  outb.w[i] = uint(inb.b[i]) * 3u + uint(inb.b[i + 64u]);
  outb.copy[i] = inb.b[255u - i];
}
