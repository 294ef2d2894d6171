// Full native layouts and sets (docs/indirect-bindings.md, "When it falls back"): what a
// pipeline that runs natively (a fallback pipeline: pipelines/pipeline_shadows.h; a native
// twin: pipelines/native_twin.h) is created with and draws with. A full layout has every
// binding a descriptor and the same push-constant ranges as the converted layout, so the
// application's pushes stay compatible; a full set is materialised from the set's shadow
// when a pipeline running natively first uses it (record/fallback_binds.cpp binds it).
// Everything here is a cold path (first use of a set by such a pipeline, or after an
// update): one device mutex.
#include <algorithm>
#include <cstring>
#include <string>

#include "bindings/descriptors/descriptor_store.h"
#include "bindings/model/static_use.h"
#include "core/log.h"

namespace bindery::bindings {
namespace {

constexpr VkDescriptorType kPoolTypes[] = {
    VK_DESCRIPTOR_TYPE_SAMPLER,           VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER, VK_DESCRIPTOR_TYPE_SAMPLED_IMAGE,
    VK_DESCRIPTOR_TYPE_STORAGE_IMAGE,     VK_DESCRIPTOR_TYPE_UNIFORM_TEXEL_BUFFER,   VK_DESCRIPTOR_TYPE_STORAGE_TEXEL_BUFFER,
    VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER,    VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,         VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER_DYNAMIC,
    VK_DESCRIPTOR_TYPE_STORAGE_BUFFER_DYNAMIC, VK_DESCRIPTOR_TYPE_INPUT_ATTACHMENT};
constexpr uint32_t kPoolDescriptors = 1024;
constexpr uint32_t kPoolSets = 256;

// `update_after_bind`: a pool for full sets of update-after-bind layouts (kept apart:
// such a pool cannot hold the other sets' descriptors of every type on every driver).
VkDescriptorPool NewFallbackPool(DescriptorStore& b, bool update_after_bind) {
  VkDescriptorPoolSize sizes[sizeof(kPoolTypes) / sizeof(kPoolTypes[0])];
  for (size_t i = 0; i < sizeof(kPoolTypes) / sizeof(kPoolTypes[0]); ++i) sizes[i] = {kPoolTypes[i], kPoolDescriptors};
  VkDescriptorPoolCreateInfo info{VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO};
  info.flags = VK_DESCRIPTOR_POOL_CREATE_FREE_DESCRIPTOR_SET_BIT |
               (update_after_bind ? VK_DESCRIPTOR_POOL_CREATE_UPDATE_AFTER_BIND_BIT : 0);
  info.maxSets = kPoolSets;
  info.poolSizeCount = sizeof(sizes) / sizeof(sizes[0]);
  info.pPoolSizes = sizes;
  VkDescriptorPool pool = VK_NULL_HANDLE;
  if (b.next.CreateDescriptorPool(b.device.handle, &info, nullptr, &pool) != VK_SUCCESS) return VK_NULL_HANDLE;
  (update_after_bind ? b.fallback_uab_pools : b.fallback_pools).push_back(pool);
  return pool;
}

template <typename T>
void Put(std::string& key, const T& value) {
  key.append(reinterpret_cast<const char*>(&value), sizeof(value));
}

// The application's set layout as the full layout is made from it; "" when it names
// immutable samplers (handles that may be reused after their sampler goes: never shared).
std::string SetLayoutContent(const SetLayoutShadow& layout) {
  std::string key;
  Put(key, layout.create_flags);
  for (const VkDescriptorSetLayoutBinding& binding : layout.app_bindings) {
    if (binding.pImmutableSamplers != nullptr) return "";
    Put(key, binding.binding);
    Put(key, binding.descriptorType);
    Put(key, binding.descriptorCount);
    Put(key, binding.stageFlags);
  }
  for (VkDescriptorBindingFlags f : layout.app_flags) Put(key, f);
  return key;
}

VkDescriptorSetLayout FullSetLayoutLocked(DescriptorStore& b, const SetLayoutShadow& layout) {
  if (layout.full != VK_NULL_HANDLE) return layout.full;
  const std::string content = SetLayoutContent(layout);
  if (!content.empty()) {
    auto it = b.full_set_layouts_by_content.find(content);
    if (it != b.full_set_layouts_by_content.end()) return layout.full = it->second;
  }
  // The application's bindings, immutable samplers re-pointed at the shadow's copies;
  // binding flags kept: an update after bind is written to the full set too
  // (full_set_mirror.cpp), which update-after-bind bindings allow while it is bound.
  std::vector<VkDescriptorSetLayoutBinding> bindings = layout.app_bindings;
  size_t sampler_list = 0;
  for (VkDescriptorSetLayoutBinding& binding : bindings) {
    if (binding.pImmutableSamplers != nullptr) binding.pImmutableSamplers = layout.immutable_samplers[sampler_list++].data();
  }
  const std::vector<VkDescriptorBindingFlags>& flags = layout.app_flags;
  VkDescriptorSetLayoutBindingFlagsCreateInfo flags_info{
      VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_BINDING_FLAGS_CREATE_INFO};
  flags_info.bindingCount = static_cast<uint32_t>(flags.size());
  flags_info.pBindingFlags = flags.data();
  VkDescriptorSetLayoutCreateInfo info{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO};
  info.pNext = flags.empty() ? nullptr : &flags_info;
  info.flags = layout.create_flags;
  info.bindingCount = static_cast<uint32_t>(bindings.size());
  info.pBindings = bindings.data();
  VkDescriptorSetLayout full = VK_NULL_HANDLE;
  if (b.next.CreateDescriptorSetLayout(b.device.handle, &info, nullptr, &full) != VK_SUCCESS) return VK_NULL_HANDLE;
  b.owned_set_layouts.push_back(full);
  if (!content.empty()) b.full_set_layouts_by_content.emplace(content, full);
  layout.full = full;
  return full;
}

// The position of `binding`'s first dynamic descriptor among the set's dynamic offsets (as
// vkCmdBindDescriptorSets consumes them: by binding number, then element).
uint32_t DynamicIndex(const SetLayoutShadow& layout, uint32_t binding) {
  uint32_t index = 0;
  for (const VkDescriptorSetLayoutBinding& b : layout.app_bindings) {
    if (b.binding < binding && IsDynamicType(b.descriptorType)) index += b.descriptorCount;
  }
  return index;
}

}  // namespace

bool SameRanges(const std::vector<VkPushConstantRange>& a, const std::vector<VkPushConstantRange>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (a[i].stageFlags != b[i].stageFlags || a[i].offset != b[i].offset || a[i].size != b[i].size) return false;
  }
  return true;
}

bool SameSetLayout(const SetLayoutShadow* x, const SetLayoutShadow* y) {
  return x == y || (x != nullptr && y != nullptr && SameDefinition(*x, *y));
}

VkDescriptorSetLayout DescriptorStore::FullSetLayout(const SetLayoutShadow& layout) {
  std::lock_guard<std::mutex> lock(fallback_mutex);
  return FullSetLayoutLocked(*this, layout);
}

VkPipelineLayout DescriptorStore::FullPipelineLayout(PipelineLayoutShadow& layout) {
  std::lock_guard<std::mutex> lock(fallback_mutex);
  if (layout.full != VK_NULL_HANDLE) return layout.full;
  // A layout beyond the driver's own limits (more sets, more buffers) has no full native
  // form: asking the driver for one would be invalid.
  std::vector<const std::vector<VkDescriptorSetLayoutBinding>*> bindings;
  for (const SetRoot& r : layout.root.sets) bindings.push_back(r.layout != nullptr ? &r.layout->app_bindings : nullptr);
  const char* why = nullptr;
  if (!FullLayoutFitsDriver(bindings, plan.native_limits, &why)) {
    BINDERY_LOG(device.log(), kWarn, "bindings-full-layout",
                "a pipeline layout goes beyond the driver's %s: it has no native form (no fallback or twin)", why);
    return VK_NULL_HANDLE;
  }
  std::vector<VkDescriptorSetLayout> full_sets;
  // A layout with independent sets (graphics pipeline libraries) may leave sets out
  // (VK_NULL_HANDLE): its full form leaves out the same ones.
  const bool independent_sets = (layout.create_flags & VK_PIPELINE_LAYOUT_CREATE_INDEPENDENT_SETS_BIT_EXT) != 0;
  for (const SetRoot& r : layout.root.sets) {
    if (r.layout == nullptr) {
      if (!independent_sets) return VK_NULL_HANDLE;
      full_sets.push_back(VK_NULL_HANDLE);
      continue;
    }
    const VkDescriptorSetLayout full = FullSetLayoutLocked(*this, *r.layout);
    if (full == VK_NULL_HANDLE) return VK_NULL_HANDLE;
    full_sets.push_back(full);
  }
  // Layouts of the same full sets, ranges and flags share one (bounded by shapes in use).
  std::string content;
  for (VkDescriptorSetLayout l : full_sets) Put(content, l);
  for (const VkPushConstantRange& r : layout.native_ranges) Put(content, r);
  Put(content, layout.create_flags);
  auto it = full_pipeline_layouts_by_content.find(content);
  if (it != full_pipeline_layouts_by_content.end()) return layout.full = it->second;
  VkPipelineLayoutCreateInfo info{VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO};
  info.flags = layout.create_flags;
  info.setLayoutCount = static_cast<uint32_t>(full_sets.size());
  info.pSetLayouts = full_sets.data();
  info.pushConstantRangeCount = static_cast<uint32_t>(layout.native_ranges.size());
  info.pPushConstantRanges = layout.native_ranges.data();
  if (next.CreatePipelineLayout(device.handle, &info, nullptr, &layout.full) != VK_SUCCESS) return VK_NULL_HANDLE;
  owned_pipeline_layouts.push_back(layout.full);
  full_pipeline_layouts_by_content.emplace(std::move(content), layout.full);
  return layout.full;
}

bool DescriptorStore::StillNames(const VkDescriptorBufferInfo& d) {
  const BufferInfo* buffer = trackers().buffers.Find(d.buffer);
  if (buffer == nullptr || d.offset >= buffer->size) return false;
  return d.range == VK_WHOLE_SIZE || d.range <= buffer->size - d.offset;
}

void DescriptorStore::WriteConvertedBinding(SetShadow& set, const ConvertedBinding& c, uint32_t set_index,
                                           bool statically_used, std::vector<VkWriteDescriptorSet>& writes) {
  const uint32_t count = c.first_record < set.record_count ? std::min(c.count, set.record_count - c.first_record) : 0;
  const VkDescriptorBufferInfo* d = set.descriptors + c.first_record;
  auto usable = [&](uint32_t k) {
    if (d[k].buffer == VK_NULL_HANDLE) return false;
    if (StillNames(d[k])) return true;
    // Invalid for the application (a statically used descriptor must be valid), but never
    // a reason to hand the driver a freed handle.
    if (statically_used && !logged_gone_in_use.exchange(true, std::memory_order_relaxed)) {
      BINDERY_LOG(device.log(), kWarn, "bindings-destroyed-in-use",
                  "a pipeline running natively may use set %u binding %u element %u, whose buffer was destroyed: the "
                  "descriptor is left unwritten (logged once)",
                  set_index, c.binding, k);
    }
    return false;
  };
  // With robustness2.nullDescriptor a null descriptor is valid and reads 0: the full set
  // gets one where the shadow has none (never written, written null, or destroyed) — but
  // not in a dynamic binding the pipeline does not use: a null descriptor's range is
  // VK_WHOLE_SIZE, which makes any nonzero dynamic offset of the bind invalid
  // (VUID-vkCmdBindDescriptorSets-pDescriptorSets-06715), while an unwritten descriptor
  // nobody reads is valid. A used one (partially bound, or static use unknown) is noted:
  // its offset goes down as 0 (BindFullSets; a null descriptor reads 0 at any offset).
  static const VkDescriptorBufferInfo kNull{VK_NULL_HANDLE, 0, VK_WHOLE_SIZE};
  const bool dynamic = c.type == VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER_DYNAMIC ||
                       c.type == VK_DESCRIPTOR_TYPE_STORAGE_BUFFER_DYNAMIC;
  for (uint32_t k = 0; k < count;) {
    if (!usable(k)) {
      if (plan.null_descriptor && (!dynamic || statically_used)) {
        if (dynamic) {
          const uint32_t index = DynamicIndex(*set.layout, c.binding) + k;
          if (index < 32) set.full_null_dynamic |= 1u << index;
        }
        VkWriteDescriptorSet w{VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET};
        w.dstSet = set.full;
        w.dstBinding = c.binding;
        w.dstArrayElement = k;
        w.descriptorCount = 1;
        w.descriptorType = c.type;
        w.pBufferInfo = &kNull;
        writes.push_back(w);
      }
      ++k;
      continue;
    }
    uint32_t run = 1;
    while (k + run < count && usable(k + run)) ++run;
    VkWriteDescriptorSet w{VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET};
    w.dstSet = set.full;
    w.dstBinding = c.binding;
    w.dstArrayElement = k;
    w.descriptorCount = run;
    w.descriptorType = c.type;
    w.pBufferInfo = &d[k];
    writes.push_back(w);
    k += run;
  }
}

VkDescriptorSet DescriptorStore::Materialise(VkDescriptorSet handle, SetShadow& set, const StaticUse* uses,
                                            uint32_t set_index, uint32_t* null_dynamic) {
  std::lock_guard<std::mutex> lock(fallback_mutex);
  const VkDescriptorSet full = MaterialiseLocked(handle, set, uses, set_index);
  if (null_dynamic != nullptr) *null_dynamic = full != VK_NULL_HANDLE ? set.full_null_dynamic : 0;
  return full;
}

VkDescriptorSet DescriptorStore::MaterialiseLocked(VkDescriptorSet handle, SetShadow& set, const StaticUse* uses,
                                                  uint32_t set_index) {
  if (set.full == VK_NULL_HANDLE && !AllocateFullLocked(set)) return VK_NULL_HANDLE;
  if (set.full_stale) {
    set.full_written = false;
    set.full_stale = false;
  }
  if (!set.full_written) WriteFullLocked(handle, set, uses, set_index);
  return set.full;
}

namespace {

// The descriptor count a full set of `set` is allocated with for its layout's
// variable-count binding: a converted one gets the records the set was allocated with, a
// native one the set's count (0: the layout has none).
uint32_t FullVariableCount(const SetLayoutShadow& layout, const SetShadow& set) {
  uint32_t variable_count = 0;
  for (size_t i = 0; i < layout.app_flags.size() && i < layout.app_bindings.size(); ++i) {
    if ((layout.app_flags[i] & VK_DESCRIPTOR_BINDING_VARIABLE_DESCRIPTOR_COUNT_BIT) == 0) continue;
    const ConvertedBinding* c = layout.Find(layout.app_bindings[i].binding);
    variable_count = c != nullptr ? set.record_count - c->first_record
                                  : std::min(set.variable_count, layout.app_bindings[i].descriptorCount);
  }
  return variable_count;
}

}  // namespace

bool DescriptorStore::AllocateFullLocked(SetShadow& set) {
  const SetLayoutShadow& layout = *set.layout;
  VkDescriptorSetLayout full_layout = FullSetLayoutLocked(*this, layout);
  if (full_layout == VK_NULL_HANDLE) return false;
  uint32_t variable_count = FullVariableCount(layout, set);
  VkDescriptorSetVariableDescriptorCountAllocateInfo variable{
      VK_STRUCTURE_TYPE_DESCRIPTOR_SET_VARIABLE_DESCRIPTOR_COUNT_ALLOCATE_INFO};
  variable.descriptorSetCount = 1;
  variable.pDescriptorCounts = &variable_count;
  VkDescriptorSetAllocateInfo alloc{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO};
  alloc.pNext = variable_count != 0 ? &variable : nullptr;
  alloc.descriptorSetCount = 1;
  alloc.pSetLayouts = &full_layout;
  // Update-after-bind layouts need such a pool; a set of such a pool needs one too
  // (the full set is filled by copies from it, which need pools that agree).
  const bool uab = (layout.create_flags & VK_DESCRIPTOR_SET_LAYOUT_CREATE_UPDATE_AFTER_BIND_POOL_BIT) != 0 ||
                   (set.pool != nullptr && set.pool->update_after_bind);
  for (int attempt = 0; attempt < 2 && set.full == VK_NULL_HANDLE; ++attempt) {
    // The newest pool first, then a new one (the newest may be full).
    const std::vector<VkDescriptorPool>& from = uab ? fallback_uab_pools : fallback_pools;
    alloc.descriptorPool = attempt == 0 && !from.empty() ? from.back() : NewFallbackPool(*this, uab);
    if (alloc.descriptorPool == VK_NULL_HANDLE) break;
    if (next.AllocateDescriptorSets(device.handle, &alloc, &set.full) == VK_SUCCESS) {
      set.full_pool = alloc.descriptorPool;
    } else {
      set.full = VK_NULL_HANDLE;
    }
  }
  if (set.full == VK_NULL_HANDLE) return false;
  set.full_stale = true;
  // A pool reset must now release the full sets of its layer-owned sets.
  if (set.pool != nullptr) set.pool->owned_materialised.store(true, std::memory_order_release);
  return true;
}

// Every binding, once since the shadow last changed: converted ones from the shadow (runs
// of written descriptors whose buffer still exists: an unwritten one stays unwritten),
// native ones copied from the set's native part (a layer-owned set has no native binding,
// and no native set to copy from).
void DescriptorStore::WriteFullLocked(VkDescriptorSet handle, SetShadow& set, const StaticUse* uses,
                                      uint32_t set_index) {
  const SetLayoutShadow& layout = *set.layout;
  set.full_written = true;
  set.full_null_dynamic = 0;
  std::vector<VkWriteDescriptorSet> writes;
  std::vector<VkCopyDescriptorSet> copies;
  const bool owned = OwnedSet(handle) != nullptr;
  for (size_t i = 0; i < layout.app_bindings.size(); ++i) {
    const VkDescriptorSetLayoutBinding& binding = layout.app_bindings[i];
    // Every binding is written at the first use, not only those this pipeline uses: a full
    // set may already be bound in recorded or pending command buffers, and writing more of
    // it for the next pipeline would invalidate them (or write under the GPU). Descriptors
    // whose buffer is gone are never written; only a statically used one is worth a log.
    const bool used = uses == nullptr || uses->Uses(set_index, binding.binding);
    if (const ConvertedBinding* c = layout.Find(binding.binding)) {
      WriteConvertedBinding(set, *c, set_index, used, writes);
      continue;
    }
    // A native variable-count binding has the set's count.
    const bool variable = i < layout.app_flags.size() &&
                          (layout.app_flags[i] & VK_DESCRIPTOR_BINDING_VARIABLE_DESCRIPTOR_COUNT_BIT) != 0;
    const uint32_t count = variable ? std::min(set.variable_count, binding.descriptorCount) : binding.descriptorCount;
    if (owned || count == 0) continue;
    if (binding.pImmutableSamplers != nullptr && binding.descriptorType == VK_DESCRIPTOR_TYPE_SAMPLER) continue;
    VkCopyDescriptorSet c{VK_STRUCTURE_TYPE_COPY_DESCRIPTOR_SET};
    c.srcSet = handle;
    c.srcBinding = binding.binding;
    c.dstSet = set.full;
    c.dstBinding = binding.binding;
    c.descriptorCount = count;
    copies.push_back(c);
  }
  if (!writes.empty() || !copies.empty()) {
    next.UpdateDescriptorSets(device.handle, static_cast<uint32_t>(writes.size()), writes.data(),
                              static_cast<uint32_t>(copies.size()), copies.data());
  }
}

void DescriptorStore::ReleaseFull(SetShadow& set) {
  if (set.full == VK_NULL_HANDLE) return;  // the common case: never materialised (no lock)
  std::lock_guard<std::mutex> lock(fallback_mutex);
  if (set.full != VK_NULL_HANDLE) next.FreeDescriptorSets(device.handle, set.full_pool, 1, &set.full);
  set.full = VK_NULL_HANDLE;
}

// Are the two layouts compatible for set `set` as the spec defines it (the same
// push-constant ranges, identically defined set layouts up to that set)? Compared through
// what is sent down: extended ranges, which depend only on the application's.
bool CompatibleFor(const PipelineLayoutShadow& a, const PipelineLayoutShadow& b, uint32_t set) {
  if (&a == &b) return true;
  if (set >= a.root.sets.size() || set >= b.root.sets.size() || !SameRanges(a.native_ranges, b.native_ranges)) {
    return false;
  }
  for (uint32_t k = 0; k <= set; ++k) {
    if (!SameSetLayout(a.root.sets[k].layout.get(), b.root.sets[k].layout.get())) return false;
  }
  return true;
}

}  // namespace bindery::bindings
