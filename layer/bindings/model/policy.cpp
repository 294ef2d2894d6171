#include "bindings/model/policy.h"

#include <algorithm>

namespace bindery::bindings {
namespace {

constexpr uint32_t kMesaVendorId = 0x10005;  // VK_VENDOR_ID_MESA (lavapipe)
constexpr uint32_t kNvidiaVendorId = 0x10DE;

constexpr VkShaderStageFlagBits kStages[] = {
    VK_SHADER_STAGE_VERTEX_BIT,   VK_SHADER_STAGE_TESSELLATION_CONTROL_BIT, VK_SHADER_STAGE_TESSELLATION_EVALUATION_BIT,
    VK_SHADER_STAGE_GEOMETRY_BIT, VK_SHADER_STAGE_FRAGMENT_BIT,            VK_SHADER_STAGE_COMPUTE_BIT,
};

}  // namespace

BindingsPolicy ChooseBindingsPolicy(Mode mode, uint32_t vendor_id, VkDriverId driver_id) {
  BindingsPolicy p;
  switch (mode) {
    case Mode::kOff:
      return p;
    case Mode::kForce:
      p.name = "force (setting)";
      p.convert_everything = true;
      p.convert_over_limits = true;
      return p;
    case Mode::kAuto:
      break;
  }
  p.convert_over_limits = true;
  // The table. A driver is listed as paying only when every row of the bench's
  // indirect-bindings section (recording, bind of pre-built sets, bandwidth, tiny
  // dispatches) is at least native speed through the layer.
  //   lavapipe (2026-11-23): recording alloc+update+bind+dispatch 1.01x native, pre-built
  //     binds 1.11x, axpy bandwidth 0.19x (its pointer path), pipeline creation 1.4-1.8x:
  //     does not pay.
  //   NVIDIA H100, driver 580 (2026-11-23): bandwidth 0.996x, tiny dispatches 1.00x, cold
  //     pipeline creation 1.11-1.14x, but recording 1.18-1.28x: does not pay. Again on
  //     2026-11-25 with the split root: inference kernels' GPU time 0.98-1.00x, but binds
  //     of pre-built sets 1.11x and alloc+update+bind 1.12x: still does not pay.
  // A paying row's name must contain "every layout" (tests read it from the log).
  const bool lavapipe = driver_id == VK_DRIVER_ID_MESA_LLVMPIPE || (driver_id == 0 && vendor_id == kMesaVendorId);
  const bool nvidia = driver_id == VK_DRIVER_ID_NVIDIA_PROPRIETARY || (driver_id == 0 && vendor_id == kNvidiaVendorId);
  if (lavapipe) {
    p.name = "lavapipe: layouts above the driver's limits";
  } else if (nvidia) {
    p.name = "nvidia: layouts above the driver's limits";
  } else {
    p.name = "not measured: layouts above the driver's limits";
  }
  return p;
}

bool UsesRaisedLimit(const VkDescriptorSetLayoutCreateInfo& info, const VkPhysicalDeviceLimits& limits, bool ubo,
                     const char** why) {
  uint32_t storage = 0, storage_dynamic = 0, uniform = 0, uniform_dynamic = 0;
  uint32_t storage_per_stage[6] = {}, uniform_per_stage[6] = {};
  for (uint32_t i = 0; i < info.bindingCount; ++i) {
    const VkDescriptorSetLayoutBinding& b = info.pBindings[i];
    const bool is_storage =
        b.descriptorType == VK_DESCRIPTOR_TYPE_STORAGE_BUFFER || b.descriptorType == VK_DESCRIPTOR_TYPE_STORAGE_BUFFER_DYNAMIC;
    const bool is_uniform =
        b.descriptorType == VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER || b.descriptorType == VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER_DYNAMIC;
    if (!is_storage && !is_uniform) continue;
    // Sums saturate: counts near UINT32_MAX are over every limit anyway.
    auto add = [](uint32_t& total, uint32_t n) { total = n > UINT32_MAX - total ? UINT32_MAX : total + n; };
    (is_storage ? add(storage, b.descriptorCount) : add(uniform, b.descriptorCount));
    if (b.descriptorType == VK_DESCRIPTOR_TYPE_STORAGE_BUFFER_DYNAMIC) add(storage_dynamic, b.descriptorCount);
    if (b.descriptorType == VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER_DYNAMIC) add(uniform_dynamic, b.descriptorCount);
    for (size_t s = 0; s < std::size(kStages); ++s) {
      if ((b.stageFlags & kStages[s]) == 0) continue;
      add(is_storage ? storage_per_stage[s] : uniform_per_stage[s], b.descriptorCount);
    }
  }
  const char* reason = nullptr;
  const uint32_t storage_stage = *std::max_element(std::begin(storage_per_stage), std::end(storage_per_stage));
  const uint32_t uniform_stage = *std::max_element(std::begin(uniform_per_stage), std::end(uniform_per_stage));
  if (storage_stage > limits.maxPerStageDescriptorStorageBuffers) {
    reason = "maxPerStageDescriptorStorageBuffers";
  } else if (storage > limits.maxDescriptorSetStorageBuffers) {
    reason = "maxDescriptorSetStorageBuffers";
  } else if (storage_dynamic > limits.maxDescriptorSetStorageBuffersDynamic) {
    reason = "maxDescriptorSetStorageBuffersDynamic";
  } else if (ubo && uniform_stage > limits.maxPerStageDescriptorUniformBuffers) {
    reason = "maxPerStageDescriptorUniformBuffers";
  } else if (ubo && uniform > limits.maxDescriptorSetUniformBuffers) {
    reason = "maxDescriptorSetUniformBuffers";
  } else if (ubo && uniform_dynamic > limits.maxDescriptorSetUniformBuffersDynamic) {
    reason = "maxDescriptorSetUniformBuffersDynamic";
  }
  if (why != nullptr) *why = reason;
  return reason != nullptr;
}

bool FullLayoutFitsDriver(const std::vector<const std::vector<VkDescriptorSetLayoutBinding>*>& sets,
                          const VkPhysicalDeviceLimits& limits, const char** why) {
  *why = nullptr;
  if (sets.size() > limits.maxBoundDescriptorSets) {
    *why = "maxBoundDescriptorSets";
    return false;
  }
  // The pipeline-layout limits are sums over every set: check the sum as one layout.
  std::vector<VkDescriptorSetLayoutBinding> all;
  for (const std::vector<VkDescriptorSetLayoutBinding>* s : sets) {
    if (s != nullptr) all.insert(all.end(), s->begin(), s->end());
  }
  VkDescriptorSetLayoutCreateInfo info{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO};
  info.bindingCount = static_cast<uint32_t>(all.size());
  info.pBindings = all.data();
  return !UsesRaisedLimit(info, limits, true, why);
}

}  // namespace bindery::bindings
