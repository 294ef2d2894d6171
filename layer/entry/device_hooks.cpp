// Device lifetime: chain to the next layer, build the dispatch table, keep state, and
// print the summary of what the layer did when the device goes away.
#include <vulkan/vk_dispatch_table_helper.h>

#include "core/chain_edit.h"
#include "core/state.h"
#include "entry/hooks.h"
#include "transfer/transfer_device.h"

namespace bindery {

VKAPI_ATTR VkResult VKAPI_CALL CreateDevice(VkPhysicalDevice physicalDevice, const VkDeviceCreateInfo* pCreateInfo,
                                            const VkAllocationCallbacks* pAllocator, VkDevice* pDevice) {
  InstanceState* instance = StateRegistry::Get().FindInstance(physicalDevice);
  VkLayerDeviceCreateInfo* link = nullptr;
  for (auto* s = static_cast<const VkBaseInStructure*>(pCreateInfo->pNext); s != nullptr; s = s->pNext) {
    if (s->sType == VK_STRUCTURE_TYPE_LOADER_DEVICE_CREATE_INFO) {
      auto* info = reinterpret_cast<VkLayerDeviceCreateInfo*>(const_cast<VkBaseInStructure*>(s));
      if (info->function == VK_LAYER_LINK_INFO) link = info;
      if (link != nullptr) break;
    }
  }
  if (instance == nullptr || link == nullptr || link->u.pLayerInfo == nullptr) return VK_ERROR_INITIALIZATION_FAILED;

  PFN_vkGetInstanceProcAddr next_gipa = link->u.pLayerInfo->pfnNextGetInstanceProcAddr;
  PFN_vkGetDeviceProcAddr next_gdpa = link->u.pLayerInfo->pfnNextGetDeviceProcAddr;
  auto next_create = reinterpret_cast<PFN_vkCreateDevice>(next_gipa(instance->handle, "vkCreateDevice"));
  if (next_create == nullptr) return VK_ERROR_INITIALIZATION_FAILED;

  // Advance the loader's link before any chain edit copies it.
  link->u.pLayerInfo = link->u.pLayerInfo->pNext;

  // Capabilities edit a copy of the create info: the extension list and, through
  // ChainEditor, the pNext chain (never the application's own structs).
  VkDeviceCreateInfo create_info = *pCreateInfo;
  std::vector<const char*> extensions(pCreateInfo->ppEnabledExtensionNames,
                                      pCreateInfo->ppEnabledExtensionNames + pCreateInfo->enabledExtensionCount);
  ChainEditor chain(pCreateInfo->pNext);
  transfer::DevicePlan transfer_plan;
  transfer::PlanDevice(*instance, physicalDevice, chain, extensions, transfer_plan);
  create_info.pNext = chain.chain();
  create_info.enabledExtensionCount = static_cast<uint32_t>(extensions.size());
  create_info.ppEnabledExtensionNames = extensions.data();

  VkResult result = next_create(physicalDevice, &create_info, pAllocator, pDevice);
  if (result != VK_SUCCESS) return result;

  auto state = std::make_unique<DeviceState>();
  state->handle = *pDevice;
  state->physical_device = physicalDevice;
  state->instance = instance;
  state->next_get_device_proc_addr = next_gdpa;
  layer_init_device_dispatch_table(*pDevice, &state->dispatch, next_gdpa);
  instance->dispatch.GetPhysicalDeviceProperties(physicalDevice, &state->properties);
  if (transfer_plan.active) {
    auto transfers = std::make_unique<transfer::DeviceTransfers>(*state, transfer_plan);
    state->transfers = transfers.get();
    state->transfers_capability = std::move(transfers);
    if (transfer_plan.why_no_kernels != nullptr) {
      BINDERY_LOG(instance->log(), kInfo, "transfer-kernels",
                  "transfer policy '%s' wants compute kernels, but they are off on this device: %s; native paths "
                  "(with edge polyfills) are used instead",
                  transfer_plan.policy.name, transfer_plan.why_no_kernels);
    }
    BINDERY_LOG(instance->log(), kDebug, "transfer-policy", "transfers on %s: policy '%s', kernels %s",
                state->properties.deviceName, transfer_plan.policy.name,
                state->transfers->KernelsPossible() ? "possible" : "off");
  }
  if (!StateRegistry::Get().AddDevice(state.get())) {
    state->dispatch.DestroyDevice(*pDevice, pAllocator);
    return VK_ERROR_OUT_OF_HOST_MEMORY;
  }
  DeviceState* raw = state.release();
  BINDERY_LOG(raw->log(), kDebug, "device", "device created");
  return VK_SUCCESS;
}

VKAPI_ATTR void VKAPI_CALL DestroyDevice(VkDevice device, const VkAllocationCallbacks* pAllocator) {
  if (device == VK_NULL_HANDLE) return;
  std::unique_ptr<DeviceState> state = StateRegistry::Get().RemoveDevice(device);
  if (state == nullptr) return;
  BINDERY_LOG(state->log(), kInfo, "summary", "device summary: %s", state->stats.Summary().c_str());
  if (transfer::DeviceTransfers* t = state->transfers) {
    BINDERY_LOG(state->log(), kDebug, "teardown",
                "device teardown: still tracked %zu buffers, %zu memory objects, %zu command pools, %zu command "
                "buffers (left by the application; freed with the device)",
                t->buffers.Size(), t->memories.Size(), t->pools.Size(), t->commands.Size());
  }
  // The layer's own objects go before the device does.
  state->transfers = nullptr;
  state->transfers_capability.reset();
  state->dispatch.DestroyDevice(device, pAllocator);
}

}  // namespace bindery
