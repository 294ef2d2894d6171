// Structures and entry points of extensions newer than Debian 12's Vulkan headers
// (1.3.239): VK_KHR_maintenance5 (buffer usage flags 2), VK_KHR_maintenance6
// (vkCmdPushConstants2KHR) and VK_EXT_shader_object. Declared here under our own names
// with the registry's layouts and enum values, so the tests build against old headers
// and still exercise these paths on drivers that have them (the NVIDIA machines); on
// lavapipe (Mesa 22.3) the tests that need them skip.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <vulkan/vulkan.h>

#include "extras_layer/maintenance6.h"

namespace bindery::test::newer {

// VK_KHR_maintenance5
inline constexpr const char* kMaintenance5 = "VK_KHR_maintenance5";
inline constexpr VkStructureType kMaintenance5FeaturesType = static_cast<VkStructureType>(1000470000);
inline constexpr VkStructureType kBufferUsageFlags2CreateInfoType = static_cast<VkStructureType>(1000470006);
struct Maintenance5Features {
  VkStructureType sType = kMaintenance5FeaturesType;
  void* pNext = nullptr;
  VkBool32 maintenance5 = VK_FALSE;
};
struct BufferUsageFlags2CreateInfo {
  VkStructureType sType = kBufferUsageFlags2CreateInfoType;
  const void* pNext = nullptr;
  uint64_t usage = 0;  // VkBufferUsageFlags2KHR: the low 32 bits match VkBufferUsageFlagBits
};

// VK_KHR_maintenance6: the definitions the stand-in driver layer implements
// (extras_layer/maintenance6.h), under the names these tests use.
inline constexpr const char* kMaintenance6 = maintenance6::kName;
inline constexpr VkStructureType kMaintenance6FeaturesType = maintenance6::kFeaturesType;
inline constexpr VkStructureType kPushConstantsInfoType = maintenance6::kPushConstantsInfoType;
using Maintenance6Features = maintenance6::Features;
using PushConstantsInfo = maintenance6::PushConstantsInfo;
using PFN_CmdPushConstants2 = maintenance6::PFN_CmdPushConstants2;

// VK_EXT_shader_object
inline constexpr const char* kShaderObject = "VK_EXT_shader_object";
inline constexpr VkStructureType kShaderObjectFeaturesType = static_cast<VkStructureType>(1000482000);
inline constexpr VkStructureType kShaderCreateInfoType = static_cast<VkStructureType>(1000482002);
inline constexpr uint32_t kShaderCodeTypeSpirv = 1;  // VK_SHADER_CODE_TYPE_SPIRV_EXT
struct ShaderObjectFeatures {
  VkStructureType sType = kShaderObjectFeaturesType;
  void* pNext = nullptr;
  VkBool32 shaderObject = VK_FALSE;
};
using ShaderEXT = struct ShaderEXT_T*;  // a non-dispatchable handle (64-bit)
struct ShaderCreateInfo {
  VkStructureType sType = kShaderCreateInfoType;
  const void* pNext = nullptr;
  VkFlags flags = 0;
  VkShaderStageFlagBits stage = VK_SHADER_STAGE_COMPUTE_BIT;
  VkShaderStageFlags nextStage = 0;
  uint32_t codeType = kShaderCodeTypeSpirv;
  size_t codeSize = 0;
  const void* pCode = nullptr;
  const char* pName = "main";
  uint32_t setLayoutCount = 0;
  const VkDescriptorSetLayout* pSetLayouts = nullptr;
  uint32_t pushConstantRangeCount = 0;
  const VkPushConstantRange* pPushConstantRanges = nullptr;
  const VkSpecializationInfo* pSpecializationInfo = nullptr;
};
using PFN_CreateShaders = VkResult(VKAPI_PTR*)(VkDevice, uint32_t, const ShaderCreateInfo*,
                                               const VkAllocationCallbacks*, ShaderEXT*);
using PFN_DestroyShader = void(VKAPI_PTR*)(VkDevice, ShaderEXT, const VkAllocationCallbacks*);
using PFN_CmdBindShaders = void(VKAPI_PTR*)(VkCommandBuffer, uint32_t, const VkShaderStageFlagBits*,
                                            const ShaderEXT*);

// Does the first physical device (layer off, validation off) list `extension`?
bool DeviceHasExtension(const char* extension);

// Does the first physical device (layer off, validation off) have `extension` with the
// feature struct `features` (sType set, one VkBool32 after pNext) reporting VK_TRUE?
bool DeviceSupports(const char* extension, VkStructureType feature_type);

// specVersion of VK_LAYER_KHRONOS_validation as the loader lists it (0 if absent).
uint32_t ValidationLayerVersion();

// The validation layer knows an extension only from the header version it was built
// with; older ones report the extension's own structs and calls as errors. Whether the
// installed one is at least `version` (VK_MAKE_API_VERSION).
bool ValidationKnows(uint32_t version);

}  // namespace bindery::test::newer
