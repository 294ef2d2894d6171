#include "core/chain_edit.h"

#include <gtest/gtest.h>

namespace bindery {
namespace {

TEST(ChainEditor, PrependLeavesTheApplicationsChainAlone) {
  VkPhysicalDeviceVulkan11Features v11{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_1_FEATURES};
  ChainEditor chain(&v11);
  VkPhysicalDeviceBufferDeviceAddressFeatures ours{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_BUFFER_DEVICE_ADDRESS_FEATURES};
  chain.Prepend(reinterpret_cast<VkBaseOutStructure*>(&ours));
  EXPECT_EQ(chain.chain(), &ours);
  EXPECT_EQ(ours.pNext, &v11);
  EXPECT_EQ(v11.pNext, nullptr);
}

TEST(ChainEditor, ModifyCopiesTheTargetAndItsKnownPrefixOnly) {
  struct Unknown {
    VkStructureType sType;
    const void* pNext;
    int payload;
  } tail{static_cast<VkStructureType>(1000999001), nullptr, 42};
  VkPhysicalDeviceVulkan12Features v12{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES, &tail};
  VkPhysicalDeviceVulkan11Features v11{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_1_FEATURES, &v12};
  v11.storageBuffer16BitAccess = VK_TRUE;

  ChainEditor chain(&v11);
  auto* copy = chain.Modify<VkPhysicalDeviceVulkan12Features>(VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES);
  ASSERT_NE(copy, nullptr);
  copy->bufferDeviceAddress = VK_TRUE;

  EXPECT_EQ(v12.bufferDeviceAddress, VK_FALSE) << "the application's struct is untouched";
  auto* first = static_cast<const VkPhysicalDeviceVulkan11Features*>(chain.chain());
  EXPECT_NE(first, &v11) << "the prefix was copied";
  EXPECT_EQ(first->storageBuffer16BitAccess, VK_TRUE);
  EXPECT_EQ(first->pNext, copy);
  EXPECT_EQ(copy->pNext, &tail) << "the suffix is shared, not copied";
  EXPECT_EQ(v11.pNext, &v12);
}

TEST(ChainEditor, ModifyRefusesWhenAnUnknownStructPrecedesTheTarget) {
  VkPhysicalDeviceVulkan12Features v12{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES};
  struct Unknown {
    VkStructureType sType;
    const void* pNext;
  } head{static_cast<VkStructureType>(1000999002), &v12};
  ChainEditor chain(&head);
  EXPECT_EQ(chain.Modify<VkPhysicalDeviceVulkan12Features>(VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES),
            nullptr);
  EXPECT_EQ(chain.chain(), &head);
}

TEST(ChainEditor, FindAndMissingTarget) {
  VkPhysicalDeviceVulkan11Features v11{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_1_FEATURES};
  ChainEditor chain(&v11);
  EXPECT_EQ(chain.Find(VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_1_FEATURES),
            reinterpret_cast<const VkBaseInStructure*>(&v11));
  EXPECT_EQ(chain.Find(VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_3_FEATURES), nullptr);
  EXPECT_EQ(chain.Modify<VkPhysicalDeviceVulkan13Features>(VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_3_FEATURES),
            nullptr);
}

}  // namespace
}  // namespace bindery
