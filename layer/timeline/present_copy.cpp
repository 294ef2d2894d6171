#include "timeline/present_copy.h"

#include <algorithm>

namespace bindery::timeline {

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
        auto* c = store_.Append(*reinterpret_cast<const VkPresentRegionsKHR*>(s));
        if (c->pRegions != nullptr) {
          std::vector<VkPresentRegionKHR> regions(c->pRegions, c->pRegions + c->swapchainCount);
          for (VkPresentRegionKHR& r : regions) r.pRectangles = store_.Keep(r.pRectangles, r.rectangleCount);
          c->pRegions = store_.Keep(regions.data(), c->swapchainCount);
        }
        break;
      }
      case VK_STRUCTURE_TYPE_PRESENT_ID_KHR: {
        auto* c = store_.Append(*reinterpret_cast<const VkPresentIdKHR*>(s));
        c->pPresentIds = store_.Keep(c->pPresentIds, c->swapchainCount);
        break;
      }
      case VK_STRUCTURE_TYPE_SWAPCHAIN_PRESENT_FENCE_INFO_EXT: {
        auto* c = store_.Append(*reinterpret_cast<const VkSwapchainPresentFenceInfoEXT*>(s));
        c->pFences = store_.Keep(c->pFences, c->swapchainCount);
        present_fences_ = const_cast<VkFence*>(c->pFences);  // ours: ForgetFence edits it
        for (uint32_t i = 0; c->pFences != nullptr && i < c->swapchainCount; ++i) {
          if (c->pFences[i] != VK_NULL_HANDLE) fences_.push_back(c->pFences[i]);
        }
        break;
      }
      case VK_STRUCTURE_TYPE_SWAPCHAIN_PRESENT_MODE_INFO_EXT: {
        auto* c = store_.Append(*reinterpret_cast<const VkSwapchainPresentModeInfoEXT*>(s));
        c->pPresentModes = store_.Keep(c->pPresentModes, c->swapchainCount);
        break;
      }
      case VK_STRUCTURE_TYPE_DISPLAY_PRESENT_INFO_KHR:
        store_.Append(*reinterpret_cast<const VkDisplayPresentInfoKHR*>(s));
        break;
      case VK_STRUCTURE_TYPE_PRESENT_TIMES_INFO_GOOGLE: {
        auto* c = store_.Append(*reinterpret_cast<const VkPresentTimesInfoGOOGLE*>(s));
        c->pTimes = store_.Keep(c->pTimes, c->swapchainCount);
        break;
      }
      case VK_STRUCTURE_TYPE_DEVICE_GROUP_PRESENT_INFO_KHR: {
        auto* c = store_.Append(*reinterpret_cast<const VkDeviceGroupPresentInfoKHR*>(s));
        c->pDeviceMasks = store_.Keep(c->pDeviceMasks, c->swapchainCount);
        break;
      }
      default:
        dropped_.push_back(s->sType);
        break;
    }
  }
  info_.pNext = store_.head();
}

uint32_t PresentCopy::ForgetFence(VkFence fence) {
  uint32_t n = 0;
  for (uint32_t i = 0; present_fences_ != nullptr && i < info_.swapchainCount; ++i) {
    if (present_fences_[i] == fence) {
      present_fences_[i] = VK_NULL_HANDLE;
      ++n;
    }
  }
  fences_.erase(std::remove(fences_.begin(), fences_.end(), fence), fences_.end());
  return n;
}

uint32_t PresentCopy::ForgetWait(VkSemaphore semaphore) {
  const std::size_t before = waits_.size();
  waits_.erase(std::remove(waits_.begin(), waits_.end(), semaphore), waits_.end());
  info_.waitSemaphoreCount = static_cast<uint32_t>(waits_.size());
  info_.pWaitSemaphores = waits_.data();
  return static_cast<uint32_t>(before - waits_.size());
}

}  // namespace bindery::timeline
