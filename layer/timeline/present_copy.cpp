#include "timeline/present_copy.h"

namespace bindery::timeline {

void* PresentCopy::Append(const void* s, std::size_t size) {
  auto copy = std::make_unique<unsigned char[]>(size);
  std::memcpy(copy.get(), s, size);
  auto* out = reinterpret_cast<VkBaseOutStructure*>(copy.get());
  out->pNext = nullptr;
  if (tail_ == nullptr) {
    info_.pNext = out;
  } else {
    tail_->pNext = out;
  }
  tail_ = out;
  structs_.push_back(std::move(copy));
  return out;
}

PresentCopy::PresentCopy(const VkPresentInfoKHR& in) {
  waits_.assign(in.pWaitSemaphores, in.pWaitSemaphores + in.waitSemaphoreCount);
  swapchains_.assign(in.pSwapchains, in.pSwapchains + in.swapchainCount);
  image_indices_.assign(in.pImageIndices, in.pImageIndices + in.swapchainCount);
  info_.waitSemaphoreCount = in.waitSemaphoreCount;
  info_.pWaitSemaphores = waits_.data();
  info_.swapchainCount = in.swapchainCount;
  info_.pSwapchains = swapchains_.data();
  info_.pImageIndices = image_indices_.data();
  info_.pResults = nullptr;  // answered when the application's call returns (see Present)

  for (auto* s = static_cast<const VkBaseInStructure*>(in.pNext); s != nullptr; s = s->pNext) {
    switch (s->sType) {
      case VK_STRUCTURE_TYPE_PRESENT_REGIONS_KHR: {
        auto* c = Append(*reinterpret_cast<const VkPresentRegionsKHR*>(s));
        if (c->pRegions != nullptr) {
          std::vector<VkPresentRegionKHR> regions(c->pRegions, c->pRegions + c->swapchainCount);
          for (VkPresentRegionKHR& r : regions) r.pRectangles = Keep(r.pRectangles, r.rectangleCount);
          c->pRegions = Keep(regions.data(), c->swapchainCount);
        }
        break;
      }
      case VK_STRUCTURE_TYPE_PRESENT_ID_KHR: {
        auto* c = Append(*reinterpret_cast<const VkPresentIdKHR*>(s));
        c->pPresentIds = Keep(c->pPresentIds, c->swapchainCount);
        break;
      }
      case VK_STRUCTURE_TYPE_SWAPCHAIN_PRESENT_FENCE_INFO_EXT: {
        auto* c = Append(*reinterpret_cast<const VkSwapchainPresentFenceInfoEXT*>(s));
        c->pFences = Keep(c->pFences, c->swapchainCount);
        for (uint32_t i = 0; c->pFences != nullptr && i < c->swapchainCount; ++i) {
          if (c->pFences[i] != VK_NULL_HANDLE) fences_.push_back(c->pFences[i]);
        }
        break;
      }
      case VK_STRUCTURE_TYPE_SWAPCHAIN_PRESENT_MODE_INFO_EXT: {
        auto* c = Append(*reinterpret_cast<const VkSwapchainPresentModeInfoEXT*>(s));
        c->pPresentModes = Keep(c->pPresentModes, c->swapchainCount);
        break;
      }
      case VK_STRUCTURE_TYPE_DISPLAY_PRESENT_INFO_KHR:
        Append(*reinterpret_cast<const VkDisplayPresentInfoKHR*>(s));
        break;
      case VK_STRUCTURE_TYPE_PRESENT_TIMES_INFO_GOOGLE: {
        auto* c = Append(*reinterpret_cast<const VkPresentTimesInfoGOOGLE*>(s));
        c->pTimes = Keep(c->pTimes, c->swapchainCount);
        break;
      }
      case VK_STRUCTURE_TYPE_DEVICE_GROUP_PRESENT_INFO_KHR: {
        auto* c = Append(*reinterpret_cast<const VkDeviceGroupPresentInfoKHR*>(s));
        c->pDeviceMasks = Keep(c->pDeviceMasks, c->swapchainCount);
        break;
      }
      default:
        dropped_.push_back(s->sType);
        break;
    }
  }
}

}  // namespace bindery::timeline
