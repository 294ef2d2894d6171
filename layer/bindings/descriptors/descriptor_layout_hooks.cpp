// Set layouts and pipeline layouts: the application gets the native objects of the
// smaller layouts (converted bindings removed; the root's push-constant range added), and
// the capability keeps their shadows by those handles.
#include <algorithm>
#include <mutex>
#include <vector>

#include "bindings/descriptors/descriptor_store.h"
#include "bindings/descriptors/descriptor_hooks.h"
#include "bindings/model/lookup_cache.h"
#include "bindings/descriptors/twin_layout.h"
#include "core/chain_edit.h"
#include "core/pnext.h"

namespace bindery::bindings {
namespace {

// The sets sent down: sets that exist only as roots are left out, the others keep their
// order (this is how more sets than the driver allows can be bound: only sets with
// native descriptors count against its maxBoundDescriptorSets). Fills the shadow's
// native_set numbering.
std::vector<VkDescriptorSetLayout> NativeSetLayouts(const VkPipelineLayoutCreateInfo& app,
                                                    PipelineLayoutShadow& shadow) {
  std::vector<VkDescriptorSetLayout> native_layouts;
  shadow.native_set.assign(app.setLayoutCount, kNoOffset);
  for (uint32_t i = 0; i < app.setLayoutCount; ++i) {
    const SetRoot& r = shadow.root.sets[i];
    if (r.layout != nullptr && !r.layout->has_native) continue;
    shadow.native_set[i] = static_cast<uint32_t>(native_layouts.size());
    shadow.renumbered = shadow.renumbered || shadow.native_set[i] != i;
    native_layouts.push_back(app.pSetLayouts[i]);
  }
  return native_layouts;
}

// The push-constant ranges a layout is sent down with, on a device where layouts convert.
// Without the split (RootPushSpace): each application range extended to the end of
// push-constant space, the stages no application range names one range over the root.
// Split: the root has a graphics region and, after it, a compute region: an
// application range naming compute is extended to the end of push-constant space, any
// other to the end of the graphics region; the graphics stages no application range names
// get one range over the graphics region, and compute, if no application range names it,
// one over the rest. Every stage sees its bind point's root, no two ranges share a stage,
// no graphics stage's range reaches the compute region unless an application range names
// it with compute (then the compute root push must name it too), and the result depends
// only on the application's ranges: every layout of the device gets it (whether it
// converts, keeps its root in the ring, or has no set at all), so layouts the spec calls
// compatible (identical push-constant ranges) stay compatible.
void ExtendPushRanges(const DescriptorStore& b, const VkPipelineLayoutCreateInfo& app, PipelineLayoutShadow& shadow) {
  std::vector<VkPushConstantRange> ranges(app.pPushConstantRanges, app.pPushConstantRanges + app.pushConstantRangeCount);
  uint32_t app_end = 0;
  VkShaderStageFlags app_stages = 0;
  for (const VkPushConstantRange& r : ranges) {
    app_end = std::max(app_end, r.offset + r.size);
    app_stages |= r.stageFlags;
  }
  const RootPushSpace space = SplitPushSpace(app_end, b.max_push_bytes, b.plan.root_split);
  if (!space.split) {
    // One root every stage sees: each application range to the end, the other stages one
    // range over the root.
    for (VkPushConstantRange& r : ranges) r.size = b.max_push_bytes - r.offset;
    const VkShaderStageFlags others = kRootStages & ~app_stages;
    if (others != 0 && space.begin < b.max_push_bytes) {
      ranges.push_back({others, space.begin, b.max_push_bytes - space.begin});
    }
    shadow.root_stages[0] = shadow.root_stages[1] = kRootStages | app_stages;
  } else {
    VkShaderStageFlags graphics_region = 0, compute_region = 0;  // stages whose ranges cover them
    for (VkPushConstantRange& r : ranges) {
      const bool compute = (r.stageFlags & VK_SHADER_STAGE_COMPUTE_BIT) != 0;
      r.size = std::max(r.size, (compute ? b.max_push_bytes : space.graphics_end()) - r.offset);
      graphics_region |= r.stageFlags;
      if (compute) compute_region |= r.stageFlags;
    }
    const VkShaderStageFlags others = kRootStages & ~app_stages;
    const VkShaderStageFlags graphics_others = others & ~VkShaderStageFlags{VK_SHADER_STAGE_COMPUTE_BIT};
    if (graphics_others != 0 && space.half != 0) {
      ranges.push_back({graphics_others, space.begin, space.half});
      graphics_region |= graphics_others;
    }
    if ((others & VK_SHADER_STAGE_COMPUTE_BIT) != 0 && space.graphics_end() < b.max_push_bytes) {
      ranges.push_back({VK_SHADER_STAGE_COMPUTE_BIT, space.graphics_end(), b.max_push_bytes - space.graphics_end()});
      compute_region |= VK_SHADER_STAGE_COMPUTE_BIT;
    }
    shadow.root_stages[0] = graphics_region;
    shadow.root_stages[1] = compute_region;
  }
  // Extended ranges may now overlap another range's bytes: the application's pushes must
  // then name those stages too (CmdPushConstants widens them).
  shadow.app_ranges.assign(ranges.begin(), ranges.begin() + app.pushConstantRangeCount);
  shadow.widen_app_pushes = app.pushConstantRangeCount > 1;
  shadow.native_ranges = std::move(ranges);
  uint64_t key = 1469598103934665603ull;  // FNV-1a over (stages, offset, size) of each range
  for (const VkPushConstantRange& r : shadow.native_ranges) {
    for (const uint32_t v : {r.stageFlags, r.offset, r.size}) key = (key ^ v) * 1099511628211ull;
  }
  shadow.ranges_key = key;
}

// Are layouts of this device sent down with extended push-constant ranges? Where every
// layout may convert, always; under auto where only layouts beyond a driver limit do,
// from the first converting set layout on (layouts made before keep the application's
// ranges: natively the two could not have been compatible anyway, as one is beyond the
// driver's limits).
bool ExtendsPushRanges(const DescriptorStore& b) { return b.plan.policy.convert_everything || b.Converting(); }

// ExtendPushRanges, and where the application's pushes must now be widened, the device
// told so (its push hooks stop passing them straight on).
void ExtendPushRangesAndMark(DescriptorStore& b, const VkPipelineLayoutCreateInfo& app, PipelineLayoutShadow& shadow) {
  ExtendPushRanges(b, app, shadow);
  if (shadow.widen_app_pushes) {
    b.any_widened_pushes.store(true, std::memory_order_release);
    b.MarkWork(DescriptorStore::kWorkWidenedPushes);
  }
}

// A layout whose root lives in the ring: the application's push-constant ranges as they
// are, its sets with native descriptors (numbered as NativeSetLayouts does), and the
// reserved set right after them. Shaders name the reserved set by the application's set
// count (no set of theirs has that number), renumbered like the others to its native
// number. With the root's address in push constants instead (RootLayout::address_in_push)
// there is no reserved set. A layer-owned copy of the layout is made too (RestoreRingRoot
// binds or pushes through it; it lives as long as the layout or a pipeline made with it:
// RingLayoutCopy).
VkResult CreateRingRootLayout(DescriptorStore& b, const VkPipelineLayoutCreateInfo& app,
                              std::unique_ptr<PipelineLayoutShadow> shadow, const VkAllocationCallbacks* pAllocator,
                              VkPipelineLayout* pPipelineLayout) {
  std::vector<VkDescriptorSetLayout> set_layouts = NativeSetLayouts(app, *shadow);
  if (!shadow->root.address_in_push) {
    shadow->root.native_buffer_set = static_cast<uint32_t>(set_layouts.size());
    shadow->renumbered = shadow->renumbered || shadow->root.native_buffer_set != shadow->root.buffer_set;
    set_layouts.push_back(b.root_set_layout);
  }
  ExtendPushRangesAndMark(b, app, *shadow);
  VkPipelineLayoutCreateInfo info = app;
  info.pushConstantRangeCount = static_cast<uint32_t>(shadow->native_ranges.size());
  info.pPushConstantRanges = shadow->native_ranges.empty() ? nullptr : shadow->native_ranges.data();
  info.setLayoutCount = static_cast<uint32_t>(set_layouts.size());
  info.pSetLayouts = set_layouts.data();
  VkPipelineLayout copy = VK_NULL_HANDLE;
  VkResult result = b.next.CreatePipelineLayout(b.device.handle, &info, nullptr, &copy);
  if (result != VK_SUCCESS) return result;
  shadow->ring_copy = std::make_shared<const RingLayoutCopy>(b, copy);
  result = b.next.CreatePipelineLayout(b.device.handle, &info, pAllocator, pPipelineLayout);
  if (result != VK_SUCCESS) return result;
  shadow->twin_layout = MakeTwinLayout(*shadow);
  b.pipeline_layouts.Insert(*pPipelineLayout, std::move(shadow));
  // From now on sets may be bound with their roots in the ring: draws and dispatches look
  // for slots to deliver where their pipelines read them, whether or not any pipeline of
  // this layout exists (root_delivery.cpp: DeliverMovedSlots; the fuzzer's seed4002716).
  b.any_ring.store(true, std::memory_order_release);
  b.MarkWork(DescriptorStore::kWorkRing);
  return result;
}

// The steps of CreatePipelineLayout.

// The shadows of the layout's set layouts, by set number (nullptr where the capability
// does not know one).
std::vector<std::shared_ptr<const SetLayoutShadow>> SetShadowsOf(DescriptorStore& b,
                                                                 const VkPipelineLayoutCreateInfo& app) {
  std::vector<std::shared_ptr<const SetLayoutShadow>> sets(app.setLayoutCount);
  for (uint32_t i = 0; i < app.setLayoutCount; ++i) {
    if (const SetLayoutEntry* e = b.set_layouts.Find(app.pSetLayouts[i])) sets[i] = e->shadow;
  }
  return sets;
}

// One past the application's last push-constant byte.
uint32_t AppPushEnd(const VkPipelineLayoutCreateInfo& app) {
  uint32_t app_end = 0;
  for (uint32_t i = 0; i < app.pushConstantRangeCount; ++i) {
    const VkPushConstantRange& r = app.pPushConstantRanges[i];
    app_end = std::max(app_end, r.offset + r.size);
  }
  return app_end;
}

// A layout that converts nothing: kept too (binds through it are recorded: a fallback
// pipeline may need those sets), sent down with its ranges extended where the device's
// layouts get them.
VkResult CreatePlainLayout(DescriptorStore& b, const VkPipelineLayoutCreateInfo& app,
                           std::unique_ptr<PipelineLayoutShadow> shadow, const VkAllocationCallbacks* pAllocator,
                           VkPipelineLayout* pPipelineLayout) {
  VkPipelineLayoutCreateInfo info = app;
  if (ExtendsPushRanges(b)) {
    ExtendPushRangesAndMark(b, app, *shadow);
    info.pushConstantRangeCount = static_cast<uint32_t>(shadow->native_ranges.size());
    info.pPushConstantRanges = shadow->native_ranges.empty() ? nullptr : shadow->native_ranges.data();
  } else {
    shadow->native_ranges.assign(app.pPushConstantRanges, app.pPushConstantRanges + app.pushConstantRangeCount);
  }
  const VkResult result = b.next.CreatePipelineLayout(b.device.handle, &info, pAllocator, pPipelineLayout);
  if (result != VK_SUCCESS) return result;
  shadow->full = *pPipelineLayout;
  b.pipeline_layouts.Insert(*pPipelineLayout, std::move(shadow));
  return result;
}

// A root that does not fit in push constants goes to the command buffer's ring, read
// through a reserved set after the application's sets when the driver has one more set to
// give, else through its address in push constants (PlanRingRoot, root_delivery.cpp): true,
// and shadow.root is that placement. Else logged: the layout's pipelines cannot be rewritten.
bool PlaceRootInRing(DescriptorStore& b, const VkPipelineLayoutCreateInfo&,
                     const std::vector<std::shared_ptr<const SetLayoutShadow>>& sets, uint32_t app_end,
                     const RootPushSpace& space, PipelineLayoutShadow& shadow) {
  const char* why_not = nullptr;
  RootLayout ring = PlanRingRoot(sets, space, b.max_bound_sets, b.root_set_layout != VK_NULL_HANDLE, &why_not);
  if (ring.fits) {
    if (ring.address_in_push) {
      BINDERY_LOG(b.device.log(), kDebug, "bindings-root",
                  "a pipeline layout's root (%u bytes) lives in the ring, read through its address in push constants "
                  "at byte %u: no descriptor set is left for the reserved one",
                  ring.end, ring.address_offset);
    }
    shadow.root = std::move(ring);
    return true;
  }
  BINDERY_LOG(b.device.log(), kWarn, "bindings-root",
              "a pipeline layout's root (%u bytes after the application's %u) does not fit in %u bytes of push "
              "constants (one copy per bind point where split), nor in the ring (%s); its pipelines cannot "
              "be rewritten",
              shadow.root.end - shadow.root.begin, app_end, space.graphics_end() - space.begin, why_not);
  return false;
}

// A converting layout whose root lies in push constants (or fits nowhere: its pipelines
// fall back): sent down with the sets that keep native descriptors and the ranges every
// stage needs to see the root.
VkResult CreateConvertingLayout(DescriptorStore& b, const VkPipelineLayoutCreateInfo& app,
                                std::unique_ptr<PipelineLayoutShadow> shadow, const VkAllocationCallbacks* pAllocator,
                                VkPipelineLayout* pPipelineLayout) {
  if (shadow->root.reshaped_sets != 0) {
    // Its slots of some sets are not where compatible layouts keep them (root_layout.h):
    // draws deliver them where the bound pipeline reads them, as once a ring root exists.
    b.any_ring.store(true, std::memory_order_release);
    b.MarkWork(DescriptorStore::kWorkRing);
  }
  // Every stage must see the root (ExtendPushRanges).
  ExtendPushRangesAndMark(b, app, *shadow);
  const std::vector<VkPushConstantRange>& ranges = shadow->native_ranges;
  VkPipelineLayoutCreateInfo info = app;
  info.pushConstantRangeCount = static_cast<uint32_t>(ranges.size());
  info.pPushConstantRanges = ranges.empty() ? nullptr : ranges.data();
  const std::vector<VkDescriptorSetLayout> native_layouts = NativeSetLayouts(app, *shadow);
  if (native_layouts.size() > b.plan.native_limits.maxBoundDescriptorSets) {
    BINDERY_LOG(b.device.log(), kError, "bindings-sets",
                "a pipeline layout has %zu sets with descriptors that stay native (images, samplers, texel buffers...); "
                "the driver binds at most %u: creation fails",
                native_layouts.size(), b.plan.native_limits.maxBoundDescriptorSets);
    return VK_ERROR_OUT_OF_DEVICE_MEMORY;
  }
  info.setLayoutCount = static_cast<uint32_t>(native_layouts.size());
  info.pSetLayouts = native_layouts.empty() ? nullptr : native_layouts.data();
  const VkResult result = b.next.CreatePipelineLayout(b.device.handle, &info, pAllocator, pPipelineLayout);
  if (result != VK_SUCCESS) return result;
  shadow->twin_layout = MakeTwinLayout(*shadow);
  b.pipeline_layouts.Insert(*pPipelineLayout, std::move(shadow));
  return result;
}

}  // namespace

RingLayoutCopy::RingLayoutCopy(DeviceCore& b, VkPipelineLayout handle) : b_(b), handle_(handle) {
  b_.ring_layout_copies.Add(1);
}

RingLayoutCopy::~RingLayoutCopy() {
  b_.next.DestroyPipelineLayout(b_.device.handle, handle_, nullptr);
  b_.ring_layout_copies.Sub(1);
}

bool ShouldConvertLayout(DescriptorStore& b, const VkDescriptorSetLayoutCreateInfo& info) {
  if (!LayoutFlagsAllowConversion(info.flags)) return false;
  if (b.plan.policy.convert_everything) return true;
  if (!b.plan.policy.convert_over_limits) return false;
  const char* why = nullptr;
  if (!UsesRaisedLimit(info, b.plan.native_limits, b.plan.convert_uniform_buffers, &why)) return false;
  BINDERY_LOG(b.device.log(), kInfo, "bindings-over-limit",
              "a descriptor set layout goes beyond the driver's %s: its buffer descriptors become argument-block "
              "records",
              why);
  return true;
}

NativeLayoutSplit::NativeLayoutSplit(DescriptorStore& b, const VkDescriptorSetLayoutCreateInfo& app, bool convert)
    : chain_(app.pNext), info_(app) {
  const auto* flags_info = FindInChain<VkDescriptorSetLayoutBindingFlagsCreateInfo>(
      app.pNext, VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_BINDING_FLAGS_CREATE_INFO);
  const VkDescriptorBindingFlags* flags =
      flags_info != nullptr && flags_info->bindingCount == app.bindingCount ? flags_info->pBindingFlags : nullptr;
  shadow = PlanSetLayout(app, flags, b.plan.convert_uniform_buffers, native_, native_flags_, convert);
  if (!shadow.converts()) return;  // the application's own create info
  info_.bindingCount = static_cast<uint32_t>(native_.size());
  info_.pBindings = native_.empty() ? nullptr : native_.data();
  if (flags_info != nullptr) {
    auto* edited = chain_.Modify<VkDescriptorSetLayoutBindingFlagsCreateInfo>(
        VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_BINDING_FLAGS_CREATE_INFO);
    if (edited != nullptr) {
      edited->bindingCount = flags != nullptr ? static_cast<uint32_t>(native_flags_.size()) : 0;
      edited->pBindingFlags = native_flags_.empty() ? nullptr : native_flags_.data();
    }
    info_.pNext = chain_.chain();
  }
}

VKAPI_ATTR VkResult VKAPI_CALL CreateDescriptorSetLayout(VkDevice device, const VkDescriptorSetLayoutCreateInfo* pCreateInfo,
                                                         const VkAllocationCallbacks* pAllocator,
                                                         VkDescriptorSetLayout* pSetLayout) {
  DescriptorStore* found = FindBindings<DescriptorStore>(device);
  if (found == nullptr) return NextOf(device).CreateDescriptorSetLayout(device, pCreateInfo, pAllocator, pSetLayout);
  DescriptorStore& b = *found;
  NativeLayoutSplit split(b, *pCreateInfo, ShouldConvertLayout(b, *pCreateInfo));
  // Every layout gets a shadow (binds need each set's native dynamic-offset count), but
  // only converting ones are changed.
  auto shadow = std::make_shared<SetLayoutShadow>(std::move(split.shadow));
  if (!shadow->converts()) {
    const VkResult result = b.next.CreateDescriptorSetLayout(device, pCreateInfo, pAllocator, pSetLayout);
    if (result != VK_SUCCESS) return result;
    shadow->native = *pSetLayout;
    shadow->full = *pSetLayout;
    auto entry = std::make_unique<SetLayoutEntry>();
    entry->native_buffers = HasConvertibleNativeBuffers(*shadow, b.plan.convert_uniform_buffers);
    entry->shadow = std::move(shadow);
    b.set_layouts.Insert(*pSetLayout, std::move(entry));
    return result;
  }
  const VkResult result = b.next.CreateDescriptorSetLayout(device, &split.native_info(), pAllocator, pSetLayout);
  if (result != VK_SUCCESS) return result;
  shadow->native = *pSetLayout;
  auto entry = std::make_unique<SetLayoutEntry>();
  entry->shadow = std::move(shadow);
  b.set_layouts.Insert(*pSetLayout, std::move(entry));
  // After the shadow is findable: the hooks that now stop passing calls straight on can
  // see it.
  b.any_converted.store(true, std::memory_order_release);
  b.MarkWork(DescriptorStore::kWorkConverting);
  return result;
}

VKAPI_ATTR void VKAPI_CALL DestroyDescriptorSetLayout(VkDevice device, VkDescriptorSetLayout layout,
                                                      const VkAllocationCallbacks* pAllocator) {
  // Sets and pipeline layouts made from it keep the shadow alive (shared).
  ForgetAndDestroy<DescriptorStore, &VkLayerDispatchTable::DestroyDescriptorSetLayout>(
      device, layout, pAllocator, [&](DescriptorStore& b) {
        if (b.set_layouts.Erase(layout) != nullptr) InvalidateLookupCaches();
      });
}

VKAPI_ATTR VkResult VKAPI_CALL CreatePipelineLayout(VkDevice device, const VkPipelineLayoutCreateInfo* pCreateInfo,
                                                    const VkAllocationCallbacks* pAllocator,
                                                    VkPipelineLayout* pPipelineLayout) {
  DescriptorStore* found = FindBindings<DescriptorStore>(device);
  if (found == nullptr) return NextOf(device).CreatePipelineLayout(device, pCreateInfo, pAllocator, pPipelineLayout);
  DescriptorStore& b = *found;
  const std::vector<std::shared_ptr<const SetLayoutShadow>> sets = SetShadowsOf(b, *pCreateInfo);
  const uint32_t app_end = AppPushEnd(*pCreateInfo);
  auto shadow = std::make_unique<PipelineLayoutShadow>();
  shadow->create_flags = pCreateInfo->flags;
  // The root's offsets are its graphics copy's; the compute copy lies `half` bytes after.
  const RootPushSpace space = SplitPushSpace(app_end, b.max_push_bytes, b.plan.root_split);
  shadow->root = PlanRoot(sets, app_end, space.graphics_end(), b.plan.records_in_root);
  shadow->root.compute_shift = space.compute_shift();
  if (!shadow->root.converts) return CreatePlainLayout(b, *pCreateInfo, std::move(shadow), pAllocator, pPipelineLayout);
  if (!shadow->root.fits && PlaceRootInRing(b, *pCreateInfo, sets, app_end, space, *shadow)) {
    return CreateRingRootLayout(b, *pCreateInfo, std::move(shadow), pAllocator, pPipelineLayout);
  }
  return CreateConvertingLayout(b, *pCreateInfo, std::move(shadow), pAllocator, pPipelineLayout);
}

VKAPI_ATTR void VKAPI_CALL DestroyPipelineLayout(VkDevice device, VkPipelineLayout layout,
                                                 const VkAllocationCallbacks* pAllocator) {
  ForgetAndDestroy<DescriptorStore, &VkLayerDispatchTable::DestroyPipelineLayout>(
      device, layout, pAllocator, [&](DescriptorStore& b) {
        if (b.pipeline_layouts.Erase(layout) != nullptr) InvalidateLookupCaches();
      });
}

}  // namespace bindery::bindings
