#include "transfer/kernel_base.h"

#include "chassis/state.h"
#include "transfer/staging.h"

namespace bindery::transfer {

bool KernelBase::BeginBuild(StagingPool& staging, uint32_t command_data_slot) {
  ready_ = false;
  staging_ = &staging;
  command_data_slot_ = command_data_slot;
  dispatch_base_ = device_.api_version >= VK_API_VERSION_1_1 ? next_.CmdDispatchBase : next_.CmdDispatchBaseKHR;
  const VkDeviceAddress directory = staging.directory_address();
  directory_words_[0] = static_cast<uint32_t>(directory);
  directory_words_[1] = static_cast<uint32_t>(directory >> 32);
  return dispatch_base_ != nullptr && directory != 0;
}

bool KernelBase::CreatePipeline(const uint32_t* code, std::size_t bytes, VkShaderModule* module,
                                VkPipeline* pipeline) const {
  if (*module == VK_NULL_HANDLE) {
    VkShaderModuleCreateInfo smci{VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO};
    smci.codeSize = bytes;
    smci.pCode = code;
    if (next_.CreateShaderModule(device_.handle, &smci, nullptr, module) != VK_SUCCESS) return false;
  }
  const VkSpecializationMapEntry entries[2] = {{0, 0, sizeof(uint32_t)}, {1, sizeof(uint32_t), sizeof(uint32_t)}};
  const VkSpecializationInfo specialization{2, entries, sizeof(directory_words_), directory_words_};
  VkComputePipelineCreateInfo cpci{VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO};
  cpci.stage = {VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO};
  cpci.stage.stage = VK_SHADER_STAGE_COMPUTE_BIT;
  cpci.stage.module = *module;
  cpci.stage.pName = "main";
  cpci.stage.pSpecializationInfo = &specialization;
  cpci.flags = VK_PIPELINE_CREATE_DISPATCH_BASE_BIT;
  cpci.layout = layout_;
  return next_.CreateComputePipelines(device_.handle, VK_NULL_HANDLE, 1, &cpci, nullptr, pipeline) == VK_SUCCESS;
}

void KernelBase::DestroyModulesAndLayout(const VkShaderModule* modules, std::size_t count) const {
  for (std::size_t i = 0; i < count; ++i) {
    if (modules[i] != VK_NULL_HANDLE) next_.DestroyShaderModule(device_.handle, modules[i], nullptr);
  }
  if (layout_ != VK_NULL_HANDLE) next_.DestroyPipelineLayout(device_.handle, layout_, nullptr);
}

}  // namespace bindery::transfer
