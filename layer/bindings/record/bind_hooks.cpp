// vkCmdBindDescriptorSets: converted sets are bound by writing their blocks' addresses
// (and their converted dynamic offsets) into the root with one vkCmdPushConstants; only
// sets with native bindings are bound natively, with the native dynamic offsets. Hot
// path: nothing allocated, no lock when the pipeline layout is in this thread's lookup
// cache and the sets are layer-owned (a converted set with native bindings costs one
// shard lock to find its shadow).
#include "bindings/record/bind_hooks.h"

#include <algorithm>
#include <cstring>

#include "bindings/record/nothing_to_prepare.h"
#include "bindings/record/record_store.h"
#include "bindings/record/root_delivery.h"
#include "bindings/record/record_hooks.h"
#include "bindings/model/lookup_cache.h"
#include "bindings/descriptors/twin_layout.h"

namespace bindery::bindings {
namespace {

// A bound set's root slot: its block's address, or its records themselves (copied from
// the CPU copy; a set of a layout fixed while bound cannot change before the GPU reads
// them). An unknown set gets zeros: null records, as a null block address reads.
// A slot with a prefix of the records (SetRoot::partial) has the block's address after them.
inline void WriteSetSlot(const SetRoot& r, const SetShadow* set, uint8_t* out) {
  const VkDeviceAddress address = set != nullptr ? set->address : 0;
  if (!r.records_in_root) {
    std::memcpy(out, &address, 8);
    return;
  }
  const uint32_t record_bytes = kRecordBytes * r.root_records;
  if (set != nullptr && set->host_records != nullptr && set->record_count >= r.root_records) {
    CopyPushBytes(out, set->host_records, record_bytes);
  } else {
    std::memset(out, 0, record_bytes);
  }
  if (record_bytes != r.slot_bytes) std::memcpy(out + record_bytes, &address, 8);
}

constexpr uint32_t kMaxRootBytes = 4096;  // maxPushConstantsSize of every known device is below
constexpr uint32_t kMaxSets = 64;
constexpr uint32_t kMaxDynamic = 256;

// A converting layout whose root cannot be pushed (too big, or more sets or offsets than
// the bind path holds): its pipelines fall back, and sets are materialised for them at
// the draw or dispatch (fallback_binds.cpp). Only what is native goes down here: sets without
// native bindings are skipped (layer-owned ones the layer below has never seen), and the
// offsets of converted dynamic bindings are dropped.
void BindWithoutRoot(RecordStore& b, VkCommandBuffer cb, VkPipelineBindPoint bindPoint, VkPipelineLayout layout,
                     const PipelineLayoutShadow& pl, uint32_t firstSet, uint32_t setCount, const VkDescriptorSet* pSets,
                     uint32_t dynamicOffsetCount, const uint32_t* pDynamicOffsets) {
  auto layout_of = [&](uint32_t i) -> const SetLayoutShadow* {
    return firstSet + i < pl.root.sets.size() ? pl.root.sets[firstSet + i].layout.get() : nullptr;
  };
  auto skipped = [&](uint32_t i) {
    const SetLayoutShadow* l = layout_of(i);
    return OwnedSet(pSets[i]) != nullptr || (l != nullptr && !l->has_native);
  };
  uint32_t dynamic_index = 0;
  for (uint32_t i = 0; i < setCount;) {
    if (skipped(i)) {
      const SetLayoutShadow* l = layout_of(i);
      dynamic_index += l != nullptr ? l->total_dynamic : 0;
      ++i;
      continue;
    }
    // A run of sets with native bindings, with their native dynamic offsets.
    uint32_t native_dynamic[kMaxDynamic];
    uint32_t native_count = 0;
    bool unknown = false;  // a set without a known layout: the rest of the offsets go as they are
    uint32_t j = i;
    for (; j < setCount && !skipped(j); ++j) {
      const SetLayoutShadow* l = layout_of(j);
      if (l == nullptr) {
        unknown = true;
        continue;
      }
      for (const DynamicRun& run : l->dynamic_runs) {
        for (uint32_t k = 0; k < run.count && dynamic_index < dynamicOffsetCount; ++k, ++dynamic_index) {
          if (!run.converted && native_count < kMaxDynamic) native_dynamic[native_count++] = pDynamicOffsets[dynamic_index];
        }
      }
    }
    while (unknown && dynamic_index < dynamicOffsetCount && native_count < kMaxDynamic) {
      native_dynamic[native_count++] = pDynamicOffsets[dynamic_index++];
    }
    b.next.CmdBindDescriptorSets(cb, bindPoint, layout, firstSet + i, j - i, pSets + i, native_count,
                                 native_count != 0 ? native_dynamic : nullptr);
    i = j;
  }
}

}  // namespace

namespace {

// Every set bound is of a known layout with native bindings only (nothing converted, so
// no root slot and no converted dynamic offset), through a layout whose root BindSets
// would push: consecutive application sets with native bindings are consecutive natively.
// `dynamic`: whether any of them has a dynamic binding (set when it returns true).
bool AllNative(const PipelineLayoutShadow* pl, uint32_t firstSet, uint32_t setCount, uint32_t dynamicOffsetCount,
               bool* dynamic) {
  if (pl == nullptr || !pl->root.converts || !pl->root.fits || setCount > kMaxSets ||
      dynamicOffsetCount > kMaxDynamic || firstSet + setCount > pl->root.sets.size()) {
    return false;
  }
  uint32_t total_dynamic = 0;
  for (uint32_t i = firstSet; i < firstSet + setCount; ++i) {
    const SetLayoutShadow* l = pl->root.sets[i].layout.get();
    if (l == nullptr || l->converts() || !l->has_native) return false;
    total_dynamic |= l->total_dynamic;
  }
  *dynamic = total_dynamic != 0;
  return true;
}

// A bind of root-only sets (SetRoot::root_only: no native binding, no dynamic one) through
// a layout whose root is pushed, their slots consecutive: their addresses become the
// root's bytes, which go down in one vkCmdPushConstants, and the bind point records the
// sets and the root. This is what BindSets and DeliverRoot do for such a bind, without
// their generic steps (dynamic offsets, native runs, a second command-state lookup).
// False, having done nothing, for any other bind. The bind point is kept settled where a
// root that marked nothing stale leaves its draws nothing to do (StaysSettledAfterRoot).
// Whether BindRootOnlySets takes a bind of `setCount` sets from `firstSet` through `pl`:
// what it checks depends on the layout only.
bool RootOnlyBindable(const PipelineLayoutShadow& pl, uint32_t firstSet, uint32_t setCount) {
  const RootLayout& root = pl.root;
  if (!root.fits || root.in_buffer || setCount == 0 || firstSet + setCount > kTrackedSets ||
      firstSet + setCount > root.sets.size()) {
    return false;
  }
  const SetRoot* r = root.sets.data() + firstSet;
  uint32_t hi = r[0].root_offset;
  for (uint32_t i = 0; i < setCount; ++i) {
    if (!r[i].root_only || r[i].root_offset != hi) return false;
    hi += r[i].slot_bytes;
  }
  return true;
}

// BindRootOnlySets' work for a bind RootOnlyBindable took.
void BindCheckedRootOnlySets(RecordStore& b, VkCommandBuffer cb, BindingsCommandData& data, int index,
                             VkPipelineLayout layout, const PipelineLayoutShadow& pl, uint32_t firstSet,
                             uint32_t setCount, const VkDescriptorSet* pSets) {
  const RootLayout& root = pl.root;
  const SetRoot* r = root.sets.data() + firstSet;
  const uint32_t lo = r[0].root_offset;
  alignas(8) uint8_t bytes[(kRecordBytes * std::max(kMaxRecordsInRoot, kMaxRootPrefixRecords) + 8) * kTrackedSets];
  uint32_t hi = lo;
  for (uint32_t i = 0; i < setCount; ++i) {
    const SetShadow* set = FindSet(b, pSets[i]);
    WriteSetSlot(r[i], set, bytes + (hi - lo));
    hi += r[i].slot_bytes;
  }
  BindPointState& point = data.points[index];
  point.slots_in_push |= point.RecordPlainSets(layout, firstSet, setCount, pSets);  // their slots: pushed below
  point.NoteReshapedWrite(root.reshaped_sets);
  // The bind point's own copy of the root (RootPushSpace), naming the stages that cover it.
  const uint32_t shift = pl.RootShift(index);
  const VkShaderStageFlags stages = pl.RootStages(index);
  b.next.CmdPushConstants(cb, layout, stages, lo + shift, hi - lo, bytes);
  if (NoteRootDelivered(data.points, index, layout, pl.ranges_key, stages, lo + shift, hi + shift, bytes)) {
    b.MarkStalePush();
    data.Unsettle();
  } else if (data.settled[index] != 0 && !StaysSettledAfterRoot(point)) {
    data.settled[index] = 0;
  }
}

bool BindRootOnlySets(RecordStore& b, VkCommandBuffer cb, BindingsCommandData& data, int index,
                      VkPipelineLayout layout, const PipelineLayoutShadow& pl, uint32_t firstSet, uint32_t setCount,
                      const VkDescriptorSet* pSets) {
  if (!RootOnlyBindable(pl, firstSet, setCount)) return false;
  BindCheckedRootOnlySets(b, cb, data, index, layout, pl, firstSet, setCount, pSets);
  return true;
}


// Does the pre-draw step at `point` still find nothing to do after sets `mask` were bound
// there plainly (RecordPlainSets: native sets, no root byte pushed) and noted for the ring
// (NoteSetsBound)? Such a bind changes only what a pipeline running natively would be
// given (it has none), which root slots were delivered where (its pipeline reads none of
// those sets' slots) and whether a ring root's reserved set was disturbed (it was not);
// the other bind point is untouched. A twin never settles (NothingToPrepare).
bool StaysSettled(const BindPointState& point, uint32_t mask) {
  return point.fallback == nullptr &&
         (point.pipeline_root == nullptr || (point.pipeline_root->slot_sets & mask) == 0) &&
         (point.ring_pipeline == nullptr || !point.ring_disturbed);
}

// Sets of layouts that keep every binding native, through a layout with a root (AllNative):
// the bind goes down as it is, renumbered (BindSets would find no root byte and one run),
// and the bind point records the sets. Sets without dynamic bindings, bound without
// dynamic offsets, within the tracked sets: every check of RecordSets passes, and its
// plain form records the same; the ring is told (NoteSetsBound). A bind point left settled
// stays so where the plain bind cannot give its next draw or dispatch anything to do
// (StaysSettled).
// The plain form for sets of a layout whose shadow was checked already: recorded, the
// ring told, the bind point kept settled where it may be, and down renumbered to
// `native_set`. `index` >= 0.
void BindPlainNativeSets(RecordStore& b, VkCommandBuffer cb, BindingsCommandData& data, int index,
                         VkPipelineBindPoint bindPoint, VkPipelineLayout layout, uint32_t firstSet, uint32_t setCount,
                         const VkDescriptorSet* pSets, uint32_t native_set) {
  BindPointState& point = data.points[index];
  const uint32_t mask = point.RecordPlainSets(layout, firstSet, setCount, pSets);
  NoteSetsBound(RecordContext{b, cb, &data}, bindPoint, layout);
  if (data.settled[index] != 0 && !StaysSettled(point, mask)) data.settled[index] = 0;
  b.next.CmdBindDescriptorSets(cb, bindPoint, layout, native_set, setCount, pSets, 0, nullptr);
}

void BindNativeOnlySets(RecordStore& b, VkCommandBuffer cb, BindingsCommandData* data, VkPipelineBindPoint bindPoint,
                        VkPipelineLayout layout, const PipelineLayoutShadow& pl, uint32_t firstSet, uint32_t setCount,
                        const VkDescriptorSet* pSets, uint32_t dynamicOffsetCount, const uint32_t* pDynamicOffsets,
                        bool dynamic, uint64_t generation) {
  const int index = BindPointIndex(bindPoint);
  if (data != nullptr && index >= 0) {
    BindPointState& point = data->points[index];
    if (!dynamic && dynamicOffsetCount == 0 && firstSet + setCount <= kTrackedSets) {
      if (setCount == 1) {  // remembered for the next bind of one set through the layout
        data->plain_layout = layout;
        data->plain_first_set = firstSet;
        data->plain_native_set = pl.NativeSet(firstSet);
        data->plain_generation = generation;
        data->plain_root = nullptr;
      }
      return BindPlainNativeSets(b, cb, *data, index, bindPoint, layout, firstSet, setCount, pSets,
                                 pl.NativeSet(firstSet));
    } else {
      data->Unsettle();
      point.RecordSets(layout, &pl, firstSet, setCount, pSets, dynamicOffsetCount, pDynamicOffsets);
      NoteSetsBound(RecordContext{b, cb, data}, bindPoint, layout);
    }
  } else {
    NoteSetsBound(RecordContext{b, cb, data}, bindPoint, layout);
  }
  b.next.CmdBindDescriptorSets(cb, bindPoint, layout, pl.NativeSet(firstSet), setCount, pSets, dynamicOffsetCount,
                               pDynamicOffsets);
}

}  // namespace

// A bind on a device where layouts convert, or one the device table did not answer
// (`cached` nullptr: the registry's answer then, else straight down). Kept out of the
// hook so that the pass-through stays a few instructions and a tail call; the device the
// hook found is handed down (last: the pass-through shifts no argument register for it),
// so a bind finds it once.
void BindDescriptorSetsSlow(VkCommandBuffer cb, VkPipelineBindPoint bindPoint, VkPipelineLayout layout,
                            uint32_t firstSet, uint32_t setCount, const VkDescriptorSet* pSets,
                            uint32_t dynamicOffsetCount, const uint32_t* pDynamicOffsets, RecordStore* cached) {
  RecordStore* found = cached != nullptr ? cached : FindBindings<RecordStore>(cb);
  if (found == nullptr) {
    NextOf(cb).CmdBindDescriptorSets(cb, bindPoint, layout, firstSet, setCount, pSets, dynamicOffsetCount,
                                     pDynamicOffsets);
    return;
  }
  RecordStore& b = *found;
  if ((b.Work() & RecordStore::kWorkConverting) == 0) {
    return b.next.CmdBindDescriptorSets(cb, bindPoint, layout, firstSet, setCount, pSets, dynamicOffsetCount,
                                        pDynamicOffsets);
  }
  BindingsCommandData* data = CommandDataOf(b, cb);  // the command buffer's state, once
  // One native set bound as the last plain bind was, through the same layout: its path again.
  if (data != nullptr && data->plain_layout == layout && layout != VK_NULL_HANDLE && setCount == 1 &&
      dynamicOffsetCount == 0 && data->plain_first_set == firstSet &&
      data->plain_generation == g_lookup_generation.load(std::memory_order_acquire)) {
    const int index = BindPointIndex(bindPoint);
    if (index >= 0) {
      if (const PipelineLayoutShadow* root_layout = data->plain_root) {
        BindCheckedRootOnlySets(b, cb, *data, index, layout, *root_layout, firstSet, 1, pSets);
        return NoteSetsBound(RecordContext{b, cb, data}, bindPoint, layout);
      }
      return BindPlainNativeSets(b, cb, *data, index, bindPoint, layout, firstSet, 1, pSets, data->plain_native_set);
    }
  }
  // (Loaded before the layout's lookup: a plain bind remembered under it was found under it or later.)
  const uint64_t generation = g_lookup_generation.load(std::memory_order_acquire);
  const PipelineLayoutShadow* pl = LayoutShadowOf(b, data, layout);
  const RecordContext c{b, cb, data};
  // The two short paths, told apart by the first set: root-only sets (never of a native
  // layout), or sets of native layouts only.
  const bool root_only = pl != nullptr && firstSet < pl->root.sets.size() && pl->root.sets[firstSet].root_only;
  bool dynamic = true;
  if (!root_only && AllNative(pl, firstSet, setCount, dynamicOffsetCount, &dynamic)) {
    return BindNativeOnlySets(b, cb, data, bindPoint, layout, *pl, firstSet, setCount, pSets, dynamicOffsetCount,
                              pDynamicOffsets, dynamic, generation);
  }
  if (root_only) {
    const int index = BindPointIndex(bindPoint);
    if (data != nullptr && index >= 0 && dynamicOffsetCount == 0 &&
        BindRootOnlySets(b, cb, *data, index, layout, *pl, firstSet, setCount, pSets)) {
      if (setCount == 1) {  // remembered for the next bind of one set through the layout
        data->plain_layout = layout;
        data->plain_first_set = firstSet;
        data->plain_generation = generation;
        data->plain_root = pl;
      }
      return NoteSetsBound(c, bindPoint, layout);
    }
  }
  // Anything else may push root bytes over either bind point's: the next draw or dispatch
  // of each looks at what this bind changed.
  if (data != nullptr) data->Unsettle();
  if (BindPointState* point = data != nullptr ? data->At(bindPoint) : nullptr) {
    point->RecordSets(layout, pl, firstSet, setCount, pSets, dynamicOffsetCount, pDynamicOffsets);
  }
  BindSets(c, bindPoint, layout, pl, firstSet, setCount, pSets, dynamicOffsetCount, pDynamicOffsets);
  NoteSetsBound(c, bindPoint, layout);
}

VKAPI_ATTR void VKAPI_CALL CmdBindDescriptorSets(VkCommandBuffer cb, VkPipelineBindPoint bindPoint,
                                                 VkPipelineLayout layout, uint32_t firstSet, uint32_t setCount,
                                                 const VkDescriptorSet* pSets, uint32_t dynamicOffsetCount,
                                                 const uint32_t* pDynamicOffsets) {
  // No converting layout exists yet, so neither do fallback pipelines that would need
  // this bind remembered: straight down, a tail call.
  RecordStore* cached = FindBindingsIndexed<RecordStore>(cb);
  if (cached != nullptr && (cached->Work() & RecordStore::kWorkConverting) == 0) {
    return cached->next.CmdBindDescriptorSets(cb, bindPoint, layout, firstSet, setCount, pSets, dynamicOffsetCount,
                                              pDynamicOffsets);
  }
  return BindDescriptorSetsSlow(cb, bindPoint, layout, firstSet, setCount, pSets, dynamicOffsetCount, pDynamicOffsets,
                                cached);
}

uint32_t WriteBoundSetSlot(RecordStore& b, const SetRoot& r, VkDescriptorSet set, const uint32_t* dynamic,
                           uint32_t dynamic_count, uint8_t* out) {
  if (r.layout == nullptr || r.root_offset == kNoOffset) return 0;
  WriteSetSlot(r, FindSet(b, set), out);
  if (r.dynamic_offset == kNoOffset) return r.slot_bytes;
  // The converted ones among the set's dynamic offsets, in order, after the slot.
  uint32_t index = 0, converted = 0;
  for (const DynamicRun& run : r.layout->dynamic_runs) {
    for (uint32_t k = 0; k < run.count; ++k, ++index) {
      if (!run.converted) continue;
      const uint32_t value = index < dynamic_count ? dynamic[index] : 0;
      std::memcpy(out + (r.dynamic_offset - r.root_offset) + 4 * converted++, &value, 4);
    }
  }
  return r.dynamic_offset - r.root_offset + 4 * converted;
}

namespace {

// What BindSets works out of a bind before anything goes down: the root bytes of the
// sets bound (their slots and converted dynamic offsets, at their root offsets), and the
// native dynamic offsets in order. On the stack: nothing allocated.
struct SplitBind {
  alignas(8) uint8_t bytes[kMaxRootBytes];
  uint32_t root_lo = UINT32_MAX, root_hi = 0;
  uint32_t slot_sets = 0;  // the sets whose slots the root bytes hold (bit i: set i)
  uint32_t native_dynamic[kMaxDynamic];
  uint32_t native_dynamic_count = 0;
  const SetLayoutShadow* layouts[kMaxSets];  // of the sets bound, in order (nullptr: unknown)
  void Widen(uint32_t lo, uint32_t hi) {
    root_lo = std::min(root_lo, lo);
    root_hi = std::max(root_hi, hi);
  }
};

// Set `i` of the bind (set number `first + i`, root slot `r`): its slot into the root
// bytes, its dynamic offsets (from `*dynamic_index` on) split between the root's converted
// ones and the native bind's.
void SplitSet(RecordStore& b, const SetRoot& r, uint32_t set_number, VkDescriptorSet set, uint32_t dynamicOffsetCount,
              const uint32_t* pDynamicOffsets, uint32_t* dynamic_index, SplitBind& out) {
  if (r.layout == nullptr) return;  // unknown layout (VK_NULL_HANDLE): its offsets go down with the rest
  uint32_t converted_index = 0;
  for (const DynamicRun& run : r.layout->dynamic_runs) {
    for (uint32_t k = 0; k < run.count && *dynamic_index < dynamicOffsetCount; ++k, ++*dynamic_index) {
      if (run.converted) {
        const uint32_t at = r.dynamic_offset + 4 * converted_index++;
        std::memcpy(out.bytes + at, &pDynamicOffsets[*dynamic_index], 4);
        out.Widen(at, at + 4);
      } else {
        out.native_dynamic[out.native_dynamic_count++] = pDynamicOffsets[*dynamic_index];
      }
    }
  }
  if (r.root_offset != kNoOffset) {
    out.slot_sets |= BindPointState::SetMask(set_number, 1);
    WriteSetSlot(r, r.layout->converts() ? FindSet(b, set) : nullptr, out.bytes + r.root_offset);
    out.Widen(r.root_offset, r.root_offset + r.slot_bytes);
  }
}

// The native binds of a split bind: runs of consecutive sets that have native bindings (or
// no shadow), each with its native dynamic offsets (the last run takes those left over, of
// sets without a known layout). Consecutive sets with native bindings are consecutive in
// the native layout too.
void BindNativeRuns(const RecordContext& c, VkPipelineBindPoint bindPoint, VkPipelineLayout layout,
                    const PipelineLayoutShadow& pl, uint32_t firstSet, uint32_t setCount, const VkDescriptorSet* pSets,
                    const SplitBind& split) {
  auto native = [&](uint32_t i) { return split.layouts[i] == nullptr || split.layouts[i]->has_native; };
  uint32_t dyn_cursor = 0;
  for (uint32_t i = 0; i < setCount;) {
    if (!native(i)) {
      ++i;
      continue;
    }
    uint32_t j = i;
    uint32_t dyn = 0;
    for (; j < setCount && native(j); ++j) dyn += split.layouts[j] != nullptr ? split.layouts[j]->native_dynamic : 0;
    if (j == setCount) dyn = split.native_dynamic_count - dyn_cursor;  // the rest (unshadowed layouts)
    c.b.next.CmdBindDescriptorSets(c.cb, bindPoint, layout, pl.NativeSet(firstSet + i), j - i, pSets + i, dyn,
                                   dyn != 0 ? split.native_dynamic + dyn_cursor : nullptr);
    dyn_cursor += dyn;
    i = j;
  }
}

}  // namespace

void BindSets(const RecordContext& c, VkPipelineBindPoint bindPoint, VkPipelineLayout layout,
              const PipelineLayoutShadow* pl, uint32_t firstSet, uint32_t setCount, const VkDescriptorSet* pSets,
              uint32_t dynamicOffsetCount, const uint32_t* pDynamicOffsets) {
  RecordStore& b = c.b;
  if (pl == nullptr || !pl->root.converts || !pl->root.fits || setCount > kMaxSets || dynamicOffsetCount > kMaxDynamic ||
      firstSet + setCount > pl->root.sets.size()) {
    if (pl != nullptr && pl->root.converts) {
      BindWithoutRoot(b, c.cb, bindPoint, layout, *pl, firstSet, setCount, pSets, dynamicOffsetCount, pDynamicOffsets);
      return;
    }
    b.next.CmdBindDescriptorSets(c.cb, bindPoint, layout, firstSet, setCount, pSets, dynamicOffsetCount,
                                 pDynamicOffsets);
    return;
  }
  const RootLayout& root = pl->root;
  SplitBind split;
  // Padding between slots is pushed too: zero it so every pushed byte is defined (a root
  // of addresses only has none, and every byte pushed is written below).
  if (root.dynamic) std::memset(split.bytes + root.begin, 0, root.end - root.begin);
  uint32_t dynamic_index = 0;
  for (uint32_t i = 0; i < setCount; ++i) {
    split.layouts[i] = root.sets[firstSet + i].layout.get();
    SplitSet(b, root.sets[firstSet + i], firstSet + i, pSets[i], dynamicOffsetCount, pDynamicOffsets, &dynamic_index,
             split);
  }
  // Offsets left over (a set without a known layout) go down with the last native run.
  while (dynamic_index < dynamicOffsetCount) {
    split.native_dynamic[split.native_dynamic_count++] = pDynamicOffsets[dynamic_index++];
  }
  if (split.root_hi > split.root_lo) {
    DeliverRoot(c, bindPoint, layout, *pl, split.root_lo, split.root_hi, split.bytes + split.root_lo, split.slot_sets);
  }
  BindNativeRuns(c, bindPoint, layout, *pl, firstSet, setCount, pSets, split);
}

// A push on a device where layouts convert or pushes widen (`b`: its state, which the
// hook found already): recorded for the bind points, widened where its layout needs it.
// Kept out of the hook so that the pass-through stays a few instructions and a tail call
// (no frame to set up).
void PushConstantsConverting(RecordStore& b, VkCommandBuffer cb, VkPipelineLayout layout,
                                               VkShaderStageFlags stageFlags, uint32_t offset, uint32_t size,
                                               const void* pValues) {
  const uint32_t work = b.Work();
  // The bind points whose stages it names keep the bytes: a root pushed at the other
  // bind point may overwrite them, and they are re-sent then (bind_point_state.h).
  BindingsCommandData* data = nullptr;
  if ((work & RecordStore::kWorkConverting) != 0) {
    if ((data = CommandDataOf(b, cb)) != nullptr) {
      const PipelineLayoutShadow* shadow = LayoutShadowOf(b, data, layout);
      if (NoteApplicationPush(data->points, layout, shadow != nullptr ? shadow->ranges_key : 0, shadow != nullptr, stageFlags,
                              offset, offset + size, static_cast<const uint8_t*>(pValues))) {
        b.MarkStalePush();
        // The next draw or dispatch of either bind point re-sends what went stale. (A push
        // that marked nothing stale left the bind points' images only fresher: a settled
        // one stays so, NothingToPrepare.)
        data->Unsettle();
      }
    }
  }
  // Most devices never see a layout whose pushes need widening: no lookup then.
  const PipelineLayoutShadow* pl =
      (work & RecordStore::kWorkWidenedPushes) != 0 ? LayoutShadowOf(b, data, layout) : nullptr;
  if (pl == nullptr || !pl->widen_app_pushes) {
    b.next.CmdPushConstants(cb, layout, stageFlags, offset, size, pValues);
    return;
  }
  // Split at every range start inside the push; each piece names the stages of every
  // extended range that covers it (each such range covers the whole piece).
  const uint32_t end = offset + size;
  uint32_t at = offset;
  while (at < end) {
    uint32_t piece_end = end;
    VkShaderStageFlags stages = stageFlags;
    for (const VkPushConstantRange& r : pl->app_ranges) {
      if (r.offset > at && r.offset < piece_end) piece_end = r.offset;
      if (r.offset <= at && at < r.offset + r.size) stages |= r.stageFlags;
    }
    b.next.CmdPushConstants(cb, layout, stages, at, piece_end - at, static_cast<const uint8_t*>(pValues) + (at - offset));
    at = piece_end;
  }
}

namespace {

// A push whose device the hook's table did not answer: the registry's answer, else
// straight down.
[[gnu::noinline]] void PushConstantsUnindexed(VkCommandBuffer cb, VkPipelineLayout layout,
                                              VkShaderStageFlags stageFlags, uint32_t offset, uint32_t size,
                                              const void* pValues) {
  RecordStore* found = FindBindings<RecordStore>(cb);
  if (found == nullptr) {
    NextOf(cb).CmdPushConstants(cb, layout, stageFlags, offset, size, pValues);
    return;
  }
  PushConstantsConverting(*found, cb, layout, stageFlags, offset, size, pValues);
}

}  // namespace

VKAPI_ATTR void VKAPI_CALL CmdPushConstants(VkCommandBuffer cb, VkPipelineLayout layout, VkShaderStageFlags stageFlags,
                                            uint32_t offset, uint32_t size, const void* pValues) {
  // Nothing converts and no layout widens pushes (auto where conversion does not pay,
  // until a layout goes beyond a limit): straight down, a tail call.
  constexpr uint32_t kPushWork = RecordStore::kWorkConverting | RecordStore::kWorkWidenedPushes;
  RecordStore* cached = FindBindingsIndexed<RecordStore>(cb);
  if (cached == nullptr) return PushConstantsUnindexed(cb, layout, stageFlags, offset, size, pValues);
  if ((cached->Work() & kPushWork) == 0) {
    return cached->next.CmdPushConstants(cb, layout, stageFlags, offset, size, pValues);
  }
  return PushConstantsConverting(*cached, cb, layout, stageFlags, offset, size, pValues);
}

}  // namespace bindery::bindings
