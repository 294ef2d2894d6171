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

// What this layer keeps per instance and per device: the next layer's proc-addr function
// and the commands it calls there.
#define ABOVE_INSTANCE_NEXT(X) X(DestroyInstance) X(EnumerateDeviceExtensionProperties)
#define ABOVE_DEVICE_NEXT(X) X(DestroyDevice) X(BeginCommandBuffer) X(CmdFillBuffer) X(QueueSubmit)
struct InstanceData {
  PFN_vkGetInstanceProcAddr gipa = nullptr;
  ABOVE_INSTANCE_NEXT(BINDERY_TEST_LAYER_NEXT_MEMBER)
};
struct DeviceData {
  PFN_vkGetDeviceProcAddr gdpa = nullptr;
  ABOVE_DEVICE_NEXT(BINDERY_TEST_LAYER_NEXT_MEMBER)
};

std::mutex g_mutex;  // a test layer: simplicity over speed
std::map<void*, InstanceData> g_instances;
std::map<void*, DeviceData> g_devices;
AboveLayerRecord g_record{};
VkPhysicalDevice g_last_physical_device = VK_NULL_HANDLE;

// The data kept for `dispatchable`'s instance or device (empty where none); Take also
// forgets it (at destruction).
template <typename Data>
Data Find(const std::map<void*, Data>& all, const void* dispatchable) {
  std::lock_guard<std::mutex> lock(g_mutex);
  auto it = all.find(Key(dispatchable));
  return it == all.end() ? Data{} : it->second;
}
template <typename Data>
Data Take(std::map<void*, Data>& all, const void* dispatchable) {
  std::lock_guard<std::mutex> lock(g_mutex);
  auto it = all.find(Key(dispatchable));
  if (it == all.end()) return Data{};
  Data data = it->second;
  all.erase(it);
  return data;
}
InstanceData FindInstance(const void* dispatchable) { return Find(g_instances, dispatchable); }
DeviceData FindDevice(const void* dispatchable) { return Find(g_devices, dispatchable); }

// The sample layer's get_chain_info: the first entry of `stype` whose function is the link.
template <typename T>
const T* FindDataCallback(const void* chain, VkStructureType stype) {
  for (auto* s = static_cast<const VkBaseInStructure*>(chain); s != nullptr; s = s->pNext) {
    auto* info = reinterpret_cast<const T*>(s);
    if (s->sType == stype && info->function == VK_LOADER_DATA_CALLBACK) return info;
  }
  return nullptr;
}

// This layer's link in `ci` (VkLayerInstanceCreateInfo / VkLayerDeviceCreateInfo with
// `stype`), moved on to the next layer; returns this layer's entry (the next layer's
// proc-addr functions), or nullptr.
template <typename LinkInfo, typename CreateInfo>
auto TakeLink(const CreateInfo* ci, VkStructureType stype) -> decltype(LinkInfo{}.u.pLayerInfo) {
  auto* link = bindery::test_layer::FindLink<LinkInfo>(ci->pNext, stype);
  if (link == nullptr || link->u.pLayerInfo == nullptr) return nullptr;
  auto* ours = link->u.pLayerInfo;
  link->u.pLayerInfo = ours->pNext;
  return ours;
}

// The chain handed down: a copy of the create info that starts with a copy of the
// loader's data-callback entry (same sType as the link, another `function`), where the
// loader put one.
template <typename LinkInfo, typename CreateInfo>
struct DecoyedCreateInfo {
  CreateInfo copy;
  LinkInfo decoy{};
  bool inserted = false;
  DecoyedCreateInfo(const CreateInfo* ci, VkStructureType stype) : copy(*ci) {
    const LinkInfo* callback = FindDataCallback<LinkInfo>(ci->pNext, stype);
    if (callback == nullptr) return;
    decoy = *callback;
    decoy.pNext = ci->pNext;
    copy.pNext = &decoy;
    inserted = true;
  }
  DecoyedCreateInfo(const DecoyedCreateInfo&) = delete;
  DecoyedCreateInfo& operator=(const DecoyedCreateInfo&) = delete;
};

VKAPI_ATTR VkResult VKAPI_CALL CreateInstance(const VkInstanceCreateInfo* ci, const VkAllocationCallbacks* alloc,
                                              VkInstance* out) {
  constexpr VkStructureType kLink = VK_STRUCTURE_TYPE_LOADER_INSTANCE_CREATE_INFO;
  const auto* ours = TakeLink<VkLayerInstanceCreateInfo>(ci, kLink);
  if (ours == nullptr) return VK_ERROR_INITIALIZATION_FAILED;
  PFN_vkGetInstanceProcAddr gipa = ours->pfnNextGetInstanceProcAddr;
  auto create = reinterpret_cast<PFN_vkCreateInstance>(gipa(VK_NULL_HANDLE, "vkCreateInstance"));
  if (create == nullptr) return VK_ERROR_INITIALIZATION_FAILED;
  const DecoyedCreateInfo<VkLayerInstanceCreateInfo, VkInstanceCreateInfo> down(ci, kLink);
  VkResult result = create(&down.copy, alloc, out);
  if (result != VK_SUCCESS) return result;

  InstanceData data;
  data.gipa = gipa;
  BINDERY_TEST_LAYER_LOAD_NEXT(ABOVE_INSTANCE_NEXT, data, gipa, *out);
  std::lock_guard<std::mutex> lock(g_mutex);
  g_instances[Key(*out)] = data;
  g_record.next_instance_gipa = gipa;
  g_record.null_instance_create_instance = gipa(VK_NULL_HANDLE, "vkCreateInstance");
  g_record.null_instance_create_device = gipa(VK_NULL_HANDLE, "vkCreateDevice");
  ++g_record.instances_created;
  if (down.inserted) ++g_record.decoys_inserted;
  return VK_SUCCESS;
}

VKAPI_ATTR void VKAPI_CALL DestroyInstance(VkInstance instance, const VkAllocationCallbacks* alloc) {
  if (instance == VK_NULL_HANDLE) return;
  const InstanceData data = Take(g_instances, instance);
  if (data.DestroyInstance != nullptr) data.DestroyInstance(instance, alloc);
}

VKAPI_ATTR VkResult VKAPI_CALL CreateDevice(VkPhysicalDevice pd, const VkDeviceCreateInfo* ci,
                                            const VkAllocationCallbacks* alloc, VkDevice* out) {
  constexpr VkStructureType kLink = VK_STRUCTURE_TYPE_LOADER_DEVICE_CREATE_INFO;
  const auto* ours = TakeLink<VkLayerDeviceCreateInfo>(ci, kLink);
  if (ours == nullptr) return VK_ERROR_INITIALIZATION_FAILED;
  PFN_vkGetInstanceProcAddr gipa = ours->pfnNextGetInstanceProcAddr;
  PFN_vkGetDeviceProcAddr gdpa = ours->pfnNextGetDeviceProcAddr;
  // Exactly what MangoHud and vkBasalt do: no instance handle.
  auto create = reinterpret_cast<PFN_vkCreateDevice>(gipa(VK_NULL_HANDLE, "vkCreateDevice"));
  if (create == nullptr) return VK_ERROR_INITIALIZATION_FAILED;
  const DecoyedCreateInfo<VkLayerDeviceCreateInfo, VkDeviceCreateInfo> down(ci, kLink);
  VkResult result = create(pd, &down.copy, alloc, out);
  if (result != VK_SUCCESS) return result;

  DeviceData data;
  data.gdpa = gdpa;
  BINDERY_TEST_LAYER_LOAD_NEXT(ABOVE_DEVICE_NEXT, data, gdpa, *out);
  std::lock_guard<std::mutex> lock(g_mutex);
  g_devices[Key(*out)] = data;
  g_record.next_device_gipa = gipa;
  g_record.next_device_gdpa = gdpa;
  ++g_record.devices_created;
  if (down.inserted) ++g_record.decoys_inserted;
  g_last_physical_device = pd;
  return VK_SUCCESS;
}

VKAPI_ATTR void VKAPI_CALL DestroyDevice(VkDevice device, const VkAllocationCallbacks* alloc) {
  if (device == VK_NULL_HANDLE) return;
  const DeviceData data = Take(g_devices, device);
  if (data.DestroyDevice != nullptr) data.DestroyDevice(device, alloc);
}

VKAPI_ATTR VkResult VKAPI_CALL BeginCommandBuffer(VkCommandBuffer cb, const VkCommandBufferBeginInfo* info) {
  {
    std::lock_guard<std::mutex> lock(g_mutex);
    ++g_record.begin_command_buffer_calls;
  }
  return FindDevice(cb).BeginCommandBuffer(cb, info);
}

VKAPI_ATTR void VKAPI_CALL CmdFillBuffer(VkCommandBuffer cb, VkBuffer buffer, VkDeviceSize offset, VkDeviceSize size,
                                         uint32_t data) {
  {
    std::lock_guard<std::mutex> lock(g_mutex);
    ++g_record.fill_buffer_calls;
  }
  FindDevice(cb).CmdFillBuffer(cb, buffer, offset, size, data);
}

VKAPI_ATTR VkResult VKAPI_CALL QueueSubmit(VkQueue queue, uint32_t count, const VkSubmitInfo* submits, VkFence fence) {
  {
    std::lock_guard<std::mutex> lock(g_mutex);
    ++g_record.queue_submit_calls;
  }
  return FindDevice(queue).QueueSubmit(queue, count, submits, fence);
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
  if (data.EnumerateDeviceExtensionProperties == nullptr) return VK_ERROR_INITIALIZATION_FAILED;
  return data.EnumerateDeviceExtensionProperties(pd, layer, count, nullptr);
}
