// Shared by the thread tests (threads_test.cpp, threads_churn_test.cpp): one thread's
// share of work on a device with indirect bindings forced. Each worker makes its own
// layouts, pipeline (from ssbo_copy.comp: dst[i] = src[i] * 3 + 1, four groups of 64), pools
// and command buffer, and records kDispatches converted binds and dispatches, each through
// its own set, writing its own slice of dst.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "support/vk_harness.h"

namespace bindery::test {

constexpr uint32_t kThreadDispatches = 16;
constexpr uint32_t kThreadWords = 256;

struct ThreadWorker {
  HostBuffer src, dst;
  VkCommandPool command_pool = VK_NULL_HANDLE;
  VkCommandBuffer cb = VK_NULL_HANDLE;
  VkDescriptorPool pool = VK_NULL_HANDLE;
  VkDescriptorSetLayout set_layout = VK_NULL_HANDLE;
  VkPipelineLayout layout = VK_NULL_HANDLE;
  VkPipeline pipeline = VK_NULL_HANDLE;
  uint32_t seed = 0;   // src[i] = seed + i
  std::string error;   // set when a step failed
};

// ssbo_copy.comp's SPIR-V; `variant` != 0 changes its generator word only, so the layer sees
// a module it has not rewritten yet (another rewrite-cache entry) with the same meaning.
std::vector<uint32_t> ThreadShader(uint32_t variant = 0);
// Makes w's buffers on `h` (on the calling thread: the harness's own helpers).
void MakeThreadBuffers(VkHarness& h, ThreadWorker& w, uint32_t seed);
// Everything else, on any thread: layouts, pipeline from `code`, pools, sets, recording.
void RecordThreadWork(VkHarness& h, const std::vector<uint32_t>& code, ThreadWorker& w);
// "" when every dispatch wrote dst = src * 3 + 1, else the first wrong word.
std::string CheckThreadWork(const ThreadWorker& w);
void DestroyThreadWork(VkHarness& h, ThreadWorker& w);

}  // namespace bindery::test
