// What the indirect-bindings capability decided for a device before the device existed
// (bindings_capability.cpp's PlanDevice): the features it enabled below the application,
// the policy, the rewrite's options that hold for every module of the device.
#pragma once

#include <cstdint>
#include <string>

#include <vulkan/vulkan.h>

#include "bindings/model/policy.h"
#include "chassis/capability.h"
#include "spirv/rewrite.h"

namespace bindery::bindings {

class BindingsPlan : public DevicePlan {
 public:
  bool shader_int64 = false;         // the device has shaderInt64 (the application's, or enabled by the layer)
  bool shader_float16 = false;       // ... shaderFloat16, shaderInt16, shaderInt8 (likewise)
  bool shader_int16 = false;
  bool shader_int8 = false;
  bool bounds_checks = false;        // the application enabled robustBufferAccess(2)
  bool null_descriptor = false;      // the application enabled robustness2.nullDescriptor
  bool convert_uniform_buffers = false;
  // Execution models whose rewritten modules broadcast descriptor-array indices (a
  // workaround for lavapipe: spirv/uniform_descriptor_index.h); 0 on other drivers.
  uint32_t broadcast_descriptor_index_models = 0;
  // Execution models where the driver takes such an index from lane 0 (lavapipe: all):
  // modules there that get no broadcast and index with a converted uniform buffer's value
  // run natively (spirv::RewriteOptions::lane_zero_descriptor_index_models).
  uint32_t lane_zero_descriptor_index_models = 0;
  std::string dump_dir;              // where rewritten modules are written ("" none)
  bool validate = false;             // spirv-val on each rewritten module (bindings_validate)
  bool restrict_pointers = false;     // converted pointers kept in RestrictPointer variables (bindings_restrict)
  bool records_in_root = true;       // small fixed sets' records travel in the root (root_layout.h)
  bool root_split = false;           // a compute copy of the root (RootPushSpace), decided at device creation
  spirv::TargetEnv target = spirv::TargetEnv::kVulkan1_0;
  uint32_t api_version = VK_API_VERSION_1_0;
  BindingsPolicy policy;                 // which layouts convert (model/policy.h)
  uint32_t skip = 0;                     // parts left out (Settings::bindings_skip, a debug setting)
  VkPhysicalDeviceLimits native_limits{};  // the driver's own limits
};

}  // namespace bindery::bindings
