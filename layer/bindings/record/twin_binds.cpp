// Native twins at a draw or dispatch (pipelines/native_twin.h has why they exist): the
// bound pipeline switched to its twin, with the bound sets as full native sets, while a
// set naming a buffer without an address is bound, and back once none is.
#include "bindings/record/twin_binds.h"

#include <memory>
#include <vector>

#include "bindings/pipelines/native_twin.h"
#include "bindings/record/fallback_binds.h"
#include "core/log.h"

namespace bindery::bindings {
namespace {

// A command that no pipeline can run: it is not recorded, and the command buffer's
// vkEndCommandBuffer fails (the one call of a recording that can return an error), so
// the application learns that its work cannot run instead of losing it unseen.
void RefuseCommand(RecordStore& b, BindingsCommandData& data, const char* why) {
  BINDERY_LOG(b.device.log(), kError, "bindings-twin",
              "a rewritten pipeline has a set naming a buffer without a device address bound, and no native twin: %s; "
              "the draw or dispatch is not recorded and vkEndCommandBuffer returns VK_ERROR_OUT_OF_DEVICE_MEMORY",
              why);
  data.Fail(VK_ERROR_OUT_OF_DEVICE_MEMORY);
}

// Every push-descriptor set of the twin's layout that its shaders read through records was
// kept as the application made it (PushCopy), so the twin gets it again natively.
bool PushesKept(const BindingsCommandData::BindPoint& point, const NativeTwin& twin) {
  const std::vector<std::shared_ptr<const SetLayoutShadow>>& sets = twin.base->sets;
  for (uint32_t i = 0; i < sets.size(); ++i) {
    if (sets[i] == nullptr || !sets[i]->push_descriptor || !sets[i]->converts()) continue;
    if (i >= BindingsCommandData::kMaxSets || !point.push_copy[i].valid) return false;
  }
  return true;
}

// Does a set bound or pushed for the twin's layout name a buffer without an address?
bool BoundSetsNeedTwin(RecordStore& b, const BindingsCommandData::BindPoint& point, const NativeTwin& twin) {
  const std::vector<std::shared_ptr<const SetLayoutShadow>>& sets = twin.base->sets;
  for (uint32_t i = 0; i < sets.size() && i < BindingsCommandData::kMaxSets; ++i) {
    if (sets[i] == nullptr) continue;
    if (sets[i]->push_descriptor && (point.pushed_unaddressable & BindPointState::SetMask(i, 1)) != 0) return true;
    const VkDescriptorSet set = point.sets[i].set;
    if (set == VK_NULL_HANDLE) continue;
    const SetShadow* shadow = FindSet(b, set);
    if (shadow != nullptr && shadow->unaddressable != 0) return true;
  }
  return false;
}

}  // namespace

bool ApplyTwin(RecordStore& b, VkCommandBuffer cb, VkPipelineBindPoint bind_point, BindingsCommandData& data,
               BindPointState& point) {
  if (!NeedsTwins(b)) return true;
  if (point.twin == nullptr || point.untrackable) return true;
  NativeTwin& twin = const_cast<NativeTwin&>(*point.twin);
  if (!BoundSetsNeedTwin(b, point, twin)) {
    if (point.twin_bound) {
      // Back to the rewritten pipeline and the converted binds.
      b.next.CmdBindPipeline(cb, bind_point, point.pipeline);
      RestoreConvertedBinds(RecordContext{b, cb, &data}, bind_point, point);
      point.twin_bound = false;
    }
    return true;
  }
  if (point.twin_bound && point.fallback_applied) return true;
  // Pushed storage buffers it reads went to the command buffer's ring
  // (push_descriptor_hooks.cpp); the twin gets the pushes again natively with its full
  // layout (BindFullSets), as they were kept. One not kept (a write that needs its pNext)
  // cannot reach it.
  if (twin.reads_pushed_records && !PushesKept(point, twin)) {
    RefuseCommand(b, data, "its shaders read a pushed set whose pushes could not be kept");
    return false;
  }
  const VkPipeline pipeline = TwinPipeline(b, twin);
  if (pipeline == VK_NULL_HANDLE) {
    RefuseCommand(b, data,
                  twin.lazy_compute || twin.bind_point == VK_PIPELINE_BIND_POINT_COMPUTE
                      ? "it could not be created (its layout goes beyond the driver's limits, or the pipeline's "
                        "create info could not be kept)"
                      : "it was rewritten before the first such buffer existed (or its layout goes beyond the "
                        "driver's limits)");
    return false;
  }
  if (!point.twin_bound) b.next.CmdBindPipeline(cb, bind_point, pipeline);
  BindFullSets(RecordContext{b, cb, &data}, bind_point, point, twin.native);
  point.twin_bound = true;
  return true;
}

}  // namespace bindery::bindings
