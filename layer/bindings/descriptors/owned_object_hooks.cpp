// The one translation point for commands that take an object handle of a type the layer
// may make itself: layer-owned descriptor sets (owned_sets.h) and descriptor update
// templates on converting layouts (template_hooks.cpp: the handle is the template's
// shadow). The layer below has never seen those handles — validation would report them
// unknown, drivers would follow them — so:
// - debug-utils and debug-marker names and tags go to the native objects beneath (a
//   template's native part and its full-layout push template), and are dropped (the
//   application gets VK_SUCCESS) where there is none (a layer-owned set);
// - private data is kept here, forgotten when the object goes.
// Every other object passes straight through. Cold paths.
//
// The loader sends vkSetDebugUtilsObject{Name,Tag}EXT (an instance extension's device
// functions) down the *instance* chain, so those two are hooked there too; a layer above
// may still call them through the device chain.
#include <iterator>

#include "bindings/descriptors/descriptor_store.h"
#include "bindings/descriptors/descriptor_hooks.h"
#include "chassis/instance_stack.h"
#include "chassis/state.h"

namespace bindery::bindings {
namespace {

// What a handle the application names is to the layer below.
struct Translated {
  bool layer_made = false;       // the layer's own handle: never sent down as it is
  SetShadow* owned_set = nullptr;  // a layer-owned set
  uint64_t beneath[2] = {0, 0};  // native objects of the same type beneath it (0: none)
};

Translated Translate(DescriptorStore& b, VkObjectType type, uint64_t handle) {
  Translated t;
  if (handle == 0) return t;
  if (type == VK_OBJECT_TYPE_DESCRIPTOR_SET) {
    t.owned_set = OwnedSet(reinterpret_cast<VkDescriptorSet>(handle));
    t.layer_made = t.owned_set != nullptr;
  } else if (type == VK_OBJECT_TYPE_DESCRIPTOR_UPDATE_TEMPLATE && b.Converting()) {
    if (const TemplateShadow* shadow = b.templates.Find(reinterpret_cast<VkDescriptorUpdateTemplate>(handle))) {
      t.layer_made = true;
      t.beneath[0] = reinterpret_cast<uint64_t>(shadow->native);
      t.beneath[1] = reinterpret_cast<uint64_t>(shadow->full);
    }
  }
  return t;
}

VkObjectType ObjectTypeOf(VkDebugReportObjectTypeEXT type) {
  switch (type) {
    case VK_DEBUG_REPORT_OBJECT_TYPE_DESCRIPTOR_SET_EXT:
      return VK_OBJECT_TYPE_DESCRIPTOR_SET;
    case VK_DEBUG_REPORT_OBJECT_TYPE_DESCRIPTOR_UPDATE_TEMPLATE_EXT:
      return VK_OBJECT_TYPE_DESCRIPTOR_UPDATE_TEMPLATE;
    default:
      return VK_OBJECT_TYPE_UNKNOWN;  // never layer-made
  }
}

// `call(handle)` for the application's handle, or for each native object beneath a
// layer-made one (VK_SUCCESS, or the first failure; VK_SUCCESS when there is none).
template <typename Call>
VkResult ForEachBeneath(const Translated& t, uint64_t handle, Call call) {
  if (!t.layer_made) return call(handle);
  VkResult result = VK_SUCCESS;
  for (uint64_t native : t.beneath) {
    if (native == 0) continue;
    const VkResult r = call(native);
    if (result == VK_SUCCESS) result = r;
  }
  return result;
}

VkResult SetOwnedData(DescriptorStore& b, const Translated& t, uint64_t handle, VkPrivateDataSlot slot, uint64_t data) {
  std::lock_guard<std::mutex> lock(b.owned_data_mutex);
  b.owned_data[{handle, reinterpret_cast<uint64_t>(slot)}] = data;
  // Freeing the set or resetting its pool, or destroying the template, forgets it (a
  // later object may reuse the handle).
  if (t.owned_set != nullptr && t.owned_set->pool != nullptr) {
    t.owned_set->pool->owned_private_data.store(true, std::memory_order_release);
  }
  if (t.owned_set == nullptr) b.template_private_data.store(true, std::memory_order_release);
  return VK_SUCCESS;
}

void GetOwnedData(DescriptorStore& b, uint64_t handle, VkPrivateDataSlot slot, uint64_t* data) {
  std::lock_guard<std::mutex> lock(b.owned_data_mutex);
  auto it = b.owned_data.find({handle, reinterpret_cast<uint64_t>(slot)});
  *data = it != b.owned_data.end() ? it->second : 0;
}

void ForgetSlot(DescriptorStore& b, VkPrivateDataSlot slot) {
  if (slot == VK_NULL_HANDLE) return;
  const uint64_t key = reinterpret_cast<uint64_t>(slot);
  std::lock_guard<std::mutex> lock(b.owned_data_mutex);
  for (auto it = b.owned_data.begin(); it != b.owned_data.end();) {
    it = it->first.slot == key ? b.owned_data.erase(it) : std::next(it);
  }
}

// What the capabilities below (or the next layer) answer for `name` on the device's
// instance: the instance table has no entry for these device-dispatched functions.
PFN_vkVoidFunction InstanceNext(VkDevice device, const char* name) {
  const DeviceState* state = StateRegistry::Get().FindDevice(device);
  if (state == nullptr) return nullptr;
  return ResolveInstanceFunction(*state->instance, static_cast<int>(g_bindings_slot.load(std::memory_order_relaxed)), name);
}

}  // namespace

void DescriptorStore::ForgetOwnedData(uint64_t begin, uint64_t end) {
  std::lock_guard<std::mutex> lock(owned_data_mutex);
  for (auto it = owned_data.begin(); it != owned_data.end();) {
    it = it->first.set >= begin && it->first.set < end ? owned_data.erase(it) : std::next(it);
  }
}

namespace {

// Every handle beneath `info`'s object (a template's native ones, none for a layer-owned
// set, else the object itself) named or tagged through `next`: the debug-utils name and
// tag infos alike.
template <typename Info, typename Next>
VkResult DebugUtilsBeneath(DescriptorStore& b, const Info* info, Next next) {
  const Translated t = Translate(b, info->objectType, info->objectHandle);
  return ForEachBeneath(t, info->objectHandle, [&](uint64_t handle) {
    Info copy = *info;
    copy.objectHandle = handle;
    return next(&copy);
  });
}

// The same for the debug-marker infos (their object types are VK_EXT_debug_marker's enum).
template <typename Info, typename Next>
VkResult DebugMarkerBeneath(DescriptorStore& b, const Info* info, Next next) {
  const Translated t = Translate(b, ObjectTypeOf(info->objectType), info->object);
  return ForEachBeneath(t, info->object, [&](uint64_t handle) {
    Info copy = *info;
    copy.object = handle;
    return next(&copy);
  });
}

// The device-chain hooks below, each written once for its pair of entry points: `kNext`
// is the hook's own entry of the next layer's table (core and EXT/KHR names alike).
template <auto kNext, typename Info>
VkResult DebugUtilsHook(VkDevice device, const Info* info) {
  DescriptorStore* found = FindBindings<DescriptorStore>(device);
  if (found == nullptr) return (NextOf(device).*kNext)(device, info);
  DescriptorStore& b = *found;
  return DebugUtilsBeneath(b, info, [&](const Info* i) { return (b.next.*kNext)(device, i); });
}

template <auto kNext, typename Info>
VkResult DebugMarkerHook(VkDevice device, const Info* info) {
  DescriptorStore* found = FindBindings<DescriptorStore>(device);
  if (found == nullptr) return (NextOf(device).*kNext)(device, info);
  DescriptorStore& b = *found;
  return DebugMarkerBeneath(b, info, [&](const Info* i) { return (b.next.*kNext)(device, i); });
}

// The instance-chain hooks: `name`'s function as the capabilities below answer it.
template <typename Pfn, typename Info>
VkResult InstanceDebugUtilsHook(VkDevice device, const Info* info, const char* name) {
  auto next = reinterpret_cast<Pfn>(InstanceNext(device, name));
  DescriptorStore* b = FindBindings<DescriptorStore>(device);
  if (b == nullptr) return next != nullptr ? next(device, info) : VK_SUCCESS;
  return DebugUtilsBeneath(*b, info, [&](const Info* i) { return next != nullptr ? next(device, i) : VK_SUCCESS; });
}

template <auto kNext>
VkResult SetPrivateDataHook(VkDevice device, VkObjectType objectType, uint64_t objectHandle, VkPrivateDataSlot slot,
                            uint64_t data) {
  DescriptorStore* found = FindBindings<DescriptorStore>(device);
  if (found == nullptr) return (NextOf(device).*kNext)(device, objectType, objectHandle, slot, data);
  DescriptorStore& b = *found;
  const Translated t = Translate(b, objectType, objectHandle);
  if (t.layer_made) return SetOwnedData(b, t, objectHandle, slot, data);
  return (b.next.*kNext)(device, objectType, objectHandle, slot, data);
}

template <auto kNext>
void GetPrivateDataHook(VkDevice device, VkObjectType objectType, uint64_t objectHandle, VkPrivateDataSlot slot,
                        uint64_t* pData) {
  DescriptorStore* found = FindBindings<DescriptorStore>(device);
  if (found == nullptr) return (NextOf(device).*kNext)(device, objectType, objectHandle, slot, pData);
  DescriptorStore& b = *found;
  if (Translate(b, objectType, objectHandle).layer_made) return GetOwnedData(b, objectHandle, slot, pData);
  (b.next.*kNext)(device, objectType, objectHandle, slot, pData);
}

template <auto kNext>
void DestroyPrivateDataSlotHook(VkDevice device, VkPrivateDataSlot slot, const VkAllocationCallbacks* pAllocator) {
  DescriptorStore* found = FindBindings<DescriptorStore>(device);
  if (found == nullptr) return (NextOf(device).*kNext)(device, slot, pAllocator);
  DescriptorStore& b = *found;
  ForgetSlot(b, slot);
  (b.next.*kNext)(device, slot, pAllocator);
}

using Table = VkLayerDispatchTable;

}  // namespace

VKAPI_ATTR VkResult VKAPI_CALL SetDebugUtilsObjectNameEXT(VkDevice device, const VkDebugUtilsObjectNameInfoEXT* pNameInfo) {
  return DebugUtilsHook<&Table::SetDebugUtilsObjectNameEXT>(device, pNameInfo);
}

VKAPI_ATTR VkResult VKAPI_CALL SetDebugUtilsObjectTagEXT(VkDevice device, const VkDebugUtilsObjectTagInfoEXT* pTagInfo) {
  return DebugUtilsHook<&Table::SetDebugUtilsObjectTagEXT>(device, pTagInfo);
}

VKAPI_ATTR VkResult VKAPI_CALL InstanceSetDebugUtilsObjectNameEXT(VkDevice device,
                                                                  const VkDebugUtilsObjectNameInfoEXT* pNameInfo) {
  return InstanceDebugUtilsHook<PFN_vkSetDebugUtilsObjectNameEXT>(device, pNameInfo, "vkSetDebugUtilsObjectNameEXT");
}

VKAPI_ATTR VkResult VKAPI_CALL InstanceSetDebugUtilsObjectTagEXT(VkDevice device,
                                                                 const VkDebugUtilsObjectTagInfoEXT* pTagInfo) {
  return InstanceDebugUtilsHook<PFN_vkSetDebugUtilsObjectTagEXT>(device, pTagInfo, "vkSetDebugUtilsObjectTagEXT");
}

VKAPI_ATTR VkResult VKAPI_CALL DebugMarkerSetObjectNameEXT(VkDevice device,
                                                           const VkDebugMarkerObjectNameInfoEXT* pNameInfo) {
  return DebugMarkerHook<&Table::DebugMarkerSetObjectNameEXT>(device, pNameInfo);
}

VKAPI_ATTR VkResult VKAPI_CALL DebugMarkerSetObjectTagEXT(VkDevice device, const VkDebugMarkerObjectTagInfoEXT* pTagInfo) {
  return DebugMarkerHook<&Table::DebugMarkerSetObjectTagEXT>(device, pTagInfo);
}

VKAPI_ATTR VkResult VKAPI_CALL SetPrivateData(VkDevice device, VkObjectType objectType, uint64_t objectHandle,
                                              VkPrivateDataSlot slot, uint64_t data) {
  return SetPrivateDataHook<&Table::SetPrivateData>(device, objectType, objectHandle, slot, data);
}

VKAPI_ATTR VkResult VKAPI_CALL SetPrivateDataEXT(VkDevice device, VkObjectType objectType, uint64_t objectHandle,
                                                 VkPrivateDataSlot slot, uint64_t data) {
  return SetPrivateDataHook<&Table::SetPrivateDataEXT>(device, objectType, objectHandle, slot, data);
}

VKAPI_ATTR void VKAPI_CALL GetPrivateData(VkDevice device, VkObjectType objectType, uint64_t objectHandle,
                                          VkPrivateDataSlot slot, uint64_t* pData) {
  GetPrivateDataHook<&Table::GetPrivateData>(device, objectType, objectHandle, slot, pData);
}

VKAPI_ATTR void VKAPI_CALL GetPrivateDataEXT(VkDevice device, VkObjectType objectType, uint64_t objectHandle,
                                             VkPrivateDataSlot slot, uint64_t* pData) {
  GetPrivateDataHook<&Table::GetPrivateDataEXT>(device, objectType, objectHandle, slot, pData);
}

VKAPI_ATTR void VKAPI_CALL DestroyPrivateDataSlot(VkDevice device, VkPrivateDataSlot slot,
                                                  const VkAllocationCallbacks* pAllocator) {
  DestroyPrivateDataSlotHook<&Table::DestroyPrivateDataSlot>(device, slot, pAllocator);
}

VKAPI_ATTR void VKAPI_CALL DestroyPrivateDataSlotEXT(VkDevice device, VkPrivateDataSlot slot,
                                                     const VkAllocationCallbacks* pAllocator) {
  DestroyPrivateDataSlotHook<&Table::DestroyPrivateDataSlotEXT>(device, slot, pAllocator);
}

}  // namespace bindery::bindings
