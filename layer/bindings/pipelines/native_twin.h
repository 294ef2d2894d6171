// Native twins of rewritten pipelines (docs/indirect-bindings.md, "When it falls back"). A buffer the layer cannot give a
// device address (sparse, protected or external memory, or memory it could not flag) has
// no record a rewritten shader can follow. When a set naming such a buffer is bound for
// a draw or dispatch of a rewritten pipeline, that draw or dispatch runs with the
// pipeline's native twin — the application's own shaders on the full native layout —
// with the bound sets materialised as full native sets (descriptors/full_sets.cpp and record/fallback_binds.cpp do that part).
//
// Twins cost a second pipeline, so they exist only on devices that have such a buffer:
// a pipeline rewritten after the first one was created or written gets its twin at once;
// a compute pipeline rewritten before keeps what it needs to make one on first use. A
// graphics pipeline rewritten before cannot (its create info is not kept), nor can a
// pipeline of a layout beyond the driver's limits: such a command is not recorded and the
// command buffer's vkEndCommandBuffer fails (logged), rather than letting the shader follow
// a null address or dropping the work unseen. External-memory buffers are addressable where
// the driver allows it (chassis/external_addressing.h), so they rarely need a twin.
#pragma once

#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include <vulkan/vulkan.h>

#include "bindings/descriptors/twin_layout.h"
#include "bindings/pipelines/pipeline_store.h"

namespace bindery::bindings {

struct NativeTwin {
  VkPipelineBindPoint bind_point = VK_PIPELINE_BIND_POINT_COMPUTE;
  // The full layout and the sets to materialise: filled when the twin's full layout is
  // made (at once, or on first need under `mutex`); until then `base->sets` names them.
  FallbackPipeline native;
  std::shared_ptr<TwinLayout> base;
  std::mutex mutex;         // lazy creation (a cold path)
  VkPipeline pipeline = VK_NULL_HANDLE;
  bool failed = false;      // could not be made (logged once)
  // Its shaders read a converted push-descriptor set, whose records only the ring holds:
  // the twin gets the pushes again natively from the copies kept of them (PushCopy), and a
  // command whose pushes were not all kept is refused (ApplyTwin).
  bool reads_pushed_records = false;
  // A compute pipeline rewritten before twins were needed: enough to make its twin.
  bool lazy_compute = false;
  std::shared_ptr<const std::vector<uint32_t>> words;
  std::string entry;
  VkPipelineShaderStageCreateFlags stage_flags = 0;
  VkPipelineCreateFlags flags = 0;
  bool has_specialization = false;
  std::vector<VkSpecializationMapEntry> map_entries;
  std::vector<uint8_t> specialization_data;
};

// After a pipeline creation call: twins (or what makes them) for its rewritten pipelines.
// `app` are the application's create infos, `rewritten[i]` whether pipeline i was
// rewritten, `layouts[i]` its layout's shadow.
void MakeTwins(PipelineStore& b, VkPipelineCache cache, const VkComputePipelineCreateInfo* app,
               const PipelineLayoutShadow* const* layouts, const uint8_t* rewritten, const VkPipeline* pipelines,
               uint32_t count);
void MakeTwins(PipelineStore& b, VkPipelineCache cache, const VkGraphicsPipelineCreateInfo* app,
               const PipelineLayoutShadow* const* layouts, const uint8_t* rewritten, const VkPipeline* pipelines,
               uint32_t count);

// The twin's pipeline: made now for a compute pipeline that kept its create info (a cold
// path, under the twin's mutex); VK_NULL_HANDLE where it could not be made.
VkPipeline TwinPipeline(PipelineStore& b, NativeTwin& twin);
void DestroyTwin(PipelineStore& b, VkPipeline pipeline);

}  // namespace bindery::bindings
