// vkCreateDevice, one editor: every capability states the features and extensions it
// needs (and the extensions it hides: the layer's own) here; the editor merges them and
// builds the one create info sent down.
//
// It copies only the structs it must change (core/chain_edit.h), and it knows the forms a
// feature takes: for bufferDeviceAddress the VkPhysicalDeviceVulkan12Features member, the
// VkPhysicalDeviceBufferDeviceAddressFeatures struct (core 1.2, or KHR extension below
// 1.2) and the different EXT extension — never two forms at once
// (VUID-VkDeviceCreateInfo-pNext-02830, -04748, -ppEnabledExtensionNames-03328). Under an
// application whose API version lacks the feature's core version, it enables the
// extension and its dependencies instead, and records which entry points to call.
#pragma once

#include <deque>
#include <string>
#include <vector>

#include <vulkan/vulkan.h>

#include "chassis/state.h"
#include "chassis/tracking_plan.h"
#include "core/chain_edit.h"

namespace bindery {

// Features promoted to Vulkan 1.2 that capabilities ask for.
enum class DeviceFeature { kBufferDeviceAddress, kTimelineSemaphore, kCount };

class DeviceEditor {
 public:
  DeviceEditor(InstanceState& instance, VkPhysicalDevice physical_device, const VkDeviceCreateInfo& app);

  InstanceState& instance() const { return instance_; }
  VkPhysicalDevice physical_device() const { return physical_device_; }
  const VkPhysicalDeviceProperties& properties() const { return properties_; }
  // min(the application's API version, the device's): what may be used as core.
  uint32_t api_version() const { return api_version_; }
  VkDriverId driver_id() const { return driver_id_; }
  const std::vector<VkQueueFamilyProperties>& queue_families() const { return queue_families_; }

  bool DeviceOffers(const char* extension) const;
  bool Enabled(const char* extension) const;  // in the list sent down (so far)
  bool FeatureSupported(DeviceFeature feature) const { return supported_[static_cast<int>(feature)]; }
  bool FeatureEnabledByApplication(DeviceFeature feature) const { return by_app_[static_cast<int>(feature)]; }
  // The core features the application enabled (pEnabledFeatures, or the
  // VkPhysicalDeviceFeatures2 of its chain): e.g. whether shaders the layer builds for it
  // may use Int64, or must keep robustBufferAccess's guarantees.
  const VkPhysicalDeviceFeatures& application_features() const { return app_features_; }
  // A struct of the application's create-info chain by sType (nullptr when absent).
  const void* FindApplicationStruct(VkStructureType type) const;

  // Turns `feature` on (with what it needs at this API version). nullptr on success, else
  // why not (the create info is then unchanged for it).
  const char* RequestFeature(DeviceFeature feature);
  // Hides `feature` from the driver (a capability emulates it): false in a copy of the
  // application's VkPhysicalDeviceVulkan12Features, its own struct dropped from the chain,
  // its KHR extension removed. The application's structs are never written. nullptr on
  // success, else why not.
  const char* HideFeature(DeviceFeature feature);
  // Turns on a core VkPhysicalDeviceFeatures member (its offset in that struct), in a copy
  // of the application's pEnabledFeatures or VkPhysicalDeviceFeatures2, or in a struct of
  // the editor's own. nullptr on success, else why not.
  const char* RequestCoreFeature(std::size_t member);
  // Adds a device extension the device offers; true if it is (now) enabled.
  bool RequestExtension(const char* extension);
  // Removes an extension from the list sent down (one the layer implements itself).
  void HideExtension(const char* extension);

  TrackingPlan& tracking() { return tracking_; }
  const TrackingPlan& tracking() const { return tracking_; }

  // The create info to send down (valid while the editor lives).
  const VkDeviceCreateInfo* Build();
  const std::vector<std::string>& enabled_extensions() const { return enabled_; }
  // How buffer addresses are had on the created device (get_address is resolved by the
  // caller from the function name in AddressFunctionName()).
  AddressMode address_mode() const { return address_mode_; }
  const char* AddressFunctionName() const;

 private:
  const char* EnablePromoted(DeviceFeature feature);
  const char* EnableExtBufferDeviceAddress();
  VkBaseOutStructure* Own(const void* src, std::size_t size);

  InstanceState& instance_;
  VkPhysicalDevice physical_device_;
  VkDeviceCreateInfo info_;
  ChainEditor chain_;
  VkPhysicalDeviceProperties properties_{};
  VkPhysicalDeviceFeatures app_features_{};
  const void* app_chain_ = nullptr;
  uint32_t api_version_ = VK_API_VERSION_1_0;
  VkDriverId driver_id_ = static_cast<VkDriverId>(0);
  std::vector<VkQueueFamilyProperties> queue_families_;
  std::vector<VkExtensionProperties> offered_;
  std::vector<std::string> enabled_;
  std::vector<const char*> names_;
  bool supported_[static_cast<int>(DeviceFeature::kCount)] = {};
  bool by_app_[static_cast<int>(DeviceFeature::kCount)] = {};
  bool ext_bda_supported_ = false;
  AddressMode address_mode_ = AddressMode::kNone;
  VkPhysicalDeviceFeatures* core_features_ = nullptr;  // the editor's copy sent as pEnabledFeatures
  TrackingPlan tracking_;
  std::deque<std::vector<unsigned char>> owned_;  // structs the editor added
};

}  // namespace bindery
