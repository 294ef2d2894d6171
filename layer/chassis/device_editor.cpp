#include "chassis/device_editor.h"

#include <algorithm>
#include <cstddef>
#include <cstring>

#include "core/pnext.h"

namespace bindery {
namespace {

// A Vulkan 1.2 feature and the forms it takes below 1.2.
struct PromotedFeature {
  const char* name;
  std::size_t v12_member;      // offset in VkPhysicalDeviceVulkan12Features
  VkStructureType stype;       // its own features struct (core 1.2 and the KHR extension)
  std::size_t struct_size;
  std::size_t member;          // offset of the VkBool32 in that struct
  const char* extension;       // the KHR extension providing it below 1.2
  const char* device_dep_1_0;  // a device extension the KHR one needs under 1.0 (promoted to 1.1)
  const char* instance_dep_1_0;  // the instance extension that one needs under 1.0
};

const PromotedFeature kPromoted[] = {
    {"bufferDeviceAddress", offsetof(VkPhysicalDeviceVulkan12Features, bufferDeviceAddress),
     VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_BUFFER_DEVICE_ADDRESS_FEATURES,
     sizeof(VkPhysicalDeviceBufferDeviceAddressFeatures),
     offsetof(VkPhysicalDeviceBufferDeviceAddressFeatures, bufferDeviceAddress),
     VK_KHR_BUFFER_DEVICE_ADDRESS_EXTENSION_NAME, VK_KHR_DEVICE_GROUP_EXTENSION_NAME,
     VK_KHR_DEVICE_GROUP_CREATION_EXTENSION_NAME},
    {"timelineSemaphore", offsetof(VkPhysicalDeviceVulkan12Features, timelineSemaphore),
     VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_TIMELINE_SEMAPHORE_FEATURES, sizeof(VkPhysicalDeviceTimelineSemaphoreFeatures),
     offsetof(VkPhysicalDeviceTimelineSemaphoreFeatures, timelineSemaphore),
     VK_KHR_TIMELINE_SEMAPHORE_EXTENSION_NAME, nullptr, nullptr},
};
static_assert(sizeof(kPromoted) / sizeof(kPromoted[0]) == static_cast<int>(DeviceFeature::kCount),
              "one entry per DeviceFeature");

constexpr VkStructureType kV12 = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES;
constexpr VkStructureType kExtBda = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_BUFFER_DEVICE_ADDRESS_FEATURES_EXT;

VkBool32 MemberOf(const void* s, std::size_t offset) {
  VkBool32 v;
  std::memcpy(&v, static_cast<const unsigned char*>(s) + offset, sizeof(v));
  return v;
}

void SetMember(void* s, std::size_t offset, VkBool32 value = VK_TRUE) {
  std::memcpy(static_cast<unsigned char*>(s) + offset, &value, sizeof(value));
}

}  // namespace

DeviceEditor::DeviceEditor(InstanceState& instance, VkPhysicalDevice physical_device, const VkDeviceCreateInfo& app)
    : instance_(instance), physical_device_(physical_device), info_(app), chain_(app.pNext) {
  const VkLayerInstanceDispatchTable& d = instance.dispatch;
  d.GetPhysicalDeviceProperties(physical_device, &properties_);
  api_version_ = std::min(instance.api_version, properties_.apiVersion);
  for (uint32_t i = 0; i < app.enabledExtensionCount; ++i) enabled_.emplace_back(app.ppEnabledExtensionNames[i]);

  uint32_t count = 0;
  if (d.EnumerateDeviceExtensionProperties(physical_device, nullptr, &count, nullptr) == VK_SUCCESS) {
    offered_.resize(count);
    if (d.EnumerateDeviceExtensionProperties(physical_device, nullptr, &count, offered_.data()) < VK_SUCCESS) count = 0;
    offered_.resize(count);
  }
  d.GetPhysicalDeviceQueueFamilyProperties(physical_device, &count, nullptr);
  queue_families_.resize(count);
  d.GetPhysicalDeviceQueueFamilyProperties(physical_device, &count, queue_families_.data());

  // What the device supports, asked with only the structs it knows (core 1.2 or its
  // extension), through Features2 core or KHR as the instance allows.
  const bool device12 = properties_.apiVersion >= VK_API_VERSION_1_2;
  ext_bda_supported_ = DeviceOffers(VK_EXT_BUFFER_DEVICE_ADDRESS_EXTENSION_NAME);
  if (PFN_vkGetPhysicalDeviceFeatures2 features2 = instance.Features2()) {
    VkPhysicalDeviceFeatures2 query{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2};
    VkPhysicalDeviceBufferDeviceAddressFeatures bda{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_BUFFER_DEVICE_ADDRESS_FEATURES};
    VkPhysicalDeviceTimelineSemaphoreFeatures timeline{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_TIMELINE_SEMAPHORE_FEATURES};
    VkPhysicalDeviceBufferDeviceAddressFeaturesEXT ext_bda{kExtBda};
    auto add = [&](void* s) {
      static_cast<VkBaseOutStructure*>(s)->pNext = static_cast<VkBaseOutStructure*>(query.pNext);
      query.pNext = s;
    };
    if (device12 || DeviceOffers(VK_KHR_BUFFER_DEVICE_ADDRESS_EXTENSION_NAME)) add(&bda);
    if (device12 || DeviceOffers(VK_KHR_TIMELINE_SEMAPHORE_EXTENSION_NAME)) add(&timeline);
    if (ext_bda_supported_) add(&ext_bda);
    features2(physical_device, &query);
    supported_[static_cast<int>(DeviceFeature::kBufferDeviceAddress)] = bda.bufferDeviceAddress == VK_TRUE;
    supported_[static_cast<int>(DeviceFeature::kTimelineSemaphore)] = timeline.timelineSemaphore == VK_TRUE;
    ext_bda_supported_ = ext_bda_supported_ && ext_bda.bufferDeviceAddress == VK_TRUE;

    VkPhysicalDeviceDriverProperties driver{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_DRIVER_PROPERTIES};
    VkPhysicalDeviceProperties2 props{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2, &driver};
    PFN_vkGetPhysicalDeviceProperties2 properties2 = instance.Properties2();
    if (properties2 != nullptr && (device12 || DeviceOffers(VK_KHR_DRIVER_PROPERTIES_EXTENSION_NAME))) {
      properties2(physical_device, &props);
      driver_id_ = driver.driverID;
    }
  }

  app_chain_ = app.pNext;
  if (app.pEnabledFeatures != nullptr) {
    app_features_ = *app.pEnabledFeatures;
  } else if (auto* f2 = FindInChain<VkPhysicalDeviceFeatures2>(app.pNext, VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2)) {
    app_features_ = f2->features;
  }

  // What the application enabled itself, in any of the forms.
  const void* v12 = FindInChain<VkBaseInStructure>(app.pNext, kV12);
  for (int f = 0; f < static_cast<int>(DeviceFeature::kCount); ++f) {
    const PromotedFeature& p = kPromoted[f];
    const void* own = FindInChain<VkBaseInStructure>(app.pNext, p.stype);
    by_app_[f] = (v12 != nullptr && MemberOf(v12, p.v12_member)) || (own != nullptr && MemberOf(own, p.member));
  }
  const int bda = static_cast<int>(DeviceFeature::kBufferDeviceAddress);
  if (by_app_[bda]) {
    address_mode_ = api_version_ >= VK_API_VERSION_1_2 ? AddressMode::kCore : AddressMode::kKhr;
  } else if (Enabled(VK_EXT_BUFFER_DEVICE_ADDRESS_EXTENSION_NAME)) {
    const void* ext = FindInChain<VkBaseInStructure>(app.pNext, kExtBda);
    if (ext != nullptr && MemberOf(ext, offsetof(VkPhysicalDeviceBufferDeviceAddressFeaturesEXT, bufferDeviceAddress))) {
      by_app_[bda] = true;
      address_mode_ = AddressMode::kExt;
    }
  }
}

const void* DeviceEditor::FindApplicationStruct(VkStructureType type) const {
  return FindInChain<VkBaseInStructure>(app_chain_, type);
}

bool DeviceEditor::DeviceOffers(const char* extension) const {
  for (const VkExtensionProperties& e : offered_) {
    if (std::strcmp(e.extensionName, extension) == 0) return true;
  }
  return false;
}

bool DeviceEditor::Enabled(const char* extension) const {
  for (const std::string& e : enabled_) {
    if (e == extension) return true;
  }
  return false;
}

bool DeviceEditor::RequestExtension(const char* extension) {
  if (Enabled(extension)) return true;
  if (!DeviceOffers(extension)) return false;
  enabled_.emplace_back(extension);
  return true;
}

void DeviceEditor::HideExtension(const char* extension) {
  for (auto it = enabled_.begin(); it != enabled_.end();) {
    it = *it == extension ? enabled_.erase(it) : it + 1;
  }
}

VkBaseOutStructure* DeviceEditor::Own(const void* src, std::size_t size) {
  owned_.emplace_back(static_cast<const unsigned char*>(src), static_cast<const unsigned char*>(src) + size);
  return reinterpret_cast<VkBaseOutStructure*>(owned_.back().data());
}

const char* DeviceEditor::RequestFeature(DeviceFeature feature) {
  const int f = static_cast<int>(feature);
  if (by_app_[f]) return nullptr;
  if (feature == DeviceFeature::kBufferDeviceAddress && Enabled(VK_EXT_BUFFER_DEVICE_ADDRESS_EXTENSION_NAME)) {
    // The application chose the EXT form: the KHR/core form must not be enabled beside it.
    return EnableExtBufferDeviceAddress();
  }
  if (!supported_[f]) return "the device does not support the feature (or it could not be queried)";
  const char* why = EnablePromoted(feature);
  if (why == nullptr) {
    if (feature == DeviceFeature::kBufferDeviceAddress) {
      address_mode_ = api_version_ >= VK_API_VERSION_1_2 ? AddressMode::kCore : AddressMode::kKhr;
    }
  }
  return why;
}

const char* DeviceEditor::RequestCoreFeature(std::size_t member) {
  if (member + sizeof(VkBool32) > sizeof(VkPhysicalDeviceFeatures)) return "not a VkPhysicalDeviceFeatures member";
  if (MemberOf(&app_features_, member)) return nullptr;
  VkPhysicalDeviceFeatures supported{};
  instance_.dispatch.GetPhysicalDeviceFeatures(physical_device_, &supported);
  if (!MemberOf(&supported, member)) return "the device does not support the feature";
  constexpr VkStructureType kF2 = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2;
  if (info_.pEnabledFeatures == nullptr && chain_.Find(kF2) != nullptr) {
    // The application enables its core features through VkPhysicalDeviceFeatures2.
    void* f2 = chain_.ModifyStruct(kF2, sizeof(VkPhysicalDeviceFeatures2));
    if (f2 == nullptr) return "an unknown struct precedes VkPhysicalDeviceFeatures2 in the chain";
    SetMember(f2, offsetof(VkPhysicalDeviceFeatures2, features) + member);
    return nullptr;
  }
  if (core_features_ == nullptr) {
    VkPhysicalDeviceFeatures copy = info_.pEnabledFeatures != nullptr ? *info_.pEnabledFeatures : VkPhysicalDeviceFeatures{};
    core_features_ = reinterpret_cast<VkPhysicalDeviceFeatures*>(Own(&copy, sizeof(copy)));
    info_.pEnabledFeatures = core_features_;
  }
  SetMember(core_features_, member);
  return nullptr;
}

const char* DeviceEditor::HideFeature(DeviceFeature feature) {
  const PromotedFeature& p = kPromoted[static_cast<int>(feature)];
  HideExtension(p.extension);
  if (const VkBaseInStructure* v12 = chain_.Find(kV12); v12 != nullptr && MemberOf(v12, p.v12_member)) {
    void* copy = chain_.ModifyStruct(kV12, sizeof(VkPhysicalDeviceVulkan12Features));
    if (copy == nullptr) return "an unknown struct precedes VkPhysicalDeviceVulkan12Features in the chain";
    SetMember(copy, p.v12_member, VK_FALSE);
  }
  if (!chain_.Remove(p.stype)) return "an unknown struct precedes the feature's struct in the chain";
  return nullptr;
}

const char* DeviceEditor::EnablePromoted(DeviceFeature feature) {
  const PromotedFeature& p = kPromoted[static_cast<int>(feature)];
  if (api_version_ < VK_API_VERSION_1_2) {
    // Below 1.2 the feature comes from its KHR extension (and, under 1.0, the 1.1
    // extensions it depends on).
    if (!DeviceOffers(p.extension)) return "the device does not offer the extension that provides it";
    if (api_version_ < VK_API_VERSION_1_1) {
      if (!instance_.ExtensionEnabled(VK_KHR_GET_PHYSICAL_DEVICE_PROPERTIES_2_EXTENSION_NAME)) {
        return "VK_KHR_get_physical_device_properties2 is not enabled on the instance";
      }
      if (p.device_dep_1_0 != nullptr &&
          (!DeviceOffers(p.device_dep_1_0) || !instance_.ExtensionEnabled(p.instance_dep_1_0))) {
        return "a Vulkan 1.1 extension it depends on is missing";
      }
      if (p.device_dep_1_0 != nullptr) RequestExtension(p.device_dep_1_0);
    }
    RequestExtension(p.extension);
  } else if (chain_.Find(kV12) != nullptr) {
    // The application uses the 1.2 struct: the feature must be set there, not in a second
    // struct beside it (VUID-VkDeviceCreateInfo-pNext-02830).
    void* v12 = chain_.ModifyStruct(kV12, sizeof(VkPhysicalDeviceVulkan12Features));
    if (v12 == nullptr) return "an unknown struct precedes VkPhysicalDeviceVulkan12Features in the chain";
    SetMember(v12, p.v12_member);
    return nullptr;
  }
  if (chain_.Find(p.stype) != nullptr) {
    void* own = chain_.ModifyStruct(p.stype, p.struct_size);
    if (own == nullptr) return "an unknown struct precedes the feature's struct in the chain";
    SetMember(own, p.member);
    return nullptr;
  }
  std::vector<unsigned char> zero(p.struct_size, 0);
  VkBaseOutStructure* s = Own(zero.data(), p.struct_size);
  s->sType = p.stype;
  SetMember(s, p.member);
  chain_.Prepend(s);
  return nullptr;
}

const char* DeviceEditor::EnableExtBufferDeviceAddress() {
  if (!ext_bda_supported_) return "the device does not support VK_EXT_buffer_device_address's feature";
  constexpr std::size_t member = offsetof(VkPhysicalDeviceBufferDeviceAddressFeaturesEXT, bufferDeviceAddress);
  if (chain_.Find(kExtBda) != nullptr) {
    void* s = chain_.ModifyStruct(kExtBda, sizeof(VkPhysicalDeviceBufferDeviceAddressFeaturesEXT));
    if (s == nullptr) return "an unknown struct precedes VkPhysicalDeviceBufferDeviceAddressFeaturesEXT";
    SetMember(s, member);
  } else {
    VkPhysicalDeviceBufferDeviceAddressFeaturesEXT ext{kExtBda};
    ext.bufferDeviceAddress = VK_TRUE;
    chain_.Prepend(Own(&ext, sizeof(ext)));
  }
  address_mode_ = AddressMode::kExt;
  return nullptr;
}

const VkDeviceCreateInfo* DeviceEditor::Build() {
  names_.clear();
  for (const std::string& e : enabled_) names_.push_back(e.c_str());
  info_.enabledExtensionCount = static_cast<uint32_t>(names_.size());
  info_.ppEnabledExtensionNames = names_.empty() ? nullptr : names_.data();
  info_.pNext = chain_.chain();
  return &info_;
}

const char* DeviceEditor::AddressFunctionName() const {
  switch (address_mode_) {
    case AddressMode::kCore: return "vkGetBufferDeviceAddress";
    case AddressMode::kKhr: return "vkGetBufferDeviceAddressKHR";
    case AddressMode::kExt: return "vkGetBufferDeviceAddressEXT";
    case AddressMode::kNone: break;
  }
  return nullptr;
}

}  // namespace bindery
