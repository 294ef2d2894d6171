#include "chassis/external_addressing.h"

#include "chassis/state.h"

namespace bindery {
namespace {

// The usage an import's flag is decided for: a storage buffer (the buffers capabilities
// address are storage or uniform buffers; a driver answering differently for the two is
// not known, and the buffer side checks its own usage).
constexpr VkBufferUsageFlags kImportUsage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT;

// The driver keeps, with `added` usage, what it offered without it: the same import and
// export features, and every handle type it called compatible.
bool Keeps(const VkExternalMemoryProperties& without, const VkExternalMemoryProperties& with) {
  constexpr VkExternalMemoryFeatureFlags kAbilities =
      VK_EXTERNAL_MEMORY_FEATURE_EXPORTABLE_BIT | VK_EXTERNAL_MEMORY_FEATURE_IMPORTABLE_BIT;
  const VkExternalMemoryFeatureFlags needed = without.externalMemoryFeatures & kAbilities;
  if (needed == 0) return false;  // the driver offers nothing for it: nothing to keep valid
  if ((with.externalMemoryFeatures & needed) != needed) return false;
  // A dedicated allocation required with the usage but not without it would change what
  // the application must do.
  if ((with.externalMemoryFeatures & VK_EXTERNAL_MEMORY_FEATURE_DEDICATED_ONLY_BIT) != 0 &&
      (without.externalMemoryFeatures & VK_EXTERNAL_MEMORY_FEATURE_DEDICATED_ONLY_BIT) == 0) {
    return false;
  }
  return (with.compatibleHandleTypes & without.compatibleHandleTypes) == without.compatibleHandleTypes;
}

}  // namespace

VkExternalMemoryProperties ExternalAddressing::Query(VkExternalMemoryHandleTypeFlagBits handle_type,
                                                     VkBufferUsageFlags usage, VkBufferCreateFlags flags) {
  VkPhysicalDeviceExternalBufferInfo info{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_EXTERNAL_BUFFER_INFO};
  info.flags = flags;
  info.usage = usage;
  info.handleType = handle_type;
  VkExternalBufferProperties props{VK_STRUCTURE_TYPE_EXTERNAL_BUFFER_PROPERTIES};
  const InstanceState* instance = device_.instance;
  PFN_vkGetPhysicalDeviceExternalBufferProperties query = nullptr;
  if (instance != nullptr) {
    // Core where the instance is 1.1, else the instance extension (which an application
    // using external memory with Vulkan 1.0 has enabled).
    if (instance->api_version >= VK_API_VERSION_1_1) {
      query = instance->dispatch.GetPhysicalDeviceExternalBufferProperties;
    }
    if (query == nullptr && instance->ExtensionEnabled(VK_KHR_EXTERNAL_MEMORY_CAPABILITIES_EXTENSION_NAME)) {
      query = instance->dispatch.GetPhysicalDeviceExternalBufferPropertiesKHR;
    }
  }
  if (query == nullptr) return {};
  query(device_.physical_device, &info, &props);
  return props.externalMemoryProperties;
}

bool ExternalAddressing::BufferMayBeAddressed(VkExternalMemoryHandleTypeFlags handle_types, uint64_t usage,
                                              VkBufferCreateFlags flags) {
  // Usage beyond 32 bits (VkBufferUsageFlags2) cannot be asked through the 1.1 query.
  if (handle_types == 0 || (usage >> 32) != 0) return false;
  const auto key = std::make_tuple(handle_types, static_cast<uint32_t>(usage), flags);
  {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = buffers_.find(key);
    if (it != buffers_.end()) return it->second;
  }
  bool ok = true;
  for (uint32_t bit = 1; bit != 0 && ok; bit <<= 1) {
    if ((handle_types & bit) == 0) continue;
    const auto handle = static_cast<VkExternalMemoryHandleTypeFlagBits>(bit);
    const VkExternalMemoryProperties without = Query(handle, static_cast<VkBufferUsageFlags>(usage), flags);
    const VkExternalMemoryProperties with =
        Query(handle, static_cast<VkBufferUsageFlags>(usage) | VK_BUFFER_USAGE_SHADER_DEVICE_ADDRESS_BIT, flags);
    // The buffer's other handle types must stay compatible with this one.
    ok = Keeps(without, with) && (with.compatibleHandleTypes & handle_types) == handle_types;
    // Memory imported for it must be able to take the flag too (same decision as the import).
    if (ok && (without.externalMemoryFeatures & VK_EXTERNAL_MEMORY_FEATURE_IMPORTABLE_BIT) != 0) {
      ok = ImportMayBeAddressed(handle);
    }
  }
  std::lock_guard<std::mutex> lock(mutex_);
  buffers_[key] = ok;
  return ok;
}

bool ExternalAddressing::ImportMayBeAddressed(VkExternalMemoryHandleTypeFlagBits handle_type) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = imports_.find(handle_type);
    if (it != imports_.end()) return it->second;
  }
  const VkExternalMemoryProperties without = Query(handle_type, kImportUsage, 0);
  const VkExternalMemoryProperties with =
      Query(handle_type, kImportUsage | VK_BUFFER_USAGE_SHADER_DEVICE_ADDRESS_BIT, 0);
  const bool ok =
      (without.externalMemoryFeatures & VK_EXTERNAL_MEMORY_FEATURE_IMPORTABLE_BIT) != 0 && Keeps(without, with);
  std::lock_guard<std::mutex> lock(mutex_);
  imports_[handle_type] = ok;
  return ok;
}

}  // namespace bindery
