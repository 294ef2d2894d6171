// Fallback pipelines and native twins at a draw or dispatch (pipelines/pipeline_shadows.h,
// pipelines/native_twin.h): the sets bound at the bind point bound again as full native
// sets, and the converted binds put back when a rewritten pipeline is bound again.
#include "bindings/record/fallback_binds.h"

#include <algorithm>
#include <cstdint>

#include "bindings/model/static_use.h"
#include "bindings/record/bind_hooks.h"
#include "bindings/record/push_descriptor_hooks.h"

namespace bindery::bindings {

void BindFullSets(const RecordContext& c, VkPipelineBindPoint bind_point, BindingsCommandData::BindPoint& point,
                  const FallbackPipeline& f) {
  RecordStore& b = c.b;
  const VkCommandBuffer cb = c.cb;
  for (uint32_t i = 0; i < f.sets.size() && i < BindingsCommandData::kMaxSets; ++i) {
    const BindingsCommandData::BoundSet& bound = point.sets[i];
    if (f.sets[i] != nullptr && f.sets[i]->push_descriptor && point.push_copy[i].valid) {
      // A pushed set: the last push, made again with the full layout.
      if (c.data != nullptr) RepushNatively(b, cb, bind_point, *c.data, point, i, f);
      continue;
    }
    if (bound.set == VK_NULL_HANDLE || f.sets[i] == nullptr) continue;
    // Only a set bound through a layout with an identically defined set layout at i (as
    // the spec compares them, not by handle) can be rebound.
    const PipelineLayoutShadow* bound_layout = b.pipeline_layouts.Find(bound.layout);
    if (bound_layout == nullptr || i >= bound_layout->root.sets.size() ||
        bound_layout->root.sets[i].layout == nullptr ||
        !SameDefinition(*bound_layout->root.sets[i].layout, *f.sets[i])) {
      continue;
    }
    VkDescriptorSet full = bound.set;  // a set of a layout that converts nothing is already full
    uint32_t null_dynamic = 0;
    if (SetShadow* shadow = FindSet(b, bound.set)) {
      full = b.Materialise(bound.set, *shadow, f.uses.get(), i, &null_dynamic);
    }
    if (full == VK_NULL_HANDLE) continue;
    const uint32_t* dynamic = bound.dynamic;
    uint32_t zeroed[kMaxDynamicPerSet];
    if (null_dynamic != 0) {
      // Dynamic descriptors the layer made null: offset 0, the only one their VK_WHOLE_SIZE
      // range allows (the application's own null descriptors have it already).
      for (uint32_t k = 0; k < bound.dynamic_count; ++k) {
        zeroed[k] = k < 32 && (null_dynamic & (1u << k)) != 0 ? 0 : bound.dynamic[k];
      }
      dynamic = zeroed;
    }
    b.next.CmdBindDescriptorSets(cb, bind_point, f.full, i, 1, &full, bound.dynamic_count, dynamic);
  }
  point.fallback_applied = true;
  point.converted_disturbed = true;
  // The full binds and pushes went through the full layout: a reserved set of a ring root
  // bound here is disturbed, and a rewritten pipeline bound later gets it back
  // (RestoreRingRoot), whether or not sets are bound again for it.
  point.ring_disturbed = true;
}

// Was what set `i` holds (bound or pushed at `order` through `layout`) disturbed by a later
// bind or push through a layout not compatible with its own (the spec's rules, seen from
// what is still recorded: a later one at set j disturbs i unless its layout is compatible
// with i's for the lower of the two)? Putting it back would disturb what came after it.
bool DisturbedSince(RecordStore& b, const BindingsCommandData::BindPoint& point, uint32_t i, uint32_t order,
                    VkPipelineLayout layout) {
  const PipelineLayoutShadow* mine = nullptr;
  auto disturbs = [&](uint32_t j, uint32_t later_order, VkPipelineLayout later_layout) {
    if (j == i || later_order <= order || later_layout == layout) return false;
    if (mine == nullptr) mine = b.pipeline_layouts.Find(layout);
    const PipelineLayoutShadow* theirs = b.pipeline_layouts.Find(later_layout);
    if (mine == nullptr || theirs == nullptr) return false;  // destroyed since: nothing to compare
    return !CompatibleFor(*mine, *theirs, std::min(i, j));
  };
  for (uint32_t j = 0; j < BindingsCommandData::kMaxSets; ++j) {
    const BindingsCommandData::BoundSet& later = point.sets[j];
    if (later.set != VK_NULL_HANDLE && disturbs(j, later.order, later.layout)) return true;
    // Every push counts, kept or not (a push whose contents were not kept still disturbed).
    const PushCopy& pushed = point.push_copy[j];
    if (pushed.order != 0 && pushed.app_layout != VK_NULL_HANDLE && disturbs(j, pushed.order, pushed.app_layout)) {
      return true;
    }
  }
  return false;
}

bool PushStillHolds(RecordStore& b, const BindingsCommandData::BindPoint& point, uint32_t set,
                    const PushCopy& prior, VkPipelineLayout through) {
  if (prior.app_layout != through) {
    const PipelineLayoutShadow* mine = b.pipeline_layouts.Find(prior.app_layout);
    const PipelineLayoutShadow* theirs = b.pipeline_layouts.Find(through);
    if (mine == nullptr || theirs == nullptr || !CompatibleFor(*mine, *theirs, set)) return false;
  }
  return !DisturbedSince(b, point, set, prior.order, prior.app_layout);
}

void RestoreConvertedBinds(const RecordContext& c, VkPipelineBindPoint bind_point,
                           BindingsCommandData::BindPoint& point) {
  if (!point.converted_disturbed || point.untrackable) return;
  RecordStore& b = c.b;
  const VkCommandBuffer cb = c.cb;
  // Full binds replaced the converted ones: put them back, set by set (in set order: sets
  // still valid together are bound through layouts compatible for the lower set), leaving
  // out sets that later binds disturbed.
  uint64_t disturbed_pushes = 0;
  for (uint32_t i = 0; i < BindingsCommandData::kMaxSets; ++i) {
    const PushCopy& pushed = point.push_copy[i];
    if (pushed.valid && DisturbedSince(b, point, i, pushed.order, pushed.app_layout)) disturbed_pushes |= uint64_t{1} << i;
    const BindingsCommandData::BoundSet& bound = point.sets[i];
    if (bound.set == VK_NULL_HANDLE || DisturbedSince(b, point, i, bound.order, bound.layout)) continue;
    BindSets(c, bind_point, bound.layout, b.pipeline_layouts.Find(bound.layout), i, 1, &bound.set,
             bound.dynamic_count, bound.dynamic);
  }
  // Pushed sets: their native descriptors went down through the full layout since.
  if (c.data != nullptr) RepushNativeParts(b, cb, bind_point, *c.data, point, disturbed_pushes);
  point.converted_disturbed = false;
}

}  // namespace bindery::bindings
