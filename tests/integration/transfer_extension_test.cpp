// VK_BINDERY_transfer_any_alignment: advertised by the layer (with pLayerName NULL and
// with the layer's name), absent without the layer, and enabling it works: the layer
// strips it before the driver and validation see the device create info.
#include <cstring>

#include "integration/transfer_model.h"

namespace bindery::test::transfer {
namespace {

std::vector<VkExtensionProperties> DeviceExtensions(VkPhysicalDevice physical, const char* layer) {
  uint32_t count = 0;
  EXPECT_EQ(vkEnumerateDeviceExtensionProperties(physical, layer, &count, nullptr), VK_SUCCESS);
  std::vector<VkExtensionProperties> props(count);
  EXPECT_EQ(vkEnumerateDeviceExtensionProperties(physical, layer, &count, props.data()), VK_SUCCESS);
  props.resize(count);
  return props;
}

const VkExtensionProperties* Find(const std::vector<VkExtensionProperties>& props, const char* name) {
  for (const VkExtensionProperties& p : props) {
    if (std::strcmp(p.extensionName, name) == 0) return &p;
  }
  return nullptr;
}

TEST(TransferExtension, AdvertisedWithAndWithoutTheLayerName) {
  Rig rig(kAuto);
  ASSERT_TRUE(rig.ok()) << rig.error();
  for (const char* layer : {static_cast<const char*>(nullptr), "VK_LAYER_bindery"}) {
    SCOPED_TRACE(layer ? layer : "pLayerName NULL");
    const auto props = DeviceExtensions(rig.h().physical_device(), layer);
    const VkExtensionProperties* ext = Find(props, VK_BINDERY_TRANSFER_ANY_ALIGNMENT_EXTENSION_NAME);
    ASSERT_NE(ext, nullptr) << VK_BINDERY_TRANSFER_ANY_ALIGNMENT_EXTENSION_NAME << " not among " << props.size();
    EXPECT_EQ(ext->specVersion, 1u);
    EXPECT_EQ(ext->specVersion, static_cast<uint32_t>(VK_BINDERY_TRANSFER_ANY_ALIGNMENT_SPEC_VERSION));
  }
  // The driver's own extensions are still there.
  EXPECT_GT(DeviceExtensions(rig.h().physical_device(), nullptr).size(), 1u);
  rig.Finish();
  EXPECT_VALIDATION_SILENT(rig.h());
}

TEST(TransferExtension, AbsentWithoutTheLayer) {
  Rig rig(kLayerOff);
  ASSERT_TRUE(rig.ok()) << rig.error();
  EXPECT_EQ(Find(DeviceExtensions(rig.h().physical_device(), nullptr), VK_BINDERY_TRANSFER_ANY_ALIGNMENT_EXTENSION_NAME),
            nullptr);
  rig.Finish();
  EXPECT_VALIDATION_SILENT(rig.h());
}

// vk_bindery.h: advertised "while its transfers capability is on".
TEST(TransferExtension, AbsentWhenTransfersAreOff) {
  Rig rig(kTransfersOff);
  ASSERT_TRUE(rig.ok()) << rig.error();
  EXPECT_EQ(Find(DeviceExtensions(rig.h().physical_device(), nullptr), VK_BINDERY_TRANSFER_ANY_ALIGNMENT_EXTENSION_NAME),
            nullptr);
  rig.Finish();
  EXPECT_VALIDATION_SILENT(rig.h());
}

TEST(TransferExtension, CanBeEnabledAndUnalignedFillWorks) {
  Rig rig(kAuto, UINT32_MAX, {VK_BINDERY_TRANSFER_ANY_ALIGNMENT_EXTENSION_NAME});
  ASSERT_TRUE(rig.ok()) << rig.error();
  constexpr uint64_t kBytes = 4096 + 3;
  auto [dst, model] = rig.Canary(kBytes);
  VkCommandBuffer cb = rig.h().BeginCommands();
  vkCmdFillBuffer(cb, dst.buffer, 3, 1001, 0x44332211u);
  model.Fill(3, 1001, 0x44332211u);
  const uint8_t data[7] = {1, 2, 3, 4, 5, 6, 7};
  vkCmdUpdateBuffer(cb, dst.buffer, 2049, sizeof(data), data);
  model.Update(2049, data, sizeof(data));
  rig.HostReadBarrier(cb);
  ASSERT_EQ(rig.h().SubmitAndWait(cb), VK_SUCCESS);
  EXPECT_TRUE(SameBytes(dst.mapped, model.data(), kBytes));
  const Summary summary = rig.Finish();
  EXPECT_VALIDATION_SILENT(rig.h());
  ExpectStrategyRan(kAuto, summary, true, true, true);
}

}  // namespace
}  // namespace bindery::test::transfer
