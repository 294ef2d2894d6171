// Test-only layer: records the pNext chains of vkCreateInstance / vkCreateDevice as it
// receives them (i.e. as the layer above it sends them), records a few device calls
// (buffer creation and requirements, device addresses, allocations, frees and binds,
// buffer copies, pushes and dispatches with a base), and passes everything through.
#include <cstring>
#include <mutex>
#include <vector>

#include <vulkan/vk_layer.h>
#include <vulkan/vulkan.h>

#include "spy_layer.h"
#include "support/test_layer.h"

namespace {

struct Link {
  PFN_vkGetInstanceProcAddr gipa = nullptr;
  PFN_vkGetDeviceProcAddr gdpa = nullptr;
};

// The next layer's device functions the spy records (one device with the spy at a time).
#define SPY_DEVICE_NEXT(X)                                                                                 \
  X(CreateBuffer) X(GetDeviceBufferMemoryRequirements) X(GetDeviceBufferMemoryRequirementsKHR)           \
  X(GetBufferDeviceAddress) X(GetBufferDeviceAddressKHR) X(GetBufferDeviceAddressEXT) X(AllocateMemory)  \
  X(FreeMemory) X(BindBufferMemory) X(BindBufferMemory2) X(BindBufferMemory2KHR) X(CmdCopyBuffer)        \
  X(CmdCopyBuffer2) X(CmdCopyBuffer2KHR) X(CmdPushConstants) X(CmdDispatchBase) X(CmdDispatchBaseKHR)
struct NextDevice {
  SPY_DEVICE_NEXT(BINDERY_TEST_LAYER_NEXT_MEMBER)
};

std::mutex g_mutex;
Link g_instance_link;  // one instance with the spy at a time is enough for tests
Link g_device_link;
NextDevice g_next;
std::vector<SpyChainEntry> g_chains[2];
std::vector<SpyEvent> g_events;

void Record(int which, const void* chain) {
  std::lock_guard<std::mutex> lock(g_mutex);
  g_chains[which].clear();
  for (auto* s = static_cast<const VkBaseInStructure*>(chain); s != nullptr; s = s->pNext) {
    if (s->sType == VK_STRUCTURE_TYPE_LOADER_INSTANCE_CREATE_INFO ||
        s->sType == VK_STRUCTURE_TYPE_LOADER_DEVICE_CREATE_INFO) {
      continue;  // the loader's own link structs
    }
    SpyChainEntry entry{static_cast<uint32_t>(s->sType), s, -1, -1};
    if (s->sType == VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_BUFFER_DEVICE_ADDRESS_FEATURES) {
      entry.buffer_device_address =
          static_cast<int32_t>(reinterpret_cast<const VkPhysicalDeviceBufferDeviceAddressFeatures*>(s)->bufferDeviceAddress);
    } else if (s->sType == VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES) {
      const auto* v12 = reinterpret_cast<const VkPhysicalDeviceVulkan12Features*>(s);
      entry.buffer_device_address = static_cast<int32_t>(v12->bufferDeviceAddress);
      entry.timeline_semaphore = static_cast<int32_t>(v12->timelineSemaphore);
    }
    g_chains[which].push_back(entry);
  }
}

void AddEvent(const SpyEvent& event) {
  std::lock_guard<std::mutex> lock(g_mutex);
  g_events.push_back(event);
}

// An event of `kind` about `handle`, with the create or copy info the call carried.
SpyEvent Event(uint32_t kind, uint64_t handle, const void* info = nullptr, const void* pnext = nullptr) {
  SpyEvent e{};
  e.kind = kind;
  e.handle = handle;
  e.info = info;
  e.pnext = pnext;
  return e;
}

template <typename Handle>
uint64_t Bits(Handle handle) {
  return reinterpret_cast<uint64_t>(handle);
}

// The usage the driver honours: VkBufferUsageFlags2CreateInfoKHR's where chained
// (maintenance5: then VkBufferCreateInfo::usage is ignored), else the legacy field.
SpyEvent BufferEvent(uint32_t kind, const VkBufferCreateInfo* ci) {
  SpyEvent e = Event(kind, 0, ci, ci->pNext);
  e.legacy_usage = ci->usage;
  e.usage = ci->usage;
  for (auto* s = static_cast<const VkBaseInStructure*>(ci->pNext); s != nullptr; s = s->pNext) {
    if (static_cast<uint32_t>(s->sType) == kSpyBufferUsageFlags2CreateInfo) {
      // { sType, pNext, VkBufferUsageFlags2KHR usage }
      std::memcpy(&e.usage, reinterpret_cast<const uint8_t*>(s) + sizeof(VkBaseInStructure), sizeof(uint64_t));
      e.flags |= 1;
    } else if (s->sType == VK_STRUCTURE_TYPE_EXTERNAL_MEMORY_BUFFER_CREATE_INFO) {
      e.flags |= 2;
    }
  }
  return e;
}

VKAPI_ATTR VkResult VKAPI_CALL SpyCreateBuffer(VkDevice device, const VkBufferCreateInfo* ci,
                                               const VkAllocationCallbacks* alloc, VkBuffer* out) {
  const VkResult result = g_next.CreateBuffer(device, ci, alloc, out);
  SpyEvent e = BufferEvent(kSpyCreateBuffer, ci);
  e.handle = result == VK_SUCCESS ? Bits(*out) : 0;
  AddEvent(e);
  return result;
}

void RecordRequirements(const VkDeviceBufferMemoryRequirements* info) {
  if (info != nullptr && info->pCreateInfo != nullptr) AddEvent(BufferEvent(kSpyDeviceBufferRequirements, info->pCreateInfo));
}

// The commands below with extension aliases have one body each: `next` is the name's
// pointer in the next layer.
template <PFN_vkGetDeviceBufferMemoryRequirements NextDevice::*next>
VKAPI_ATTR void VKAPI_CALL SpyGetDeviceBufferMemoryRequirements(VkDevice device,
                                                                const VkDeviceBufferMemoryRequirements* info,
                                                                VkMemoryRequirements2* out) {
  RecordRequirements(info);
  (g_next.*next)(device, info, out);
}

template <PFN_vkGetBufferDeviceAddress NextDevice::*next>
VKAPI_ATTR VkDeviceAddress VKAPI_CALL SpyGetBufferDeviceAddress(VkDevice device, const VkBufferDeviceAddressInfo* info) {
  AddEvent(Event(kSpyGetBufferAddress, Bits(info->buffer)));
  return (g_next.*next)(device, info);
}

VKAPI_ATTR VkResult VKAPI_CALL SpyAllocateMemory(VkDevice device, const VkMemoryAllocateInfo* info,
                                                 const VkAllocationCallbacks* alloc, VkDeviceMemory* out) {
  SpyEvent e = Event(kSpyAllocateMemory, 0, info, info->pNext);
  for (auto* s = static_cast<const VkBaseInStructure*>(info->pNext); s != nullptr; s = s->pNext) {
    if (s->sType == VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_FLAGS_INFO) {
      e.flags |= reinterpret_cast<const VkMemoryAllocateFlagsInfo*>(s)->flags;
    }
  }
  const VkResult result = g_next.AllocateMemory(device, info, alloc, out);
  e.handle = result == VK_SUCCESS ? Bits(*out) : 0;
  AddEvent(e);
  return result;
}

VKAPI_ATTR void VKAPI_CALL SpyFreeMemory(VkDevice device, VkDeviceMemory memory, const VkAllocationCallbacks* alloc) {
  if (memory != VK_NULL_HANDLE) AddEvent(Event(kSpyFreeMemory, Bits(memory)));
  g_next.FreeMemory(device, memory, alloc);
}

void RecordBind(VkBuffer buffer, VkDeviceMemory memory) {
  SpyEvent e = Event(kSpyBindBufferMemory, Bits(buffer));
  e.other = Bits(memory);
  AddEvent(e);
}

VKAPI_ATTR VkResult VKAPI_CALL SpyBindBufferMemory(VkDevice device, VkBuffer buffer, VkDeviceMemory memory,
                                                   VkDeviceSize offset) {
  RecordBind(buffer, memory);
  return g_next.BindBufferMemory(device, buffer, memory, offset);
}

template <PFN_vkBindBufferMemory2 NextDevice::*next>
VKAPI_ATTR VkResult VKAPI_CALL SpyBindBufferMemory2(VkDevice device, uint32_t count,
                                                    const VkBindBufferMemoryInfo* infos) {
  for (uint32_t i = 0; i < count; ++i) RecordBind(infos[i].buffer, infos[i].memory);
  return (g_next.*next)(device, count, infos);
}

void RecordCopy(const VkCopyBufferInfo2* info, VkBuffer dst, uint32_t count, const void* regions) {
  SpyEvent e = Event(info == nullptr ? kSpyCmdCopyBuffer : kSpyCmdCopyBuffer2, Bits(dst), info,
                     info == nullptr ? nullptr : info->pNext);
  e.count = count;
  e.regions = regions;
  AddEvent(e);
}

VKAPI_ATTR void VKAPI_CALL SpyCmdCopyBuffer(VkCommandBuffer cb, VkBuffer src, VkBuffer dst, uint32_t count,
                                            const VkBufferCopy* regions) {
  RecordCopy(nullptr, dst, count, regions);
  g_next.CmdCopyBuffer(cb, src, dst, count, regions);
}

template <PFN_vkCmdCopyBuffer2 NextDevice::*next>
VKAPI_ATTR void VKAPI_CALL SpyCmdCopyBuffer2(VkCommandBuffer cb, const VkCopyBufferInfo2* info) {
  RecordCopy(info, info->dstBuffer, info->regionCount, info->pRegions);
  (g_next.*next)(cb, info);
}

VKAPI_ATTR void VKAPI_CALL SpyCmdPushConstants(VkCommandBuffer cb, VkPipelineLayout layout, VkShaderStageFlags stages,
                                               uint32_t offset, uint32_t size, const void* values) {
  SpyEvent e = Event(kSpyCmdPushConstants, Bits(layout));
  e.count = size;
  e.other = offset;
  AddEvent(e);
  g_next.CmdPushConstants(cb, layout, stages, offset, size, values);
}

template <PFN_vkCmdDispatchBase NextDevice::*next>
VKAPI_ATTR void VKAPI_CALL SpyCmdDispatchBase(VkCommandBuffer cb, uint32_t base_x, uint32_t base_y, uint32_t base_z,
                                              uint32_t count_x, uint32_t count_y, uint32_t count_z) {
  SpyEvent e = Event(kSpyCmdDispatchBase, 0);
  e.count = count_x;
  AddEvent(e);
  (g_next.*next)(cb, base_x, base_y, base_z, count_x, count_y, count_z);
}

VKAPI_ATTR VkResult VKAPI_CALL SpyCreateInstance(const VkInstanceCreateInfo* ci, const VkAllocationCallbacks* alloc,
                                                 VkInstance* out) {
  Record(kSpyInstanceChain, ci->pNext);
  return bindery::test_layer::CreateInstanceBelow(ci, alloc, out, &g_instance_link.gipa);
}

VKAPI_ATTR VkResult VKAPI_CALL SpyCreateDevice(VkPhysicalDevice pd, const VkDeviceCreateInfo* ci,
                                               const VkAllocationCallbacks* alloc, VkDevice* out) {
  Record(kSpyDeviceChain, ci->pNext);
  const VkResult result = bindery::test_layer::CreateDeviceBelow(pd, ci, alloc, out, &g_device_link.gdpa);
  if (result != VK_SUCCESS) return result;
  {
    std::lock_guard<std::mutex> lock(g_mutex);
    g_events.clear();
  }
  g_next = {};
  BINDERY_TEST_LAYER_LOAD_NEXT(SPY_DEVICE_NEXT, g_next, g_device_link.gdpa, *out);
  return result;
}

VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL SpyGetInstanceProcAddr(VkInstance instance, const char* name);

// Ours where the next layer has the function too; else nullptr (the next layer's answer).
PFN_vkVoidFunction SpyDeviceFunction(const char* name) {
  using N = NextDevice;
  BINDERY_TEST_LAYER_ENTRY_AS_IF(CreateBuffer, SpyCreateBuffer, g_next.CreateBuffer);
  BINDERY_TEST_LAYER_ENTRY_AS_IF(GetDeviceBufferMemoryRequirements,
                                 SpyGetDeviceBufferMemoryRequirements<&N::GetDeviceBufferMemoryRequirements>,
                                 g_next.GetDeviceBufferMemoryRequirements);
  BINDERY_TEST_LAYER_ENTRY_AS_IF(GetDeviceBufferMemoryRequirementsKHR,
                                 SpyGetDeviceBufferMemoryRequirements<&N::GetDeviceBufferMemoryRequirementsKHR>,
                                 g_next.GetDeviceBufferMemoryRequirementsKHR);
  BINDERY_TEST_LAYER_ENTRY_AS_IF(GetBufferDeviceAddress, SpyGetBufferDeviceAddress<&N::GetBufferDeviceAddress>,
                                 g_next.GetBufferDeviceAddress);
  BINDERY_TEST_LAYER_ENTRY_AS_IF(GetBufferDeviceAddressKHR, SpyGetBufferDeviceAddress<&N::GetBufferDeviceAddressKHR>,
                                 g_next.GetBufferDeviceAddressKHR);
  BINDERY_TEST_LAYER_ENTRY_AS_IF(GetBufferDeviceAddressEXT, SpyGetBufferDeviceAddress<&N::GetBufferDeviceAddressEXT>,
                                 g_next.GetBufferDeviceAddressEXT);
  BINDERY_TEST_LAYER_ENTRY_AS_IF(AllocateMemory, SpyAllocateMemory, g_next.AllocateMemory);
  BINDERY_TEST_LAYER_ENTRY_AS_IF(FreeMemory, SpyFreeMemory, g_next.FreeMemory);
  BINDERY_TEST_LAYER_ENTRY_AS_IF(BindBufferMemory, SpyBindBufferMemory, g_next.BindBufferMemory);
  BINDERY_TEST_LAYER_ENTRY_AS_IF(BindBufferMemory2, SpyBindBufferMemory2<&N::BindBufferMemory2>,
                                 g_next.BindBufferMemory2);
  BINDERY_TEST_LAYER_ENTRY_AS_IF(BindBufferMemory2KHR, SpyBindBufferMemory2<&N::BindBufferMemory2KHR>,
                                 g_next.BindBufferMemory2KHR);
  BINDERY_TEST_LAYER_ENTRY_AS_IF(CmdCopyBuffer, SpyCmdCopyBuffer, g_next.CmdCopyBuffer);
  BINDERY_TEST_LAYER_ENTRY_AS_IF(CmdCopyBuffer2, SpyCmdCopyBuffer2<&N::CmdCopyBuffer2>, g_next.CmdCopyBuffer2);
  BINDERY_TEST_LAYER_ENTRY_AS_IF(CmdCopyBuffer2KHR, SpyCmdCopyBuffer2<&N::CmdCopyBuffer2KHR>, g_next.CmdCopyBuffer2KHR);
  BINDERY_TEST_LAYER_ENTRY_AS_IF(CmdPushConstants, SpyCmdPushConstants, g_next.CmdPushConstants);
  BINDERY_TEST_LAYER_ENTRY_AS_IF(CmdDispatchBase, SpyCmdDispatchBase<&N::CmdDispatchBase>, g_next.CmdDispatchBase);
  BINDERY_TEST_LAYER_ENTRY_AS_IF(CmdDispatchBaseKHR, SpyCmdDispatchBase<&N::CmdDispatchBaseKHR>,
                                 g_next.CmdDispatchBaseKHR);
  return nullptr;
}

VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL SpyGetDeviceProcAddr(VkDevice device, const char* name) {
  BINDERY_TEST_LAYER_ENTRY_AS(GetDeviceProcAddr, SpyGetDeviceProcAddr);
  if (PFN_vkVoidFunction ours = SpyDeviceFunction(name)) return ours;
  return g_device_link.gdpa(device, name);
}

VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL SpyGetInstanceProcAddr(VkInstance instance, const char* name) {
  BINDERY_TEST_LAYER_ENTRY_AS(CreateInstance, SpyCreateInstance);
  BINDERY_TEST_LAYER_ENTRY_AS(CreateDevice, SpyCreateDevice);
  BINDERY_TEST_LAYER_ENTRY_AS(GetInstanceProcAddr, SpyGetInstanceProcAddr);
  BINDERY_TEST_LAYER_ENTRY_AS(GetDeviceProcAddr, SpyGetDeviceProcAddr);
  return g_instance_link.gipa == nullptr ? nullptr : g_instance_link.gipa(instance, name);
}

}  // namespace

BINDERY_TEST_LAYER_NEGOTIATE(SpyGetInstanceProcAddr, SpyGetDeviceProcAddr)

BINDERY_TEST_LAYER_EXPORT size_t bindery_spy_chain(int which, SpyChainEntry* out,
                                                                          size_t max) {
  std::lock_guard<std::mutex> lock(g_mutex);
  const auto& chain = g_chains[which];
  for (size_t i = 0; i < chain.size() && i < max; ++i) out[i] = chain[i];
  return chain.size();
}

BINDERY_TEST_LAYER_EXPORT size_t bindery_spy_events(SpyEvent* out, size_t max) {
  std::lock_guard<std::mutex> lock(g_mutex);
  for (size_t i = 0; i < g_events.size() && i < max; ++i) out[i] = g_events[i];
  return g_events.size();
}

BINDERY_TEST_LAYER_EXPORT void bindery_spy_clear_events() {
  std::lock_guard<std::mutex> lock(g_mutex);
  g_events.clear();
}
