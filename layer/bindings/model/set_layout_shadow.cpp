#include "bindings/model/set_layout_shadow.h"

#include <algorithm>
#include <numeric>

namespace bindery::bindings {

bool IsConvertedType(VkDescriptorType type, bool convert_uniform_buffers) {
  switch (type) {
    case VK_DESCRIPTOR_TYPE_STORAGE_BUFFER:
    case VK_DESCRIPTOR_TYPE_STORAGE_BUFFER_DYNAMIC:
      return true;
    case VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER:
    case VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER_DYNAMIC:
      return convert_uniform_buffers;
    default:
      return false;
  }
}

bool LayoutFlagsAllowConversion(VkDescriptorSetLayoutCreateFlags flags) {
  // VK_DESCRIPTOR_SET_LAYOUT_CREATE_HOST_ONLY_POOL_BIT_VALVE has the EXT bit's value.
  constexpr VkDescriptorSetLayoutCreateFlags kNever = VK_DESCRIPTOR_SET_LAYOUT_CREATE_DESCRIPTOR_BUFFER_BIT_EXT |
                                                      VK_DESCRIPTOR_SET_LAYOUT_CREATE_EMBEDDED_IMMUTABLE_SAMPLERS_BIT_EXT |
                                                      VK_DESCRIPTOR_SET_LAYOUT_CREATE_HOST_ONLY_POOL_BIT_EXT |
                                                      VK_DESCRIPTOR_SET_LAYOUT_CREATE_HOST_ONLY_POOL_BIT_VALVE;
  return (flags & kNever) == 0;
}

bool IsDynamicType(VkDescriptorType type) {
  return type == VK_DESCRIPTOR_TYPE_STORAGE_BUFFER_DYNAMIC || type == VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER_DYNAMIC;
}

const ConvertedBinding* SetLayoutShadow::FindSorted(uint32_t binding) const {
  auto it = std::lower_bound(converted.begin(), converted.end(), binding,
                             [](const ConvertedBinding& b, uint32_t n) { return b.binding < n; });
  return it != converted.end() && it->binding == binding ? &*it : nullptr;
}

uint32_t SetLayoutShadow::RecordsFor(uint32_t variable_count) const {
  if (converted.empty() || !converted.back().variable) return record_count;
  const ConvertedBinding& last = converted.back();
  return record_count - last.count + std::min(variable_count, last.count);
}

SetLayoutShadow PlanSetLayout(const VkDescriptorSetLayoutCreateInfo& info, const VkDescriptorBindingFlags* flags,
                              bool convert_uniform_buffers, std::vector<VkDescriptorSetLayoutBinding>& native_bindings,
                              std::vector<VkDescriptorBindingFlags>& native_flags, bool convert_buffers) {
  SetLayoutShadow shadow;
  shadow.push_descriptor = (info.flags & VK_DESCRIPTOR_SET_LAYOUT_CREATE_PUSH_DESCRIPTOR_BIT_KHR) != 0;
  native_bindings.clear();
  native_flags.clear();
  // Records and dynamic offsets follow binding numbers, whatever the order of pBindings.
  std::vector<uint32_t> order(info.bindingCount);
  std::iota(order.begin(), order.end(), 0u);
  std::sort(order.begin(), order.end(),
            [&](uint32_t a, uint32_t b) { return info.pBindings[a].binding < info.pBindings[b].binding; });
  for (uint32_t i : order) {
    const VkDescriptorSetLayoutBinding& b = info.pBindings[i];
    const VkDescriptorBindingFlags f = flags != nullptr ? flags[i] : 0;
    const bool dynamic = IsDynamicType(b.descriptorType);
    // Push-descriptor layouts convert too: their records live in the command buffer's
    // ring (push_descriptor_hooks.cpp).
    const bool converts = convert_buffers && LayoutFlagsAllowConversion(info.flags) &&
                          IsConvertedType(b.descriptorType, convert_uniform_buffers);
    if (converts) {
      ConvertedBinding c;
      c.binding = b.binding;
      c.type = b.descriptorType;
      c.count = b.descriptorCount;
      c.first_record = shadow.record_count;
      c.variable = (f & VK_DESCRIPTOR_BINDING_VARIABLE_DESCRIPTOR_COUNT_BIT) != 0;
      if (dynamic) {
        c.first_dynamic = shadow.converted_dynamic;
        shadow.converted_dynamic += b.descriptorCount;
      }
      shadow.record_count += b.descriptorCount;
      shadow.converted.push_back(c);
    } else {
      native_bindings.push_back(b);
      if (flags != nullptr) native_flags.push_back(f);
      if (dynamic) shadow.native_dynamic += b.descriptorCount;
    }
    if (dynamic && b.descriptorCount != 0) {
      const bool converted = converts;
      if (!shadow.dynamic_runs.empty() && shadow.dynamic_runs.back().converted == converted) {
        shadow.dynamic_runs.back().count += b.descriptorCount;
      } else {
        shadow.dynamic_runs.push_back({converted, b.descriptorCount});
      }
    }
  }
  // A binding of no descriptors holds nothing a shader can read (and consecutive updates
  // skip it): a set whose native bindings are all empty is root-only like one with none, so
  // it frees its set number (for the reserved root set, or the renumbering).
  shadow.has_native = std::any_of(native_bindings.begin(), native_bindings.end(),
                                  [](const VkDescriptorSetLayoutBinding& b) { return b.descriptorCount != 0; });
  shadow.total_dynamic = shadow.converted_dynamic + shadow.native_dynamic;
  constexpr VkDescriptorBindingFlags kChangesWhileBound =
      VK_DESCRIPTOR_BINDING_UPDATE_AFTER_BIND_BIT | VK_DESCRIPTOR_BINDING_UPDATE_UNUSED_WHILE_PENDING_BIT |
      VK_DESCRIPTOR_BINDING_VARIABLE_DESCRIPTOR_COUNT_BIT;
  bool fixed_while_bound = !shadow.push_descriptor &&
                           (info.flags & VK_DESCRIPTOR_SET_LAYOUT_CREATE_UPDATE_AFTER_BIND_POOL_BIT) == 0;
  for (uint32_t i = 0; flags != nullptr && i < info.bindingCount; ++i) {
    if ((flags[i] & kChangesWhileBound) != 0) fixed_while_bound = false;
  }
  for (const ConvertedBinding& c : shadow.converted) {
    if (c.count == 0) fixed_while_bound = false;
  }
  shadow.records_fit_root = shadow.converts() && fixed_while_bound && shadow.record_count <= kMaxRecordsInRoot;
  shadow.records_prefix_fit_root = shadow.converts() && fixed_while_bound;
  shadow.create_flags = info.flags;
  shadow.app_bindings.assign(info.pBindings, info.pBindings + info.bindingCount);
  if (flags != nullptr) shadow.app_flags.assign(flags, flags + info.bindingCount);
  for (VkDescriptorSetLayoutBinding& b : shadow.app_bindings) {
    if (b.pImmutableSamplers == nullptr) continue;
    shadow.immutable_samplers.emplace_back(b.pImmutableSamplers, b.pImmutableSamplers + b.descriptorCount);
    b.pImmutableSamplers = shadow.immutable_samplers.back().data();
  }
  return shadow;
}

bool SameDefinition(const SetLayoutShadow& a, const SetLayoutShadow& b) {
  if (&a == &b) return true;
  if (a.create_flags != b.create_flags || a.app_bindings.size() != b.app_bindings.size() ||
      a.app_flags != b.app_flags || a.immutable_samplers != b.immutable_samplers) {
    return false;
  }
  for (size_t i = 0; i < a.app_bindings.size(); ++i) {
    const VkDescriptorSetLayoutBinding& x = a.app_bindings[i];
    const VkDescriptorSetLayoutBinding& y = b.app_bindings[i];
    if (x.binding != y.binding || x.descriptorType != y.descriptorType || x.descriptorCount != y.descriptorCount ||
        x.stageFlags != y.stageFlags || (x.pImmutableSamplers == nullptr) != (y.pImmutableSamplers == nullptr)) {
      return false;
    }
  }
  // The same bindings give the same conversion (the device's setting decides it).
  return a.converted.size() == b.converted.size() && a.has_native == b.has_native;
}

}  // namespace bindery::bindings
