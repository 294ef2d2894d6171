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
#include <vector>

#include "spirv/module.h"

namespace bindery::spirv {

// Execution models (bits 1 << spv::ExecutionModel) whose entry points may get the
// broadcast: the stages where the device supports subgroup ballot.
// Returns the number of indices broadcast; 0 leaves the module unchanged (a module below
// SPIR-V 1.3, one that uses NonUniform anywhere, or an entry point of another model).
uint32_t BroadcastUniformDescriptorIndices(Module& module, uint32_t execution_model_mask);

// Whether BroadcastUniformDescriptorIndices can change `module` for that mask (SPIR-V 1.3 or
// later, no NonUniform, every entry point of those models).
bool BroadcastPossible(const Module& module, uint32_t execution_model_mask);
// Whether an entry point of `module` is of one of those models.
bool AnyEntryPointIn(const Module& module, uint32_t execution_model_mask);

// A binding the rewrite converts.
struct ConvertedBinding {
  uint32_t set = 0;
  uint32_t binding = 0;
};

// The stages where no broadcast is possible (lavapipe has subgroup ballot in fragment and
// compute only, and a module below SPIR-V 1.3 cannot use it): there the same driver takes a
// vertex, tessellation or geometry shader's image index from lane 0 too, and a lane that is
// no invocation at that point (an invocation outside a branch the others took) loaded 0
// from a converted uniform buffer (llvmpipe's loads through an address run only in active
// lanes; its uniform-buffer loads run in every lane). piglit's arb_shader_image_load_store
// `indexing` on zink read image 0 in those stages for that reason. A module whose dynamic
// index into an array of images or samplers derives from a load of a uniform buffer the
// rewrite converts (a Uniform-class Block variable of `set`/`binding` in `converted`,
// through local variables, phis and arithmetic) cannot keep its meaning there: this
// finds it, so that the rewrite refuses it and the pipeline runs natively.
bool DescriptorIndexFromConvertedUniformBuffer(const Module& module, const std::vector<ConvertedBinding>& converted);

}  // namespace bindery::spirv
