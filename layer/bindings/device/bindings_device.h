// The indirect-bindings capability on one device: what it decided before the device
// existed (BindingsPlan), the shadows it keeps by handle (shadows.h), the rewrite cache,
// the fallback objects and its counters, and the functions the hooks share. Written as a
// layer of its own (chassis/capability.h): it calls down through `next`; buffer addresses
// and sizes come from the chassis's shared trackers. Per-command-buffer state is in
// command_data.h.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include <vulkan/vulkan.h>

#include "core/dispatch_map.h"
#include "core/thread_local.h"
#include "bindings/record/command_data.h"
#include "bindings/model/policy.h"
#include "bindings/device/lookup_cache.h"
#include "bindings/device/memory_gauge.h"
#include "bindings/descriptors/native_buffer_sets.h"
#include "bindings/descriptors/owned_set_region.h"
#include "bindings/model/record_allocator.h"
#include "bindings/pipelines/pipeline_libraries.h"
#include "bindings/pipelines/rewrite_cache.h"
#include "bindings/model/root_layout.h"
#include "bindings/record/root_ring.h"
#include "bindings/model/set_layout_shadow.h"
#include "bindings/descriptors/shadows.h"
#include "bindings/pipelines/static_use.h"
#include "chassis/capability.h"
#include "chassis/state.h"
#include "chassis/trackers.h"
#include "core/chain_edit.h"
#include "core/handle_map.h"
#include "spirv/rewrite.h"

namespace bindery::bindings {

class BindingsPlan : public DevicePlan {
 public:
  bool shader_int64 = false;         // the device has shaderInt64 (the application's, or enabled by the layer)
  bool shader_float16 = false;       // ... shaderFloat16, shaderInt16, shaderInt8 (likewise)
  bool shader_int16 = false;
  bool shader_int8 = false;
  bool bounds_checks = false;        // the application enabled robustBufferAccess(2)
  bool null_descriptor = false;      // the application enabled robustness2.nullDescriptor
  bool convert_uniform_buffers = false;
  // Execution models whose rewritten modules broadcast descriptor-array indices (a
  // workaround for lavapipe: spirv/uniform_descriptor_index.h); 0 on other drivers.
  uint32_t broadcast_descriptor_index_models = 0;
  // Execution models where the driver takes such an index from lane 0 (lavapipe: all):
  // modules there that get no broadcast and index with a converted uniform buffer's value
  // run natively (spirv::RewriteOptions::lane_zero_descriptor_index_models).
  uint32_t lane_zero_descriptor_index_models = 0;
  std::string dump_dir;              // where rewritten modules are written ("" none)
  bool validate = false;             // spirv-val on each rewritten module (bindings_validate)
  bool records_in_root = true;       // small fixed sets' records travel in the root (root_layout.h)
  bool root_split = false;           // a compute copy of the root (RootPushSpace), decided at device creation
  spirv::TargetEnv target = spirv::TargetEnv::kVulkan1_0;
  uint32_t api_version = VK_API_VERSION_1_0;
  BindingsPolicy policy;                 // which layouts convert (bindings/policy.h)
  VkPhysicalDeviceLimits native_limits{};  // the driver's own limits
};

class DeviceBindings : public CapabilityDevice {
 public:
  DeviceBindings(DeviceState& device, const BindingsPlan& plan, const VkLayerDispatchTable& next);
  ~DeviceBindings() override;

  Trackers& trackers() const { return *device.trackers; }

  DeviceState& device;
  const VkLayerDispatchTable& next;
  const BindingsPlan& plan;
  uint32_t max_push_bytes = 0;
  uint32_t slot = 0;  // the capability's stack slot (its CommandData in CommandState)
  void* index_key = nullptr;  // its dispatch key in g_bindings_by_key (nullptr: not there)
  VkPhysicalDeviceMemoryProperties memory_properties{};

  ShardedHandleMap<VkDescriptorSetLayout, SetLayoutEntry> set_layouts;
  ShardedHandleMap<VkPipelineLayout, PipelineLayoutShadow> pipeline_layouts;
  ShardedHandleMap<VkDescriptorPool, PoolShadow> pools;
  ShardedHandleMap<VkDescriptorSet, SetShadow> sets;
  ShardedHandleMap<VkShaderModule, ModuleEntry> modules;
  ShardedHandleMap<VkDescriptorUpdateTemplate, TemplateShadow> templates;
  RewriteCache rewrites;
  ShardedHandleMap<VkPipeline, FallbackPipeline> fallback_pipelines;
  // Graphics pipeline libraries made while layouts convert: what the pipelines linked
  // from them run with (pipeline_libraries.h).
  ShardedHandleMap<VkPipeline, PipelineLibrary> pipeline_libraries;
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
  // state must know (push_descriptor_hooks.cpp).
  ShardedHandleValues<VkDescriptorUpdateTemplate, VkPipelineBindPoint> native_push_bind_points;
  // Per-command-buffer memory for push-descriptor records and ring roots (root_ring.h).
  RootRingPool ring_pool{*this};
  // The reserved set's layout (one dynamic storage buffer, every stage) for roots that do
  // not fit in push constants; VK_NULL_HANDLE when it could not be created (such layouts
  // then fall back natively).
  VkDescriptorSetLayout root_set_layout = VK_NULL_HANDLE;
  uint32_t ring_alignment = 16;  // of ring root copies: minStorageBufferOffsetAlignment
  uint32_t max_bound_sets = 0;   // the driver's maxBoundDescriptorSets
  // Set once the first fallback pipeline exists: until then the draw/dispatch and
  // bind-pipeline hooks only pass the call on (no command-state lookup).
  std::atomic<bool> any_fallback{false};
  // Set once the first converting set layout exists: until then no set, pipeline layout or
  // pipeline of the device converts anything, so the allocate, update, template, bind and
  // push hooks pass every call straight on (auto on a driver where conversion does not
  // pay costs the application nothing until it goes beyond a limit).
  std::atomic<bool> any_converted{false};
  // Set once a buffer without a device address was created or written into a record:
  // from then on rewritten pipelines get native twins and draws check their sets
  // (bindings/native_twin.h).
  std::atomic<bool> any_unaddressable{false};
  ShardedHandleMap<VkPipeline, NativeTwin> twins;
  bool Converting() const { return any_converted.load(std::memory_order_acquire); }
  // Pipelines whose root lives in the ring (root_delivery.cpp); `any_ring` is set once
  // the first pipeline layout with such a root exists, or with slots moved from where
  // compatible layouts keep them (RootLayout::reshaped_sets): until then draws and pipeline
  // binds look neither for them nor for root slots delivered elsewhere.
  ShardedHandleMap<VkPipeline, RingPipeline> ring_pipelines;
  std::atomic<bool> any_ring{false};
  // Every rewritten pipeline: where it reads its root (RootPipeline). Looked up only on a
  // device with a ring root, once per pipeline bind (root_delivery.cpp).
  ShardedHandleMap<VkPipeline, RootPipeline> root_pipelines;
  // Set once a root pushed at one bind point overwrote push-constant bytes the other had
  // (bind_point_state.h): until then draws and dispatches do not look for bytes to re-send.
  std::atomic<bool> any_stale_push{false};
  // Set once a pipeline layout needs the application's pushes widened: until then the
  // push-constant hook passes every push straight on (no layout lookup).
  std::atomic<bool> any_widened_pushes{false};
  // Every pipeline made with a known layout: its layout's push-constant ranges
  // (PipelineLayoutShadow::ranges_key), so a draw knows whether the bound pipeline reads
  // the root or the application's bytes where the two were pushed over each other
  // (bind_point_state.h). Looked up only when such bytes are stale.
  ShardedHandleValues<VkPipeline, uint64_t> pipeline_ranges;

  // The flags above that the record path tests, gathered in one word (kWork* bits, set
  // right after the flag they stand for and never cleared), so that a hook with nothing
  // to do costs one load and one test: pass-through must cost nothing measurable.
  static constexpr uint32_t kWorkConverting = 1u << 0;      // any_converted
  static constexpr uint32_t kWorkFallback = 1u << 1;        // any_fallback
  static constexpr uint32_t kWorkTwins = 1u << 2;           // any_unaddressable
  static constexpr uint32_t kWorkRing = 1u << 3;            // any_ring
  static constexpr uint32_t kWorkStalePush = 1u << 4;       // any_stale_push
  static constexpr uint32_t kWorkWidenedPushes = 1u << 5;   // any_widened_pushes
  // What a pipeline bind must record (while layouts convert, at least the pipeline: a
  // draw re-sending push-constant bytes asks which ones it reads), and what a draw or
  // dispatch must look at.
  static constexpr uint32_t kWorkPipelineBind = kWorkConverting | kWorkFallback | kWorkTwins | kWorkRing;
  static constexpr uint32_t kWorkDraw = kWorkFallback | kWorkTwins | kWorkRing | kWorkStalePush;
  void MarkWork(uint32_t bits) { record_work.fetch_or(bits, std::memory_order_acq_rel); }
  // Push-constant bytes of a bind point were overwritten (a root over application bytes,
  // the reverse, or one bind point's root over the other's): draws look for them from now on.
  void MarkStalePush() {
    if (any_stale_push.load(std::memory_order_relaxed)) return;
    any_stale_push.store(true, std::memory_order_release);
    MarkWork(kWorkStalePush);
  }
  uint32_t Work() const { return record_work.load(std::memory_order_acquire); }
  std::atomic<uint32_t> record_work{0};

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
  // Forgets the private data of layer-made objects whose handles lie in [begin, end).
  void ForgetOwnedData(uint64_t begin, uint64_t end);

  // Fallbacks (cold paths): full native layouts and sets, and the pools of those sets.
  std::mutex fallback_mutex;
  std::vector<VkDescriptorSetLayout> owned_set_layouts;
  std::vector<VkPipelineLayout> owned_pipeline_layouts;
  // Full layouts by content (fallback.cpp): applications that create and destroy layouts
  // of the same shape again and again get the same full layouts, so these stay bounded by
  // the shapes in use, not by history.
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

  // Why pipelines fell back, each distinct reason counted (printed with "fallen back" in
  // the device summary). Declared before `counters`, which registers it.
  ReasonTally fallback_reasons;
  struct Counters {
    Counter* rewritten;    // pipelines created from rewritten shaders
    Counter* fallen_back;  // pipelines that needed a conversion and could not have it
    Counter* sets;         // descriptor sets with argument blocks
    Counter* owned_sets;   // of them layer-owned (no native set)
    Counter* pushes;       // push-descriptor updates whose records went to the ring
    Counter* ring_bytes;   // bytes of ring blocks created (root_ring.h)
    Counter* block_bytes;  // argument-block device memory allocated for pools (bytes, all pools ever)
  } counters;
  // What the capability holds now and at its peak (memory_gauge.h): GPU memory (argument
  // blocks, ring blocks) and its largest host structures (records' CPU copies, owned-set
  // arenas).
  MemoryGauge gpu_bytes;
  MemoryGauge host_bytes;
  // Live ring-root layout copies (RingLayoutCopy), a count: the summary shows the peak.
  MemoryGauge ring_layout_copies;
};

// This thread's lookup caches (lookup_cache.h), one thread-local object so that a hook
// pays for one thread-local access whatever it looks up.
struct ThreadLookups {
  LookupCache<VkDescriptorSetLayout, SetLayoutEntry, 1> set_layouts;
  LookupCache<VkDescriptorPool, PoolShadow, 1> pools;
  LookupCache<VkPipelineLayout, PipelineLayoutShadow, 2> pipeline_layouts;
  LookupCache<VkBuffer, BufferInfo, 8> buffers;
};
ThreadLookups& Lookups();

// The shadow of a converted set: layer-owned (no lock) or in DeviceBindings::sets.
// Inlined into the bind paths (a call would cost more than the lookup of a layer-owned set).
[[gnu::always_inline]] inline SetShadow* FindSet(DeviceBindings& b, VkDescriptorSet handle) {
  if (SetShadow* owned = OwnedSet(handle)) return owned;
  return b.sets.Find(handle);
}

// The capability's state on `device`, nullptr where indirect bindings are off on it.
// Entry points are per device, but applications call one device's with another device's
// handles (the conformance suite's multi-device cases do; drivers tolerate it): such a
// call reaches these hooks on a device where the capability may have no state, and each
// hook then passes it unchanged to that device's next layer (NextOf).
// (FindBindings(VkDevice), below: the dispatch-key table, then the registry.)
DeviceBindings* FindBindingsUnindexed(VkDevice device);
const VkLayerDispatchTable& NextOf(VkDevice device);
const VkLayerDispatchTable& NextOf(VkCommandBuffer cb);
// The policy's decision for one set layout (bindings/policy.h; never for layouts whose
// flags keep them native: set_layout_shadow.h). Logs when a layout converts for going
// beyond a driver limit. descriptor_layout_hooks.cpp.
bool ShouldConvertLayout(DeviceBindings& b, const VkDescriptorSetLayoutCreateInfo& info);

// An application's set layout split as the capability sends it down: its shadow, and the
// create info of its native part (converted bindings removed, their binding flags with
// them; valid while this object lives). Used by layout creation and the support query,
// so both ask the driver the same question.
class NativeLayoutSplit {
 public:
  NativeLayoutSplit(DeviceBindings& b, const VkDescriptorSetLayoutCreateInfo& app, bool convert);
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
// The capability's data of a command buffer, through the tracking stage's command index.
inline BindingsCommandData* CommandDataOf(DeviceBindings& b, VkCommandBuffer cb) {
  CommandState* state = Trackers::CommandOf(cb);
  return state != nullptr ? static_cast<BindingsCommandData*>(state->data(b.slot)) : nullptr;
}
// The converted bind (bind_hooks.cpp): roots pushed, native parts bound natively.
void BindSets(DeviceBindings& b, VkCommandBuffer cb, VkPipelineBindPoint bindPoint, VkPipelineLayout layout,
              const PipelineLayoutShadow* pl, uint32_t firstSet, uint32_t setCount, const VkDescriptorSet* pSets,
              uint32_t dynamicOffsetCount, const uint32_t* pDynamicOffsets);

// The device of a command buffer, found on every recorded command: a process-wide table
// from the loader's dispatch key to the DeviceBindings, read without a lock and without
// thread-local storage (whose access in a dlopened library is a call into the dynamic
// linker: core/handle_index.h). An entry is added when the device is made and removed
// before it goes (a command buffer used after its device is destroyed is the
// application's error). A hit is a hash, two loads and one compare.
inline DispatchKeySlots<DeviceBindings> g_bindings_by_key;

// The registry's lookup (bindings_capability.cpp): nullptr where the command buffer's
// device has no indirect bindings (one device's entry point called with another's handle).
DeviceBindings* FindBindingsUnindexed(VkCommandBuffer cb);

// The state on `device`'s own device (every object made from a VkDevice shares its
// dispatch key, so the command buffers' table answers for it too), else the registry's.
inline DeviceBindings* FindBindings(VkDevice device) {
  if (device != VK_NULL_HANDLE) {
    if (DeviceBindings* b = g_bindings_by_key.Find(DispatchKey(device))) return b;
  }
  return FindBindingsUnindexed(device);
}

// The table's answer alone (nullptr where it has none: the caller then takes its slow path,
// which asks FindBindings). A hook's pass-through makes no call before its tail call, so
// it saves no register and sets up no frame.
inline DeviceBindings* FindBindingsIndexed(VkCommandBuffer cb) { return g_bindings_by_key.Find(DispatchKey(cb)); }
inline DeviceBindings* FindBindingsIndexed(VkDevice device) { return g_bindings_by_key.Find(DispatchKey(device)); }

// The state on the command buffer's device, nullptr where it has none. The table answers
// unless another device took the slot of this one's key or the device has no indirect
// bindings; then the registry does. Hooks test it first so that their pass-through path is
// a tail call with no frame.
inline DeviceBindings* FindBindings(VkCommandBuffer cb) {
  if (DeviceBindings* b = g_bindings_by_key.Find(DispatchKey(cb))) return b;
  return FindBindingsUnindexed(cb);
}
// fallback.cpp: the sets bound at `point` bound again as full native sets for `f`'s
// layout; and the converted binds put back after that.
void BindFullSets(DeviceBindings& b, VkCommandBuffer cb, VkPipelineBindPoint bind_point,
                  BindingsCommandData::BindPoint& point, const FallbackPipeline& f);
void RestoreConvertedBinds(DeviceBindings& b, VkCommandBuffer cb, VkPipelineBindPoint bind_point,
                           BindingsCommandData::BindPoint& point);
// fallback.cpp: is `layout` compatible for set `set` with the layout of `f` (a pipeline
// running natively), as the spec defines it? A push or bind through a layout that is not
// does not reach that set for `f`.
bool CompatibleWithFallback(const PipelineLayoutShadow& layout, const FallbackPipeline& f, uint32_t set);
// fallback.cpp: does set `set` at `point` still hold what the push `prior` wrote, for a
// push through `through` that keeps the descriptors it does not write? Not when a later
// bind or push disturbed it, nor when `through` is not compatible with the prior push's
// layout for that set (the spec keeps no contents across such pushes).
bool PushStillHolds(DeviceBindings& b, const BindingsCommandData::BindPoint& point, uint32_t set,
                    const PushCopy& prior, VkPipelineLayout through);
// push_descriptor_hooks.cpp: the pushes to `set` made again, natively, with the full
// native layout of `f` (a pipeline that runs natively), but for pushes through layouts not
// compatible with its layout for that set. False when there is none.
bool RepushNatively(DeviceBindings& b, VkCommandBuffer cb, VkPipelineBindPoint bind_point, BindingsCommandData& data,
                    BindingsCommandData::BindPoint& point, uint32_t set, const FallbackPipeline& f);
// The native parts of the pushes to every pushed set made again through the application's
// layouts (after full-layout pushes for a pipeline running natively replaced them), but
// for the sets whose bit `skip` has (disturbed since).
void RepushNativeParts(DeviceBindings& b, VkCommandBuffer cb, VkPipelineBindPoint bind_point, BindingsCommandData& data,
                       BindingsCommandData::BindPoint& point, uint64_t skip);
// A push-descriptor template's create info as sent down: its set numbered as in the
// layout sent down, where root-only sets are left out (push_descriptor_hooks.cpp). Any
// other template's unchanged.
VkDescriptorUpdateTemplateCreateInfo NativePushTemplateInfo(DeviceBindings& b,
                                                            const VkDescriptorUpdateTemplateCreateInfo& app);
// Root delivery and the reserved set (root_delivery.cpp): sets bound through `layout`
// may have disturbed the reserved set; before a draw or dispatch, the bound pipeline gets
// its reserved set back when they did.
// Inline until the device has a ring root: every bind pays the test, and only then the call.
void NoteSetsBoundInRing(DeviceBindings& b, VkCommandBuffer cb, VkPipelineBindPoint bindPoint, VkPipelineLayout layout);
inline void NoteSetsBound(DeviceBindings& b, VkCommandBuffer cb, VkPipelineBindPoint bindPoint,
                          VkPipelineLayout layout) {
  if (b.any_ring.load(std::memory_order_acquire)) NoteSetsBoundInRing(b, cb, bindPoint, layout);
}
void RestoreRingRoot(DeviceBindings& b, VkCommandBuffer cb, VkPipelineBindPoint bindPoint, BindingsCommandData& data,
                     BindPointState& point);
// Delivers root bytes [lo, hi) of `pl`'s root (`bytes`: those hi - lo bytes) to where the
// rewritten pipelines read them (root_delivery.cpp): the one place that knows where the
// root lives.
// `slot_sets`: the sets whose root slots the bytes are (bit i: set i), noted as delivered
// there (BindPointState::NoteSlotsDelivered).
void DeliverRoot(DeviceBindings& b, VkCommandBuffer cb, VkPipelineBindPoint bindPoint, VkPipelineLayout layout,
                 const PipelineLayoutShadow& pl, uint32_t lo, uint32_t hi, const uint8_t* bytes, uint32_t slot_sets);
// Before a draw or dispatch of a rewritten pipeline: the root slots of the sets it reads
// that went down through compatible layouts keeping their roots in the other place (push
// constants or the ring) are delivered where it reads them (root_delivery.cpp).
void DeliverMovedSlots(DeviceBindings& b, VkCommandBuffer cb, VkPipelineBindPoint bindPoint, BindingsCommandData& data,
                       BindPointState& point);
// A bound set's root slot as `r` (a slot of a layout compatible with the one it was bound
// through) lays it out: its block's address or its records, then its converted dynamic
// offsets taken from `dynamic` (every dynamic offset of the set, in binding order). Writes
// `out` (indexed from r.root_offset) and returns the slot's length (bind_hooks.cpp).
uint32_t WriteBoundSetSlot(DeviceBindings& b, const SetRoot& r, VkDescriptorSet set, const uint32_t* dynamic,
                           uint32_t dynamic_count, uint8_t* out);
// fallback.cpp: are layouts `a` and `c` compatible for set `set` (the spec's rule, through
// what is sent down)? Was what set `i` holds (bound or pushed at `order` through `layout`)
// disturbed by a later bind or push at `point`?
bool CompatibleFor(const PipelineLayoutShadow& a, const PipelineLayoutShadow& c, uint32_t set);
bool DisturbedSince(DeviceBindings& b, const BindingsCommandData::BindPoint& point, uint32_t i, uint32_t order,
                    VkPipelineLayout layout);

}  // namespace bindery::bindings
