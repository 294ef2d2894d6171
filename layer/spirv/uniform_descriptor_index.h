// Dynamically uniform descriptor-array indices made explicit with
// OpGroupNonUniformBroadcastFirst, for drivers that take such an index from one fixed SIMD
// lane whether or not that lane is an invocation.
//
// Why: lavapipe (llvmpipe, Mesa 22.3) answers an image query (textureSize) on an
// array of images or samplers indexed by a dynamically uniform value with the index of
// the first lane of its SIMD vector, active or not. Natively such an index usually comes
// from a uniform buffer, whose loads give every lane the value; once the buffer is read
// through its address (the rewrite), lanes that are not invocations — pixels of a block
// outside the primitive — load nothing, so blocks on a primitive's edge query element 0
// (piglit's arb_gpu_shader5 fs-simple-texture-size on zink). Broadcasting the first
// *active* lane's index to all lanes gives every lane the value that every invocation
// already has: for an index that is dynamically uniform, as one without NonUniform must
// be, nothing changes for any invocation.
#pragma once

#include <cstdint>

#include "spirv/module.h"

namespace bindery::spirv {

// Execution models (bits 1 << spv::ExecutionModel) whose entry points may get the
// broadcast: the stages where the device supports subgroup ballot.
// Returns the number of indices broadcast; 0 leaves the module unchanged (a module below
// SPIR-V 1.3, one that uses NonUniform anywhere, or an entry point of another model).
uint32_t BroadcastUniformDescriptorIndices(Module& module, uint32_t execution_model_mask);

}  // namespace bindery::spirv
