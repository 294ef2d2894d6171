// Structures the layer does not know pass through its create-info chains untouched: the
// spy layer below Bindery records the chain exactly as Bindery sends it down.
//
// The validation layer is left out of these two tests on purpose: an unknown sType is a
// valid-usage error by definition (VUID-*-pNext-pNext), and the point here is what the
// layer hands on, which the spy observes directly.
#include <dlfcn.h>

#include <vector>

#include "integration/test_env.h"
#include "spy_layer/spy_layer.h"

namespace bindery::test {
namespace {

constexpr VkStructureType kUnknownStype = static_cast<VkStructureType>(1000999777);

struct UnknownStruct {
  VkStructureType sType;
  const void* pNext;
  uint64_t payload[4];
};

std::vector<SpyChainEntry> SpyChain(int which) {
  void* spy = dlopen(BINDERY_SPY_LIBRARY, RTLD_NOW | RTLD_NOLOAD);
  EXPECT_NE(spy, nullptr) << "spy layer not loaded";
  if (spy == nullptr) return {};
  auto fn = reinterpret_cast<BinderySpyChainFn>(dlsym(spy, "bindery_spy_chain"));
  std::vector<SpyChainEntry> out(16);
  out.resize(std::min<size_t>(fn(which, out.data(), out.size()), out.size()));
  dlclose(spy);
  return out;
}

TEST(UnknownPNext, InstanceChainReachesTheLayerBelowUntouched) {
  UnknownStruct unknown{kUnknownStype, nullptr, {1, 2, 3, 4}};
  VkHarness h({.bindery = true, .validation = false, .layers_between = {"VK_LAYER_bindery_test_spy"},
               .instance_pnext = &unknown});
  ASSERT_TRUE(h.ok()) << h.error();
  const auto chain = SpyChain(kSpyInstanceChain);
  // The harness's messenger info, then ours, in order and at the same addresses.
  ASSERT_EQ(chain.size(), 2u);
  EXPECT_EQ(chain[0].stype, static_cast<uint32_t>(VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CREATE_INFO_EXT));
  EXPECT_EQ(chain[1].stype, static_cast<uint32_t>(kUnknownStype));
  EXPECT_EQ(chain[1].address, &unknown);
  EXPECT_EQ(unknown.payload[3], 4u);
}

TEST(UnknownPNext, DeviceChainReachesTheLayerBelowUntouched) {
  // Native transfers: nothing needs a feature, so nothing is edited (on drivers whose
  // policy uses kernels, bufferDeviceAddress would be turned on in a copy: tested below).
  ScopedEnv native("BINDERY_TRANSFER_STRATEGY", "native");
  // Indirect bindings under auto turn bufferDeviceAddress on too (for layouts beyond the
  // driver's limits): off here, so that nothing needs a feature.
  ScopedEnv bindings("BINDERY_INDIRECT_BINDINGS", "off");
  UnknownStruct unknown{kUnknownStype, nullptr, {5, 6, 7, 8}};
  VkPhysicalDeviceVulkan12Features v12{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES};
  v12.pNext = &unknown;
  VkHarness h({.bindery = true, .validation = false, .layers_between = {"VK_LAYER_bindery_test_spy"},
               .device_pnext = &v12});
  ASSERT_TRUE(h.ok()) << h.error();
  const auto chain = SpyChain(kSpyDeviceChain);
  ASSERT_EQ(chain.size(), 2u);
  EXPECT_EQ(chain[0].stype, static_cast<uint32_t>(VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES));
  EXPECT_EQ(chain[0].address, &v12);
  EXPECT_EQ(chain[1].stype, static_cast<uint32_t>(kUnknownStype));
  EXPECT_EQ(chain[1].address, &unknown);
  EXPECT_EQ(v12.pNext, &unknown) << "the application's chain is not modified";
  EXPECT_EQ(unknown.payload[0], 5u);
}

// Where compute kernels will run, Bindery must turn bufferDeviceAddress on. It adds its
// own feature struct in front when the chain has none, and when the application's
// VkPhysicalDeviceVulkan12Features says no, it hands down a copy that says yes — the
// application's struct is never written, the rest of the chain is shared as it is.
TEST(UnknownPNext, BufferDeviceAddressIsEnabledWithoutTouchingTheApplicationsStructs) {
  ScopedEnv strategy("BINDERY_TRANSFER_STRATEGY", "compute");
  // Indirect bindings (on under auto) would add their own feature struct in front as well
  // (shaderFloat16/Int8 where the chain has no 1.2 struct): off, so the chain holds only
  // what the transfer kernels need.
  ScopedEnv bindings("BINDERY_INDIRECT_BINDINGS", "off");
  {
    UnknownStruct unknown{kUnknownStype, nullptr, {1, 1, 1, 1}};
    VkHarness h({.bindery = true, .validation = false, .layers_between = {"VK_LAYER_bindery_test_spy"},
                 .device_pnext = &unknown});
    ASSERT_TRUE(h.ok()) << h.error();
    const auto chain = SpyChain(kSpyDeviceChain);
    ASSERT_EQ(chain.size(), 2u);
    EXPECT_EQ(chain[0].stype, static_cast<uint32_t>(VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_BUFFER_DEVICE_ADDRESS_FEATURES));
    EXPECT_EQ(chain[0].buffer_device_address, VK_TRUE);
    EXPECT_EQ(chain[1].address, &unknown) << "the application's chain follows, untouched";
  }
  {
    UnknownStruct unknown{kUnknownStype, nullptr, {2, 2, 2, 2}};
    VkPhysicalDeviceVulkan12Features v12{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES, &unknown};
    v12.timelineSemaphore = VK_TRUE;
    VkHarness h({.bindery = true, .validation = false, .layers_between = {"VK_LAYER_bindery_test_spy"},
                 .device_pnext = &v12});
    ASSERT_TRUE(h.ok()) << h.error();
    const auto chain = SpyChain(kSpyDeviceChain);
    ASSERT_EQ(chain.size(), 2u);
    ASSERT_EQ(chain[0].stype, static_cast<uint32_t>(VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES));
    EXPECT_NE(chain[0].address, &v12) << "a copy goes down";
    EXPECT_EQ(chain[0].buffer_device_address, VK_TRUE);
    EXPECT_EQ(chain[0].timeline_semaphore, VK_TRUE) << "the copy keeps the application's other choices";
    EXPECT_EQ(v12.bufferDeviceAddress, VK_FALSE) << "the application's struct is not written";
    EXPECT_EQ(chain[1].address, &unknown);
  }
}

TEST(UnknownPNext, KnownExtensionStructsWorkUnderValidation) {
  // The same device chain with only real structs, validation below: silent.
  VkPhysicalDeviceVulkan12Features v12{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES};
  v12.timelineSemaphore = VK_TRUE;
  VkHarness h({.bindery = true, .device_pnext = &v12});
  ASSERT_TRUE(h.ok()) << h.error();
  EXPECT_VALIDATION_SILENT(h);
}

}  // namespace
}  // namespace bindery::test
