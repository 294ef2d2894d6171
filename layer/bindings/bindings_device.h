// The indirect-bindings capability on one device: what it decided before the device
// existed (BindingsPlan), the shadows of descriptor objects it keeps, the rewrite cache
// and its counters. Written as a layer of its own (chassis/capability.h): it calls down
// through `next`; buffer addresses and sizes come from the chassis's shared trackers.
//
// Handles: every object the application holds is a real object of the layer below — the
// smaller native set layout, the native pipeline layout with the root's push-constant
// range, a native descriptor set (of the smaller layout) — so functions the capability
// does not hook (debug names, private data) keep working. The shadows are found by
// those handles.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include <vulkan/vulkan.h>

#include "bindings/record_allocator.h"
#include "bindings/rewrite_cache.h"
#include "bindings/root_layout.h"
#include "bindings/set_layout_shadow.h"
#include "chassis/capability.h"
#include "chassis/state.h"
#include "chassis/trackers.h"
#include "core/handle_map.h"
#include "spirv/rewrite.h"

namespace bindery::bindings {

class BindingsPlan : public DevicePlan {
 public:
  bool shader_int64 = false;         // the application enabled shaderInt64
  bool bounds_checks = false;        // the application enabled robustBufferAccess(2)
  bool convert_uniform_buffers = false;
  std::string dump_dir;              // where rewritten modules are written ("" none)
  spirv::TargetEnv target = spirv::TargetEnv::kVulkan1_0;
  uint32_t api_version = VK_API_VERSION_1_0;
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
};

// A pipeline created natively (its shaders could not be rewritten): binding it makes the
// sets bound at its bind point be materialised as full native sets at the next draw or
// dispatch.
struct FallbackPipeline {
  VkPipelineLayout full = VK_NULL_HANDLE;  // the full native layout it was created with
  std::vector<std::shared_ptr<const SetLayoutShadow>> sets;  // its layout's sets
};

struct PoolShadow;

// A converted set: its records in the pool's block, and the CPU copy of what each record
// names (for sets that must be materialised natively).
struct SetShadow {
  std::shared_ptr<const SetLayoutShadow> layout;
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
};

struct PoolShadow {
  VkBuffer buffer = VK_NULL_HANDLE;  // the argument blocks (none when the pool holds no converted descriptor)
  VkDeviceMemory memory = VK_NULL_HANDLE;
  uint8_t* mapped = nullptr;
  VkDeviceAddress address = 0;
  RecordAllocator records{0};
  // The CPU copy of every record (what the application wrote), indexed like the block:
  // one allocation per pool, none per set.
  std::vector<VkDescriptorBufferInfo> descriptors;
  std::vector<VkDescriptorSet> sets;  // live sets with records (for reset and destroy)
};

// A descriptor update template on a converting layout (the handle the application holds
// is this object's address).
struct TemplateShadow {
  std::shared_ptr<const SetLayoutShadow> layout;
  std::vector<VkDescriptorUpdateTemplateEntry> converted;  // entries that write records
  VkDescriptorUpdateTemplate native = VK_NULL_HANDLE;     // the other entries, if any
};

struct ModuleEntry {
  std::shared_ptr<const std::vector<uint32_t>> words;
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
  // Set once the first fallback pipeline exists: until then the draw/dispatch and
  // bind-pipeline hooks only pass the call on (no command-state lookup).
  std::atomic<bool> any_fallback{false};

  // Fallbacks (cold paths): full native layouts and sets, and the pools of those sets.
  std::mutex fallback_mutex;
  std::vector<VkDescriptorSetLayout> owned_set_layouts;
  std::vector<VkPipelineLayout> owned_pipeline_layouts;
  std::vector<VkDescriptorPool> fallback_pools;  // the last one is allocated from
  // The full native layout of `layout` (created once); VK_NULL_HANDLE when it cannot be.
  VkDescriptorSetLayout FullSetLayout(const SetLayoutShadow& layout);
  VkPipelineLayout FullPipelineLayout(PipelineLayoutShadow& layout);
  // `set` as a full native set, written from its shadow and its native set if stale.
  VkDescriptorSet Materialise(VkDescriptorSet handle, SetShadow& set);
  void ReleaseFull(SetShadow& set);

  struct Counters {
    Counter* rewritten;    // pipelines created from rewritten shaders
    Counter* fallen_back;  // pipelines that needed a conversion and could not have it
    Counter* sets;         // descriptor sets with argument blocks
    Counter* block_bytes;  // argument-block device memory allocated for pools (bytes, all pools ever)
  } counters;
};

// Per command buffer: what is bound at each bind point (to materialise sets for a
// fallback pipeline, and to put the converted binds back after one). Fixed arrays:
// nothing is allocated while recording.
class BindingsCommandData : public CommandData {
 public:
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
    BoundSet sets[kMaxSets];
  };
  void OnReset() override { points[0] = BindPoint{}; points[1] = BindPoint{}; }
  // graphics 0, compute 1 (other bind points are not tracked)
  BindPoint* At(VkPipelineBindPoint bp) {
    return bp == VK_PIPELINE_BIND_POINT_GRAPHICS ? &points[0] : bp == VK_PIPELINE_BIND_POINT_COMPUTE ? &points[1] : nullptr;
  }
  BindPoint points[2];
};

DeviceBindings& BindingsOf(VkDevice device);
BindingsCommandData* CommandDataOf(DeviceBindings& b, VkCommandBuffer cb);
// The converted bind (bind_hooks.cpp): roots pushed, native parts bound natively.
void BindSets(DeviceBindings& b, VkCommandBuffer cb, VkPipelineBindPoint bindPoint, VkPipelineLayout layout,
              const PipelineLayoutShadow* pl, uint32_t firstSet, uint32_t setCount, const VkDescriptorSet* pSets,
              uint32_t dynamicOffsetCount, const uint32_t* pDynamicOffsets);
DeviceBindings& BindingsOf(VkCommandBuffer cb);

}  // namespace bindery::bindings
