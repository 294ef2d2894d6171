// Test-only layer: records the pNext chains of vkCreateInstance / vkCreateDevice as it
// receives them (i.e. as the layer above it sends them), records a few device calls
// (buffer creation and requirements, device addresses, allocations, frees and binds,
// buffer copies), and passes everything through.
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
struct NextDevice {
  PFN_vkCreateBuffer CreateBuffer = nullptr;
  PFN_vkGetDeviceBufferMemoryRequirements GetDeviceBufferMemoryRequirements = nullptr;
  PFN_vkGetDeviceBufferMemoryRequirements GetDeviceBufferMemoryRequirementsKHR = nullptr;
  PFN_vkGetBufferDeviceAddress GetBufferDeviceAddress = nullptr;
  PFN_vkGetBufferDeviceAddress GetBufferDeviceAddressKHR = nullptr;
  PFN_vkGetBufferDeviceAddress GetBufferDeviceAddressEXT = nullptr;
  PFN_vkAllocateMemory AllocateMemory = nullptr;
  PFN_vkFreeMemory FreeMemory = nullptr;
  PFN_vkBindBufferMemory BindBufferMemory = nullptr;
  PFN_vkBindBufferMemory2 BindBufferMemory2 = nullptr;
  PFN_vkBindBufferMemory2 BindBufferMemory2KHR = nullptr;
  PFN_vkCmdCopyBuffer CmdCopyBuffer = nullptr;
  PFN_vkCmdCopyBuffer2 CmdCopyBuffer2 = nullptr;
  PFN_vkCmdCopyBuffer2 CmdCopyBuffer2KHR = nullptr;
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

// The usage the driver honours: VkBufferUsageFlags2CreateInfoKHR's where chained
// (maintenance5: then VkBufferCreateInfo::usage is ignored), else the legacy field.
SpyEvent BufferEvent(uint32_t kind, const VkBufferCreateInfo* ci) {
  SpyEvent e{};
  e.kind = kind;
  e.info = ci;
  e.pnext = ci->pNext;
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
  e.handle = result == VK_SUCCESS ? reinterpret_cast<uint64_t>(*out) : 0;
  AddEvent(e);
  return result;
}

void RecordRequirements(const VkDeviceBufferMemoryRequirements* info) {
  if (info != nullptr && info->pCreateInfo != nullptr) AddEvent(BufferEvent(kSpyDeviceBufferRequirements, info->pCreateInfo));
}

VKAPI_ATTR void VKAPI_CALL SpyGetDeviceBufferMemoryRequirements(VkDevice device,
                                                                const VkDeviceBufferMemoryRequirements* info,
                                                                VkMemoryRequirements2* out) {
  RecordRequirements(info);
  g_next.GetDeviceBufferMemoryRequirements(device, info, out);
}

VKAPI_ATTR void VKAPI_CALL SpyGetDeviceBufferMemoryRequirementsKHR(VkDevice device,
                                                                   const VkDeviceBufferMemoryRequirements* info,
                                                                   VkMemoryRequirements2* out) {
  RecordRequirements(info);
  g_next.GetDeviceBufferMemoryRequirementsKHR(device, info, out);
}

void RecordAddress(const VkBufferDeviceAddressInfo* info) {
  SpyEvent e{};
  e.kind = kSpyGetBufferAddress;
  e.handle = reinterpret_cast<uint64_t>(info->buffer);
  AddEvent(e);
}

VKAPI_ATTR VkDeviceAddress VKAPI_CALL SpyGetBufferDeviceAddress(VkDevice device, const VkBufferDeviceAddressInfo* info) {
  RecordAddress(info);
  return g_next.GetBufferDeviceAddress(device, info);
}

VKAPI_ATTR VkDeviceAddress VKAPI_CALL SpyGetBufferDeviceAddressKHR(VkDevice device,
                                                                   const VkBufferDeviceAddressInfo* info) {
  RecordAddress(info);
  return g_next.GetBufferDeviceAddressKHR(device, info);
}

VKAPI_ATTR VkDeviceAddress VKAPI_CALL SpyGetBufferDeviceAddressEXT(VkDevice device,
                                                                   const VkBufferDeviceAddressInfo* info) {
  RecordAddress(info);
  return g_next.GetBufferDeviceAddressEXT(device, info);
}

VKAPI_ATTR VkResult VKAPI_CALL SpyAllocateMemory(VkDevice device, const VkMemoryAllocateInfo* info,
                                                 const VkAllocationCallbacks* alloc, VkDeviceMemory* out) {
  SpyEvent e{};
  e.kind = kSpyAllocateMemory;
  e.info = info;
  e.pnext = info->pNext;
  for (auto* s = static_cast<const VkBaseInStructure*>(info->pNext); s != nullptr; s = s->pNext) {
    if (s->sType == VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_FLAGS_INFO) {
      e.flags |= reinterpret_cast<const VkMemoryAllocateFlagsInfo*>(s)->flags;
    }
  }
  const VkResult result = g_next.AllocateMemory(device, info, alloc, out);
  e.handle = result == VK_SUCCESS ? reinterpret_cast<uint64_t>(*out) : 0;
  AddEvent(e);
  return result;
}

VKAPI_ATTR void VKAPI_CALL SpyFreeMemory(VkDevice device, VkDeviceMemory memory, const VkAllocationCallbacks* alloc) {
  if (memory != VK_NULL_HANDLE) {
    SpyEvent e{};
    e.kind = kSpyFreeMemory;
    e.handle = reinterpret_cast<uint64_t>(memory);
    AddEvent(e);
  }
  g_next.FreeMemory(device, memory, alloc);
}

void RecordBind(VkBuffer buffer, VkDeviceMemory memory) {
  SpyEvent e{};
  e.kind = kSpyBindBufferMemory;
  e.handle = reinterpret_cast<uint64_t>(buffer);
  e.other = reinterpret_cast<uint64_t>(memory);
  AddEvent(e);
}

VKAPI_ATTR VkResult VKAPI_CALL SpyBindBufferMemory(VkDevice device, VkBuffer buffer, VkDeviceMemory memory,
                                                   VkDeviceSize offset) {
  RecordBind(buffer, memory);
  return g_next.BindBufferMemory(device, buffer, memory, offset);
}

VKAPI_ATTR VkResult VKAPI_CALL SpyBindBufferMemory2(VkDevice device, uint32_t count,
                                                    const VkBindBufferMemoryInfo* infos) {
  for (uint32_t i = 0; i < count; ++i) RecordBind(infos[i].buffer, infos[i].memory);
  return g_next.BindBufferMemory2(device, count, infos);
}

VKAPI_ATTR VkResult VKAPI_CALL SpyBindBufferMemory2KHR(VkDevice device, uint32_t count,
                                                       const VkBindBufferMemoryInfo* infos) {
  for (uint32_t i = 0; i < count; ++i) RecordBind(infos[i].buffer, infos[i].memory);
  return g_next.BindBufferMemory2KHR(device, count, infos);
}

VKAPI_ATTR void VKAPI_CALL SpyCmdCopyBuffer(VkCommandBuffer cb, VkBuffer src, VkBuffer dst, uint32_t count,
                                            const VkBufferCopy* regions) {
  SpyEvent e{};
  e.kind = kSpyCmdCopyBuffer;
  e.count = count;
  e.regions = regions;
  e.handle = reinterpret_cast<uint64_t>(dst);
  AddEvent(e);
  g_next.CmdCopyBuffer(cb, src, dst, count, regions);
}

void RecordCopy2(const VkCopyBufferInfo2* info) {
  SpyEvent e{};
  e.kind = kSpyCmdCopyBuffer2;
  e.info = info;
  e.pnext = info->pNext;
  e.regions = info->pRegions;
  e.count = info->regionCount;
  e.handle = reinterpret_cast<uint64_t>(info->dstBuffer);
  AddEvent(e);
}

VKAPI_ATTR void VKAPI_CALL SpyCmdCopyBuffer2(VkCommandBuffer cb, const VkCopyBufferInfo2* info) {
  RecordCopy2(info);
  g_next.CmdCopyBuffer2(cb, info);
}

VKAPI_ATTR void VKAPI_CALL SpyCmdCopyBuffer2KHR(VkCommandBuffer cb, const VkCopyBufferInfo2* info) {
  RecordCopy2(info);
  g_next.CmdCopyBuffer2KHR(cb, info);
}

VKAPI_ATTR VkResult VKAPI_CALL SpyCreateInstance(const VkInstanceCreateInfo* ci, const VkAllocationCallbacks* alloc,
                                                 VkInstance* out) {
  Record(kSpyInstanceChain, ci->pNext);
  return bindery::test_layer::CreateInstanceBelow(ci, alloc, out, &g_instance_link.gipa);
}

template <typename Fn>
void LoadNext(VkDevice device, const char* name, Fn* out) {
  *out = reinterpret_cast<Fn>(g_device_link.gdpa(device, name));
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
  LoadNext(*out, "vkCreateBuffer", &g_next.CreateBuffer);
  LoadNext(*out, "vkGetDeviceBufferMemoryRequirements", &g_next.GetDeviceBufferMemoryRequirements);
  LoadNext(*out, "vkGetDeviceBufferMemoryRequirementsKHR", &g_next.GetDeviceBufferMemoryRequirementsKHR);
  LoadNext(*out, "vkGetBufferDeviceAddress", &g_next.GetBufferDeviceAddress);
  LoadNext(*out, "vkGetBufferDeviceAddressKHR", &g_next.GetBufferDeviceAddressKHR);
  LoadNext(*out, "vkGetBufferDeviceAddressEXT", &g_next.GetBufferDeviceAddressEXT);
  LoadNext(*out, "vkAllocateMemory", &g_next.AllocateMemory);
  LoadNext(*out, "vkFreeMemory", &g_next.FreeMemory);
  LoadNext(*out, "vkBindBufferMemory", &g_next.BindBufferMemory);
  LoadNext(*out, "vkBindBufferMemory2", &g_next.BindBufferMemory2);
  LoadNext(*out, "vkBindBufferMemory2KHR", &g_next.BindBufferMemory2KHR);
  LoadNext(*out, "vkCmdCopyBuffer", &g_next.CmdCopyBuffer);
  LoadNext(*out, "vkCmdCopyBuffer2", &g_next.CmdCopyBuffer2);
  LoadNext(*out, "vkCmdCopyBuffer2KHR", &g_next.CmdCopyBuffer2KHR);
  return result;
}

VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL SpyGetInstanceProcAddr(VkInstance instance, const char* name);

// Ours where the next layer has the function too; else the next layer's answer.
PFN_vkVoidFunction SpyDeviceFunction(const char* name) {
  struct Entry {
    const char* name;
    PFN_vkVoidFunction ours;
    const void* next;
  };
  const Entry entries[] = {
      {"vkCreateBuffer", reinterpret_cast<PFN_vkVoidFunction>(&SpyCreateBuffer),
       reinterpret_cast<const void*>(g_next.CreateBuffer)},
      {"vkGetDeviceBufferMemoryRequirements", reinterpret_cast<PFN_vkVoidFunction>(&SpyGetDeviceBufferMemoryRequirements),
       reinterpret_cast<const void*>(g_next.GetDeviceBufferMemoryRequirements)},
      {"vkGetDeviceBufferMemoryRequirementsKHR",
       reinterpret_cast<PFN_vkVoidFunction>(&SpyGetDeviceBufferMemoryRequirementsKHR),
       reinterpret_cast<const void*>(g_next.GetDeviceBufferMemoryRequirementsKHR)},
      {"vkGetBufferDeviceAddress", reinterpret_cast<PFN_vkVoidFunction>(&SpyGetBufferDeviceAddress),
       reinterpret_cast<const void*>(g_next.GetBufferDeviceAddress)},
      {"vkGetBufferDeviceAddressKHR", reinterpret_cast<PFN_vkVoidFunction>(&SpyGetBufferDeviceAddressKHR),
       reinterpret_cast<const void*>(g_next.GetBufferDeviceAddressKHR)},
      {"vkGetBufferDeviceAddressEXT", reinterpret_cast<PFN_vkVoidFunction>(&SpyGetBufferDeviceAddressEXT),
       reinterpret_cast<const void*>(g_next.GetBufferDeviceAddressEXT)},
      {"vkAllocateMemory", reinterpret_cast<PFN_vkVoidFunction>(&SpyAllocateMemory),
       reinterpret_cast<const void*>(g_next.AllocateMemory)},
      {"vkFreeMemory", reinterpret_cast<PFN_vkVoidFunction>(&SpyFreeMemory),
       reinterpret_cast<const void*>(g_next.FreeMemory)},
      {"vkBindBufferMemory", reinterpret_cast<PFN_vkVoidFunction>(&SpyBindBufferMemory),
       reinterpret_cast<const void*>(g_next.BindBufferMemory)},
      {"vkBindBufferMemory2", reinterpret_cast<PFN_vkVoidFunction>(&SpyBindBufferMemory2),
       reinterpret_cast<const void*>(g_next.BindBufferMemory2)},
      {"vkBindBufferMemory2KHR", reinterpret_cast<PFN_vkVoidFunction>(&SpyBindBufferMemory2KHR),
       reinterpret_cast<const void*>(g_next.BindBufferMemory2KHR)},
      {"vkCmdCopyBuffer", reinterpret_cast<PFN_vkVoidFunction>(&SpyCmdCopyBuffer),
       reinterpret_cast<const void*>(g_next.CmdCopyBuffer)},
      {"vkCmdCopyBuffer2", reinterpret_cast<PFN_vkVoidFunction>(&SpyCmdCopyBuffer2),
       reinterpret_cast<const void*>(g_next.CmdCopyBuffer2)},
      {"vkCmdCopyBuffer2KHR", reinterpret_cast<PFN_vkVoidFunction>(&SpyCmdCopyBuffer2KHR),
       reinterpret_cast<const void*>(g_next.CmdCopyBuffer2KHR)},
  };
  for (const Entry& e : entries) {
    if (std::strcmp(e.name, name) == 0 && e.next != nullptr) return e.ours;
  }
  return nullptr;
}

VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL SpyGetDeviceProcAddr(VkDevice device, const char* name) {
  if (std::strcmp(name, "vkGetDeviceProcAddr") == 0) return reinterpret_cast<PFN_vkVoidFunction>(&SpyGetDeviceProcAddr);
  if (PFN_vkVoidFunction ours = SpyDeviceFunction(name)) return ours;
  return g_device_link.gdpa(device, name);
}

VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL SpyGetInstanceProcAddr(VkInstance instance, const char* name) {
  if (std::strcmp(name, "vkCreateInstance") == 0) return reinterpret_cast<PFN_vkVoidFunction>(&SpyCreateInstance);
  if (std::strcmp(name, "vkCreateDevice") == 0) return reinterpret_cast<PFN_vkVoidFunction>(&SpyCreateDevice);
  if (std::strcmp(name, "vkGetInstanceProcAddr") == 0) {
    return reinterpret_cast<PFN_vkVoidFunction>(&SpyGetInstanceProcAddr);
  }
  if (std::strcmp(name, "vkGetDeviceProcAddr") == 0) return reinterpret_cast<PFN_vkVoidFunction>(&SpyGetDeviceProcAddr);
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
