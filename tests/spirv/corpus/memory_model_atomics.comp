// The Vulkan memory model: device-scope atomics with semantics, atomic load/store,
// coherent and volatile buffers become memory operands.
// @requires vmm
// @dispatch 2 1 1
// @buffer 0 0 256 zero
// @buffer 0 1 512 iota
// @buffer 0 2 1024 zero
#version 450
#pragma use_vulkan_memory_model
#extension GL_KHR_memory_scope_semantics : require
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) coherent buffer Counters { uint count; uint flags[63]; } counters;
layout(set = 0, binding = 1) volatile buffer In { uint v[]; } inb;
layout(set = 0, binding = 2) coherent buffer Out { uint v[]; } outb;
void main() {
  uint i = gl_GlobalInvocationID.x;
  atomicAdd(counters.count, 1u, gl_ScopeDevice, gl_StorageSemanticsBuffer, gl_SemanticsRelaxed);
  uint x = atomicLoad(inb.v[i], gl_ScopeDevice, gl_StorageSemanticsBuffer, gl_SemanticsAcquire);
  atomicStore(outb.v[i], x + 1u, gl_ScopeDevice, gl_StorageSemanticsBuffer, gl_SemanticsRelease);
  atomicOr(counters.flags[i % 63u], 1u << (i / 63u), gl_ScopeQueueFamily, gl_StorageSemanticsBuffer,
           gl_SemanticsAcquireRelease);
  inb.v[i] = x * 2u;
  outb.v[i + 128u] = inb.v[i] + counters.flags[0] * 0u;
}
