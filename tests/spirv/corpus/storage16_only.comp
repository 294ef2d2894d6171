// 16-bit storage only (StorageBuffer16BitAccess, no Float16 / Int16 arithmetic): halves
// and ushorts are loaded, widened, computed on in 32 bits and narrowed on store, and copied
// through as they are. Real ML inference kernels look like this.
// @requires float16 int16
// @dispatch 1 1 1
// @buffer 0 0 256 half
// @buffer 0 1 256 bytes
// @buffer 0 2 1024 zero
#version 450
#extension GL_EXT_shader_16bit_storage : require
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) readonly buffer In { float16_t h[]; } inb;
layout(set = 0, binding = 1) readonly buffer InU { uint16_t u[]; } inu;
layout(set = 0, binding = 2) buffer Out { float f[64]; float16_t copy[64]; uint16_t ucopy[64]; uint sum[64]; } outb;
void main() {
  uint i = gl_LocalInvocationIndex;
  float x = float(inb.h[i]);
  outb.f[i] = x * 2.0 + 0.25;
  outb.copy[i] = inb.h[127u - i];
  outb.ucopy[i] = inu.u[i];
  outb.sum[i] = uint(inu.u[i]) + uint(inu.u[i + 64u]);
}
