#include "chassis/hidden_extensions.h"

#include <cstring>

#include "chassis/newer_vulkan.h"
#include "chassis/state.h"
#include "core/pnext.h"

namespace bindery {
namespace {

// Where an extension's features live: a feature struct whose members after sType/pNext
// are `bools` VkBool32 features (every struct listed here has that shape). Extensions
// promoted to a core version's features struct are not listed: hiding a core feature
// would need the API version lowered, which no capability does.
struct FeatureStruct {
  const char* extension;
  VkStructureType stype;
  uint32_t bools;
};

const FeatureStruct kFeatureStructs[] = {
    {VK_EXT_DESCRIPTOR_BUFFER_EXTENSION_NAME, VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_DESCRIPTOR_BUFFER_FEATURES_EXT, 4},
    {kExtShaderObject, kStypeShaderObjectFeatures, 1},
    {kKhrMaintenance6, kStypeMaintenance6Features, 1},
    {VK_VALVE_DESCRIPTOR_SET_HOST_MAPPING_EXTENSION_NAME,
     VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_DESCRIPTOR_SET_HOST_MAPPING_FEATURES_VALVE, 1},
    {VK_KHR_RAY_TRACING_PIPELINE_EXTENSION_NAME, VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_RAY_TRACING_PIPELINE_FEATURES_KHR, 5},
    {VK_EXT_MESH_SHADER_EXTENSION_NAME, VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MESH_SHADER_FEATURES_EXT, 5},
    {VK_NV_MESH_SHADER_EXTENSION_NAME, VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MESH_SHADER_FEATURES_NV, 2},
};

// The hidden extension whose feature struct has this sType, if any.
const FeatureStruct* HiddenFeatureStruct(const std::vector<const char*>& hidden, VkStructureType stype) {
  for (const FeatureStruct& f : kFeatureStructs) {
    if (f.stype == stype && IsHiddenExtension(hidden, f.extension)) return &f;
  }
  return nullptr;
}

// The features follow sType and pNext.
VkBool32* FeatureBools(VkBaseInStructure* s) {
  return reinterpret_cast<VkBool32*>(reinterpret_cast<char*>(s) + sizeof(VkBaseInStructure));
}

const VkBool32* FeatureBools(const VkBaseInStructure* s) {
  return reinterpret_cast<const VkBool32*>(reinterpret_cast<const char*>(s) + sizeof(VkBaseInStructure));
}

}  // namespace

std::vector<const char*> HiddenDeviceExtensions(const InstanceState& instance, VkPhysicalDevice physical_device) {
  std::vector<const char*> hidden;
  for (std::size_t i = 0; i < instance.capabilities.count; ++i) {
    instance.capabilities.items[i]->HiddenDeviceExtensions(instance, physical_device, hidden);
  }
  return hidden;
}

bool IsHiddenExtension(const std::vector<const char*>& hidden, const char* name) {
  if (name == nullptr) return false;
  for (const char* h : hidden) {
    if (std::strcmp(h, name) == 0) return true;
  }
  return false;
}

void RemoveHiddenExtensions(const std::vector<const char*>& hidden, std::vector<VkExtensionProperties>& extensions) {
  if (hidden.empty()) return;
  std::size_t kept = 0;
  for (std::size_t i = 0; i < extensions.size(); ++i) {
    if (!IsHiddenExtension(hidden, extensions[i].extensionName)) extensions[kept++] = extensions[i];
  }
  extensions.resize(kept);
}

const char* FirstHiddenEnabled(const std::vector<const char*>& hidden, const VkDeviceCreateInfo& info) {
  for (uint32_t i = 0; i < info.enabledExtensionCount; ++i) {
    if (IsHiddenExtension(hidden, info.ppEnabledExtensionNames[i])) return info.ppEnabledExtensionNames[i];
  }
  return nullptr;
}

void ClearHiddenFeatures(const std::vector<const char*>& hidden, void* chain) {
  if (hidden.empty()) return;
  // An output chain (the application's own structs, written as a driver would).
  FindFirstIf(chain, [&](const VkBaseInStructure& s) {
    if (const FeatureStruct* f = HiddenFeatureStruct(hidden, s.sType)) {
      VkBool32* bools = FeatureBools(const_cast<VkBaseInStructure*>(&s));
      for (uint32_t i = 0; i < f->bools; ++i) bools[i] = VK_FALSE;
    }
    return false;
  });
}

const char* FirstHiddenFeatureRequested(const std::vector<const char*>& hidden, const void* chain) {
  const char* found = nullptr;
  if (hidden.empty()) return found;
  FindFirstIf(chain, [&](const VkBaseInStructure& s) {
    if (const FeatureStruct* f = HiddenFeatureStruct(hidden, s.sType)) {
      const VkBool32* bools = FeatureBools(&s);
      for (uint32_t i = 0; i < f->bools && found == nullptr; ++i) {
        if (bools[i] == VK_TRUE) found = f->extension;
      }
    }
    return found != nullptr;
  });
  return found;
}

}  // namespace bindery
