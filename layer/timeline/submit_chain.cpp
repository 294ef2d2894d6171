#include "timeline/submit_chain.h"

namespace bindery::timeline {

SubmitChain::SubmitChain(const void* chain) {
  for (auto* s = static_cast<const VkBaseInStructure*>(chain); s != nullptr; s = s->pNext) {
    switch (s->sType) {
      case VK_STRUCTURE_TYPE_TIMELINE_SEMAPHORE_SUBMIT_INFO:
      case VK_STRUCTURE_TYPE_PROTECTED_SUBMIT_INFO:
        break;
      case VK_STRUCTURE_TYPE_DEVICE_GROUP_SUBMIT_INFO: {
        auto* c = store_.Append(*reinterpret_cast<const VkDeviceGroupSubmitInfo*>(s));
        c->pWaitSemaphoreDeviceIndices = store_.Keep(c->pWaitSemaphoreDeviceIndices, c->waitSemaphoreCount);
        c->pCommandBufferDeviceMasks = store_.Keep(c->pCommandBufferDeviceMasks, c->commandBufferCount);
        c->pSignalSemaphoreDeviceIndices = store_.Keep(c->pSignalSemaphoreDeviceIndices, c->signalSemaphoreCount);
        break;
      }
      case VK_STRUCTURE_TYPE_PERFORMANCE_QUERY_SUBMIT_INFO_KHR:
        store_.Append(*reinterpret_cast<const VkPerformanceQuerySubmitInfoKHR*>(s));
        break;
#ifdef VK_USE_PLATFORM_WIN32_KHR
      case VK_STRUCTURE_TYPE_WIN32_KEYED_MUTEX_ACQUIRE_RELEASE_INFO_KHR: {
        auto* c = store_.Append(*reinterpret_cast<const VkWin32KeyedMutexAcquireReleaseInfoKHR*>(s));
        c->pAcquireSyncs = store_.Keep(c->pAcquireSyncs, c->acquireCount);
        c->pAcquireKeys = store_.Keep(c->pAcquireKeys, c->acquireCount);
        c->pAcquireTimeouts = store_.Keep(c->pAcquireTimeouts, c->acquireCount);
        c->pReleaseSyncs = store_.Keep(c->pReleaseSyncs, c->releaseCount);
        c->pReleaseKeys = store_.Keep(c->pReleaseKeys, c->releaseCount);
        break;
      }
#endif
      default:
        dropped_.push_back(s->sType);
        break;
    }
  }
}

}  // namespace bindery::timeline
