// The transfer kernels under applications of every Vulkan API version, and under every
// form in which an application may already have asked for (or refused)
// bufferDeviceAddress. The chassis's DeviceEditor must turn the feature on the one valid
// way each time (1.0: VK_KHR_buffer_device_address + VK_KHR_device_group, with
// VK_KHR_get_physical_device_properties2 and VK_KHR_device_group_creation on the
// instance; 1.1: the KHR extension; 1.2+: the core struct, or the application's own
// VkPhysicalDeviceVulkan12Features, or the EXT form the application chose) and the
// kernels must run with validation below the layer silent.
#include <cstring>

#include "integration/transfer_model.h"

namespace bindery::test::transfer {
namespace {

// An unaligned 1 MiB copy and an unaligned fill, checked byte for byte; the summary must
// show whether kernels ran.
void RunKernelsAndCheck(Rig& rig, bool kernels_expected = true) {
  ASSERT_TRUE(rig.ok()) << rig.error();
  constexpr uint64_t kBytes = (1ull << 20) + 64;
  auto [src, dst, src_bytes, model] = rig.Copy(kBytes, 7);
  VkCommandBuffer cb = rig.h().BeginCommands();
  const VkBufferCopy region{1, 3, kBytes - 40};
  vkCmdCopyBuffer(cb, src.buffer, dst.buffer, 1, &region);
  model.Copy(src_bytes.data(), 1, 3, kBytes - 40);
  TransferToTransferBarrier(cb);
  vkCmdFillBuffer(cb, dst.buffer, 4096 + 1, 65536 + 6, 0xA1B2C3D4u);  // invalid natively: the layer's
  model.Fill(4096 + 1, 65536 + 6, 0xA1B2C3D4u);
  rig.HostReadBarrier(cb);
  ASSERT_EQ(rig.h().SubmitAndWait(cb), VK_SUCCESS);
  EXPECT_TRUE(SameBytes(dst.mapped, model.data(), kBytes));
  const Summary summary = rig.Finish();
  EXPECT_VALIDATION_SILENT(rig.h());
  if (kernels_expected) {
    EXPECT_GT(summary.kernels, 0u) << "the kernels did not run: " << summary.text;
  } else {
    EXPECT_EQ(summary.kernels, 0u) << "kernels ran: " << summary.text;
  }
}

class TransferApiVersion : public ::testing::TestWithParam<uint32_t> {};

TEST_P(TransferApiVersion, KernelsRunUnderTheApplicationsApiVersion) {
  RigOptions options;
  options.api_version = GetParam();
  Rig rig(kForceCompute, options);
  RunKernelsAndCheck(rig);
}

INSTANTIATE_TEST_SUITE_P(Transfer, TransferApiVersion,
                         ::testing::Values(VK_API_VERSION_1_0, VK_API_VERSION_1_1, VK_API_VERSION_1_2,
                                           VK_API_VERSION_1_3),
                         [](const ::testing::TestParamInfo<uint32_t>& p) {
                           return "Vulkan1" + std::to_string(VK_API_VERSION_MINOR(p.param));
                         });

TEST(TransferFeatureForms, ApplicationsVulkan12FeaturesStructIsTheOneEdited) {
  // bufferDeviceAddress off in the application's 1.2 struct: the layer must set it there
  // (a second, standalone struct beside it is invalid: VUID-VkDeviceCreateInfo-pNext-02830).
  VkPhysicalDeviceVulkan12Features v12{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES};
  v12.timelineSemaphore = VK_TRUE;
  RigOptions options;
  options.device_pnext = &v12;
  Rig rig(kForceCompute, options);
  RunKernelsAndCheck(rig);
  EXPECT_EQ(v12.bufferDeviceAddress, VK_FALSE) << "the application's struct was written";
}

TEST(TransferFeatureForms, ApplicationsOwnBufferDeviceAddressStructIsTheOneEdited) {
  VkPhysicalDeviceBufferDeviceAddressFeatures bda{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_BUFFER_DEVICE_ADDRESS_FEATURES};
  RigOptions options;
  options.device_pnext = &bda;
  Rig rig(kForceCompute, options);
  RunKernelsAndCheck(rig);
  EXPECT_EQ(bda.bufferDeviceAddress, VK_FALSE) << "the application's struct was written";
}

TEST(TransferFeatureForms, ApplicationsExtBufferDeviceAddressIsKeptAlone) {
  // The application enabled VK_EXT_buffer_device_address: the KHR/core form must not be
  // enabled beside it (VUID-VkDeviceCreateInfo-ppEnabledExtensionNames-03328, -pNext-04748),
  // and the kernels (whose uvec2 addresses need SPV_KHR_physical_storage_buffer) stay off:
  // the transfers still come out right, natively, with validation silent.
  {
    VkHarness probe({.bindery = false, .validation = false});
    ASSERT_TRUE(probe.ok()) << probe.error();
    uint32_t count = 0;
    vkEnumerateDeviceExtensionProperties(probe.physical_device(), nullptr, &count, nullptr);
    std::vector<VkExtensionProperties> exts(count);
    vkEnumerateDeviceExtensionProperties(probe.physical_device(), nullptr, &count, exts.data());
    bool offered = false;
    for (const auto& e : exts) offered = offered || std::strcmp(e.extensionName, "VK_EXT_buffer_device_address") == 0;
    if (!offered) GTEST_SKIP() << "the device does not offer VK_EXT_buffer_device_address";
  }
  VkPhysicalDeviceBufferDeviceAddressFeaturesEXT ext{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_BUFFER_DEVICE_ADDRESS_FEATURES_EXT};
  // Vulkan 1.1: at 1.2 the EXT extension with the core feature absent is still valid,
  // but 1.1 is where applications that chose EXT live.
  RigOptions options;
  options.api_version = VK_API_VERSION_1_1;
  options.device_pnext = &ext;
  options.device_extensions = {"VK_EXT_buffer_device_address"};
  Rig rig(kForceCompute, options);
  RunKernelsAndCheck(rig, /*kernels_expected=*/false);
}

}  // namespace
}  // namespace bindery::test::transfer
