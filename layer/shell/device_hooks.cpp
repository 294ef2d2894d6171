// Device lifetime: plan the capability stack through one create-info editor, chain to the
// next layer, build the stack, and print the summary of what the layer did when the device
// goes away.
#include <vulkan/vk_dispatch_table_helper.h>

#include "chassis/device_editor.h"
#include "chassis/device_stack.h"
#include "chassis/hidden_extensions.h"
#include "chassis/link.h"
#include "chassis/state.h"
#include "chassis/trackers.h"
#include "shell/hooks.h"

namespace bindery {

VKAPI_ATTR VkResult VKAPI_CALL CreateDevice(VkPhysicalDevice physicalDevice, const VkDeviceCreateInfo* pCreateInfo,
                                            const VkAllocationCallbacks* pAllocator, VkDevice* pDevice) {
  InstanceState* instance = StateRegistry::Get().FindInstance(physicalDevice);
  VkLayerDeviceCreateInfo* link = FindDeviceLink(pCreateInfo);
  if (instance == nullptr || link == nullptr || link->u.pLayerInfo == nullptr) return VK_ERROR_INITIALIZATION_FAILED;

  PFN_vkGetInstanceProcAddr next_gipa = link->u.pLayerInfo->pfnNextGetInstanceProcAddr;
  PFN_vkGetDeviceProcAddr next_gdpa = link->u.pLayerInfo->pfnNextGetDeviceProcAddr;
  auto next_create = reinterpret_cast<PFN_vkCreateDevice>(next_gipa(instance->handle, "vkCreateDevice"));
  if (next_create == nullptr) return VK_ERROR_INITIALIZATION_FAILED;

  // Extensions a capability cannot coexist with on this physical device are not offered
  // (chassis/hidden_extensions.h); asked for anyway, the device is refused, as a driver
  // refuses an extension it lacks.
  const std::vector<const char*> hidden = HiddenDeviceExtensions(*instance, physicalDevice);
  if (const char* name = FirstHiddenEnabled(hidden, *pCreateInfo)) {
    BINDERY_LOG(instance->log(), kError, "hidden-extension",
                "vkCreateDevice: %s is not offered while the layer runs on this device (see the device's "
                "extension list): VK_ERROR_EXTENSION_NOT_PRESENT",
                name);
    return VK_ERROR_EXTENSION_NOT_PRESENT;
  }
  if (const char* name = FirstHiddenFeatureRequested(hidden, pCreateInfo->pNext)) {
    BINDERY_LOG(instance->log(), kError, "hidden-extension",
                "vkCreateDevice: a feature of %s is not offered while the layer runs on this device: "
                "VK_ERROR_FEATURE_NOT_PRESENT",
                name);
    return VK_ERROR_FEATURE_NOT_PRESENT;
  }

  // Advance the loader's link before any chain edit copies it.
  link->u.pLayerInfo = link->u.pLayerInfo->pNext;

  auto state = std::make_unique<DeviceState>();
  state->physical_device = physicalDevice;
  state->instance = instance;
  DeviceEditor editor(*instance, physicalDevice, *pCreateInfo);
  PlanDeviceStack(*state, editor);
  VkResult result = next_create(physicalDevice, editor.Build(), pAllocator, pDevice);
  if (result != VK_SUCCESS) return result;

  state->handle = *pDevice;
  state->next_get_device_proc_addr = next_gdpa;
  state->properties = editor.properties();
  state->api_version = editor.api_version();
  state->enabled_extensions = editor.enabled_extensions();
  state->queue_families = editor.queue_families();
  // Registered before the capabilities start: a capability may call down into the hooks
  // of those below it (which find the device by its dispatch key) while it starts.
  DeviceState* raw = state.get();
  if (!StateRegistry::Get().AddDevice(raw)) {
    layer_init_device_dispatch_table(*pDevice, &state->driver, next_gdpa);
    state->driver.DestroyDevice(*pDevice, pAllocator);
    return VK_ERROR_OUT_OF_HOST_MEMORY;
  }
  state.release();
  BuildDeviceStack(*raw, editor);
  BINDERY_LOG(raw->log(), kDebug, "device", "device created (API %u.%u as used)", VK_API_VERSION_MAJOR(raw->api_version),
              VK_API_VERSION_MINOR(raw->api_version));
  return VK_SUCCESS;
}

VKAPI_ATTR void VKAPI_CALL DestroyDevice(VkDevice device, const VkAllocationCallbacks* pAllocator) {
  if (device == VK_NULL_HANDLE) return;
  std::unique_ptr<DeviceState> state = StateRegistry::Get().RemoveDevice(device);
  if (state == nullptr) return;
  // Not rate-limited: one line per device is its own limit, and a process that makes and
  // destroys many devices (a test binary) would otherwise lose the summaries it reads.
  if (state->log().Enabled(LogLevel::kInfo)) {
    state->log().Log(LogLevel::kInfo, "summary", "device summary: %s", state->counters.Summary().c_str());
  }
  if (const Trackers* t = state->trackers.get()) {
    BINDERY_LOG(state->log(), kDebug, "teardown",
                "device teardown: still tracked %zu buffers, %zu memory objects, %zu command pools, %zu command "
                "buffers (left by the application; freed with the device)",
                t->buffers.Size(), t->memories.Size(), t->pools.Size(), t->commands.Size());
  }
  // The capabilities' own objects go before the device does, outermost first.
  TearDownDeviceStack(*state);
  state->driver.DestroyDevice(device, pAllocator);
}

}  // namespace bindery
