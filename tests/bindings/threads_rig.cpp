#include "threads_rig.h"

#include <cstring>

#include "ssbo_copy_comp.h"
#include "support/vk_objects.h"

namespace bindery::test {

std::vector<uint32_t> ThreadShader(uint32_t variant) {
  std::vector<uint32_t> code(std::begin(ssbo_copy_comp), std::end(ssbo_copy_comp));
  if (variant != 0) code[2] = 0x42440000u + variant;
  return code;
}

void MakeThreadBuffers(VkHarness& h, ThreadWorker& w, uint32_t seed) {
  w.seed = seed;
  w.src = h.CreateHostBuffer(kThreadWords * 4, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT);
  w.dst = h.CreateHostBuffer(kThreadDispatches * kThreadWords * 4, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT);
  if (w.src.mapped == nullptr || w.dst.mapped == nullptr) {
    w.error = "buffer creation failed";
    return;
  }
  for (uint32_t i = 0; i < kThreadWords; ++i) static_cast<uint32_t*>(w.src.mapped)[i] = seed + i;
  std::memset(w.dst.mapped, 0, kThreadDispatches * kThreadWords * 4);
}

void RecordThreadWork(VkHarness& h, const std::vector<uint32_t>& code, ThreadWorker& w) {
  if (!w.error.empty()) return;
  VkDevice d = h.device();
  w.set_layout = CreateSetLayout(d, {{0, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1, VK_SHADER_STAGE_COMPUTE_BIT, nullptr},
                                     {1, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1, VK_SHADER_STAGE_COMPUTE_BIT, nullptr}});
  w.layout = CreatePipelineLayout(d, {w.set_layout});
  if (w.set_layout == VK_NULL_HANDLE || w.layout == VK_NULL_HANDLE) {
    w.error = "layout creation failed";
    return;
  }
  w.pipeline = CreateComputePipeline(d, w.layout, code.data(), code.size() * 4);
  if (w.pipeline == VK_NULL_HANDLE) {
    w.error = "pipeline creation failed";
    return;
  }
  w.pool = CreateDescriptorPool(d, kThreadDispatches, {{VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 2 * kThreadDispatches}});
  VkCommandPoolCreateInfo cpi{VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
  cpi.queueFamilyIndex = h.queue_family();
  if (w.pool == VK_NULL_HANDLE || vkCreateCommandPool(d, &cpi, nullptr, &w.command_pool) != VK_SUCCESS) {
    w.error = "pool creation failed";
    return;
  }
  VkCommandBufferAllocateInfo cbai{VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
  cbai.commandPool = w.command_pool;
  cbai.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
  cbai.commandBufferCount = 1;
  if (vkAllocateCommandBuffers(d, &cbai, &w.cb) != VK_SUCCESS) {
    w.error = "command buffer allocation failed";
    return;
  }
  VkCommandBufferBeginInfo begin{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
  vkBeginCommandBuffer(w.cb, &begin);
  vkCmdBindPipeline(w.cb, VK_PIPELINE_BIND_POINT_COMPUTE, w.pipeline);
  for (uint32_t j = 0; j < kThreadDispatches; ++j) {
    const VkDescriptorSet set = AllocateSet(d, w.pool, w.set_layout);
    if (set == VK_NULL_HANDLE) {
      w.error = "set allocation failed";
      return;
    }
    const VkDescriptorBufferInfo infos[2] = {{w.src.buffer, 0, VK_WHOLE_SIZE},
                                             {w.dst.buffer, j * kThreadWords * 4, kThreadWords * 4}};
    const VkWriteDescriptorSet write = BufferWrite(set, 0, 0, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, infos, 2);
    vkUpdateDescriptorSets(d, 1, &write, 0, nullptr);
    vkCmdBindDescriptorSets(w.cb, VK_PIPELINE_BIND_POINT_COMPUTE, w.layout, 0, 1, &set, 0, nullptr);
    vkCmdDispatch(w.cb, kThreadWords / 64, 1, 1);
  }
  BarrierToHost(w.cb);
  if (vkEndCommandBuffer(w.cb) != VK_SUCCESS) w.error = "vkEndCommandBuffer failed";
}

std::string CheckThreadWork(const ThreadWorker& w) {
  const uint32_t* dst = static_cast<const uint32_t*>(w.dst.mapped);
  for (uint32_t j = 0; j < kThreadDispatches; ++j) {
    for (uint32_t i = 0; i < kThreadWords; ++i) {
      const uint32_t want = (w.seed + i) * 3 + 1;
      if (dst[j * kThreadWords + i] != want) {
        return "seed " + std::to_string(w.seed) + " dispatch " + std::to_string(j) + " word " + std::to_string(i) +
               ": " + std::to_string(dst[j * kThreadWords + i]) + ", expected " + std::to_string(want);
      }
    }
  }
  return "";
}

void DestroyThreadWork(VkHarness& h, ThreadWorker& w) {
  VkDevice d = h.device();
  vkDestroyCommandPool(d, w.command_pool, nullptr);
  vkDestroyDescriptorPool(d, w.pool, nullptr);
  vkDestroyPipeline(d, w.pipeline, nullptr);
  vkDestroyPipelineLayout(d, w.layout, nullptr);
  vkDestroyDescriptorSetLayout(d, w.set_layout, nullptr);
  h.Destroy(w.src);
  h.Destroy(w.dst);
  w = ThreadWorker{};
}

}  // namespace bindery::test
