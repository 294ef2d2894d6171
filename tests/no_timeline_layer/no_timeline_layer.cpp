// Test-only layer placed below Bindery: a driver without timeline semaphores. It hides
// VK_KHR_timeline_semaphore, the timelineSemaphore feature (its own struct and Vulkan 1.2's
// member) and the 1.2 limit, offers none of the timeline entry points, and counts a
// violation whenever a timeline-typed struct, value or call reaches it (tests fail on any).
//
// Shared queues (BINDERY_TEST_SHARED_QUEUES=N): every queue family offers at least N
// queues; those past the driver's own are handles of this layer backed by the driver's
// queues (calls on one driver queue are serialized here). A stand-in for a device with
// several queues on lavapipe, which has one. With BINDERY_TEST_KEEP_TIMELINES=1 the layer
// only shares queues and hides nothing (the forced configuration over a driver with
// timelines). With BINDERY_TEST_LAGGING_QUEUE=N too, the application's queue N lags behind
// the others (see "A lagging queue" below).
#include <atomic>
#include <condition_variable>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <cstdlib>
#include <map>
#include <memory>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include <vulkan/vk_layer.h>
#include <vulkan/vulkan.h>

#include "held_submits.h"
#include "no_timeline_layer.h"
#include "support/test_layer.h"

namespace {

namespace held_submits = bindery::test::held_submits;

std::mutex g_mutex;
PFN_vkGetInstanceProcAddr g_gipa = nullptr;
PFN_vkGetDeviceProcAddr g_gdpa = nullptr;
size_t g_violations = 0;
// Device-loss injection (bindery_no_timeline_lose_device): every queue submission returns
// VK_ERROR_DEVICE_LOST without reaching the driver.
std::atomic<bool> g_lost{false};
std::string g_last;
// vkQueueBindSparse calls that reached this layer (tests check the layer above sent one).
std::atomic<uint32_t> g_bind_sparse_calls{0};
// bindery_no_timeline_semaphore_only_sparse: on a driver without sparse binding (lavapipe)
// a vkQueueBindSparse that binds nothing goes on as the vkQueueSubmit with the same
// semaphores and fence, so the semaphore handling of the layer above can be tested there.
std::atomic<bool> g_semaphore_only_sparse{false};

// Shared queues (see the header comment): read at vkCreateInstance.
uint32_t g_shared_queues = 0;
bool g_keep_timelines = false;
// A queue handle of this layer: dispatchable, so its first word is the loader's.
struct SharedQueue {
  void* loader_data;
  VkQueue real;
};
std::mutex g_queue_mutex;  // the maps below
std::unordered_map<VkQueue, VkQueue> g_real_of;            // shared handle -> driver queue
std::map<std::pair<uint32_t, uint32_t>, std::unique_ptr<SharedQueue>> g_shared;  // (family, index)
std::unordered_map<uint32_t, uint32_t> g_driver_queue_count;  // family -> queues the driver created
std::unordered_map<VkQueue, std::unique_ptr<std::mutex>> g_queue_locks;  // per driver queue
// Submissions seen per pNext struct type (tests check that a chain reached the driver).
std::unordered_map<int, uint32_t> g_submit_structs;

// The layer below's functions this layer calls: read at vkCreateInstance and vkCreateDevice.
#define NO_TIMELINE_INSTANCE_NEXT(X)                                                                      \
  X(EnumerateDeviceExtensionProperties) X(GetPhysicalDeviceFeatures2) X(GetPhysicalDeviceFeatures2KHR)     \
  X(GetPhysicalDeviceProperties2) X(GetPhysicalDeviceProperties2KHR) X(GetPhysicalDeviceQueueFamilyProperties) \
  X(GetPhysicalDeviceQueueFamilyProperties2) X(GetPhysicalDeviceQueueFamilyProperties2KHR)                \
  X(GetPhysicalDeviceExternalSemaphoreProperties)
#define NO_TIMELINE_DEVICE_NEXT(X)                                                                           \
  X(GetDeviceQueue) X(GetDeviceQueue2) X(QueueWaitIdle) X(WaitForFences) X(CreateFence) X(GetFenceStatus)   \
  X(CreateSemaphore) X(QueueSubmit) X(QueueSubmit2) X(QueueSubmit2KHR) X(QueueBindSparse) X(QueuePresentKHR)   \
  X(DeviceWaitIdle) X(WaitSemaphores) X(WaitSemaphoresKHR) X(GetSemaphoreCounterValue) X(GetSemaphoreCounterValueKHR)
struct Next {
  NO_TIMELINE_INSTANCE_NEXT(BINDERY_TEST_LAYER_NEXT_MEMBER)
  NO_TIMELINE_DEVICE_NEXT(BINDERY_TEST_LAYER_NEXT_MEMBER)
} g_next;

// Holds (bindery_no_timeline_hold): the next call of an armed kind blocks until the test
// lets it go, so a test can stop the layer above inside a window it wants to probe.
std::mutex g_hold_mutex;
std::condition_variable g_hold_changed;
int g_hold_armed = 0, g_holding = 0, g_let_go = 0;

void MaybeHold(int kind) {
  std::unique_lock<std::mutex> lock(g_hold_mutex);
  if ((g_hold_armed & kind) == 0) return;
  g_hold_armed &= ~kind;
  g_holding |= kind;
  g_hold_changed.notify_all();
  g_hold_changed.wait(lock, [kind] { return (g_let_go & kind) != 0; });
  g_let_go &= ~kind;
  g_holding &= ~kind;
}
// vkWaitForFences calls that reached this layer (tests check the layer above does not
// wait in slices).
std::atomic<uint32_t> g_wait_for_fences_calls{0};

// The driver queue behind `queue` (itself when it is the driver's).
VkQueue Real(VkQueue queue) {
  if (g_shared_queues == 0) return queue;
  std::lock_guard<std::mutex> lock(g_queue_mutex);
  auto it = g_real_of.find(queue);
  return it == g_real_of.end() ? queue : it->second;
}

// Held around every call on a driver queue that shared handles stand for: the driver
// queue is externally synchronized, and several application threads use its stand-ins.
class QueueLock {
 public:
  explicit QueueLock(VkQueue real) {
    if (g_shared_queues == 0) return;
    std::lock_guard<std::mutex> lock(g_queue_mutex);
    std::unique_ptr<std::mutex>& m = g_queue_locks[real];
    if (m == nullptr) m = std::make_unique<std::mutex>();
    mutex_ = m.get();
    mutex_->lock();
  }
  ~QueueLock() {
    if (mutex_ != nullptr) mutex_->unlock();
  }
  QueueLock(const QueueLock&) = delete;
  QueueLock& operator=(const QueueLock&) = delete;

 private:
  std::mutex* mutex_ = nullptr;
};

void CountSubmitStructs(const void* chain) {
  std::lock_guard<std::mutex> lock(g_queue_mutex);
  for (auto* s = static_cast<const VkBaseInStructure*>(chain); s != nullptr; s = s->pNext) {
    ++g_submit_structs[static_cast<int>(s->sType)];
  }
}
// Presents that reached this layer with VkPresentRegionsKHR, and the first rectangle of the
// last one (tests check that a present the layer above held back kept its pNext).
std::atomic<uint32_t> g_presents_with_regions{0};
VkRectLayerKHR g_last_region{};

// Read where needed: the loader may ask for entry points before vkCreateInstance.
bool KeepTimelines() {
  const char* keep = std::getenv("BINDERY_TEST_KEEP_TIMELINES");
  return keep != nullptr && std::strcmp(keep, "1") == 0;
}

void Violation(const char* what) {
  if (g_keep_timelines) return;  // timelines pass through in that mode
  std::lock_guard<std::mutex> lock(g_mutex);
  ++g_violations;
  g_last = what;
  std::fprintf(stderr, "no_timeline_layer: VIOLATION: %s\n", what);
}

bool HasTimelineStruct(const void* chain) {
  for (auto* s = static_cast<const VkBaseInStructure*>(chain); s != nullptr; s = s->pNext) {
    if (s->sType == VK_STRUCTURE_TYPE_SEMAPHORE_TYPE_CREATE_INFO ||
        s->sType == VK_STRUCTURE_TYPE_TIMELINE_SEMAPHORE_SUBMIT_INFO ||
        s->sType == VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_TIMELINE_SEMAPHORE_FEATURES) {
      return true;
    }
  }
  return false;
}

void HideFeature(void* chain) {
  for (auto* s = static_cast<VkBaseOutStructure*>(chain); s != nullptr; s = s->pNext) {
    if (s->sType == VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_TIMELINE_SEMAPHORE_FEATURES) {
      reinterpret_cast<VkPhysicalDeviceTimelineSemaphoreFeatures*>(s)->timelineSemaphore = VK_FALSE;
    } else if (s->sType == VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES) {
      reinterpret_cast<VkPhysicalDeviceVulkan12Features*>(s)->timelineSemaphore = VK_FALSE;
    }
  }
}

void HideLimit(void* chain) {
  for (auto* s = static_cast<VkBaseOutStructure*>(chain); s != nullptr; s = s->pNext) {
    if (s->sType == VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_TIMELINE_SEMAPHORE_PROPERTIES) {
      reinterpret_cast<VkPhysicalDeviceTimelineSemaphoreProperties*>(s)->maxTimelineSemaphoreValueDifference = 0;
    } else if (s->sType == VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_PROPERTIES) {
      reinterpret_cast<VkPhysicalDeviceVulkan12Properties*>(s)->maxTimelineSemaphoreValueDifference = 0;
    }
  }
}

VKAPI_ATTR VkResult VKAPI_CALL EnumerateDeviceExtensionProperties(VkPhysicalDevice pd, const char* layer,
                                                                  uint32_t* count, VkExtensionProperties* props) {
  if (layer != nullptr) return g_next.EnumerateDeviceExtensionProperties(pd, layer, count, props);
  uint32_t n = 0;
  VkResult r = g_next.EnumerateDeviceExtensionProperties(pd, nullptr, &n, nullptr);
  if (r != VK_SUCCESS) return r;
  VkExtensionProperties all[512];
  if (n > 512) n = 512;
  r = g_next.EnumerateDeviceExtensionProperties(pd, nullptr, &n, all);
  if (r < VK_SUCCESS) return r;
  uint32_t kept = 0;
  for (uint32_t i = 0; i < n; ++i) {
    if (std::strcmp(all[i].extensionName, VK_KHR_TIMELINE_SEMAPHORE_EXTENSION_NAME) != 0) all[kept++] = all[i];
  }
  if (props == nullptr) {
    *count = kept;
    return VK_SUCCESS;
  }
  const uint32_t out = *count < kept ? *count : kept;
  std::memcpy(props, all, out * sizeof(VkExtensionProperties));
  *count = out;
  return out < kept ? VK_INCOMPLETE : VK_SUCCESS;
}

// Each command below serves its core name and its KHR alias: `next` is the one it calls.
template <PFN_vkGetPhysicalDeviceFeatures2 Next::*next>
VKAPI_ATTR void VKAPI_CALL GetFeatures2(VkPhysicalDevice pd, VkPhysicalDeviceFeatures2* f) {
  (g_next.*next)(pd, f);
  HideFeature(f->pNext);
}
template <PFN_vkGetPhysicalDeviceProperties2 Next::*next>
VKAPI_ATTR void VKAPI_CALL GetProperties2(VkPhysicalDevice pd, VkPhysicalDeviceProperties2* p) {
  (g_next.*next)(pd, p);
  HideLimit(p->pNext);
}
VKAPI_ATTR void VKAPI_CALL GetPhysicalDeviceExternalSemaphoreProperties(
    VkPhysicalDevice pd, const VkPhysicalDeviceExternalSemaphoreInfo* info, VkExternalSemaphoreProperties* out) {
  if (HasTimelineStruct(info->pNext)) Violation("VkSemaphoreTypeCreateInfo in vkGetPhysicalDeviceExternalSemaphoreProperties");
  g_next.GetPhysicalDeviceExternalSemaphoreProperties(pd, info, out);
}

VKAPI_ATTR VkResult VKAPI_CALL CreateSemaphore(VkDevice device, const VkSemaphoreCreateInfo* info,
                                               const VkAllocationCallbacks* alloc, VkSemaphore* out) {
  if (HasTimelineStruct(info->pNext)) Violation("timeline struct in vkCreateSemaphore");
  return g_next.CreateSemaphore(device, info, alloc, out);
}

// A submit goes down on the driver's queue behind `queue` (a stand-in's calls one at a
// time with the other stand-ins of that queue), after an armed hold; while a loss is
// injected it fails without reaching the driver.
template <typename Submit>
VkResult SubmitOnRealQueue(VkQueue queue, Submit submit) {
  if (g_lost.load()) return VK_ERROR_DEVICE_LOST;
  MaybeHold(2);
  const VkQueue real = Real(queue);
  QueueLock lock(real);
  return submit(real);
}

// A lagging queue (BINDERY_TEST_LAGGING_QUEUE=N, with shared queues): a submission to the
// application's queue N (of any family; 0 is the driver's own handle, the others stand-ins)
// that waits for nothing and has no fence (it may signal semaphores) is held back and sent
// after the next submission on another queue, or before anything that could depend on it:
// the next submission on queue N itself, a submission that waits for a semaphore a held one
// signals, a host wait or query (held_submits.h keeps them). A real device runs its queues side by side, so work on one queue that
// nothing orders after another queue's may run first; lavapipe's one driver queue never lets
// it. This does, so that a program that misses such an ordering gives other results here too
// (the API fuzzer's "reordered" configuration).
bool g_lagging = false;
uint32_t g_lagging_index = 0;
std::unordered_map<VkQueue, uint32_t> g_index_of;  // application queue handle -> its index (g_queue_mutex)

bool IsLaggingQueue(VkQueue queue) {
  std::lock_guard<std::mutex> lock(g_queue_mutex);
  const auto it = g_index_of.find(queue);
  return it != g_index_of.end() && it->second == g_lagging_index;
}

// Sends what was held, in the order it came.
void SendHeld() {
  if (!g_lagging) return;
  for (const auto& h : held_submits::TakeAll()) {
    QueueLock lock(h->real);
    g_next.QueueSubmit(h->real, 1, &h->info, VK_NULL_HANDLE);
  }
}

VKAPI_ATTR VkResult VKAPI_CALL QueueSubmit(VkQueue queue, uint32_t count, const VkSubmitInfo* submits,
                                           VkFence fence) {
  for (uint32_t i = 0; i < count; ++i) {
    if (HasTimelineStruct(submits[i].pNext)) Violation("VkTimelineSemaphoreSubmitInfo in vkQueueSubmit");
    CountSubmitStructs(submits[i].pNext);
  }
  if (g_lagging && g_shared_queues != 0) {
    const bool lagging = IsLaggingQueue(queue);
    if (lagging && !g_lost.load() && held_submits::CanLag(count, submits, fence)) {
      held_submits::Hold(Real(queue), count, submits);
      return VK_SUCCESS;
    }
    // The lagging queue's own order stays, and what waits for a semaphore that a held-back
    // submission signals comes after it.
    if (lagging || held_submits::WaitsForHeld(count, submits)) SendHeld();
    const VkResult r =
        SubmitOnRealQueue(queue, [&](VkQueue real) { return g_next.QueueSubmit(real, count, submits, fence); });
    if (!lagging) SendHeld();  // the held work runs after this one
    return r;
  }
  return SubmitOnRealQueue(queue, [&](VkQueue real) { return g_next.QueueSubmit(real, count, submits, fence); });
}

VKAPI_ATTR VkResult VKAPI_CALL DeviceWaitIdle(VkDevice device) {
  SendHeld();
  return g_next.DeviceWaitIdle(device);
}
VKAPI_ATTR VkResult VKAPI_CALL WaitSemaphores(VkDevice device, const VkSemaphoreWaitInfo* info, uint64_t timeout) {
  SendHeld();
  return (g_next.WaitSemaphores != nullptr ? g_next.WaitSemaphores : g_next.WaitSemaphoresKHR)(device, info, timeout);
}
VKAPI_ATTR VkResult VKAPI_CALL GetSemaphoreCounterValue(VkDevice device, VkSemaphore semaphore, uint64_t* value) {
  SendHeld();
  return (g_next.GetSemaphoreCounterValue != nullptr ? g_next.GetSemaphoreCounterValue
                                                      : g_next.GetSemaphoreCounterValueKHR)(device, semaphore, value);
}

void CheckSubmit2(uint32_t count, const VkSubmitInfo2* submits) {
  for (uint32_t i = 0; i < count; ++i) {
    for (uint32_t w = 0; w < submits[i].waitSemaphoreInfoCount; ++w) {
      if (submits[i].pWaitSemaphoreInfos[w].value != 0) Violation("a timeline value in a vkQueueSubmit2 wait");
    }
    for (uint32_t s = 0; s < submits[i].signalSemaphoreInfoCount; ++s) {
      if (submits[i].pSignalSemaphoreInfos[s].value != 0) Violation("a timeline value in a vkQueueSubmit2 signal");
    }
    CountSubmitStructs(submits[i].pNext);
  }
}

template <PFN_vkQueueSubmit2 Next::*next>
VKAPI_ATTR VkResult VKAPI_CALL Submit2(VkQueue queue, uint32_t count, const VkSubmitInfo2* submits, VkFence fence) {
  CheckSubmit2(count, submits);
  SendHeld();  // not held themselves: sent in order after what was
  return SubmitOnRealQueue(queue, [&](VkQueue real) { return (g_next.*next)(real, count, submits, fence); });
}

VKAPI_ATTR VkResult VKAPI_CALL QueueBindSparse(VkQueue queue, uint32_t count, const VkBindSparseInfo* infos,
                                               VkFence fence) {
  g_bind_sparse_calls.fetch_add(1);
  SendHeld();
  for (uint32_t i = 0; i < count; ++i) {
    if (HasTimelineStruct(infos[i].pNext)) Violation("VkTimelineSemaphoreSubmitInfo in vkQueueBindSparse");
  }
  if (g_lost.load()) return VK_ERROR_DEVICE_LOST;
  queue = Real(queue);
  QueueLock lock(queue);
  if (!g_semaphore_only_sparse.load()) return g_next.QueueBindSparse(queue, count, infos, fence);
  // The stand-in: one submit batch per bind batch, waits at every stage.
  std::vector<VkSubmitInfo> submits(count);
  std::vector<std::vector<VkPipelineStageFlags>> stages(count);
  for (uint32_t i = 0; i < count; ++i) {
    const VkBindSparseInfo& in = infos[i];
    if (in.bufferBindCount != 0 || in.imageOpaqueBindCount != 0 || in.imageBindCount != 0) {
      Violation("binds in a vkQueueBindSparse given to the semaphore-only stand-in");
      return VK_ERROR_FEATURE_NOT_PRESENT;
    }
    stages[i].assign(in.waitSemaphoreCount, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT);
    submits[i] = {VK_STRUCTURE_TYPE_SUBMIT_INFO};
    submits[i].waitSemaphoreCount = in.waitSemaphoreCount;
    submits[i].pWaitSemaphores = in.pWaitSemaphores;
    submits[i].pWaitDstStageMask = stages[i].data();
    submits[i].signalSemaphoreCount = in.signalSemaphoreCount;
    submits[i].pSignalSemaphores = in.pSignalSemaphores;
  }
  return g_next.QueueSubmit(queue, count, submits.data(), fence);
}

VKAPI_ATTR VkResult VKAPI_CALL QueuePresentKHR(VkQueue queue, const VkPresentInfoKHR* info) {
  if (HasTimelineStruct(info->pNext)) Violation("a timeline struct in vkQueuePresentKHR");
  for (auto* s = static_cast<const VkBaseInStructure*>(info->pNext); s != nullptr; s = s->pNext) {
    if (s->sType != VK_STRUCTURE_TYPE_PRESENT_REGIONS_KHR) continue;
    const auto* regions = reinterpret_cast<const VkPresentRegionsKHR*>(s);
    std::lock_guard<std::mutex> lock(g_mutex);
    if (regions->pRegions != nullptr && regions->pRegions[0].rectangleCount != 0) {
      g_last_region = regions->pRegions[0].pRectangles[0];
    }
    g_presents_with_regions.fetch_add(1);
  }
  const VkQueue real = Real(queue);
  QueueLock lock(real);
  return g_next.QueuePresentKHR(real, info);
}

// bindery_no_timeline_fences_unsignalled: while on, vkGetFenceStatus answers VK_NOT_READY
// without asking the driver (work the layer above sent down looks still in flight).
std::atomic<bool> g_fences_unsignalled{false};

VKAPI_ATTR VkResult VKAPI_CALL GetFenceStatus(VkDevice device, VkFence fence) {
  if (g_fences_unsignalled.load()) return VK_NOT_READY;
  return g_next.GetFenceStatus(device, fence);
}

VKAPI_ATTR VkResult VKAPI_CALL CreateFence(VkDevice device, const VkFenceCreateInfo* info,
                                           const VkAllocationCallbacks* alloc, VkFence* out) {
  MaybeHold(1);
  return g_next.CreateFence(device, info, alloc, out);
}

VKAPI_ATTR VkResult VKAPI_CALL WaitForFences(VkDevice device, uint32_t count, const VkFence* fences, VkBool32 all,
                                             uint64_t timeout) {
  g_wait_for_fences_calls.fetch_add(1);
  SendHeld();
  return g_next.WaitForFences(device, count, fences, all, timeout);
}

VKAPI_ATTR VkResult VKAPI_CALL QueueWaitIdle(VkQueue queue) {
  SendHeld();
  const VkQueue real = Real(queue);
  QueueLock lock(real);
  return g_next.QueueWaitIdle(real);
}

// The application's queue `index` of `family`: the driver's, or a shared stand-in.
VkQueue SharedOrReal(VkQueue driver_queue, uint32_t family, uint32_t index) {
  std::lock_guard<std::mutex> lock(g_queue_mutex);
  auto count = g_driver_queue_count.find(family);
  if (count == g_driver_queue_count.end() || index < count->second) return driver_queue;
  std::unique_ptr<SharedQueue>& shared = g_shared[{family, index}];
  if (shared == nullptr) {
    shared = std::make_unique<SharedQueue>();
    shared->loader_data = *reinterpret_cast<void**>(driver_queue);
    shared->real = driver_queue;
    g_real_of[reinterpret_cast<VkQueue>(shared.get())] = driver_queue;
  }
  return reinterpret_cast<VkQueue>(shared.get());
}

uint32_t DriverIndex(uint32_t family, uint32_t index) {
  std::lock_guard<std::mutex> lock(g_queue_mutex);
  auto count = g_driver_queue_count.find(family);
  return count == g_driver_queue_count.end() || count->second == 0 ? index : index % count->second;
}

// The application's index of each queue handle it got (a lagging queue is named by it).
void NoteIndex(VkQueue queue, uint32_t index) {
  std::lock_guard<std::mutex> lock(g_queue_mutex);
  g_index_of[queue] = index;
}

VKAPI_ATTR void VKAPI_CALL GetDeviceQueue(VkDevice device, uint32_t family, uint32_t index, VkQueue* out) {
  g_next.GetDeviceQueue(device, family, DriverIndex(family, index), out);
  *out = SharedOrReal(*out, family, index);
  NoteIndex(*out, index);
}

VKAPI_ATTR void VKAPI_CALL GetDeviceQueue2(VkDevice device, const VkDeviceQueueInfo2* info, VkQueue* out) {
  VkDeviceQueueInfo2 copy = *info;
  copy.queueIndex = DriverIndex(info->queueFamilyIndex, info->queueIndex);
  g_next.GetDeviceQueue2(device, &copy, out);
  if (*out != VK_NULL_HANDLE) {
    *out = SharedOrReal(*out, info->queueFamilyIndex, info->queueIndex);
    NoteIndex(*out, info->queueIndex);
  }
}

void RaiseQueueCount(VkQueueFamilyProperties& p) {
  if (p.queueCount < g_shared_queues) p.queueCount = g_shared_queues;
}
VKAPI_ATTR void VKAPI_CALL GetPhysicalDeviceQueueFamilyProperties(VkPhysicalDevice pd, uint32_t* count,
                                                                 VkQueueFamilyProperties* props) {
  g_next.GetPhysicalDeviceQueueFamilyProperties(pd, count, props);
  for (uint32_t i = 0; props != nullptr && i < *count; ++i) RaiseQueueCount(props[i]);
}
template <PFN_vkGetPhysicalDeviceQueueFamilyProperties2 Next::*next>
VKAPI_ATTR void VKAPI_CALL GetQueueFamilyProperties2(VkPhysicalDevice pd, uint32_t* count,
                                                     VkQueueFamilyProperties2* props) {
  (g_next.*next)(pd, count, props);
  for (uint32_t i = 0; props != nullptr && i < *count; ++i) RaiseQueueCount(props[i].queueFamilyProperties);
}

VKAPI_ATTR VkResult VKAPI_CALL CreateDevice(VkPhysicalDevice pd, const VkDeviceCreateInfo* ci,
                                            const VkAllocationCallbacks* alloc, VkDevice* out) {
  for (uint32_t i = 0; i < ci->enabledExtensionCount; ++i) {
    if (std::strcmp(ci->ppEnabledExtensionNames[i], VK_KHR_TIMELINE_SEMAPHORE_EXTENSION_NAME) == 0) {
      Violation("VK_KHR_timeline_semaphore enabled at vkCreateDevice");
    }
  }
  for (auto* s = static_cast<const VkBaseInStructure*>(ci->pNext); s != nullptr; s = s->pNext) {
    if (s->sType == VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_TIMELINE_SEMAPHORE_FEATURES) {
      Violation("VkPhysicalDeviceTimelineSemaphoreFeatures at vkCreateDevice");
    } else if (s->sType == VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES &&
               reinterpret_cast<const VkPhysicalDeviceVulkan12Features*>(s)->timelineSemaphore) {
      Violation("Vulkan12Features::timelineSemaphore at vkCreateDevice");
    }
  }
  // Shared queues: the driver creates as many queues per family as it has.
  VkDeviceCreateInfo clamped = *ci;
  std::vector<VkDeviceQueueCreateInfo> queues(ci->pQueueCreateInfos, ci->pQueueCreateInfos + ci->queueCreateInfoCount);
  if (g_shared_queues != 0) {
    uint32_t n = 0;
    g_next.GetPhysicalDeviceQueueFamilyProperties(pd, &n, nullptr);
    std::vector<VkQueueFamilyProperties> families(n);
    g_next.GetPhysicalDeviceQueueFamilyProperties(pd, &n, families.data());
    std::lock_guard<std::mutex> lock(g_queue_mutex);
    // One device at a time uses shared queues (the tests'): the last device's go.
    g_driver_queue_count.clear();
    g_shared.clear();
    g_real_of.clear();
    g_queue_locks.clear();
    g_index_of.clear();
    held_submits::TakeAll();  // the last device's, never sent: it was destroyed without a wait
    for (VkDeviceQueueCreateInfo& q : queues) {
      if (q.queueFamilyIndex < n && q.queueCount > families[q.queueFamilyIndex].queueCount) {
        q.queueCount = families[q.queueFamilyIndex].queueCount;
      }
      g_driver_queue_count[q.queueFamilyIndex] = q.queueCount;
    }
    clamped.pQueueCreateInfos = queues.data();
  }
  const VkResult r = bindery::test_layer::CreateDeviceBelow(pd, &clamped, alloc, out, &g_gdpa);
  if (r != VK_SUCCESS) return r;
  BINDERY_TEST_LAYER_LOAD_NEXT(NO_TIMELINE_DEVICE_NEXT, g_next, g_gdpa, *out);
  return r;
}

VKAPI_ATTR VkResult VKAPI_CALL CreateInstance(const VkInstanceCreateInfo* ci, const VkAllocationCallbacks* alloc,
                                              VkInstance* out) {
  const char* shared = std::getenv("BINDERY_TEST_SHARED_QUEUES");
  g_shared_queues = shared != nullptr ? static_cast<uint32_t>(std::strtoul(shared, nullptr, 10)) : 0;
  g_keep_timelines = KeepTimelines();
  const char* lagging = std::getenv("BINDERY_TEST_LAGGING_QUEUE");
  g_lagging = lagging != nullptr && *lagging >= '0' && *lagging <= '9';
  g_lagging_index = g_lagging ? static_cast<uint32_t>(std::strtoul(lagging, nullptr, 10)) : 0;
  const VkResult r = bindery::test_layer::CreateInstanceBelow(ci, alloc, out, &g_gipa);
  if (r != VK_SUCCESS) return r;
  BINDERY_TEST_LAYER_LOAD_NEXT(NO_TIMELINE_INSTANCE_NEXT, g_next, g_gipa, *out);
  return r;
}

bool IsTimelineCall(const char* name) {
  static const char* const kNames[] = {"vkWaitSemaphores",    "vkWaitSemaphoresKHR",         "vkSignalSemaphore",
                                       "vkSignalSemaphoreKHR", "vkGetSemaphoreCounterValue", "vkGetSemaphoreCounterValueKHR"};
  for (const char* n : kNames) {
    if (std::strcmp(n, name) == 0) return true;
  }
  return false;
}

VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL GetDeviceProcAddr(VkDevice device, const char* name) {
  if (IsTimelineCall(name) && !g_keep_timelines) return nullptr;  // the "driver" has no timeline entry points
  if (g_shared_queues != 0) {
    BINDERY_TEST_LAYER_ENTRY(GetDeviceQueue);
    BINDERY_TEST_LAYER_ENTRY_IF(GetDeviceQueue2, g_next.GetDeviceQueue2);
    BINDERY_TEST_LAYER_ENTRY(QueueWaitIdle);
  }
  if (g_shared_queues != 0 && g_lagging) {
    BINDERY_TEST_LAYER_ENTRY(DeviceWaitIdle);
    if (std::strcmp(name, "vkWaitSemaphores") == 0 || std::strcmp(name, "vkWaitSemaphoresKHR") == 0)
      return reinterpret_cast<PFN_vkVoidFunction>(&WaitSemaphores);
    if (std::strcmp(name, "vkGetSemaphoreCounterValue") == 0 || std::strcmp(name, "vkGetSemaphoreCounterValueKHR") == 0)
      return reinterpret_cast<PFN_vkVoidFunction>(&GetSemaphoreCounterValue);
  }
  BINDERY_TEST_LAYER_ENTRY(GetDeviceProcAddr);
  BINDERY_TEST_LAYER_ENTRY(CreateSemaphore);
  BINDERY_TEST_LAYER_ENTRY(QueueSubmit);
  BINDERY_TEST_LAYER_ENTRY_AS_IF(QueueSubmit2, Submit2<&Next::QueueSubmit2>, g_next.QueueSubmit2);
  BINDERY_TEST_LAYER_ENTRY_AS_IF(QueueSubmit2KHR, Submit2<&Next::QueueSubmit2KHR>, g_next.QueueSubmit2KHR);
  BINDERY_TEST_LAYER_ENTRY(QueueBindSparse);
  BINDERY_TEST_LAYER_ENTRY(WaitForFences);
  BINDERY_TEST_LAYER_ENTRY(CreateFence);
  BINDERY_TEST_LAYER_ENTRY(GetFenceStatus);
  BINDERY_TEST_LAYER_ENTRY_IF(QueuePresentKHR, g_next.QueuePresentKHR);
  return g_gdpa(device, name);
}

VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL GetInstanceProcAddr(VkInstance instance, const char* name) {
  BINDERY_TEST_LAYER_LOADER_ENTRIES();
  BINDERY_TEST_LAYER_ENTRY(GetPhysicalDeviceQueueFamilyProperties);
  if (KeepTimelines()) return g_gipa == nullptr ? nullptr : g_gipa(instance, name);
  BINDERY_TEST_LAYER_ENTRY(EnumerateDeviceExtensionProperties);
  BINDERY_TEST_LAYER_ENTRY_AS(GetPhysicalDeviceFeatures2, GetFeatures2<&Next::GetPhysicalDeviceFeatures2>);
  BINDERY_TEST_LAYER_ENTRY_AS(GetPhysicalDeviceFeatures2KHR, GetFeatures2<&Next::GetPhysicalDeviceFeatures2KHR>);
  BINDERY_TEST_LAYER_ENTRY_AS(GetPhysicalDeviceProperties2, GetProperties2<&Next::GetPhysicalDeviceProperties2>);
  BINDERY_TEST_LAYER_ENTRY_AS(GetPhysicalDeviceProperties2KHR, GetProperties2<&Next::GetPhysicalDeviceProperties2KHR>);
  BINDERY_TEST_LAYER_ENTRY(GetPhysicalDeviceExternalSemaphoreProperties);
  BINDERY_TEST_LAYER_ENTRY_AS(GetPhysicalDeviceQueueFamilyProperties2,
                              GetQueueFamilyProperties2<&Next::GetPhysicalDeviceQueueFamilyProperties2>);
  BINDERY_TEST_LAYER_ENTRY_AS(GetPhysicalDeviceQueueFamilyProperties2KHR,
                              GetQueueFamilyProperties2<&Next::GetPhysicalDeviceQueueFamilyProperties2KHR>);
  if (IsTimelineCall(name)) return nullptr;
  return g_gipa == nullptr ? nullptr : g_gipa(instance, name);
}

}  // namespace

BINDERY_TEST_LAYER_NEGOTIATE(GetInstanceProcAddr, GetDeviceProcAddr)

BINDERY_TEST_LAYER_EXPORT size_t bindery_no_timeline_violations(char* last, size_t size) {
  std::lock_guard<std::mutex> lock(g_mutex);
  if (last != nullptr && size != 0) {
    std::strncpy(last, g_last.c_str(), size - 1);
    last[size - 1] = 0;
  }
  return g_violations;
}

BINDERY_TEST_LAYER_EXPORT uint32_t bindery_no_timeline_submit_structs(int type) {
  std::lock_guard<std::mutex> lock(g_queue_mutex);
  auto it = g_submit_structs.find(type);
  return it == g_submit_structs.end() ? 0 : it->second;
}

BINDERY_TEST_LAYER_EXPORT void bindery_no_timeline_fences_unsignalled(int on) {
  g_fences_unsignalled.store(on != 0);
}

BINDERY_TEST_LAYER_EXPORT void bindery_no_timeline_hold(int kinds) {
  std::lock_guard<std::mutex> lock(g_hold_mutex);
  g_hold_armed |= kinds;
  g_let_go &= ~kinds;
}

BINDERY_TEST_LAYER_EXPORT int bindery_no_timeline_holding() {
  std::lock_guard<std::mutex> lock(g_hold_mutex);
  return g_holding;
}

BINDERY_TEST_LAYER_EXPORT void bindery_no_timeline_let_go(int kinds) {
  std::lock_guard<std::mutex> lock(g_hold_mutex);
  g_let_go |= kinds;
  g_hold_armed &= ~kinds;
  g_hold_changed.notify_all();
}

BINDERY_TEST_LAYER_EXPORT uint32_t bindery_no_timeline_wait_for_fences_calls() {
  return g_wait_for_fences_calls.load();
}

BINDERY_TEST_LAYER_EXPORT void bindery_no_timeline_reset() {
  g_wait_for_fences_calls.store(0);
  g_fences_unsignalled.store(false);
  {
    std::lock_guard<std::mutex> lock(g_hold_mutex);
    g_hold_armed = g_let_go = 0;
  }
  {
    std::lock_guard<std::mutex> lock(g_queue_mutex);
    g_submit_structs.clear();
  }
  std::lock_guard<std::mutex> lock(g_mutex);
  g_violations = 0;
  g_last.clear();
  g_lost.store(false);
  g_bind_sparse_calls.store(0);
  g_semaphore_only_sparse.store(false);
  g_presents_with_regions.store(0);
  g_last_region = {};
}

BINDERY_TEST_LAYER_EXPORT void bindery_no_timeline_lose_device(int lost) {
  g_lost.store(lost != 0);
}

BINDERY_TEST_LAYER_EXPORT void bindery_no_timeline_semaphore_only_sparse(int on) {
  g_semaphore_only_sparse.store(on != 0);
}

BINDERY_TEST_LAYER_EXPORT uint32_t bindery_no_timeline_bind_sparse_calls() {
  return g_bind_sparse_calls.load();
}

BINDERY_TEST_LAYER_EXPORT uint32_t bindery_no_timeline_present_regions(VkRectLayerKHR* last) {
  std::lock_guard<std::mutex> lock(g_mutex);
  if (last != nullptr) *last = g_last_region;
  return g_presents_with_regions.load();
}
