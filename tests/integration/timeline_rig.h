// Shared by the timeline tests: a device with the timelineSemaphore feature enabled by
// the application, in one of the two configurations the suite runs the timeline tests in:
//   kForce:            BINDERY_TIMELINE=force over lavapipe (which has timelines)
//   kNoTimelineDriver: the default mode over tests/no_timeline_layer (a driver without them)
// Validation (synchronization validation on) sits below both.
#pragma once

#include <dlfcn.h>

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "integration/test_env.h"
#include "no_timeline_layer/no_timeline_layer.h"
#include "support/vk_harness.h"
#include "support/vk_objects.h"

namespace bindery::test {

enum class TimelineConfig { kForce, kNoTimelineDriver };

inline std::string ConfigName(const ::testing::TestParamInfo<TimelineConfig>& info) {
  return info.param == TimelineConfig::kForce ? "Force" : "NoTimelineDriver";
}

// What a test needs of the device beyond timelines and synchronization2.
struct RigOptions {
  std::vector<const char*> instance_extensions;
  std::vector<const char*> device_extensions;
  std::vector<const char*> optional_device_extensions;  // HarnessOptions::optional_device_extensions
  uint32_t queue_count = 1;         // HarnessOptions::queue_count
  bool sparse_binding = false;      // the sparseBinding feature, queues with SPARSE_BINDING
  // Queues per family the device offers at least: tests/no_timeline_layer stands in the
  // ones past the driver's (backed by its queues), in both configurations (over lavapipe,
  // which has one queue). 0: the driver's queues only.
  uint32_t shared_queues = 0;
  // tests/no_timeline_layer below in the forced configuration too (hiding nothing there),
  // so a test can ask it what reached the driver (TimelineRig::Below).
  bool spy_below = false;
};

class TimelineRig {
 public:
  explicit TimelineRig(TimelineConfig config, std::vector<const char*> instance_extensions = {},
                       std::vector<const char*> device_extensions = {})
      : TimelineRig(config, RigOptions{std::move(instance_extensions), std::move(device_extensions)}) {}

  TimelineRig(TimelineConfig config, RigOptions rig_options)
      : config_(config),
        mode_("BINDERY_TIMELINE", config == TimelineConfig::kForce ? "force" : "auto"),
        log_("BINDERY_LOG_LEVEL", "info") {
    v13_.synchronization2 = VK_TRUE;
    v12_.pNext = &v13_;
    v12_.timelineSemaphore = VK_TRUE;
    HarnessOptions options;
    options.device_pnext = &v12_;
    options.instance_extensions = std::move(rig_options.instance_extensions);
    options.device_extensions = std::move(rig_options.device_extensions);
    options.optional_device_extensions = std::move(rig_options.optional_device_extensions);
    options.queue_count = rig_options.queue_count;
    if (rig_options.sparse_binding) {
      features_.sparseBinding = VK_TRUE;
      options.enabled_features = &features_;
      options.queue_flags |= VK_QUEUE_SPARSE_BINDING_BIT;
    }
    if (rig_options.shared_queues != 0) {
      shared_queues_ = std::make_unique<ScopedEnv>("BINDERY_TEST_SHARED_QUEUES",
                                                   std::to_string(rig_options.shared_queues));
    }
    const bool below = config == TimelineConfig::kNoTimelineDriver || rig_options.shared_queues != 0 ||
                       rig_options.spy_below;
    // Forced over lavapipe: the test layer shares queues or counts, and hides nothing.
    if (config == TimelineConfig::kForce && below) {
      keep_timelines_ = std::make_unique<ScopedEnv>("BINDERY_TEST_KEEP_TIMELINES", "1");
    }
    if (below) options.layers_between.push_back(kNoTimelineLayerName);
    h = std::make_unique<VkHarness>(options);
    if (!h->ok()) return;
    device = h->device();
    queue = h->queue();
    if (below) {
      void* lib = dlopen(BINDERY_NO_TIMELINE_LIBRARY, RTLD_NOW | RTLD_NOLOAD);
      if (lib != nullptr) {
        violations_ = reinterpret_cast<BinderyNoTimelineViolationsFn>(dlsym(lib, "bindery_no_timeline_violations"));
        reinterpret_cast<BinderyNoTimelineResetFn>(dlsym(lib, "bindery_no_timeline_reset"))();
        dlclose(lib);
      }
    }
  }

  bool ok() const { return h != nullptr && h->ok(); }

  // A function of tests/no_timeline_layer (loaded below in this rig), or null.
  template <typename Fn>
  Fn Below(const char* name) const {
    void* lib = dlopen(BINDERY_NO_TIMELINE_LIBRARY, RTLD_NOW | RTLD_NOLOAD);
    if (lib == nullptr) return nullptr;
    auto fn = reinterpret_cast<Fn>(dlsym(lib, name));
    dlclose(lib);  // still loaded: the instance holds it
    return fn;
  }

  // The layer emulates on this device, and nothing timeline reached the layer below.
  void ExpectClean() {
    // The layer emulates: the device's vkSignalSemaphore is Bindery's own function.
    Dl_info where{};
    const auto fn = reinterpret_cast<void*>(vkGetDeviceProcAddr(device, "vkSignalSemaphore"));
    ASSERT_NE(fn, nullptr);
    ASSERT_NE(dladdr(fn, &where), 0);
    EXPECT_NE(std::string(where.dli_fname).find("VkLayer_bindery.so"), std::string::npos)
        << "vkSignalSemaphore comes from " << where.dli_fname << ": the layer did not emulate timelines";
    EXPECT_VALIDATION_SILENT(*h);
    if (config_ == TimelineConfig::kNoTimelineDriver) {
      ASSERT_NE(violations_, nullptr) << "the no-timeline layer is not loaded";
      char last[256] = {};
      EXPECT_EQ(violations_(last, sizeof(last)), 0u) << "a timeline struct or value reached the driver: " << last;
    }
  }

  VkSemaphore Timeline(uint64_t initial = 0) {
    VkSemaphoreTypeCreateInfo type{VK_STRUCTURE_TYPE_SEMAPHORE_TYPE_CREATE_INFO};
    type.semaphoreType = VK_SEMAPHORE_TYPE_TIMELINE;
    type.initialValue = initial;
    VkSemaphoreCreateInfo info{VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO, &type};
    VkSemaphore s = VK_NULL_HANDLE;
    EXPECT_EQ(vkCreateSemaphore(device, &info, nullptr, &s), VK_SUCCESS);
    owned_.push_back(s);
    return s;
  }
  VkSemaphore Binary() {
    VkSemaphoreCreateInfo info{VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO};
    VkSemaphore s = VK_NULL_HANDLE;
    EXPECT_EQ(vkCreateSemaphore(device, &info, nullptr, &s), VK_SUCCESS);
    owned_.push_back(s);
    return s;
  }

  struct Op {
    VkSemaphore semaphore;
    uint64_t value;  // 0 for binary
  };

  // Waits and signals as VkSubmitInfo and VkBindSparseInfo take them (semaphore arrays),
  // with the VkTimelineSemaphoreSubmitInfo carrying their values to chain in front.
  struct SplitOps {
    std::vector<VkSemaphore> ws, ss;
    std::vector<uint64_t> wv, sv;
    VkTimelineSemaphoreSubmitInfo values{VK_STRUCTURE_TYPE_TIMELINE_SEMAPHORE_SUBMIT_INFO};
    SplitOps(const std::vector<Op>& waits, const std::vector<Op>& signals) {
      for (const Op& o : waits) {
        ws.push_back(o.semaphore);
        wv.push_back(o.value);
      }
      for (const Op& o : signals) {
        ss.push_back(o.semaphore);
        sv.push_back(o.value);
      }
      values.waitSemaphoreValueCount = static_cast<uint32_t>(wv.size());
      values.pWaitSemaphoreValues = wv.data();
      values.signalSemaphoreValueCount = static_cast<uint32_t>(sv.size());
      values.pSignalSemaphoreValues = sv.data();
    }
    SplitOps(const SplitOps&) = delete;  // `values` points into the vectors
    SplitOps& operator=(const SplitOps&) = delete;
  };

  // One wait or signal of a VkSubmitInfo2, at every stage.
  static VkSemaphoreSubmitInfo SemaphoreSubmitInfo(const Op& o) {
    VkSemaphoreSubmitInfo i{VK_STRUCTURE_TYPE_SEMAPHORE_SUBMIT_INFO};
    i.semaphore = o.semaphore;
    i.value = o.value;
    i.stageMask = VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT;
    return i;
  }

  // One batch through vkQueueSubmit (VkTimelineSemaphoreSubmitInfo), optionally with a
  // command buffer.
  VkResult Submit(const std::vector<Op>& waits, const std::vector<Op>& signals, VkCommandBuffer cb = VK_NULL_HANDLE,
                  VkFence fence = VK_NULL_HANDLE, VkQueue on = VK_NULL_HANDLE) {
    const SplitOps ops(waits, signals);
    const std::vector<VkPipelineStageFlags> stages(ops.ws.size(), VK_PIPELINE_STAGE_ALL_COMMANDS_BIT);
    VkSubmitInfo si{VK_STRUCTURE_TYPE_SUBMIT_INFO, &ops.values};
    si.waitSemaphoreCount = static_cast<uint32_t>(ops.ws.size());
    si.pWaitSemaphores = ops.ws.data();
    si.pWaitDstStageMask = stages.data();
    si.signalSemaphoreCount = static_cast<uint32_t>(ops.ss.size());
    si.pSignalSemaphores = ops.ss.data();
    si.commandBufferCount = cb != VK_NULL_HANDLE ? 1 : 0;
    si.pCommandBuffers = &cb;
    return vkQueueSubmit(on != VK_NULL_HANDLE ? on : queue, 1, &si, fence);
  }

  VkResult Submit2(const std::vector<Op>& waits, const std::vector<Op>& signals, VkCommandBuffer cb = VK_NULL_HANDLE) {
    std::vector<VkSemaphoreSubmitInfo> ws, ss;
    for (const Op& o : waits) ws.push_back(SemaphoreSubmitInfo(o));
    for (const Op& o : signals) ss.push_back(SemaphoreSubmitInfo(o));
    VkCommandBufferSubmitInfo cbi{VK_STRUCTURE_TYPE_COMMAND_BUFFER_SUBMIT_INFO};
    cbi.commandBuffer = cb;
    VkSubmitInfo2 si{VK_STRUCTURE_TYPE_SUBMIT_INFO_2};
    si.waitSemaphoreInfoCount = static_cast<uint32_t>(ws.size());
    si.pWaitSemaphoreInfos = ws.data();
    si.signalSemaphoreInfoCount = static_cast<uint32_t>(ss.size());
    si.pSignalSemaphoreInfos = ss.data();
    si.commandBufferInfoCount = cb != VK_NULL_HANDLE ? 1 : 0;
    si.pCommandBufferInfos = &cbi;
    return vkQueueSubmit2(queue, 1, &si, VK_NULL_HANDLE);
  }

  // One batch through vkQueueBindSparse (VkTimelineSemaphoreSubmitInfo), optionally
  // binding buffer memory.
  VkResult BindSparse(const std::vector<Op>& waits, const std::vector<Op>& signals,
                      const VkSparseBufferMemoryBindInfo* buffer_bind = nullptr, VkFence fence = VK_NULL_HANDLE) {
    const SplitOps ops(waits, signals);
    VkBindSparseInfo info{VK_STRUCTURE_TYPE_BIND_SPARSE_INFO, &ops.values};
    info.waitSemaphoreCount = static_cast<uint32_t>(ops.ws.size());
    info.pWaitSemaphores = ops.ws.data();
    info.signalSemaphoreCount = static_cast<uint32_t>(ops.ss.size());
    info.pSignalSemaphores = ops.ss.data();
    info.bufferBindCount = buffer_bind != nullptr ? 1 : 0;
    info.pBufferBinds = buffer_bind;
    return vkQueueBindSparse(queue, 1, &info, fence);
  }

  VkResult Signal(VkSemaphore s, uint64_t v) {
    VkSemaphoreSignalInfo info{VK_STRUCTURE_TYPE_SEMAPHORE_SIGNAL_INFO};
    info.semaphore = s;
    info.value = v;
    return vkSignalSemaphore(device, &info);
  }
  VkResult Wait(const std::vector<Op>& ops, uint64_t timeout_ns, bool any = false) {
    std::vector<VkSemaphore> ss;
    std::vector<uint64_t> vs;
    for (const Op& o : ops) {
      ss.push_back(o.semaphore);
      vs.push_back(o.value);
    }
    VkSemaphoreWaitInfo info{VK_STRUCTURE_TYPE_SEMAPHORE_WAIT_INFO};
    info.flags = any ? VK_SEMAPHORE_WAIT_ANY_BIT : 0;
    info.semaphoreCount = static_cast<uint32_t>(ss.size());
    info.pSemaphores = ss.data();
    info.pValues = vs.data();
    return vkWaitSemaphores(device, &info, timeout_ns);
  }
  uint64_t Value(VkSemaphore s) {
    uint64_t v = 0;
    EXPECT_EQ(vkGetSemaphoreCounterValue(device, s, &v), VK_SUCCESS);
    return v;
  }

  // A command buffer that fills `buffer` with `pattern` (a transfer write the host reads
  // after a wait: host visibility through the queue's completion).
  VkCommandBuffer Fill(const HostBuffer& buffer, uint32_t pattern, uint32_t queue_index = 0) {
    VkCommandBuffer cb = Begin(queue_index);
    vkCmdFillBuffer(cb, buffer.buffer, 0, buffer.size, pattern);
    RecordMemoryBarrier(cb, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT,
                        VK_PIPELINE_STAGE_HOST_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT,
                        VK_ACCESS_HOST_READ_BIT | VK_ACCESS_TRANSFER_WRITE_BIT);
    vkEndCommandBuffer(cb);
    return cb;
  }
  // A command buffer that copies `src` into `dst` (a transfer read after earlier transfer
  // writes, made visible to the host after).
  VkCommandBuffer Copy(const HostBuffer& src, const HostBuffer& dst, uint32_t queue_index = 0) {
    VkCommandBuffer cb = Begin(queue_index);
    RecordMemoryBarrier(cb, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT,
                        VK_ACCESS_TRANSFER_READ_BIT | VK_ACCESS_TRANSFER_WRITE_BIT);
    VkBufferCopy region{0, 0, std::min(src.size, dst.size)};
    vkCmdCopyBuffer(cb, src.buffer, dst.buffer, 1, &region);
    RecordMemoryBarrier(cb, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT,
                        VK_PIPELINE_STAGE_HOST_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT,
                        VK_ACCESS_HOST_READ_BIT | VK_ACCESS_TRANSFER_READ_BIT | VK_ACCESS_TRANSFER_WRITE_BIT);
    vkEndCommandBuffer(cb);
    return cb;
  }
  // A command buffer for queue `queue_index`, begun; freed with the rig.
  VkCommandBuffer Begin(uint32_t queue_index = 0) {
    VkCommandBuffer cb = h->BeginCommands(queue_index);
    cbs_.push_back({h->command_pool_at(queue_index), cb});
    return cb;
  }
  static uint32_t Word(const HostBuffer& b, size_t i = 0) { return static_cast<const uint32_t*>(b.mapped)[i]; }

  ~TimelineRig() {
    if (!ok() || device == VK_NULL_HANDLE) return;
    vkDeviceWaitIdle(device);
    for (VkSemaphore s : owned_) vkDestroySemaphore(device, s, nullptr);
    for (const auto& [pool, cb] : cbs_) vkFreeCommandBuffers(device, pool, 1, &cb);
  }

  // Destroys what the rig made and the device; returns the layer's summary of it (printed
  // at vkDestroyDevice: the counters the layer keeps).
  std::string DestroyDeviceForSummary() {
    if (!ok() || device == VK_NULL_HANDLE) return "";
    vkDeviceWaitIdle(device);
    for (VkSemaphore s : owned_) vkDestroySemaphore(device, s, nullptr);
    for (const auto& [pool, cb] : cbs_) vkFreeCommandBuffers(device, pool, 1, &cb);
    owned_.clear();
    cbs_.clear();
    h->DestroyDevice();
    device = VK_NULL_HANDLE;
    return h->BinderySummary();
  }

  std::unique_ptr<VkHarness> h;
  VkDevice device = VK_NULL_HANDLE;
  VkQueue queue = VK_NULL_HANDLE;

 private:
  TimelineConfig config_;
  ScopedEnv mode_;
  ScopedEnv log_;
  std::unique_ptr<ScopedEnv> shared_queues_;
  std::unique_ptr<ScopedEnv> keep_timelines_;
  VkPhysicalDeviceVulkan13Features v13_{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_3_FEATURES};
  VkPhysicalDeviceVulkan12Features v12_{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES};
  BinderyNoTimelineViolationsFn violations_ = nullptr;
  std::vector<VkSemaphore> owned_;
  std::vector<std::pair<VkCommandPool, VkCommandBuffer>> cbs_;
  VkPhysicalDeviceFeatures features_{};
};

}  // namespace bindery::test
