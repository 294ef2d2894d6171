// The table of Vulkan entry points the layer intercepts.
//
// GetInstanceProcAddr / GetDeviceProcAddr return an intercept only when the next layer
// provides the function (so the application sees exactly what the driver offers), and a
// device-scope intercept only when its capability is active on that device; every other
// name resolves straight to the next layer, with no trampoline of ours in between.
#pragma once

#include <vulkan/vulkan.h>

namespace bindery {

struct DeviceState;

enum class InterceptScope {
  kGlobal,    // callable without an instance (vkCreateInstance, enumeration)
  kInstance,  // dispatched on VkInstance / VkPhysicalDevice
  kDevice,    // dispatched on VkDevice / VkQueue / VkCommandBuffer
};

struct Intercept {
  const char* name;
  PFN_vkVoidFunction function;
  InterceptScope scope;
  // For kDevice: whether the intercept is needed on this device; nullptr means always.
  bool (*active_on)(const DeviceState& device);
};

// nullptr when the layer does not intercept `name`.
const Intercept* FindIntercept(const char* name);

// The intercept tables of each part of the layer (core hooks, capabilities).
struct InterceptTable {
  const Intercept* entries;
  unsigned count;
};
InterceptTable CoreIntercepts();
namespace transfer {
InterceptTable TransferIntercepts();
}

}  // namespace bindery
