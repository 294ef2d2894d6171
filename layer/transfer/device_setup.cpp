// Device creation for the transfers capability: pick the policy, strip our extension
// from the list the driver sees, and enable bufferDeviceAddress when kernels will run.
#include <cstring>

#include <vulkan/vk_bindery.h>

#include "core/chain_edit.h"
#include "transfer/transfer_device.h"

namespace bindery::transfer {
namespace {

VkDriverId QueryDriverId(InstanceState& instance, VkPhysicalDevice pd, uint32_t device_api) {
  if (instance.dispatch.GetPhysicalDeviceProperties2 == nullptr || device_api < VK_API_VERSION_1_2 ||
      instance.api_version < VK_API_VERSION_1_1) {
    return static_cast<VkDriverId>(0);
  }
  VkPhysicalDeviceDriverProperties driver{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_DRIVER_PROPERTIES};
  VkPhysicalDeviceProperties2 props{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2, &driver};
  instance.dispatch.GetPhysicalDeviceProperties2(pd, &props);
  return driver.driverID;
}

// Turns bufferDeviceAddress on in the create-info chain; nullptr on success, else why not.
const char* EnableBufferDeviceAddress(ChainEditor& chain, DevicePlan& plan) {
  constexpr VkStructureType kV12 = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES;
  constexpr VkStructureType kBda = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_BUFFER_DEVICE_ADDRESS_FEATURES;
  if (auto* v12 = reinterpret_cast<const VkPhysicalDeviceVulkan12Features*>(chain.Find(kV12))) {
    if (v12->bufferDeviceAddress) return nullptr;
    auto* copy = chain.Modify<VkPhysicalDeviceVulkan12Features>(kV12);
    if (copy == nullptr) return "an unknown struct precedes VkPhysicalDeviceVulkan12Features in the chain";
    copy->bufferDeviceAddress = VK_TRUE;
    return nullptr;
  }
  if (auto* bda = reinterpret_cast<const VkPhysicalDeviceBufferDeviceAddressFeatures*>(chain.Find(kBda))) {
    if (bda->bufferDeviceAddress) return nullptr;
    auto* copy = chain.Modify<VkPhysicalDeviceBufferDeviceAddressFeatures>(kBda);
    if (copy == nullptr) return "an unknown struct precedes VkPhysicalDeviceBufferDeviceAddressFeatures";
    copy->bufferDeviceAddress = VK_TRUE;
    return nullptr;
  }
  plan.address_features.bufferDeviceAddress = VK_TRUE;
  chain.Prepend(reinterpret_cast<VkBaseOutStructure*>(&plan.address_features));
  return nullptr;
}

}  // namespace

void PlanDevice(InstanceState& instance, VkPhysicalDevice pd, ChainEditor& chain,
                std::vector<const char*>& extensions, DevicePlan& plan) {
  const Settings& settings = instance.settings;
  if (settings.transfers == Mode::kOff) return;
  plan.active = true;

  for (auto it = extensions.begin(); it != extensions.end();) {
    it = std::strcmp(*it, VK_BINDERY_TRANSFER_ANY_ALIGNMENT_EXTENSION_NAME) == 0 ? extensions.erase(it) : it + 1;
  }

  VkPhysicalDeviceProperties props;
  instance.dispatch.GetPhysicalDeviceProperties(pd, &props);
  TransferStrategy strategy = settings.transfer_strategy;
  if (settings.transfers == Mode::kForce && strategy == TransferStrategy::kAuto) strategy = TransferStrategy::kCompute;
  plan.policy = ChoosePolicy(props.vendorID, QueryDriverId(instance, pd, props.apiVersion), strategy);
  if (!plan.policy.UsesKernels()) return;

  // Kernels address buffers through buffer device addresses (core 1.2).
  if (instance.api_version < VK_API_VERSION_1_2 || props.apiVersion < VK_API_VERSION_1_2) {
    plan.why_no_kernels = "the application's or the device's API version is below 1.2";
    return;
  }
  VkPhysicalDeviceBufferDeviceAddressFeatures supported{
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_BUFFER_DEVICE_ADDRESS_FEATURES};
  VkPhysicalDeviceFeatures2 features{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2, &supported};
  instance.dispatch.GetPhysicalDeviceFeatures2(pd, &features);
  if (!supported.bufferDeviceAddress) {
    plan.why_no_kernels = "the device has no bufferDeviceAddress";
    return;
  }
  plan.why_no_kernels = EnableBufferDeviceAddress(chain, plan);
  plan.device_address = plan.why_no_kernels == nullptr;
}

DeviceTransfers::DeviceTransfers(DeviceState& device_state, const DevicePlan& plan)
    : device(device_state),
      policy(plan.policy),
      device_address(plan.device_address),
      kernels(device_state),
      staging(device_state, plan.device_address) {
  max_push_constant_bytes = device_state.properties.limits.maxPushConstantsSize;
  uint32_t count = 0;
  InstanceState& instance = *device_state.instance;
  instance.dispatch.GetPhysicalDeviceQueueFamilyProperties(device_state.physical_device, &count, nullptr);
  families.resize(count);
  instance.dispatch.GetPhysicalDeviceQueueFamilyProperties(device_state.physical_device, &count, families.data());
}

}  // namespace bindery::transfer
