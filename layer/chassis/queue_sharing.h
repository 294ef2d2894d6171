// Buffers the layer makes for itself and reads from command buffers of any queue (argument
// blocks, the push-descriptor ring, transfer staging) are created with concurrent sharing
// over every queue family of the physical device: one set or staging block may serve a
// graphics and an async-compute queue in turn, which for an exclusive buffer would need
// queue-family ownership transfers the layer cannot insert. A device with one family gets
// exclusive sharing (concurrent needs two families or more).
#pragma once

#include <cstdint>
#include <vector>

#include <vulkan/vulkan.h>

#include "chassis/state.h"

namespace bindery {

class QueueSharing {
 public:
  explicit QueueSharing(const DeviceState& device) {
    for (uint32_t i = 0; i < device.queue_families.size(); ++i) families_.push_back(i);
  }
  // Sets `info`'s sharing mode and family list (valid while this object lives).
  void Apply(VkBufferCreateInfo& info) const {
    if (families_.size() < 2) {
      info.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
      info.queueFamilyIndexCount = 0;
      info.pQueueFamilyIndices = nullptr;
      return;
    }
    info.sharingMode = VK_SHARING_MODE_CONCURRENT;
    info.queueFamilyIndexCount = static_cast<uint32_t>(families_.size());
    info.pQueueFamilyIndices = families_.data();
  }

 private:
  std::vector<uint32_t> families_;
};

}  // namespace bindery
