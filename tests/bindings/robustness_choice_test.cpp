// Which rewritten stages bounds-check (bindings/pipelines/robustness.h): the device's robustness,
// overridden by VkPipelineRobustnessCreateInfoEXT on the stage, else on the pipeline;
// always on with robustness2.nullDescriptor. No device needed.
#include <gtest/gtest.h>

#include "bindings/model/bindings_plan.h"
#include "bindings/pipelines/robustness.h"

namespace bindery::bindings {
namespace {

VkPipelineRobustnessCreateInfoEXT Asking(VkPipelineRobustnessBufferBehaviorEXT storage,
                                         VkPipelineRobustnessBufferBehaviorEXT uniform =
                                             VK_PIPELINE_ROBUSTNESS_BUFFER_BEHAVIOR_DEVICE_DEFAULT_EXT) {
  VkPipelineRobustnessCreateInfoEXT info{VK_STRUCTURE_TYPE_PIPELINE_ROBUSTNESS_CREATE_INFO_EXT};
  info.storageBuffers = storage;
  info.uniformBuffers = uniform;
  return info;
}

TEST(Robustness, DeviceDefaultWithoutTheStruct) {
  BindingsPlan plan;
  EXPECT_FALSE(StageBoundsChecks(plan, nullptr, nullptr));
  plan.bounds_checks = true;
  EXPECT_TRUE(StageBoundsChecks(plan, nullptr, nullptr));
}

TEST(Robustness, StageOverridesPipelineOverridesDevice) {
  BindingsPlan plan;
  const auto robust = Asking(VK_PIPELINE_ROBUSTNESS_BUFFER_BEHAVIOR_ROBUST_BUFFER_ACCESS_2_EXT);
  const auto disabled = Asking(VK_PIPELINE_ROBUSTNESS_BUFFER_BEHAVIOR_DISABLED_EXT);
  const auto device_default = Asking(VK_PIPELINE_ROBUSTNESS_BUFFER_BEHAVIOR_DEVICE_DEFAULT_EXT);
  EXPECT_TRUE(StageBoundsChecks(plan, &robust, nullptr));
  EXPECT_FALSE(StageBoundsChecks(plan, &robust, &disabled));
  EXPECT_TRUE(StageBoundsChecks(plan, &disabled, &robust));
  EXPECT_TRUE(StageBoundsChecks(plan, &robust, &device_default));
  plan.bounds_checks = true;
  EXPECT_FALSE(StageBoundsChecks(plan, &disabled, nullptr));
  EXPECT_TRUE(StageBoundsChecks(plan, &device_default, &device_default));
}

TEST(Robustness, UniformBuffersCountOnlyWhereTheyConvert) {
  BindingsPlan plan;
  const auto uniform_robust = Asking(VK_PIPELINE_ROBUSTNESS_BUFFER_BEHAVIOR_DISABLED_EXT,
                                     VK_PIPELINE_ROBUSTNESS_BUFFER_BEHAVIOR_ROBUST_BUFFER_ACCESS_EXT);
  EXPECT_FALSE(StageBoundsChecks(plan, &uniform_robust, nullptr));
  plan.convert_uniform_buffers = true;
  EXPECT_TRUE(StageBoundsChecks(plan, &uniform_robust, nullptr));
}

TEST(Robustness, NullDescriptorsKeepChecksOn) {
  BindingsPlan plan;
  plan.null_descriptor = true;
  const auto disabled = Asking(VK_PIPELINE_ROBUSTNESS_BUFFER_BEHAVIOR_DISABLED_EXT);
  EXPECT_TRUE(StageBoundsChecks(plan, &disabled, &disabled));
}

}  // namespace
}  // namespace bindery::bindings
