// What the capabilities on a device asked the chassis to track for them (merged by the
// DeviceEditor, read by the tracking stage's hook predicates).
#pragma once

#include <vector>

#include <vulkan/vulkan.h>

namespace bindery {

struct TrackingPlan {
  // Buffers (size, usage as created, address once bound) and memory (flags).
  bool resources = false;
  // Command pools and buffers (queue family, level, per-capability CommandData).
  bool commands = false;
  // The state sent down in each command buffer: pipelines per bind point, shader objects,
  // conditional rendering (for capabilities that record their own work inside the
  // application's command buffers and must put that state back).
  bool command_state = false;
  // The push constants sent down as well, replayed after such work: only for work that
  // itself pushes constants. It costs a hook on every vkCmdPushConstants, so work that
  // can run without push constants (the transfer kernels) does not ask for it.
  bool push_constants = false;
  // The descriptor sets bound at the compute bind point, rebound after work that binds a
  // set of its own (the image transfer kernels). It costs a hook on every
  // vkCmdBindDescriptorSets, so only capabilities whose work binds sets ask for it.
  bool compute_descriptor_sets = false;

  // Buffers the layer makes addressable: any usage bit in `usage` and at least `min_size`
  // bytes (the chassis adds SHADER_DEVICE_ADDRESS usage, and the memory flag to
  // allocations of at least the smallest min_size).
  struct AddressRule {
    VkBufferUsageFlags usage;
    VkDeviceSize min_size;
  };
  std::vector<AddressRule> address_rules;

  bool any() const {
    return resources || commands || command_state || push_constants || compute_descriptor_sets ||
           !address_rules.empty();
  }
};

}  // namespace bindery
