// record/* rows of bindery_probe for push descriptors (VK_KHR_push_descriptor): per
// dispatch, the four storage buffers of the four-buffer kernel pushed (raw writes, or one
// template), then the dispatch. Under force each push writes a block of records in the
// command buffer's ring and delivers its address into the root (push_descriptor_hooks.cpp).
// Last in the record group: the layouts they make leave no state that earlier rows read.
#include <cstdint>

#include "four_buffers_spv.h"
#include "probe_workloads.h"
#include "support/vk_objects.h"

namespace bindery::bench {
namespace {

constexpr uint32_t kCommands = kRecordCommands;
constexpr uint32_t kBuffers = 4;

// The kernel's objects through a set layout of push descriptors; destroyed with it.
struct PushKernel {
  explicit PushKernel(VkDevice d) : device(d) {}
  ~PushKernel() {
    vkDestroyPipeline(device, pipeline, nullptr);
    vkDestroyDescriptorUpdateTemplate(device, update_template, nullptr);
    vkDestroyPipelineLayout(device, layout, nullptr);
    vkDestroyDescriptorSetLayout(device, set_layout, nullptr);
    vkDestroyShaderModule(device, module, nullptr);
  }
  VkDevice device;
  VkShaderModule module = VK_NULL_HANDLE;
  VkDescriptorSetLayout set_layout = VK_NULL_HANDLE;
  VkPipelineLayout layout = VK_NULL_HANDLE;
  VkPipeline pipeline = VK_NULL_HANDLE;
  VkDescriptorUpdateTemplate update_template = VK_NULL_HANDLE;
};

bool Create(VkDevice device, PushKernel& k) {
  VkDescriptorSetLayoutBinding bindings[kBuffers];
  for (uint32_t i = 0; i < kBuffers; ++i) {
    bindings[i] = {i, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1, VK_SHADER_STAGE_COMPUTE_BIT, nullptr};
  }
  k.set_layout = test::CreateSetLayout(device, {bindings, bindings + kBuffers},
                                       VK_DESCRIPTOR_SET_LAYOUT_CREATE_PUSH_DESCRIPTOR_BIT_KHR);
  if (k.set_layout == VK_NULL_HANDLE) return false;
  k.layout = test::CreatePipelineLayout(device, {k.set_layout});
  k.module = test::CreateShaderModule(device, four_buffers_spv, sizeof(four_buffers_spv));
  if (k.layout == VK_NULL_HANDLE || k.module == VK_NULL_HANDLE) return false;
  if (test::CreateComputePipeline(device, k.layout, k.module, "main", {}, &k.pipeline) != VK_SUCCESS) return false;
  VkDescriptorUpdateTemplateEntry entry{0, 0, kBuffers, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 0,
                                        sizeof(VkDescriptorBufferInfo)};
  VkDescriptorUpdateTemplateCreateInfo info{VK_STRUCTURE_TYPE_DESCRIPTOR_UPDATE_TEMPLATE_CREATE_INFO};
  info.descriptorUpdateEntryCount = 1;
  info.pDescriptorUpdateEntries = &entry;
  info.templateType = VK_DESCRIPTOR_UPDATE_TEMPLATE_TYPE_PUSH_DESCRIPTORS_KHR;
  info.descriptorSetLayout = k.set_layout;
  info.pipelineBindPoint = VK_PIPELINE_BIND_POINT_COMPUTE;
  info.pipelineLayout = k.layout;
  info.set = 0;
  return vkCreateDescriptorUpdateTemplate(device, &info, nullptr, &k.update_template) == VK_SUCCESS;
}

}  // namespace

std::vector<ProbeResult> RunPushDescriptorProbes(ProbeDevice& d) {
  std::vector<ProbeResult> out;
  const char* const writes_row = "record/push descriptors 4 SSBOs + dispatch";
  const char* const template_row = "record/push descriptors 4 SSBOs by template + dispatch";
  if (!RowWanted(writes_row) && !RowWanted(template_row)) return out;
  const VkDevice device = d.device();
  auto push = reinterpret_cast<PFN_vkCmdPushDescriptorSetKHR>(vkGetDeviceProcAddr(device, "vkCmdPushDescriptorSetKHR"));
  auto push_template = reinterpret_cast<PFN_vkCmdPushDescriptorSetWithTemplateKHR>(
      vkGetDeviceProcAddr(device, "vkCmdPushDescriptorSetWithTemplateKHR"));
  if (push == nullptr || push_template == nullptr) return out;  // VK_KHR_push_descriptor not enabled
  const ProbeFns& fn = d.fn();
  DeviceBuffer buffers[kBuffers];
  for (DeviceBuffer& b : buffers) b = d.CreateBuffer(64 * 1024);
  PushKernel k(device);
  if (buffers[kBuffers - 1].buffer != VK_NULL_HANDLE && Create(device, k)) {
    VkDescriptorBufferInfo infos[kBuffers];
    VkWriteDescriptorSet writes[kBuffers];
    for (uint32_t i = 0; i < kBuffers; ++i) {
      infos[i] = {buffers[i].buffer, 0, VK_WHOLE_SIZE};
      writes[i] = {VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET};
      writes[i].dstBinding = i;
      writes[i].descriptorCount = 1;
      writes[i].descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
      writes[i].pBufferInfo = &infos[i];
    }
    // The buffers change per dispatch (windows of 256 bytes), as a runtime walking through them.
    auto measure = [&](bool by_template) {
      return PerRecordedCommandNs(d, [&](VkCommandBuffer cb) {
        fn.CmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_COMPUTE, k.pipeline);
        for (uint32_t n = 0; n < kCommands; ++n) {
          for (VkDescriptorBufferInfo& info : infos) info.offset = 256 * (n % 64);
          if (by_template) {
            push_template(cb, k.update_template, k.layout, 0, infos);
          } else {
            push(cb, VK_PIPELINE_BIND_POINT_COMPUTE, k.layout, 0, kBuffers, writes);
          }
          fn.CmdDispatch(cb, 1, 1, 1);
        }
        return true;
      });
    };
    if (RowWanted(writes_row)) {
      const double ns = measure(false);
      if (ns >= 0) out.push_back({writes_row, "ns/cmd", ns});
    }
    if (RowWanted(template_row)) {
      const double ns = measure(true);
      if (ns >= 0) out.push_back({template_row, "ns/cmd", ns});
    }
  }
  for (DeviceBuffer& b : buffers) d.Destroy(b);
  return out;
}

}  // namespace bindery::bench
