#include "core/chain_edit.h"

#include <gtest/gtest.h>
#include <vulkan/vk_layer.h>

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

TEST(ChainEditor, EveryStructOfTheHeadersHasItsSize) {
  // Sizes come from the registry the headers ship with: structs of any extension, not only
  // those the layer edits, so a feature can be hidden behind any struct a driver of these
  // headers' time offers (a conformance run chains one feature struct per extension).
  EXPECT_EQ(KnownStructSize(VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MULTIVIEW_FEATURES), sizeof(VkPhysicalDeviceMultiviewFeatures));
  EXPECT_EQ(KnownStructSize(VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_ATOMIC_INT64_FEATURES),
            sizeof(VkPhysicalDeviceShaderAtomicInt64Features));
  EXPECT_EQ(KnownStructSize(VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MESH_SHADER_FEATURES_EXT),
            sizeof(VkPhysicalDeviceMeshShaderFeaturesEXT));
  EXPECT_EQ(KnownStructSize(VK_STRUCTURE_TYPE_SEMAPHORE_TYPE_CREATE_INFO), sizeof(VkSemaphoreTypeCreateInfo));
  EXPECT_EQ(KnownStructSize(VK_STRUCTURE_TYPE_LOADER_DEVICE_CREATE_INFO), sizeof(VkLayerDeviceCreateInfo));
  EXPECT_EQ(KnownStructSize(static_cast<VkStructureType>(1000999003)), 0u);
}

TEST(ChainEditor, RemoveReachesPastAnyStructOfTheHeaders) {
  VkPhysicalDeviceTimelineSemaphoreFeatures timeline{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_TIMELINE_SEMAPHORE_FEATURES};
  timeline.timelineSemaphore = VK_TRUE;
  VkPhysicalDeviceShaderAtomicInt64Features atomics{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_ATOMIC_INT64_FEATURES,
                                                    &timeline};
  VkPhysicalDeviceMultiviewFeatures multiview{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MULTIVIEW_FEATURES, &atomics};
  ChainEditor chain(&multiview);
  ASSERT_TRUE(chain.Remove(VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_TIMELINE_SEMAPHORE_FEATURES));
  EXPECT_EQ(chain.Find(VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_TIMELINE_SEMAPHORE_FEATURES), nullptr);
  EXPECT_NE(chain.Find(VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_ATOMIC_INT64_FEATURES), nullptr);
  EXPECT_NE(chain.Find(VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MULTIVIEW_FEATURES), nullptr);
  EXPECT_EQ(atomics.pNext, &timeline) << "the application's chain is untouched";
}

}  // namespace
}  // namespace bindery
