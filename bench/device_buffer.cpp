#include "device_buffer.h"

#include <cstdlib>
#include <cstring>
#include <vector>

namespace bindery::bench {
namespace {

// Diagnosis knob (docs/measured.md, "Pass-through costs nothing"): BINDERY_BENCH_APP_ADDRESS=usage|memory|both makes the
// benchmark itself, as an application would, create its buffers with SHADER_DEVICE_ADDRESS
// usage and/or allocate their memory with the device-address flag — to measure, without
// the layer, what those flags cost on a driver.
bool AppAddressKnob(const char* what) {
  const char* v = std::getenv("BINDERY_BENCH_APP_ADDRESS");
  return v != nullptr && (std::strcmp(v, what) == 0 || std::strcmp(v, "both") == 0);
}

}  // namespace

DeviceBuffer CreateDeviceBuffer(VkPhysicalDevice physical_device, VkDevice device, VkDeviceSize size,
                                VkBufferUsageFlags usage, std::string* error) {
  DeviceBuffer b;
  VkBufferCreateInfo bci{VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
  bci.size = size;
  bci.usage = usage | (AppAddressKnob("usage") ? VK_BUFFER_USAGE_SHADER_DEVICE_ADDRESS_BIT : 0);
  bci.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
  VkResult r = vkCreateBuffer(device, &bci, nullptr, &b.buffer);
  if (r != VK_SUCCESS) {
    *error = "vkCreateBuffer(" + std::to_string(size) + " bytes) failed: " + std::to_string(r);
    return {};
  }
  VkMemoryRequirements req;
  vkGetBufferMemoryRequirements(device, b.buffer, &req);
  VkPhysicalDeviceMemoryProperties props;
  vkGetPhysicalDeviceMemoryProperties(physical_device, &props);

  // Candidate types in order of preference; each type at most once.
  std::vector<uint32_t> candidates;
  auto add = [&](auto accept) {
    for (uint32_t i = 0; i < props.memoryTypeCount; ++i) {
      if ((req.memoryTypeBits & (1u << i)) == 0 || !accept(props.memoryTypes[i].propertyFlags)) continue;
      bool seen = false;
      for (uint32_t c : candidates) seen = seen || c == i;
      if (!seen) candidates.push_back(i);
    }
  };
  constexpr VkMemoryPropertyFlags kLocal = VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT;
  constexpr VkMemoryPropertyFlags kHost = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT;
  // Protected or lazily allocated memory cannot back a plain transfer buffer.
  constexpr VkMemoryPropertyFlags kUnusable =
      VK_MEMORY_PROPERTY_PROTECTED_BIT | VK_MEMORY_PROPERTY_LAZILY_ALLOCATED_BIT;
  add([&](VkMemoryPropertyFlags f) { return (f & kUnusable) == 0 && (f & kLocal) && !(f & kHost); });
  add([&](VkMemoryPropertyFlags f) { return (f & kUnusable) == 0 && (f & kLocal); });
  add([&](VkMemoryPropertyFlags f) { return (f & kUnusable) == 0; });

  for (uint32_t type : candidates) {
    VkMemoryAllocateInfo mai{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
    mai.allocationSize = req.size;
    mai.memoryTypeIndex = type;
    VkMemoryAllocateFlagsInfo flags{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_FLAGS_INFO};
    flags.flags = VK_MEMORY_ALLOCATE_DEVICE_ADDRESS_BIT;
    // A buffer with an address (the knob, or a caller that asked for the usage) needs
    // memory allocated for addresses.
    if (AppAddressKnob("memory") || (usage & VK_BUFFER_USAGE_SHADER_DEVICE_ADDRESS_BIT) != 0) mai.pNext = &flags;
    r = vkAllocateMemory(device, &mai, nullptr, &b.memory);
    if (r != VK_SUCCESS) {
      b.memory = VK_NULL_HANDLE;
      continue;  // heap full: try the next type
    }
    r = vkBindBufferMemory(device, b.buffer, b.memory, 0);
    if (r != VK_SUCCESS) {
      *error = "vkBindBufferMemory failed: " + std::to_string(r);
      DestroyDeviceBuffer(device, b);
      return {};
    }
    b.size = size;
    b.memory_type = type;
    b.memory_flags = props.memoryTypes[type].propertyFlags;
    return b;
  }
  *error = "no memory type could hold " + std::to_string(req.size) + " bytes (last vkAllocateMemory result " +
           std::to_string(r) + ")";
  DestroyDeviceBuffer(device, b);
  return {};
}

void DestroyDeviceBuffer(VkDevice device, DeviceBuffer& b) {
  if (b.buffer != VK_NULL_HANDLE) vkDestroyBuffer(device, b.buffer, nullptr);
  if (b.memory != VK_NULL_HANDLE) vkFreeMemory(device, b.memory, nullptr);
  b = {};
}

std::string MemoryFlagsName(VkMemoryPropertyFlags flags) {
  static const struct {
    VkMemoryPropertyFlags bit;
    const char* name;
  } kNames[] = {
      {VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, "DEVICE_LOCAL"},   {VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT, "HOST_VISIBLE"},
      {VK_MEMORY_PROPERTY_HOST_COHERENT_BIT, "HOST_COHERENT"}, {VK_MEMORY_PROPERTY_HOST_CACHED_BIT, "HOST_CACHED"},
      {VK_MEMORY_PROPERTY_LAZILY_ALLOCATED_BIT, "LAZY"},       {VK_MEMORY_PROPERTY_PROTECTED_BIT, "PROTECTED"},
  };
  std::string out;
  for (const auto& n : kNames) {
    if ((flags & n.bit) == 0) continue;
    if (!out.empty()) out += "|";
    out += n.name;
  }
  return out.empty() ? "none" : out;
}

}  // namespace bindery::bench
