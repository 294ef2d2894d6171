// The chassis's generic hiding of device extensions (chassis/hidden_extensions.h): lists
// filtered, create infos checked, and the features of hidden extensions cleared in a
// feature query's chain (and only theirs).
#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "chassis/hidden_extensions.h"
#include "chassis/newer_vulkan.h"

namespace bindery {
namespace {

// VK_EXT_shader_object's and VK_KHR_maintenance6's feature structs (newer than the headers).
struct OneFeature {
  VkStructureType sType;
  void* pNext;
  VkBool32 feature;
};

VkExtensionProperties Ext(const char* name) {
  VkExtensionProperties p{};
  std::strncpy(p.extensionName, name, sizeof(p.extensionName) - 1);
  p.specVersion = 1;
  return p;
}

TEST(HiddenExtensions, RemovedFromListsInOrder) {
  const std::vector<const char*> hidden = {VK_EXT_DESCRIPTOR_BUFFER_EXTENSION_NAME, kExtShaderObject};
  std::vector<VkExtensionProperties> list = {Ext("VK_KHR_a"), Ext(VK_EXT_DESCRIPTOR_BUFFER_EXTENSION_NAME),
                                             Ext("VK_KHR_b"), Ext(kExtShaderObject)};
  RemoveHiddenExtensions(hidden, list);
  ASSERT_EQ(list.size(), 2u);
  EXPECT_STREQ(list[0].extensionName, "VK_KHR_a");
  EXPECT_STREQ(list[1].extensionName, "VK_KHR_b");
  RemoveHiddenExtensions({}, list);
  EXPECT_EQ(list.size(), 2u);
}

TEST(HiddenExtensions, CreateInfoNamesTheFirstHidden) {
  const std::vector<const char*> hidden = {kKhrMaintenance6};
  const char* names[] = {"VK_KHR_swapchain", "VK_KHR_maintenance6"};
  VkDeviceCreateInfo info{VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO};
  info.enabledExtensionCount = 1;
  info.ppEnabledExtensionNames = names;
  EXPECT_EQ(FirstHiddenEnabled(hidden, info), nullptr);
  info.enabledExtensionCount = 2;
  EXPECT_STREQ(FirstHiddenEnabled(hidden, info), "VK_KHR_maintenance6");
  EXPECT_EQ(FirstHiddenEnabled({}, info), nullptr);
}

TEST(HiddenExtensions, FeaturesOfHiddenExtensionsReadFalse) {
  VkPhysicalDeviceDescriptorBufferFeaturesEXT db{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_DESCRIPTOR_BUFFER_FEATURES_EXT};
  db.descriptorBuffer = db.descriptorBufferCaptureReplay = db.descriptorBufferImageLayoutIgnored =
      db.descriptorBufferPushDescriptors = VK_TRUE;
  OneFeature so{kStypeShaderObjectFeatures, &db, VK_TRUE};
  OneFeature m6{kStypeMaintenance6Features, &so, VK_TRUE};
  VkPhysicalDeviceDescriptorSetHostMappingFeaturesVALVE hm{
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_DESCRIPTOR_SET_HOST_MAPPING_FEATURES_VALVE, &m6, VK_TRUE};
  VkPhysicalDeviceVulkan12Features v12{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES, &hm};
  v12.bufferDeviceAddress = VK_TRUE;
  v12.descriptorIndexing = VK_TRUE;

  // Only shader objects and descriptor buffers hidden: the others keep their answers.
  const std::vector<const char*> some = {kExtShaderObject, VK_EXT_DESCRIPTOR_BUFFER_EXTENSION_NAME};
  EXPECT_STREQ(FirstHiddenFeatureRequested(some, &v12), kExtShaderObject);
  ClearHiddenFeatures(some, &v12);
  EXPECT_EQ(db.descriptorBuffer, VK_FALSE);
  EXPECT_EQ(db.descriptorBufferCaptureReplay, VK_FALSE);
  EXPECT_EQ(db.descriptorBufferImageLayoutIgnored, VK_FALSE);
  EXPECT_EQ(db.descriptorBufferPushDescriptors, VK_FALSE);
  EXPECT_EQ(so.feature, VK_FALSE);
  EXPECT_EQ(m6.feature, VK_TRUE);
  EXPECT_EQ(hm.descriptorSetHostMapping, VK_TRUE);
  EXPECT_EQ(v12.bufferDeviceAddress, VK_TRUE);  // structs of no hidden extension untouched
  EXPECT_EQ(v12.descriptorIndexing, VK_TRUE);
  EXPECT_EQ(FirstHiddenFeatureRequested(some, &v12), nullptr);  // nothing hidden is asked for now

  const std::vector<const char*> all = {kExtShaderObject, VK_EXT_DESCRIPTOR_BUFFER_EXTENSION_NAME, kKhrMaintenance6,
                                        VK_VALVE_DESCRIPTOR_SET_HOST_MAPPING_EXTENSION_NAME};
  EXPECT_STREQ(FirstHiddenFeatureRequested(all, &v12), VK_VALVE_DESCRIPTOR_SET_HOST_MAPPING_EXTENSION_NAME);
  ClearHiddenFeatures(all, &v12);
  EXPECT_EQ(m6.feature, VK_FALSE);
  EXPECT_EQ(hm.descriptorSetHostMapping, VK_FALSE);
  EXPECT_EQ(hm.pNext, &m6);  // chains are never relinked
  EXPECT_EQ(FirstHiddenFeatureRequested(all, &v12), nullptr);
}

}  // namespace
}  // namespace bindery
