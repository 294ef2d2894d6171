#include "transfer/image_plan.h"

#include <algorithm>

namespace bindery::transfer {

bool LayoutTransitions::Add(VkImage image, VkImageLayout layout, uint32_t mip, uint32_t base_layer,
                            uint32_t layer_count) {
  uint32_t low = base_layer, high = base_layer + layer_count;
  // Absorb every entry of this image, mip and layout that overlaps or touches the range
  // (repeatedly: a grown range may reach one it did not before).
  for (bool merged = true; merged;) {
    merged = false;
    for (uint32_t i = 0; i < count_; ++i) {
      VkImageMemoryBarrier& b = barriers_[i];
      const VkImageSubresourceRange& r = b.subresourceRange;
      if (b.image != image || b.oldLayout != layout || r.baseMipLevel != mip) continue;
      const uint32_t other_low = r.baseArrayLayer, other_high = r.baseArrayLayer + r.layerCount;
      if (other_high < low || other_low > high) continue;
      low = std::min(low, other_low);
      high = std::max(high, other_high);
      barriers_[i] = barriers_[--count_];
      merged = true;
      break;
    }
  }
  if (count_ == kCapacity) return false;
  VkImageMemoryBarrier& b = barriers_[count_++];
  b = {VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER};
  b.oldLayout = layout;
  b.newLayout = VK_IMAGE_LAYOUT_GENERAL;
  b.srcQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
  b.dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
  b.image = image;
  b.subresourceRange = {VK_IMAGE_ASPECT_COLOR_BIT, mip, 1, low, high - low};
  return true;
}

}  // namespace bindery::transfer
