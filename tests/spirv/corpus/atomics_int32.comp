// Every 32-bit integer atomic glslang emits, on uint and int, with results that do not
// depend on invocation order (commutative ops on shared words; exchange/comp-swap on own slots).
// @dispatch 1 1 1
// @buffer 0 0 256 zero
// @buffer 0 1 1024 iota
// @buffer 0 2 512 zero
#version 450
layout(local_size_x = 128) in;
layout(set = 0, binding = 0) buffer Shared { uint add; uint umin; uint umax; uint and_; uint or_; uint xor_;
  int iadd; int imin; int imax; uint pad[55]; } s;
layout(set = 0, binding = 1) buffer Slots { uint slot[]; } slots;
layout(set = 0, binding = 2) buffer Results { uint r[]; } results;
void main() {
  uint i = gl_GlobalInvocationID.x;
  if (i == 0u) { s.umin = 0xffffffffu; s.and_ = 0xffffffffu; s.imin = 0x7fffffff; s.imax = -0x7fffffff; }
  memoryBarrierBuffer();
  barrier();
  atomicAdd(s.add, i);
  atomicMin(s.umin, i + 5u);
  atomicMax(s.umax, i * 3u);
  atomicAnd(s.and_, ~(1u << (i % 32u)) | 0x80000000u);
  atomicOr(s.or_, 1u << (i % 31u));
  atomicXor(s.xor_, i * 0x01010101u);
  atomicAdd(s.iadd, int(i) - 40);
  atomicMin(s.imin, int(i) - 60);
  atomicMax(s.imax, int(i) * -2);
  uint old = atomicExchange(slots.slot[i], i * 11u);
  uint old2 = atomicCompSwap(slots.slot[i + 128u], i + 128u, 7u);
  results.r[i] = old + old2;
}
