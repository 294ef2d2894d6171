// What the indirect-bindings capability keeps for each application object it shadows:
// set layouts, pipeline layouts (and their roots), pools, sets (their argument-block
// records, their full native form for pipelines running natively), layer-owned sets,
// and update templates (the pipelines' own are pipelines/pipeline_shadows.h). Found by
// the handles the application holds (DescriptorStore's handle maps).
//
// Handles: the application holds real objects of the layer below — the smaller native
// set layout, the native pipeline layout with the root's push-constant range, and for a
// set whose layout keeps native bindings a native set of the smaller layout. A set whose
// layout has no native binding left is layer-owned: no native set exists, its handle is
// the address of its slot in its pool's arena (OwnedSetSlot, owned_set_region.h), and
// every hook taking a VkDescriptorSet recognises it (OwnedSet) and never sends it down.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include <vulkan/vulkan.h>

#include "bindings/descriptors/owned_set_region.h"
#include "bindings/model/record_allocator.h"
#include "bindings/model/root_layout.h"
#include "bindings/model/set_layout_shadow.h"
#include "spirv/rewrite.h"

namespace bindery::bindings {

struct SetLayoutEntry {
  std::shared_ptr<const SetLayoutShadow> shadow;
  // A layout that converts nothing but has bindings of a type others convert: its sets'
  // buffer descriptors are kept once some layout converts (native_buffer_sets.h).
  bool native_buffers = false;
};

// Stages the root is visible to (besides those of the application's ranges).
inline constexpr VkShaderStageFlags kRootStages = VK_SHADER_STAGE_ALL_GRAPHICS | VK_SHADER_STAGE_COMPUTE_BIT;

class DeviceCore;

// The layer's copy of a pipeline layout whose root lives in the ring. Draws bind the
// reserved set through it (root_delivery.cpp), also after the application destroyed its
// own layout, for as long as a pipeline made with that layout lives (the spec lets
// pipelines outlive their layout). Held by the layout's shadow and by each such pipeline
// (RingPipeline); the last holder destroys it, so copies are bounded by live objects,
// not by how many layouts the application ever made.
class RingLayoutCopy {
 public:
  RingLayoutCopy(DeviceCore& b, VkPipelineLayout handle);
  ~RingLayoutCopy();
  RingLayoutCopy(const RingLayoutCopy&) = delete;
  RingLayoutCopy& operator=(const RingLayoutCopy&) = delete;
  VkPipelineLayout handle() const { return handle_; }

 private:
  DeviceCore& b_;
  VkPipelineLayout handle_;
};

struct TwinLayout;  // twin_layout.h

struct PipelineLayoutShadow {
  RootLayout root;
  // The stages a root push names, per bind point (graphics 0, compute 1): those of every
  // range that covers the bind point's root bytes (ExtendPushRanges), as a push must.
  VkShaderStageFlags root_stages[2] = {kRootStages, kRootStages};
  VkShaderStageFlags RootStages(int index) const { return root_stages[index == 1 ? 1 : 0]; }
  // Where bind point `index`'s root bytes lie, relative to the root's offsets: the compute
  // copy `root.compute_shift` bytes after the graphics one (RootPushSpace).
  uint32_t RootShift(int index) const { return index == 1 ? root.compute_shift : 0; }
  // The application's ranges as extended to the end of push-constant space.
  std::vector<VkPushConstantRange> app_ranges;
  // More than one application range: its pushes are split at range boundaries and
  // widened to every stage whose extended range covers the bytes.
  bool widen_app_pushes = false;
  // The push-constant ranges sent down (a fallback layout uses the same ones, so the
  // application's pushes stay compatible for push constants with it).
  std::vector<VkPushConstantRange> native_ranges;
  // Names native_ranges (a hash): layouts with equal keys place their roots alike.
  uint64_t ranges_key = 0;
  // The full native layout for pipelines that fall back (created on first need, owned
  // by DescriptorStore, guarded by DescriptorStore::fallback_mutex).
  VkPipelineLayout full = VK_NULL_HANDLE;
  // The application's creation flags: the full layout keeps them
  // (VK_PIPELINE_LAYOUT_CREATE_INDEPENDENT_SETS_BIT_EXT, with VK_NULL_HANDLE sets, for
  // graphics pipeline libraries: pipeline_libraries.h).
  VkPipelineLayoutCreateFlags create_flags = 0;
  // Sets that exist only as roots are left out of the native layout, and the others
  // renumbered in order: native_set[s] is set s's number in the native layout (kNoOffset
  // for a root-only set). The numbering of sets 0..s depends only on those sets' layouts,
  // so layouts compatible for set s number it alike. `renumbered`: some set moved, so
  // shaders' remaining descriptors are renumbered too (spirv/renumber.h).
  std::vector<uint32_t> native_set;
  bool renumbered = false;
  uint32_t NativeSet(uint32_t set) const { return set < native_set.size() ? native_set[set] : set; }
  // A root in the ring: a layer-owned copy of the native layout, for re-binding the
  // reserved set at a draw even after the application destroyed its layout
  // (root_delivery.cpp). Shared with the pipelines made with the layout.
  std::shared_ptr<const RingLayoutCopy> ring_copy;
  // A converting layout: what its rewritten pipelines' native twins need of it, made with
  // the layout and shared by them (native_twin.h).
  std::shared_ptr<TwinLayout> twin_layout;
  // What the layout gives every rewrite of a pipeline made with it, as the rewrite cache
  // keys it (pipelines/stage_options.h, StageRewriteKey): made at the first such pipeline.
  mutable std::once_flag rewrite_key_once;
  mutable std::string rewrite_key;
};

struct PoolShadow;

// A converted set: its records in the pool's block, and the CPU copy of what each record
// names (for sets that must be materialised natively).
struct SetShadow {
  // Kept alive by `keep` (sets in DescriptorStore::sets) or by the pool (layer-owned sets).
  const SetLayoutShadow* layout = nullptr;
  std::shared_ptr<const SetLayoutShadow> keep;
  PoolShadow* pool = nullptr;
  uint32_t first_record = 0;
  uint32_t record_count = 0;
  // The count the set was allocated with for its layout's variable-count binding (0 when the
  // allocation gave none): a native one has that many descriptors, not the layout's maximum.
  uint32_t variable_count = 0;
  uint8_t* records = nullptr;           // host pointer to the first record
  // The same records in host memory (the block may be device memory the CPU reads slowly):
  // what a bind copies into the root when the set's records travel there (root_layout.h).
  uint8_t* host_records = nullptr;
  VkDeviceAddress address = 0;          // device address of the first record
  // Per record, as the application wrote it: the set's run of its pool's CPU copy.
  VkDescriptorBufferInfo* descriptors = nullptr;
  // The set as a full native set, for pipelines that fall back (allocated on first need;
  // rewritten from the shadow when `full_stale`). Guarded by DescriptorStore::fallback_mutex.
  VkDescriptorSet full = VK_NULL_HANDLE;
  VkDescriptorPool full_pool = VK_NULL_HANDLE;
  bool full_stale = true;
  // Every binding has been written into `full` since it went stale (all are written at
  // the first use, however many the layout has: writing one again later would update a
  // set that recorded command buffers still read).
  bool full_written = false;
  // Records naming a buffer without a device address (pipelines/native_twin.h): while
  // non-zero, draws and dispatches of rewritten pipelines with this set bound run natively.
  uint32_t unaddressable = 0;
  // Dynamic descriptors the layer made null in `full` (bit i: the set's i-th dynamic offset)
  // where the application wrote none that still exists: bound with dynamic offset 0
  // (BindFullSets). Guarded by DescriptorStore::fallback_mutex.
  uint32_t full_null_dynamic = 0;
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
  VkDeviceSize block_bytes = 0;  // its memory (DeviceCore::gpu_bytes)
  RecordAllocator records{0};
  // The CPU copy of every record (what the application wrote), indexed like the block:
  // one allocation per pool, none per set.
  std::vector<VkDescriptorBufferInfo> descriptors;
  std::vector<uint64_t> host_records;  // the block's records, two words each (SetShadow::host_records)
  std::vector<VkDescriptorSet> sets;  // live sets in DescriptorStore::sets (for reset and destroy)
  std::vector<VkDescriptorSet> native_buffer_sets;  // live sets in DescriptorStore::native_buffer_sets

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
  // Created with UPDATE_AFTER_BIND_BIT: full sets of its sets come from such a pool too
  // (descriptors are copied only between sets of pools that agree on it).
  bool update_after_bind = false;
  std::atomic<bool> owned_private_data{false};  // some layer-owned set has private data
};

// A descriptor update template on a converting layout (the handle the application holds
// is this object's address).
struct TemplateShadow {
  std::shared_ptr<const SetLayoutShadow> layout;
  std::vector<VkDescriptorUpdateTemplateEntry> converted;  // entries that write records
  VkDescriptorUpdateTemplate native = VK_NULL_HANDLE;     // the other entries, if any
  std::vector<VkDescriptorUpdateTemplateEntry> native_entries;  // what `native` writes
  // Push-descriptor templates: every entry against the full native layout, for pushes
  // that must reach a pipeline running natively (push_descriptor_hooks.cpp).
  VkDescriptorUpdateTemplate full = VK_NULL_HANDLE;
  VkPipelineLayout full_layout = VK_NULL_HANDLE;
  bool push = false;
  std::string full_content;  // what `full` was made from (DescriptorStore::RetiredTemplate)
  VkPipelineBindPoint bind_point = VK_PIPELINE_BIND_POINT_GRAPHICS;  // of a push template
  uint32_t data_size = 0;  // bytes of pData a push with it reads (push templates)
  // A push with it writes every descriptor of its set layout (push_coverage.h).
  bool writes_every_descriptor = false;
  // Which vkDestroyDescriptorUpdateTemplate(KHR) the native templates go back through.
  PFN_vkDestroyDescriptorUpdateTemplate destroy = nullptr;
};


}  // namespace bindery::bindings
