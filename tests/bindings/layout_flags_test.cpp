// Layouts whose flags keep them native never convert (set_layout_shadow.h): descriptor-
// buffer layouts (the application lays descriptors out from the driver's sizes and
// offsets) and host-only-pool layouts (EXT and VALVE mutable descriptors).
#include <gtest/gtest.h>

#include <vector>

#include "bindings/model/set_layout_shadow.h"

namespace bindery::bindings {
namespace {

SetLayoutShadow PlanWithFlags(VkDescriptorSetLayoutCreateFlags flags, std::vector<VkDescriptorSetLayoutBinding>& native) {
  const VkDescriptorSetLayoutBinding bindings[] = {
      {0, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 4, VK_SHADER_STAGE_COMPUTE_BIT, nullptr},
      {1, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER_DYNAMIC, 1, VK_SHADER_STAGE_COMPUTE_BIT, nullptr},
      {2, VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER, 1, VK_SHADER_STAGE_COMPUTE_BIT, nullptr}};
  VkDescriptorSetLayoutCreateInfo info{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO};
  info.flags = flags;
  info.bindingCount = 3;
  info.pBindings = bindings;
  std::vector<VkDescriptorBindingFlags> native_flags;
  return PlanSetLayout(info, nullptr, /*convert_uniform_buffers=*/true, native, native_flags);
}

TEST(SetLayoutFlags, PlainLayoutConverts) {
  std::vector<VkDescriptorSetLayoutBinding> native;
  const SetLayoutShadow s = PlanWithFlags(0, native);
  EXPECT_TRUE(s.converts());
  EXPECT_EQ(s.record_count, 6u);
  EXPECT_TRUE(native.empty());
  EXPECT_TRUE(LayoutFlagsAllowConversion(VK_DESCRIPTOR_SET_LAYOUT_CREATE_UPDATE_AFTER_BIND_POOL_BIT));
  EXPECT_TRUE(LayoutFlagsAllowConversion(VK_DESCRIPTOR_SET_LAYOUT_CREATE_PUSH_DESCRIPTOR_BIT_KHR));
}

TEST(SetLayoutFlags, DescriptorBufferAndHostOnlyLayoutsStayNative) {
  const VkDescriptorSetLayoutCreateFlags never[] = {
      VK_DESCRIPTOR_SET_LAYOUT_CREATE_DESCRIPTOR_BUFFER_BIT_EXT,
      VK_DESCRIPTOR_SET_LAYOUT_CREATE_DESCRIPTOR_BUFFER_BIT_EXT |
          VK_DESCRIPTOR_SET_LAYOUT_CREATE_EMBEDDED_IMMUTABLE_SAMPLERS_BIT_EXT,
      VK_DESCRIPTOR_SET_LAYOUT_CREATE_HOST_ONLY_POOL_BIT_EXT,
      VK_DESCRIPTOR_SET_LAYOUT_CREATE_HOST_ONLY_POOL_BIT_VALVE,
      VK_DESCRIPTOR_SET_LAYOUT_CREATE_HOST_ONLY_POOL_BIT_EXT | VK_DESCRIPTOR_SET_LAYOUT_CREATE_PUSH_DESCRIPTOR_BIT_KHR,
  };
  for (VkDescriptorSetLayoutCreateFlags flags : never) {
    SCOPED_TRACE(flags);
    EXPECT_FALSE(LayoutFlagsAllowConversion(flags));
    std::vector<VkDescriptorSetLayoutBinding> native;
    const SetLayoutShadow s = PlanWithFlags(flags, native);
    EXPECT_FALSE(s.converts());
    EXPECT_EQ(s.record_count, 0u);
    EXPECT_EQ(native.size(), 3u);  // every binding passed down as the application wrote it
    EXPECT_EQ(s.native_dynamic, 1u);
    EXPECT_EQ(s.create_flags, flags);
  }
}

}  // namespace
}  // namespace bindery::bindings
