// The loader plumbing every test layer (tests/*_layer) shares: finding this layer's link in
// an instance or device create-info chain and moving the chain on to the next layer,
// creating the instance or device below, the lookup of a function by name in the layer's
// GetInstanceProcAddr / GetDeviceProcAddr, and interface negotiation (version 2). What each
// test layer plays (a driver without timelines, a newer driver, a spy, a layer above
// Bindery) is its own file; this is only what the loader asks of every layer.
#pragma once

#include <cstring>

#include <vulkan/vk_layer.h>
#include <vulkan/vulkan.h>

namespace bindery::test_layer {

// The loader's link entry for this layer (sType and VK_LAYER_LINK_INFO: other loader
// entries with the same sType may come first), or nullptr.
template <typename T>
T* FindLink(const void* chain, VkStructureType stype) {
  for (auto* s = static_cast<const VkBaseInStructure*>(chain); s != nullptr; s = s->pNext) {
    auto* info = reinterpret_cast<T*>(const_cast<VkBaseInStructure*>(s));
    if (s->sType == stype && info->function == VK_LAYER_LINK_INFO) return info;
  }
  return nullptr;
}

// Creates the instance through the next layer; `*next_gipa` gets its GetInstanceProcAddr.
inline VkResult CreateInstanceBelow(const VkInstanceCreateInfo* ci, const VkAllocationCallbacks* alloc,
                                    VkInstance* out, PFN_vkGetInstanceProcAddr* next_gipa) {
  auto* link = FindLink<VkLayerInstanceCreateInfo>(ci->pNext, VK_STRUCTURE_TYPE_LOADER_INSTANCE_CREATE_INFO);
  if (link == nullptr) return VK_ERROR_INITIALIZATION_FAILED;
  *next_gipa = link->u.pLayerInfo->pfnNextGetInstanceProcAddr;
  link->u.pLayerInfo = link->u.pLayerInfo->pNext;
  auto create = reinterpret_cast<PFN_vkCreateInstance>((*next_gipa)(VK_NULL_HANDLE, "vkCreateInstance"));
  return create(ci, alloc, out);
}

// Creates the device through the next layer (`ci` may be a copy of the application's
// create info: the link is found in its pNext chain); `*next_gdpa` gets the next layer's
// GetDeviceProcAddr.
inline VkResult CreateDeviceBelow(VkPhysicalDevice physical_device, const VkDeviceCreateInfo* ci,
                                  const VkAllocationCallbacks* alloc, VkDevice* out,
                                  PFN_vkGetDeviceProcAddr* next_gdpa) {
  auto* link = FindLink<VkLayerDeviceCreateInfo>(ci->pNext, VK_STRUCTURE_TYPE_LOADER_DEVICE_CREATE_INFO);
  if (link == nullptr) return VK_ERROR_INITIALIZATION_FAILED;
  PFN_vkGetInstanceProcAddr gipa = link->u.pLayerInfo->pfnNextGetInstanceProcAddr;
  *next_gdpa = link->u.pLayerInfo->pfnNextGetDeviceProcAddr;
  link->u.pLayerInfo = link->u.pLayerInfo->pNext;
  auto create = reinterpret_cast<PFN_vkCreateDevice>(gipa(VK_NULL_HANDLE, "vkCreateDevice"));
  return create(physical_device, ci, alloc, out);
}

// Fills the loader's negotiation struct for interface version 2 (refuses older loaders).
inline VkResult Negotiate(VkNegotiateLayerInterface* v, PFN_vkGetInstanceProcAddr gipa,
                          PFN_vkGetDeviceProcAddr gdpa) {
  if (v->loaderLayerInterfaceVersion < 2) return VK_ERROR_INITIALIZATION_FAILED;
  v->loaderLayerInterfaceVersion = 2;
  v->pfnGetInstanceProcAddr = gipa;
  v->pfnGetDeviceProcAddr = gdpa;
  v->pfnGetPhysicalDeviceProcAddr = nullptr;
  return VK_SUCCESS;
}

}  // namespace bindery::test_layer

// Exported functions of a test layer (the loader and the tests find them by name).
#define BINDERY_TEST_LAYER_EXPORT extern "C" __attribute__((visibility("default")))

// The negotiation entry point of a test layer whose proc-addr functions are `gipa`, `gdpa`.
#define BINDERY_TEST_LAYER_NEGOTIATE(gipa, gdpa)                                                        \
  BINDERY_TEST_LAYER_EXPORT VKAPI_ATTR VkResult VKAPI_CALL vkNegotiateLoaderLayerInterfaceVersion( \
      VkNegotiateLayerInterface* v) {                                                                  \
    return ::bindery::test_layer::Negotiate(v, &gipa, &gdpa);                                          \
  }

// Inside a proc-addr function with `name`: this layer's function `fn` for "vk<fn>";
// the _IF form only where `next` (the layer below's pointer) exists. The _AS forms answer
// "vk<api>" with `fn`: one body serving a command and its extension alias (a template
// over the next-layer pointer it calls, instantiated once per name).
#define BINDERY_TEST_LAYER_ENTRY_AS(api, fn) \
  if (std::strcmp(name, "vk" #api) == 0) return reinterpret_cast<PFN_vkVoidFunction>(&fn)
#define BINDERY_TEST_LAYER_ENTRY_AS_IF(api, fn, next) \
  if (std::strcmp(name, "vk" #api) == 0 && (next) != nullptr) return reinterpret_cast<PFN_vkVoidFunction>(&fn)
#define BINDERY_TEST_LAYER_ENTRY(fn) BINDERY_TEST_LAYER_ENTRY_AS(fn, fn)
#define BINDERY_TEST_LAYER_ENTRY_IF(fn, next) BINDERY_TEST_LAYER_ENTRY_AS_IF(fn, fn, next)

// The entries a test layer's GetInstanceProcAddr answers first, whatever it plays: its own
// proc-addr functions and the two create functions the loader calls through it.
#define BINDERY_TEST_LAYER_LOADER_ENTRIES()     \
  BINDERY_TEST_LAYER_ENTRY(GetInstanceProcAddr); \
  BINDERY_TEST_LAYER_ENTRY(CreateInstance);      \
  BINDERY_TEST_LAYER_ENTRY(CreateDevice);        \
  BINDERY_TEST_LAYER_ENTRY(GetDeviceProcAddr)


// A test layer's pointers into the layer below, written once as a list macro
// `LIST(X)` of command names without "vk" (core names and extension aliases alike):
// `struct Next { LIST(BINDERY_TEST_LAYER_NEXT_MEMBER) };` declares them, and
// BINDERY_TEST_LAYER_LOAD_NEXT fills them from the next layer's proc-addr function `gpa`
// for `handle` (null where the layer below does not offer a name).
#define BINDERY_TEST_LAYER_NEXT_MEMBER(fn) PFN_vk##fn fn = nullptr;
#define BINDERY_TEST_LAYER_NEXT_LOAD_ONE(fn) \
  bindery_next_table.fn = reinterpret_cast<PFN_vk##fn>(bindery_next_gpa(bindery_next_handle, "vk" #fn));
#define BINDERY_TEST_LAYER_LOAD_NEXT(LIST, table, gpa, handle) \
  do {                                                         \
    auto& bindery_next_table = (table);                        \
    const auto bindery_next_gpa = (gpa);                       \
    const auto bindery_next_handle = (handle);                 \
    LIST(BINDERY_TEST_LAYER_NEXT_LOAD_ONE)                     \
  } while (false)
