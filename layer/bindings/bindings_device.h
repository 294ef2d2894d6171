// The indirect-bindings capability on one device: what it decided before the device
// existed (BindingsPlan), the shadows of descriptor objects it keeps, the rewrite cache
// and its counters. Written as a layer of its own (chassis/capability.h): it calls down
// through `next`; buffer addresses and sizes come from the chassis's shared trackers.
//
// Handles: the application holds real objects of the layer below — the smaller native
// set layout, the native pipeline layout with the root's push-constant range, and for a
// set whose layout keeps native bindings a native set of the smaller layout; the shadows
// are found by those handles. A set whose layout has no native binding left is
// layer-owned: no native set exists, its handle is the address of its slot in its pool's
// arena (OwnedSetSlot, owned_set_region.h), and every hook taking a VkDescriptorSet
// (updates, copies, templates, free, binds, debug names, private data) recognises it
// (OwnedSet) and never sends it down.
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

#include "bindings/policy.h"
#include "bindings/lookup_cache.h"
#include "bindings/owned_set_region.h"
#include "bindings/record_allocator.h"
#include "bindings/rewrite_cache.h"
#include "bindings/root_layout.h"
#include "bindings/root_ring.h"
#include "bindings/set_layout_shadow.h"
#include "chassis/capability.h"
#include "chassis/state.h"
#include "chassis/trackers.h"
#include "core/chain_edit.h"
#include "core/handle_map.h"
#include "spirv/rewrite.h"

namespace bindery::bindings {

class BindingsPlan : public DevicePlan {
 public:
  bool shader_int64 = false;         // the application enabled shaderInt64
  bool bounds_checks = false;        // the application enabled robustBufferAccess(2)
  bool convert_uniform_buffers = false;
  std::string dump_dir;              // where rewritten modules are written ("" none)
  bool validate = false;             // spirv-val on each rewritten module (bindings_validate)
  spirv::TargetEnv target = spirv::TargetEnv::kVulkan1_0;
  uint32_t api_version = VK_API_VERSION_1_0;
  BindingsPolicy policy;                 // which layouts convert (bindings/policy.h)
  VkPhysicalDeviceLimits native_limits{};  // the driver's own limits
};

struct SetLayoutEntry {
  std::shared_ptr<const SetLayoutShadow> shadow;
};

// Stages the root is visible to (besides those of the application's ranges).
inline constexpr VkShaderStageFlags kRootStages = VK_SHADER_STAGE_ALL_GRAPHICS | VK_SHADER_STAGE_COMPUTE_BIT;

struct PipelineLayoutShadow {
  RootLayout root;
  VkShaderStageFlags root_stages = kRootStages;  // the root push names them all
  // The application's ranges as extended to the end of push-constant space.
  std::vector<VkPushConstantRange> app_ranges;
  // More than one application range: its pushes are split at range boundaries and
  // widened to every stage whose extended range covers the bytes.
  bool widen_app_pushes = false;
  // The push-constant ranges sent down (a fallback layout uses the same ones, so the
  // application's pushes stay compatible for push constants with it).
  std::vector<VkPushConstantRange> native_ranges;
  // The full native layout for pipelines that fall back (created on first need, owned
  // by DeviceBindings, guarded by DeviceBindings::fallback_mutex).
  VkPipelineLayout full = VK_NULL_HANDLE;
  // Sets that exist only as roots are left out of the native layout, and the others
  // renumbered in order: native_set[s] is set s's number in the native layout (kNoOffset
  // for a root-only set). The numbering of sets 0..s depends only on those sets' layouts,
  // so layouts compatible for set s number it alike. `renumbered`: some set moved, so
  // shaders' remaining descriptors are renumbered too (spirv/renumber.h).
  std::vector<uint32_t> native_set;
  bool renumbered = false;
  uint32_t NativeSet(uint32_t set) const { return set < native_set.size() ? native_set[set] : set; }
  // A root in the ring: a layer-owned copy of the native layout (owned by DeviceBindings),
  // for re-binding the reserved set at a draw even after the application destroyed its
  // layout (root_delivery.cpp).
  VkPipelineLayout ring_copy = VK_NULL_HANDLE;
};

// A pipeline rewritten for a layout whose root lives in the ring: where it reads the
// root, so a draw or dispatch can put the reserved set back when binds through other
// layouts disturbed it (root_delivery.cpp).
struct RingPipeline {
  VkPipelineLayout layout = VK_NULL_HANDLE;  // the application's (native) layout handle
  VkPipelineLayout copy = VK_NULL_HANDLE;    // PipelineLayoutShadow::ring_copy
  uint32_t buffer_set = 0;                   // the reserved set's number in the native layout
  uint32_t root_end = 0;
};

// A pipeline created natively (its shaders could not be rewritten): binding it makes the
// sets bound at its bind point be materialised as full native sets at the next draw or
// dispatch.
struct FallbackPipeline {
  VkPipelineLayout full = VK_NULL_HANDLE;  // the full native layout it was created with
  std::vector<std::shared_ptr<const SetLayoutShadow>> sets;  // its layout's sets
};

struct PoolShadow;
struct NativeTwin;  // bindings/native_twin.h

// A converted set: its records in the pool's block, and the CPU copy of what each record
// names (for sets that must be materialised natively).
struct SetShadow {
  // Kept alive by `keep` (sets in DeviceBindings::sets) or by the pool (layer-owned sets).
  const SetLayoutShadow* layout = nullptr;
  std::shared_ptr<const SetLayoutShadow> keep;
  PoolShadow* pool = nullptr;
  uint32_t first_record = 0;
  uint32_t record_count = 0;
  uint8_t* records = nullptr;           // host pointer to the first record
  VkDeviceAddress address = 0;          // device address of the first record
  // Per record, as the application wrote it: the set's run of its pool's CPU copy.
  VkDescriptorBufferInfo* descriptors = nullptr;
  // The set as a full native set, for pipelines that fall back (allocated on first need;
  // rewritten from the shadow when `full_stale`). Guarded by DeviceBindings::fallback_mutex.
  VkDescriptorSet full = VK_NULL_HANDLE;
  VkDescriptorPool full_pool = VK_NULL_HANDLE;
  bool full_stale = true;
  // Records naming a buffer without a device address (bindings/native_twin.h): while
  // non-zero, draws and dispatches of rewritten pipelines with this set bound run natively.
  uint32_t unaddressable = 0;
};

// A layer-owned set's slot; the set's handle is the slot's address. `self` holds that
// address while the set is live (0 once freed, never written in an unused slot), so a
// value in the region is a live layer-owned handle exactly when the word it points at
// equals it (OwnedSet).
struct alignas(128) OwnedSetSlot {
  std::atomic<uint64_t> self{0};
  uint32_t next_free = UINT32_MAX;
  SetShadow shadow;
};
static_assert(sizeof(OwnedSetSlot) == 128, "slots are 128 bytes: OwnedSet checks a handle's alignment");

// The layer-owned set behind `handle`, nullptr for any other value. Lock-free; safe on
// any 64-bit value (owned_set_region.h says why).
inline SetShadow* OwnedSet(VkDescriptorSet handle) {
  const uint64_t value = reinterpret_cast<uint64_t>(handle);
  if (!OwnedRegionContains(value) || value % alignof(OwnedSetSlot) != 0) return nullptr;
  OwnedSetSlot* slot = reinterpret_cast<OwnedSetSlot*>(value);
  return slot->self.load(std::memory_order_acquire) == value ? &slot->shadow : nullptr;
}

struct PoolShadow {
  VkBuffer buffer = VK_NULL_HANDLE;  // the argument blocks (none when the pool holds no converted descriptor)
  VkDeviceMemory memory = VK_NULL_HANDLE;
  uint8_t* mapped = nullptr;
  VkDeviceAddress address = 0;
  uint32_t capacity = 0;  // records the block holds (made on the first converted set)
  RecordAllocator records{0};
  // The CPU copy of every record (what the application wrote), indexed like the block:
  // one allocation per pool, none per set.
  std::vector<VkDescriptorBufferInfo> descriptors;
  std::vector<VkDescriptorSet> sets;  // live sets in DeviceBindings::sets (for reset and destroy)

  // Layer-owned sets: one slot per set the pool may hold (maxSets), in one arena of the
  // owned-set region (none when the region had no room: such pools keep native sets).
  // Allocation pops the free list or bumps; reset is O(1) (bump and free list cleared).
  OwnedSetSlot* slots = nullptr;
  uint32_t slot_count = 0;
  uint32_t slot_bump = 0;              // slots [0, slot_bump) have been handed out since the last reset
  uint32_t slot_built = 0;             // slots [0, slot_built) are constructed objects
  uint32_t free_slot = UINT32_MAX;     // head of the freed slots (OwnedSetSlot::next_free)
  size_t arena_bytes = 0;
  // Layer-owned sets allocated but not yet in the device's counters: two atomic adds per
  // set were half of the allocation's cost. (Valid applications destroy their pools
  // before the device, whose summary then has every set.)
  uint64_t owned_counted = 0;
  // The layouts of its layer-owned sets (kept alive until the pool goes; no per-set
  // reference count on the allocation path).
  std::vector<std::shared_ptr<const SetLayoutShadow>> owned_layouts;
  std::atomic<bool> owned_materialised{false};  // some layer-owned set has a full native set
  std::atomic<bool> owned_private_data{false};  // some layer-owned set has private data
};

// A descriptor update template on a converting layout (the handle the application holds
// is this object's address).
struct TemplateShadow {
  std::shared_ptr<const SetLayoutShadow> layout;
  std::vector<VkDescriptorUpdateTemplateEntry> converted;  // entries that write records
  VkDescriptorUpdateTemplate native = VK_NULL_HANDLE;     // the other entries, if any
  // Push-descriptor templates: every entry against the full native layout, for pushes
  // that must reach a pipeline running natively (push_descriptor_hooks.cpp).
  VkDescriptorUpdateTemplate full = VK_NULL_HANDLE;
  VkPipelineLayout full_layout = VK_NULL_HANDLE;
  bool push = false;
  VkPipelineBindPoint bind_point = VK_PIPELINE_BIND_POINT_GRAPHICS;  // of a push template
  uint32_t data_size = 0;  // bytes of pData a push with it reads (push templates)
  // Which vkDestroyDescriptorUpdateTemplate(KHR) the native templates go back through.
  PFN_vkDestroyDescriptorUpdateTemplate destroy = nullptr;
};

struct ModuleEntry {
  std::shared_ptr<const std::vector<uint32_t>> words;
  // What the module uses and its rewrites so far, found by the module's handle: a second
  // pipeline from it neither inspects nor hashes its words again (pipeline_hooks.cpp).
  mutable std::mutex mutex;
  mutable std::shared_ptr<const spirv::ModuleInfo> info;
  mutable std::vector<std::pair<std::string, std::shared_ptr<const CachedRewrite>>> rewrites;  // by OptionsKey
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
  VkPhysicalDeviceMemoryProperties memory_properties{};

  ShardedHandleMap<VkDescriptorSetLayout, SetLayoutEntry> set_layouts;
  ShardedHandleMap<VkPipelineLayout, PipelineLayoutShadow> pipeline_layouts;
  ShardedHandleMap<VkDescriptorPool, PoolShadow> pools;
  ShardedHandleMap<VkDescriptorSet, SetShadow> sets;
  ShardedHandleMap<VkShaderModule, ModuleEntry> modules;
  ShardedHandleMap<VkDescriptorUpdateTemplate, TemplateShadow> templates;
  RewriteCache rewrites;
  ShardedHandleMap<VkPipeline, FallbackPipeline> fallback_pipelines;
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
  // the first exists: until then draws and pipeline binds do not look for them.
  ShardedHandleMap<VkPipeline, RingPipeline> ring_pipelines;
  std::atomic<bool> any_ring{false};
  // Set once a pipeline layout needs the application's pushes widened: until then the
  // push-constant hook passes every push straight on (no layout lookup).
  std::atomic<bool> any_widened_pushes{false};

  // Private data the application set on layer-owned sets (the layer below never sees
  // those handles). Cold path.
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
  // Forgets the private data of layer-owned sets whose handles lie in [begin, end).
  void ForgetOwnedData(uint64_t begin, uint64_t end);

  // Fallbacks (cold paths): full native layouts and sets, and the pools of those sets.
  std::mutex fallback_mutex;
  std::vector<VkDescriptorSetLayout> owned_set_layouts;
  std::vector<VkPipelineLayout> owned_pipeline_layouts;
  std::vector<VkDescriptorPool> fallback_pools;  // the last one is allocated from
  // Full-layout push templates of templates the application destroyed (template_hooks.cpp).
  std::vector<std::pair<VkDescriptorUpdateTemplate, PFN_vkDestroyDescriptorUpdateTemplate>> retired_templates;
  // The full native layout of `layout` (created once); VK_NULL_HANDLE when it cannot be.
  VkDescriptorSetLayout FullSetLayout(const SetLayoutShadow& layout);
  VkPipelineLayout FullPipelineLayout(PipelineLayoutShadow& layout);
  // `set` as a full native set, written from its shadow and its native set if stale.
  VkDescriptorSet Materialise(VkDescriptorSet handle, SetShadow& set);
  void ReleaseFull(SetShadow& set);

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
};

// Per command buffer: what is bound at each bind point (to materialise sets for a
// fallback pipeline, and to put the converted binds back after one). Fixed arrays:
// nothing is allocated while recording.
class BindingsCommandData : public CommandData {
 public:
  explicit BindingsCommandData(RootRingPool& pool) : pool_(pool) {}
  ~BindingsCommandData() override { ring.ReleaseAll(pool_); }
  static constexpr uint32_t kMaxSets = 32;
  static constexpr uint32_t kMaxDynamicPerSet = 16;
  struct BoundSet {
    VkPipelineLayout layout = VK_NULL_HANDLE;
    VkDescriptorSet set = VK_NULL_HANDLE;
    uint32_t dynamic_count = 0;
    uint32_t dynamic[kMaxDynamicPerSet];
  };
  struct BindPoint {
    const FallbackPipeline* fallback = nullptr;  // the bound pipeline fell back
    bool fallback_applied = false;               // its full sets are bound
    bool converted_disturbed = false;            // full binds replaced the converted ones
    bool untrackable = false;                    // a bind this state cannot hold
    const NativeTwin* twin = nullptr;            // the bound pipeline's native twin record
    VkPipeline pipeline = VK_NULL_HANDLE;        // the pipeline the application bound
    bool twin_bound = false;                     // its twin is bound instead
    BoundSet sets[kMaxSets];
    // The block of the last push to each set number (pushes keep the descriptors an
    // earlier push wrote and this one does not: the new block starts as its copy).
    const SetLayoutShadow* push_layout[kMaxSets] = {};
    const uint8_t* push_block[kMaxSets] = {};
    // The last push to each set number as the application made it, kept in push_arena,
    // so that a pipeline running natively that is bound after it still gets it (pushed
    // again with its full layout: push_descriptor_hooks.cpp).
    struct PushCopy {
      bool valid = false;
      // The push template's full-layout twin (kept until the device goes, so the
      // application may destroy its template meanwhile); else `writes` raw writes.
      VkDescriptorUpdateTemplate with_template = VK_NULL_HANDLE;
      uint32_t offset = 0;                             // in push_arena
      uint32_t size = 0;
      uint32_t writes = 0;
    };
    PushCopy push_copy[kMaxSets];
    // The root of layouts whose root lives in the ring: each delivery updates it and
    // copies it whole to a new ring slot (root_delivery.cpp).
    alignas(8) uint8_t ring_root[kRingRootBytes] = {};
    bool ring_root_written = false;
    VkPipelineLayout ring_layout = VK_NULL_HANDLE;  // of the last reserved-set bind
    bool ring_disturbed = false;                    // sets bound through another layout since
    const RingPipeline* ring_pipeline = nullptr;    // the bound pipeline reads a ring root
  };
  void OnReset() override {
    points[0] = BindPoint{};
    points[1] = BindPoint{};
    last_layout = VK_NULL_HANDLE;
    last_layout_shadow = nullptr;
    push_arena.clear();  // keeps its capacity: no allocation once a recording has grown it
    ring.ReleaseAll(pool_);
    error = VK_SUCCESS;
  }
  VkResult RecordingError() const override { return error; }
  void Fail(VkResult result) {
    if (error == VK_SUCCESS) error = result;
  }
  // graphics 0, compute 1 (other bind points are not tracked)
  BindPoint* At(VkPipelineBindPoint bp) {
    return bp == VK_PIPELINE_BIND_POINT_GRAPHICS ? &points[0] : bp == VK_PIPELINE_BIND_POINT_COMPUTE ? &points[1] : nullptr;
  }
  BindPoint points[2];
  // The pipeline layout of the last bind and its shadow, valid while the lookup
  // generation is this one (lookup_cache.h).
  VkPipelineLayout last_layout = VK_NULL_HANDLE;
  const PipelineLayoutShadow* last_layout_shadow = nullptr;
  uint64_t last_layout_generation = 0;
  RootRing ring;
  std::vector<uint8_t> push_arena;  // BindPoint::PushCopy contents
  VkResult error = VK_SUCCESS;  // the first failure while recording (out of ring memory)
  RootRingPool& pool() { return pool_; }

 private:
  RootRingPool& pool_;
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
inline SetShadow* FindSet(DeviceBindings& b, VkDescriptorSet handle) {
  if (SetShadow* owned = OwnedSet(handle)) return owned;
  return b.sets.Find(handle);
}

DeviceBindings& BindingsOf(VkDevice device);
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
BindingsCommandData* CommandDataOf(DeviceBindings& b, VkCommandBuffer cb);
// The converted bind (bind_hooks.cpp): roots pushed, native parts bound natively.
void BindSets(DeviceBindings& b, VkCommandBuffer cb, VkPipelineBindPoint bindPoint, VkPipelineLayout layout,
              const PipelineLayoutShadow* pl, uint32_t firstSet, uint32_t setCount, const VkDescriptorSet* pSets,
              uint32_t dynamicOffsetCount, const uint32_t* pDynamicOffsets);
DeviceBindings& BindingsOf(VkCommandBuffer cb);
// fallback.cpp: the sets bound at `point` bound again as full native sets for `f`'s
// layout; and the converted binds put back after that.
void BindFullSets(DeviceBindings& b, VkCommandBuffer cb, VkPipelineBindPoint bind_point,
                  BindingsCommandData::BindPoint& point, const FallbackPipeline& f);
void RestoreConvertedBinds(DeviceBindings& b, VkCommandBuffer cb, VkPipelineBindPoint bind_point,
                           BindingsCommandData::BindPoint& point);
// push_descriptor_hooks.cpp: the last push to `set` made again, natively, with `full` (the
// full native layout of a pipeline that runs natively). False when there is none.
bool RepushNatively(DeviceBindings& b, VkCommandBuffer cb, VkPipelineBindPoint bind_point, BindingsCommandData& data,
                    BindingsCommandData::BindPoint& point, uint32_t set, VkPipelineLayout full);
// Root delivery and the reserved set (root_delivery.cpp): sets bound through `layout`
// may have disturbed the reserved set; before a draw or dispatch, the bound pipeline gets
// its reserved set back when they did.
void NoteSetsBound(DeviceBindings& b, VkCommandBuffer cb, VkPipelineBindPoint bindPoint, VkPipelineLayout layout);
void RestoreRingRoot(DeviceBindings& b, VkCommandBuffer cb, VkPipelineBindPoint bindPoint);
// Delivers root bytes [lo, hi) of `pl`'s root (`bytes`: those hi - lo bytes) to where the
// rewritten pipelines read them (root_delivery.cpp): the one place that knows where the
// root lives.
void DeliverRoot(DeviceBindings& b, VkCommandBuffer cb, VkPipelineBindPoint bindPoint, VkPipelineLayout layout,
                 const PipelineLayoutShadow& pl, uint32_t lo, uint32_t hi, const uint8_t* bytes);

}  // namespace bindery::bindings
