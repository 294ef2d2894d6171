// Debug names, tags and private data on layer-owned descriptor sets (owned_sets.h). The
// layer below has never seen those handles — validation would report them unknown — so
// names and tags given to them are dropped (the application gets VK_SUCCESS), and their
// private data is kept here. Every other object passes straight through. Cold paths.
//
// The loader sends vkSetDebugUtilsObject{Name,Tag}EXT (an instance extension's device
// functions) down the *instance* chain, so those two are hooked there too; a layer above
// may still call them through the device chain.
#include <iterator>

#include "bindings/bindings_capability.h"
#include "bindings/bindings_device.h"
#include "bindings/hooks.h"
#include "chassis/instance_stack.h"
#include "chassis/state.h"

namespace bindery::bindings {
namespace {

bool IsOwnedSet(VkObjectType type, uint64_t handle) {
  return type == VK_OBJECT_TYPE_DESCRIPTOR_SET && OwnedSet(reinterpret_cast<VkDescriptorSet>(handle)) != nullptr;
}

bool IsOwnedSet(VkDebugReportObjectTypeEXT type, uint64_t handle) {
  return type == VK_DEBUG_REPORT_OBJECT_TYPE_DESCRIPTOR_SET_EXT &&
         OwnedSet(reinterpret_cast<VkDescriptorSet>(handle)) != nullptr;
}

VkResult SetOwnedData(DeviceBindings& b, uint64_t handle, VkPrivateDataSlot slot, uint64_t data) {
  SetShadow* set = OwnedSet(reinterpret_cast<VkDescriptorSet>(handle));
  std::lock_guard<std::mutex> lock(b.owned_data_mutex);
  b.owned_data[{handle, reinterpret_cast<uint64_t>(slot)}] = data;
  // Freeing the set or resetting its pool forgets it (a later set may reuse the handle).
  if (set->pool != nullptr) set->pool->owned_private_data.store(true, std::memory_order_release);
  return VK_SUCCESS;
}

void GetOwnedData(DeviceBindings& b, uint64_t handle, VkPrivateDataSlot slot, uint64_t* data) {
  std::lock_guard<std::mutex> lock(b.owned_data_mutex);
  auto it = b.owned_data.find({handle, reinterpret_cast<uint64_t>(slot)});
  *data = it != b.owned_data.end() ? it->second : 0;
}

void ForgetSlot(DeviceBindings& b, VkPrivateDataSlot slot) {
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
  return ResolveInstanceFunction(*state->instance, static_cast<int>(BindingsCapability().slot()), name);
}

}  // namespace

void DeviceBindings::ForgetOwnedData(uint64_t begin, uint64_t end) {
  std::lock_guard<std::mutex> lock(owned_data_mutex);
  for (auto it = owned_data.begin(); it != owned_data.end();) {
    it = it->first.set >= begin && it->first.set < end ? owned_data.erase(it) : std::next(it);
  }
}

VKAPI_ATTR VkResult VKAPI_CALL SetDebugUtilsObjectNameEXT(VkDevice device, const VkDebugUtilsObjectNameInfoEXT* pNameInfo) {
  if (IsOwnedSet(pNameInfo->objectType, pNameInfo->objectHandle)) return VK_SUCCESS;
  return BindingsOf(device).next.SetDebugUtilsObjectNameEXT(device, pNameInfo);
}

VKAPI_ATTR VkResult VKAPI_CALL SetDebugUtilsObjectTagEXT(VkDevice device, const VkDebugUtilsObjectTagInfoEXT* pTagInfo) {
  if (IsOwnedSet(pTagInfo->objectType, pTagInfo->objectHandle)) return VK_SUCCESS;
  return BindingsOf(device).next.SetDebugUtilsObjectTagEXT(device, pTagInfo);
}

VKAPI_ATTR VkResult VKAPI_CALL InstanceSetDebugUtilsObjectNameEXT(VkDevice device,
                                                                  const VkDebugUtilsObjectNameInfoEXT* pNameInfo) {
  if (IsOwnedSet(pNameInfo->objectType, pNameInfo->objectHandle)) return VK_SUCCESS;
  auto next = reinterpret_cast<PFN_vkSetDebugUtilsObjectNameEXT>(InstanceNext(device, "vkSetDebugUtilsObjectNameEXT"));
  return next != nullptr ? next(device, pNameInfo) : VK_SUCCESS;
}

VKAPI_ATTR VkResult VKAPI_CALL InstanceSetDebugUtilsObjectTagEXT(VkDevice device,
                                                                 const VkDebugUtilsObjectTagInfoEXT* pTagInfo) {
  if (IsOwnedSet(pTagInfo->objectType, pTagInfo->objectHandle)) return VK_SUCCESS;
  auto next = reinterpret_cast<PFN_vkSetDebugUtilsObjectTagEXT>(InstanceNext(device, "vkSetDebugUtilsObjectTagEXT"));
  return next != nullptr ? next(device, pTagInfo) : VK_SUCCESS;
}

VKAPI_ATTR VkResult VKAPI_CALL DebugMarkerSetObjectNameEXT(VkDevice device,
                                                           const VkDebugMarkerObjectNameInfoEXT* pNameInfo) {
  if (IsOwnedSet(pNameInfo->objectType, pNameInfo->object)) return VK_SUCCESS;
  return BindingsOf(device).next.DebugMarkerSetObjectNameEXT(device, pNameInfo);
}

VKAPI_ATTR VkResult VKAPI_CALL DebugMarkerSetObjectTagEXT(VkDevice device, const VkDebugMarkerObjectTagInfoEXT* pTagInfo) {
  if (IsOwnedSet(pTagInfo->objectType, pTagInfo->object)) return VK_SUCCESS;
  return BindingsOf(device).next.DebugMarkerSetObjectTagEXT(device, pTagInfo);
}

VKAPI_ATTR VkResult VKAPI_CALL SetPrivateData(VkDevice device, VkObjectType objectType, uint64_t objectHandle,
                                              VkPrivateDataSlot slot, uint64_t data) {
  DeviceBindings& b = BindingsOf(device);
  if (IsOwnedSet(objectType, objectHandle)) return SetOwnedData(b, objectHandle, slot, data);
  return b.next.SetPrivateData(device, objectType, objectHandle, slot, data);
}

VKAPI_ATTR VkResult VKAPI_CALL SetPrivateDataEXT(VkDevice device, VkObjectType objectType, uint64_t objectHandle,
                                                 VkPrivateDataSlot slot, uint64_t data) {
  DeviceBindings& b = BindingsOf(device);
  if (IsOwnedSet(objectType, objectHandle)) return SetOwnedData(b, objectHandle, slot, data);
  return b.next.SetPrivateDataEXT(device, objectType, objectHandle, slot, data);
}

VKAPI_ATTR void VKAPI_CALL GetPrivateData(VkDevice device, VkObjectType objectType, uint64_t objectHandle,
                                          VkPrivateDataSlot slot, uint64_t* pData) {
  DeviceBindings& b = BindingsOf(device);
  if (IsOwnedSet(objectType, objectHandle)) return GetOwnedData(b, objectHandle, slot, pData);
  b.next.GetPrivateData(device, objectType, objectHandle, slot, pData);
}

VKAPI_ATTR void VKAPI_CALL GetPrivateDataEXT(VkDevice device, VkObjectType objectType, uint64_t objectHandle,
                                             VkPrivateDataSlot slot, uint64_t* pData) {
  DeviceBindings& b = BindingsOf(device);
  if (IsOwnedSet(objectType, objectHandle)) return GetOwnedData(b, objectHandle, slot, pData);
  b.next.GetPrivateDataEXT(device, objectType, objectHandle, slot, pData);
}

VKAPI_ATTR void VKAPI_CALL DestroyPrivateDataSlot(VkDevice device, VkPrivateDataSlot slot,
                                                  const VkAllocationCallbacks* pAllocator) {
  DeviceBindings& b = BindingsOf(device);
  ForgetSlot(b, slot);
  b.next.DestroyPrivateDataSlot(device, slot, pAllocator);
}

VKAPI_ATTR void VKAPI_CALL DestroyPrivateDataSlotEXT(VkDevice device, VkPrivateDataSlot slot,
                                                     const VkAllocationCallbacks* pAllocator) {
  DeviceBindings& b = BindingsOf(device);
  ForgetSlot(b, slot);
  b.next.DestroyPrivateDataSlotEXT(device, slot, pAllocator);
}

}  // namespace bindery::bindings
