// Device extensions a capability cannot coexist with (Capability::HiddenDeviceExtensions):
// what the shell asks of the stack, and the generic knowledge of where each extension's
// features live, so that a hidden extension's features read VK_FALSE.
//
// Why hide instead of emulate: an extension whose commands take objects a capability
// changed (e.g. descriptor set layouts that became smaller native layouts) would hand
// them to the driver unchanged; a command the layer does not hook cannot be made right.
#pragma once

#include <vector>

#include <vulkan/vulkan.h>

namespace bindery {

struct InstanceState;

// Every capability's hidden extensions on `physical_device` (duplicates possible).
std::vector<const char*> HiddenDeviceExtensions(const InstanceState& instance, VkPhysicalDevice physical_device);

bool IsHiddenExtension(const std::vector<const char*>& hidden, const char* name);

// Drops the hidden extensions from `extensions` (an enumeration answer), in place.
void RemoveHiddenExtensions(const std::vector<const char*>& hidden, std::vector<VkExtensionProperties>& extensions);

// The first extension of `info` that is hidden; nullptr when none is.
const char* FirstHiddenEnabled(const std::vector<const char*>& hidden, const VkDeviceCreateInfo& info);

// Every feature of a hidden extension in the vkGetPhysicalDeviceFeatures2 output chain
// `chain` (its pNext) set to VK_FALSE. Extensions whose feature struct is not known here
// are only hidden from enumeration.
void ClearHiddenFeatures(const std::vector<const char*>& hidden, void* chain);

// The first VK_TRUE feature of a hidden extension in a vkCreateDevice chain (the
// extension's name); nullptr when none is asked for.
const char* FirstHiddenFeatureRequested(const std::vector<const char*>& hidden, const void* chain);

}  // namespace bindery
