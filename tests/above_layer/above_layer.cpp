// Test-only layer that sits ABOVE Bindery and behaves like the loader documentation's
// sample layer, as MangoHud and vkBasalt do: it takes the next layer's vkCreateInstance
// and vkCreateDevice from GetInstanceProcAddr(NULL, ...), builds its dispatch from the
// link info, and forwards everything else. To prove the layer below walks the create-info
// chains properly, it puts a copy of the loader's data-callback entry *before* the link
// info of the chain it hands down (same sType, another `function`). It counts a few
// commands so tests can see that recording really went through it.
#include <cstring>
#include <map>
#include <mutex>

#include <vulkan/vk_layer.h>
#include <vulkan/vulkan.h>

#include "above_layer.h"
#include "support/test_layer.h"

namespace {

void* Key(const void* dispatchable) { return *static_cast<void* const*>(dispatchable); }

struct InstanceData {
  PFN_vkGetInstanceProcAddr gipa = nullptr;
  PFN_vkDestroyInstance destroy = nullptr;
  PFN_vkEnumerateDeviceExtensionProperties enumerate_device_extensions = nullptr;
};

struct DeviceData {
  PFN_vkGetDeviceProcAddr gdpa = nullptr;
  PFN_vkDestroyDevice destroy = nullptr;
  PFN_vkBeginCommandBuffer begin = nullptr;
  PFN_vkCmdFillBuffer fill = nullptr;
  PFN_vkQueueSubmit submit = nullptr;
};

std::mutex g_mutex;  // a test layer: simplicity over speed
std::map<void*, InstanceData> g_instances;
std::map<void*, DeviceData> g_devices;
AboveLayerRecord g_record{};
VkPhysicalDevice g_last_physical_device = VK_NULL_HANDLE;

InstanceData FindInstance(const void* dispatchable) {
  std::lock_guard<std::mutex> lock(g_mutex);
  auto it = g_instances.find(Key(dispatchable));
  return it == g_instances.end() ? InstanceData{} : it->second;
}

DeviceData FindDevice(const void* dispatchable) {
  std::lock_guard<std::mutex> lock(g_mutex);
  auto it = g_devices.find(Key(dispatchable));
  return it == g_devices.end() ? DeviceData{} : it->second;
}

// The sample layer's get_chain_info: the first entry of `stype` whose function is the link.
template <typename T>
const T* FindDataCallback(const void* chain, VkStructureType stype) {
  for (auto* s = static_cast<const VkBaseInStructure*>(chain); s != nullptr; s = s->pNext) {
    auto* info = reinterpret_cast<const T*>(s);
    if (s->sType == stype && info->function == VK_LOADER_DATA_CALLBACK) return info;
  }
  return nullptr;
}

VKAPI_ATTR VkResult VKAPI_CALL CreateInstance(const VkInstanceCreateInfo* ci, const VkAllocationCallbacks* alloc,
                                              VkInstance* out) {
  auto* link = bindery::test_layer::FindLink<VkLayerInstanceCreateInfo>(ci->pNext, VK_STRUCTURE_TYPE_LOADER_INSTANCE_CREATE_INFO);
  if (link == nullptr || link->u.pLayerInfo == nullptr) return VK_ERROR_INITIALIZATION_FAILED;
  PFN_vkGetInstanceProcAddr gipa = link->u.pLayerInfo->pfnNextGetInstanceProcAddr;
  auto create = reinterpret_cast<PFN_vkCreateInstance>(gipa(VK_NULL_HANDLE, "vkCreateInstance"));
  if (create == nullptr) return VK_ERROR_INITIALIZATION_FAILED;
  link->u.pLayerInfo = link->u.pLayerInfo->pNext;

  // Hand down a chain that starts with a copy of the loader's data-callback entry.
  VkInstanceCreateInfo copy = *ci;
  VkLayerInstanceCreateInfo decoy{};
  const auto* callback =
      FindDataCallback<VkLayerInstanceCreateInfo>(ci->pNext, VK_STRUCTURE_TYPE_LOADER_INSTANCE_CREATE_INFO);
  if (callback != nullptr) {
    decoy = *callback;
    decoy.pNext = ci->pNext;
    copy.pNext = &decoy;
  }
  VkResult result = create(&copy, alloc, out);
  if (result != VK_SUCCESS) return result;

  InstanceData data;
  data.gipa = gipa;
  data.destroy = reinterpret_cast<PFN_vkDestroyInstance>(gipa(*out, "vkDestroyInstance"));
  data.enumerate_device_extensions = reinterpret_cast<PFN_vkEnumerateDeviceExtensionProperties>(
      gipa(*out, "vkEnumerateDeviceExtensionProperties"));
  std::lock_guard<std::mutex> lock(g_mutex);
  g_instances[Key(*out)] = data;
  g_record.next_instance_gipa = gipa;
  g_record.null_instance_create_instance = gipa(VK_NULL_HANDLE, "vkCreateInstance");
  g_record.null_instance_create_device = gipa(VK_NULL_HANDLE, "vkCreateDevice");
  ++g_record.instances_created;
  if (callback != nullptr) ++g_record.decoys_inserted;
  return VK_SUCCESS;
}

VKAPI_ATTR void VKAPI_CALL DestroyInstance(VkInstance instance, const VkAllocationCallbacks* alloc) {
  if (instance == VK_NULL_HANDLE) return;
  InstanceData data = FindInstance(instance);
  {
    std::lock_guard<std::mutex> lock(g_mutex);
    g_instances.erase(Key(instance));
  }
  if (data.destroy != nullptr) data.destroy(instance, alloc);
}

VKAPI_ATTR VkResult VKAPI_CALL CreateDevice(VkPhysicalDevice pd, const VkDeviceCreateInfo* ci,
                                            const VkAllocationCallbacks* alloc, VkDevice* out) {
  auto* link = bindery::test_layer::FindLink<VkLayerDeviceCreateInfo>(ci->pNext, VK_STRUCTURE_TYPE_LOADER_DEVICE_CREATE_INFO);
  if (link == nullptr || link->u.pLayerInfo == nullptr) return VK_ERROR_INITIALIZATION_FAILED;
  PFN_vkGetInstanceProcAddr gipa = link->u.pLayerInfo->pfnNextGetInstanceProcAddr;
  PFN_vkGetDeviceProcAddr gdpa = link->u.pLayerInfo->pfnNextGetDeviceProcAddr;
  // Exactly what MangoHud and vkBasalt do: no instance handle.
  auto create = reinterpret_cast<PFN_vkCreateDevice>(gipa(VK_NULL_HANDLE, "vkCreateDevice"));
  if (create == nullptr) return VK_ERROR_INITIALIZATION_FAILED;
  link->u.pLayerInfo = link->u.pLayerInfo->pNext;

  VkDeviceCreateInfo copy = *ci;
  VkLayerDeviceCreateInfo decoy{};
  const auto* callback = FindDataCallback<VkLayerDeviceCreateInfo>(ci->pNext, VK_STRUCTURE_TYPE_LOADER_DEVICE_CREATE_INFO);
  if (callback != nullptr) {
    decoy = *callback;
    decoy.pNext = ci->pNext;
    copy.pNext = &decoy;
  }
  VkResult result = create(pd, &copy, alloc, out);
  if (result != VK_SUCCESS) return result;

  DeviceData data;
  data.gdpa = gdpa;
  data.destroy = reinterpret_cast<PFN_vkDestroyDevice>(gdpa(*out, "vkDestroyDevice"));
  data.begin = reinterpret_cast<PFN_vkBeginCommandBuffer>(gdpa(*out, "vkBeginCommandBuffer"));
  data.fill = reinterpret_cast<PFN_vkCmdFillBuffer>(gdpa(*out, "vkCmdFillBuffer"));
  data.submit = reinterpret_cast<PFN_vkQueueSubmit>(gdpa(*out, "vkQueueSubmit"));
  std::lock_guard<std::mutex> lock(g_mutex);
  g_devices[Key(*out)] = data;
  g_record.next_device_gipa = gipa;
  g_record.next_device_gdpa = gdpa;
  ++g_record.devices_created;
  if (callback != nullptr) ++g_record.decoys_inserted;
  g_last_physical_device = pd;
  return VK_SUCCESS;
}

VKAPI_ATTR void VKAPI_CALL DestroyDevice(VkDevice device, const VkAllocationCallbacks* alloc) {
  if (device == VK_NULL_HANDLE) return;
  DeviceData data = FindDevice(device);
  {
    std::lock_guard<std::mutex> lock(g_mutex);
    g_devices.erase(Key(device));
  }
  if (data.destroy != nullptr) data.destroy(device, alloc);
}

VKAPI_ATTR VkResult VKAPI_CALL BeginCommandBuffer(VkCommandBuffer cb, const VkCommandBufferBeginInfo* info) {
  {
    std::lock_guard<std::mutex> lock(g_mutex);
    ++g_record.begin_command_buffer_calls;
  }
  return FindDevice(cb).begin(cb, info);
}

VKAPI_ATTR void VKAPI_CALL CmdFillBuffer(VkCommandBuffer cb, VkBuffer buffer, VkDeviceSize offset, VkDeviceSize size,
                                         uint32_t data) {
  {
    std::lock_guard<std::mutex> lock(g_mutex);
    ++g_record.fill_buffer_calls;
  }
  FindDevice(cb).fill(cb, buffer, offset, size, data);
}

VKAPI_ATTR VkResult VKAPI_CALL QueueSubmit(VkQueue queue, uint32_t count, const VkSubmitInfo* submits, VkFence fence) {
  {
    std::lock_guard<std::mutex> lock(g_mutex);
    ++g_record.queue_submit_calls;
  }
  return FindDevice(queue).submit(queue, count, submits, fence);
}

VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL GetDeviceProcAddr(VkDevice device, const char* name);

// The device commands this layer intercepts (also answered through GetInstanceProcAddr,
// as the sample layer does).
PFN_vkVoidFunction DeviceIntercept(const char* name) {
  BINDERY_TEST_LAYER_ENTRY(GetDeviceProcAddr);
  BINDERY_TEST_LAYER_ENTRY(DestroyDevice);
  BINDERY_TEST_LAYER_ENTRY(BeginCommandBuffer);
  BINDERY_TEST_LAYER_ENTRY(CmdFillBuffer);
  BINDERY_TEST_LAYER_ENTRY(QueueSubmit);
  return nullptr;
}

VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL GetDeviceProcAddr(VkDevice device, const char* name) {
  DeviceData data = FindDevice(device);
  if (data.gdpa == nullptr) return nullptr;
  PFN_vkVoidFunction next = data.gdpa(device, name);
  if (next == nullptr) return nullptr;  // not enabled below: stays unavailable
  PFN_vkVoidFunction ours = DeviceIntercept(name);
  return ours != nullptr ? ours : next;
}

VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL GetInstanceProcAddr(VkInstance instance, const char* name) {
  BINDERY_TEST_LAYER_ENTRY(GetInstanceProcAddr);
  BINDERY_TEST_LAYER_ENTRY(CreateInstance);
  BINDERY_TEST_LAYER_ENTRY(DestroyInstance);
  BINDERY_TEST_LAYER_ENTRY(CreateDevice);
  if (instance == VK_NULL_HANDLE) return nullptr;
  InstanceData data = FindInstance(instance);
  if (data.gipa == nullptr) return nullptr;
  PFN_vkVoidFunction next = data.gipa(instance, name);
  PFN_vkVoidFunction ours = DeviceIntercept(name);
  return next != nullptr && ours != nullptr ? ours : next;
}

}  // namespace

BINDERY_TEST_LAYER_NEGOTIATE(GetInstanceProcAddr, GetDeviceProcAddr)

BINDERY_TEST_LAYER_EXPORT void bindery_above_record(AboveLayerRecord* out) {
  std::lock_guard<std::mutex> lock(g_mutex);
  *out = g_record;
}

BINDERY_TEST_LAYER_EXPORT VkResult bindery_above_enumerate_device_extensions(
    const char* layer, uint32_t* count) {
  VkPhysicalDevice pd;
  {
    std::lock_guard<std::mutex> lock(g_mutex);
    pd = g_last_physical_device;
  }
  if (pd == VK_NULL_HANDLE) return VK_ERROR_INITIALIZATION_FAILED;
  InstanceData data = FindInstance(pd);
  if (data.enumerate_device_extensions == nullptr) return VK_ERROR_INITIALIZATION_FAILED;
  return data.enumerate_device_extensions(pd, layer, count, nullptr);
}
