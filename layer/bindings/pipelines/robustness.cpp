#include "bindings/pipelines/robustness.h"

#include "bindings/pipelines/pipeline_store.h"
#include "core/pnext.h"

namespace bindery::bindings {
namespace {

enum class Asked { kDeviceDefault, kDisabled, kRobust };

Asked Of(VkPipelineRobustnessBufferBehaviorEXT behavior) {
  switch (behavior) {
    case VK_PIPELINE_ROBUSTNESS_BUFFER_BEHAVIOR_DISABLED_EXT:
      return Asked::kDisabled;
    case VK_PIPELINE_ROBUSTNESS_BUFFER_BEHAVIOR_ROBUST_BUFFER_ACCESS_EXT:
    case VK_PIPELINE_ROBUSTNESS_BUFFER_BEHAVIOR_ROBUST_BUFFER_ACCESS_2_EXT:
      return Asked::kRobust;
    default:
      return Asked::kDeviceDefault;
  }
}

// What `chain` asks for the buffers the rewrite converts. Storage and (when converted)
// uniform records go through the same checks: robust if either asks it, disabled only if
// both do.
Asked AskedBy(const BindingsPlan& plan, const void* chain) {
  const auto* info =
      FindInChain<VkPipelineRobustnessCreateInfoEXT>(chain, VK_STRUCTURE_TYPE_PIPELINE_ROBUSTNESS_CREATE_INFO_EXT);
  if (info == nullptr) return Asked::kDeviceDefault;
  const Asked storage = Of(info->storageBuffers);
  if (!plan.convert_uniform_buffers) return storage;
  const Asked uniform = Of(info->uniformBuffers);
  if (storage == Asked::kRobust || uniform == Asked::kRobust) return Asked::kRobust;
  if (storage == Asked::kDisabled && uniform == Asked::kDisabled) return Asked::kDisabled;
  return Asked::kDeviceDefault;
}

}  // namespace

bool StageBoundsChecks(const BindingsPlan& plan, const void* pipeline_chain, const void* stage_chain) {
  if (plan.null_descriptor) return true;
  Asked asked = AskedBy(plan, stage_chain);
  if (asked == Asked::kDeviceDefault) asked = AskedBy(plan, pipeline_chain);
  if (asked == Asked::kDeviceDefault) return plan.bounds_checks;
  return asked == Asked::kRobust;
}

}  // namespace bindery::bindings
