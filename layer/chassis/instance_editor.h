// vkCreateInstance, one editor: the capabilities ask for instance extensions they need
// under the application's API version (e.g. VK_KHR_get_physical_device_properties2 under
// a Vulkan 1.0 application); the editor adds them and builds the create info sent down.
// The application's structs are never written.
//
// It does not ask the layers below which extensions exist: some layers crash when asked
// anything through vkGetInstanceProcAddr(NULL, ...) but vkCreateInstance (Mesa's
// device-select layer in Debian 12 does). Instead the shell retries with the
// application's own list when the one with additions is refused
// (VK_ERROR_EXTENSION_NOT_PRESENT), and the additions are then recorded as not enabled.
#pragma once

#include <string>
#include <vector>

#include <vulkan/vulkan.h>

namespace bindery {

class InstanceEditor {
 public:
  explicit InstanceEditor(const VkInstanceCreateInfo& app);

  uint32_t api_version() const { return api_version_; }
  bool Enabled(const char* extension) const;  // in the list sent down (so far)
  void RequestExtension(const char* extension);
  bool HasAdditions() const { return enabled_.size() != app_.enabledExtensionCount; }

  // The create info to send down (valid while the editor lives).
  const VkInstanceCreateInfo* Build();
  // Forget the additions (after the create info with them was refused).
  void DropAdditions();
  const std::vector<std::string>& enabled_extensions() const { return enabled_; }

 private:
  const VkInstanceCreateInfo& app_;
  VkInstanceCreateInfo info_;
  uint32_t api_version_ = VK_API_VERSION_1_0;
  std::vector<std::string> enabled_;
  std::vector<const char*> names_;
};

}  // namespace bindery
