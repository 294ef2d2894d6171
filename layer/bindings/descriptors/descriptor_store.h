// The descriptors store: what the capability keeps of the application's set layouts,
// pipeline layouts, pools, sets and update templates (shadows.h), by handle, and the full
// native layouts and sets made of them for pipelines that run natively (full_sets.cpp,
// full_set_mirror.cpp). The hooks of descriptors/ own it; the stores above it read it
// (model/device_core.h has the order).
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include <vulkan/vulkan.h>

#include "bindings/descriptors/native_buffer_sets.h"
#include "bindings/descriptors/shadows.h"
#include "bindings/model/device_core.h"
#include "bindings/model/lookup_cache.h"
#include "bindings/model/set_layout_shadow.h"
#include "chassis/trackers.h"
#include "core/chain_edit.h"
#include "core/handle_map.h"

namespace bindery::bindings {

class StaticUse;

class DescriptorStore : public DeviceCore {
 public:
  using DeviceCore::DeviceCore;

  ShardedHandleMap<VkDescriptorSetLayout, SetLayoutEntry> set_layouts;
  ShardedHandleMap<VkPipelineLayout, PipelineLayoutShadow> pipeline_layouts;
  ShardedHandleMap<VkDescriptorPool, PoolShadow> pools;
  ShardedHandleMap<VkDescriptorSet, SetShadow> sets;
  ShardedHandleMap<VkDescriptorUpdateTemplate, TemplateShadow> templates;
  // Buffer descriptors of native sets that copies into converted sets may read
  // (native_buffer_sets.h); `any_native_buffer_sets` is set once the first is registered.
  ShardedHandleMap<VkDescriptorSet, NativeBufferSet> native_buffer_sets;
  std::atomic<bool> any_native_buffer_sets{false};
  // Templates of layouts such sets have: their buffer entries (template_hooks.cpp).
  ShardedHandleMap<VkDescriptorUpdateTemplate, NativeTemplate> native_templates;
  // Push templates of set layouts that convert nothing, in pipeline layouts that convert,
  // by the application's (native) handle: their full-layout twin, for pipelines running
  // natively (`native` is the application's handle; template_hooks.cpp).
  ShardedHandleMap<VkDescriptorUpdateTemplate, TemplateShadow> native_push_templates;
  // The bind point of every push template passed down as it is (no TemplateShadow), by its
  // handle: a push with it replaces the set at that bind point only, which the bind point's
  // state must know (record/push_descriptor_hooks.cpp).
  ShardedHandleValues<VkDescriptorUpdateTemplate, VkPipelineBindPoint> native_push_bind_points;
  // The reserved set's layout (one dynamic storage buffer, every stage) for roots that do
  // not fit in push constants; VK_NULL_HANDLE when it could not be created (such layouts
  // then fall back natively). Made with the device (bindings_capability.cpp).
  VkDescriptorSetLayout root_set_layout = VK_NULL_HANDLE;

  // Private data the application set on layer-made objects: layer-owned sets and
  // templates (the layer below never sees those handles). Cold path.
  std::mutex owned_data_mutex;
  struct OwnedDataKey {
    uint64_t set;
    uint64_t slot;
    bool operator==(const OwnedDataKey& o) const { return set == o.set && slot == o.slot; }
  };
  struct OwnedDataHash {
    size_t operator()(const OwnedDataKey& k) const { return std::hash<uint64_t>()(k.set * 31 + k.slot); }
  };
  std::unordered_map<OwnedDataKey, uint64_t, OwnedDataHash> owned_data;
  // Some layer-made template has had private data (its destruction must forget it).
  std::atomic<bool> template_private_data{false};
  // Forgets the private data of layer-made objects whose handles lie in [begin, end)
  // (owned_object_hooks.cpp).
  void ForgetOwnedData(uint64_t begin, uint64_t end);

  // Fallbacks (cold paths): full native layouts and sets, and the pools of those sets
  // (full_sets.cpp).
  std::mutex fallback_mutex;
  std::vector<VkDescriptorSetLayout> owned_set_layouts;
  std::vector<VkPipelineLayout> owned_pipeline_layouts;
  // Full layouts by content: applications that create and destroy layouts of the same
  // shape again and again get the same full layouts, so these stay bounded by the shapes
  // in use, not by history.
  std::unordered_map<std::string, VkDescriptorSetLayout> full_set_layouts_by_content;
  std::unordered_map<std::string, VkPipelineLayout> full_pipeline_layouts_by_content;
  std::vector<VkDescriptorPool> fallback_pools;  // the last one is allocated from
  std::vector<VkDescriptorPool> fallback_uab_pools;  // the same, for update-after-bind layouts
  // Full-layout push templates of templates the application destroyed (template_hooks.cpp).
  // A template of the same content created later takes its retired twin back, so these
  // stay bounded by the distinct templates made.
  struct RetiredTemplate {
    std::string content;
    VkDescriptorUpdateTemplate full = VK_NULL_HANDLE;
    PFN_vkDestroyDescriptorUpdateTemplate destroy = nullptr;
  };
  std::vector<RetiredTemplate> retired_templates;
  // The full native layout of `layout` (created once); VK_NULL_HANDLE when it cannot be.
  VkDescriptorSetLayout FullSetLayout(const SetLayoutShadow& layout);
  VkPipelineLayout FullPipelineLayout(PipelineLayoutShadow& layout);
  // `set` as a full native set, written from its shadow and its native set if stale.
  // Every binding is written once (a full set may be in use by recorded or pending command
  // buffers, so it is never written further for another pipeline); a descriptor whose buffer
  // was destroyed never is, and only one `uses` names for set `set_index` is logged.
  // `*null_dynamic` (when given) gets the set's SetShadow::full_null_dynamic.
  VkDescriptorSet Materialise(VkDescriptorSet handle, SetShadow& set, const StaticUse* uses, uint32_t set_index,
                              uint32_t* null_dynamic = nullptr);
  VkDescriptorSet MaterialiseLocked(VkDescriptorSet handle, SetShadow& set, const StaticUse* uses, uint32_t set_index);
  // Its steps (fallback_mutex held): the full set allocated (false when it cannot be), then
  // written, every binding once.
  bool AllocateFullLocked(SetShadow& set);
  void WriteFullLocked(VkDescriptorSet handle, SetShadow& set, const StaticUse* uses, uint32_t set_index);
  // Does `d` still name a live buffer, within its size? (Destroyed buffers leave the
  // shadow untouched: the spec lets a set keep them while no pipeline uses them.)
  bool StillNames(const VkDescriptorBufferInfo& d);
  void WriteConvertedBinding(SetShadow& set, const ConvertedBinding& c, uint32_t set_index, bool statically_used,
                             std::vector<VkWriteDescriptorSet>& writes);
  // A record's range beyond 32 bits without shaderInt64 (set_records.h, logged once).
  std::atomic<bool> logged_range_beyond_32_bits{false};
  // A copy into converted bindings read a native set the layer did not see (logged once).
  std::atomic<bool> logged_unseen_copy{false};
  // A statically used binding named a destroyed buffer (logged once).
  std::atomic<bool> logged_gone_in_use{false};
  void ReleaseFull(SetShadow& set);
  // An application write to `set` made to its full native set too, when it has one
  // (full_set_mirror.cpp): pipelines running natively see updates made after their
  // command buffers were recorded, as update-after-bind bindings require, and the full
  // set is never rewritten whole for them. False when the set has no full set yet (or the
  // write cannot be mirrored): the full set is then written from the shadow when next used.
  bool MirrorWrite(SetShadow& set, const VkWriteDescriptorSet& write);
  // Copies and template updates, mirrored the same way (full_set_mirror.cpp): buffer
  // descriptors now in converted bindings (`count` from binding/element, rolling over as
  // the layout does), and a native range of `app_set` after the update went down. False
  // where the set has no current full set or the mirror cannot be exact (a descriptor
  // that is null or names a destroyed buffer, a native range that rolls over): the caller
  // marks the full set stale.
  // A null buffer is mirrored as a null descriptor where nullDescriptor is on (from a copy
  // it may be a never-written descriptor: undefined, of which null is one value).
  bool MirrorBufferDescriptors(SetShadow& set, uint32_t binding, uint32_t element, VkDescriptorType type,
                               const VkDescriptorBufferInfo* values, uint32_t count);
  bool MirrorNativeRange(SetShadow& set, VkDescriptorSet app_set, uint32_t binding, uint32_t element, uint32_t count);
};

// This thread's lookup caches (model/lookup_cache.h), one thread-local object so that a
// hook pays for one thread-local access whatever it looks up (descriptor_store.cpp).
struct ThreadLookups {
  LookupCache<VkDescriptorSetLayout, SetLayoutEntry, 1> set_layouts;
  LookupCache<VkDescriptorPool, PoolShadow, 1> pools;
  LookupCache<VkPipelineLayout, PipelineLayoutShadow, 2> pipeline_layouts;
  LookupCache<VkBuffer, BufferInfo, 8> buffers;
};
ThreadLookups& Lookups();

// The shadow of a converted set: layer-owned (no lock) or in DescriptorStore::sets.
// Inlined into the bind paths (a call would cost more than the lookup of a layer-owned set).
[[gnu::always_inline]] inline SetShadow* FindSet(DescriptorStore& b, VkDescriptorSet handle) {
  if (SetShadow* owned = OwnedSet(handle)) return owned;
  return b.sets.Find(handle);
}

// The policy's decision for one set layout (model/policy.h; never for layouts whose
// flags keep them native: set_layout_shadow.h). Logs when a layout converts for going
// beyond a driver limit. descriptor_layout_hooks.cpp.
bool ShouldConvertLayout(DescriptorStore& b, const VkDescriptorSetLayoutCreateInfo& info);

// An application's set layout split as the capability sends it down: its shadow, and the
// create info of its native part (converted bindings removed, their binding flags with
// them; valid while this object lives). Used by layout creation and the support query,
// so both ask the driver the same question (descriptor_layout_hooks.cpp).
class NativeLayoutSplit {
 public:
  NativeLayoutSplit(DescriptorStore& b, const VkDescriptorSetLayoutCreateInfo& app, bool convert);
  NativeLayoutSplit(const NativeLayoutSplit&) = delete;
  NativeLayoutSplit& operator=(const NativeLayoutSplit&) = delete;
  SetLayoutShadow shadow;
  const VkDescriptorSetLayoutCreateInfo& native_info() const { return info_; }

 private:
  std::vector<VkDescriptorSetLayoutBinding> native_;
  std::vector<VkDescriptorBindingFlags> native_flags_;
  ChainEditor chain_;
  VkDescriptorSetLayoutCreateInfo info_;
};

// Are layouts `a` and `c` compatible for set `set` (the spec's rule, through what is sent
// down: the same push-constant ranges, identically defined set layouts up to that set)?
// And the two parts of that rule. full_sets.cpp.
bool CompatibleFor(const PipelineLayoutShadow& a, const PipelineLayoutShadow& c, uint32_t set);
bool SameRanges(const std::vector<VkPushConstantRange>& a, const std::vector<VkPushConstantRange>& b);
bool SameSetLayout(const SetLayoutShadow* x, const SetLayoutShadow* y);

// A push-descriptor template's create info as sent down: its set numbered as in the
// layout sent down, where root-only sets are left out (template_hooks.cpp). Any other
// template's unchanged.
VkDescriptorUpdateTemplateCreateInfo NativePushTemplateInfo(DescriptorStore& b,
                                                            const VkDescriptorUpdateTemplateCreateInfo& app);

}  // namespace bindery::bindings
