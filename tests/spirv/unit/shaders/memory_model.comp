#version 450
#pragma use_vulkan_memory_model
#extension GL_KHR_memory_scope_semantics : require
// Vulkan memory model: coherent buffers and device-scope atomics.
layout(local_size_x = 8) in;
layout(set = 0, binding = 0) coherent buffer Flags { uint flag; uint data[]; } flags;
void main() {
  uint i = gl_GlobalInvocationID.x;
  flags.data[i] = i;
  atomicStore(flags.flag, 1u, gl_ScopeDevice, gl_StorageSemanticsBuffer, gl_SemanticsRelease);
  uint v = atomicLoad(flags.flag, gl_ScopeDevice, gl_StorageSemanticsBuffer, gl_SemanticsAcquire);
  flags.data[i] += v;
}
