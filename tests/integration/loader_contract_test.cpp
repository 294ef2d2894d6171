// The loader-layer contract (docs/layers-and-loader.md): Bindery must work under layers written after the
// loader documentation's sample layer, in any position of a stack.
//
// - AboveLayer.*: the test-only layer tests/above_layer sits directly above Bindery and
//   gets everything from it the sample-layer way (GetInstanceProcAddr(NULL,
//   "vkCreateDevice") included, a decoy entry before the link info); the application
//   creates an instance and a device and records through both layers, validation below.
// - LoaderContract.*: Bindery's entry points called directly, as the loader and other
//   layers call them, compared with what the Khronos validation layer answers.
#include <dlfcn.h>

#include <cstring>
#include <string>
#include <vector>

#include <vulkan/vk_layer.h>

#include "above_layer/above_layer.h"
#include "integration/test_env.h"

namespace bindery::test {
namespace {

constexpr const char* kAboveLayer = "VK_LAYER_bindery_test_above";

// A library the loader already opened (or, for the direct calls, opens here; dlclose at
// scope end keeps the reference counts balanced).
class Library {
 public:
  Library(const char* path, int flags) : handle_(dlopen(path, flags)) {}
  ~Library() {
    if (handle_ != nullptr) dlclose(handle_);
  }
  Library(const Library&) = delete;
  Library& operator=(const Library&) = delete;
  bool ok() const { return handle_ != nullptr; }
  template <typename Fn>
  Fn Get(const char* name) const {
    return handle_ == nullptr ? nullptr : reinterpret_cast<Fn>(dlsym(handle_, name));
  }

 private:
  void* handle_;
};

// The above layer's record; all zero when it is not loaded (and then a failure if `required`).
AboveLayerRecord AboveRecord(bool required = true) {
  Library above(BINDERY_ABOVE_LIBRARY, RTLD_NOW | RTLD_NOLOAD);
  AboveLayerRecord record{};
  auto fn = above.Get<BinderyAboveRecordFn>("bindery_above_record");
  if (required) {
    EXPECT_NE(fn, nullptr) << "the above layer is not loaded";
  }
  if (fn != nullptr) fn(&record);
  return record;
}

// A layer's proc-addr functions through its negotiation entry point, as the loader gets them.
struct NegotiatedLayer {
  PFN_vkGetInstanceProcAddr gipa = nullptr;
  PFN_vkGetDeviceProcAddr gdpa = nullptr;
};

NegotiatedLayer Negotiate(const Library& library) {
  auto negotiate =
      library.Get<PFN_vkNegotiateLoaderLayerInterfaceVersion>("vkNegotiateLoaderLayerInterfaceVersion");
  NegotiatedLayer out;
  if (negotiate == nullptr) return out;
  VkNegotiateLayerInterface v{LAYER_NEGOTIATE_INTERFACE_STRUCT, nullptr, 2, nullptr, nullptr, nullptr};
  if (negotiate(&v) != VK_SUCCESS) return out;
  out.gipa = v.pfnGetInstanceProcAddr;
  out.gdpa = v.pfnGetDeviceProcAddr;
  return out;
}

TEST(AboveLayer, SampleLayerAboveBinderyCreatesInstanceAndDeviceAndRecords) {
  const AboveLayerRecord before = AboveRecord(false);
  VkHarness h({.layers_above = {kAboveLayer}, .bindery = true});
  ASSERT_TRUE(h.ok()) << h.error();
  const AboveLayerRecord after = AboveRecord();

  // Placement: the above layer's next link is Bindery itself (not validation, not the loader).
  Library bindery(BINDERY_LAYER_LIBRARY, RTLD_NOW | RTLD_NOLOAD);
  ASSERT_TRUE(bindery.ok()) << "Bindery not loaded";
  const NegotiatedLayer ours = Negotiate(bindery);
  EXPECT_EQ(after.next_instance_gipa, ours.gipa) << "the above layer does not sit directly above Bindery";
  EXPECT_EQ(after.next_device_gipa, ours.gipa);
  EXPECT_EQ(after.next_device_gdpa, ours.gdpa);
  // Bindery answered the sample-layer questions (without them there is no device at all).
  EXPECT_NE(after.null_instance_create_instance, nullptr);
  EXPECT_NE(after.null_instance_create_device, nullptr);
  EXPECT_EQ(after.instances_created, before.instances_created + 1);
  EXPECT_EQ(after.devices_created, before.devices_created + 1);
  // A copy of the loader's data-callback entry went before the link info, both chains.
  EXPECT_EQ(after.decoys_inserted, before.decoys_inserted + 2);

  // Record through both layers: an unaligned fill is a validation error unless Bindery
  // (below the above layer) polyfills it, so a silent validation log proves both worked.
  HostBuffer b = h.CreateHostBuffer(4096, VK_BUFFER_USAGE_TRANSFER_DST_BIT);
  std::memset(b.mapped, 0, 4096);
  VkCommandBuffer cb = h.BeginCommands();
  vkCmdFillBuffer(cb, b.buffer, 3, 1001, 0xA1B2C3D4u);
  ASSERT_EQ(h.SubmitAndWait(cb), VK_SUCCESS);
  const AboveLayerRecord recorded = AboveRecord();
  EXPECT_EQ(recorded.fill_buffer_calls, after.fill_buffer_calls + 1);
  EXPECT_GE(recorded.begin_command_buffer_calls, after.begin_command_buffer_calls + 1);
  EXPECT_GE(recorded.queue_submit_calls, after.queue_submit_calls + 1);
  const auto* bytes = static_cast<const uint8_t*>(b.mapped);
  const uint8_t pattern[4] = {0xD4, 0xC3, 0xB2, 0xA1};
  int wrong = 0;
  for (int i = 0; i < 4096; ++i) {
    const uint8_t want = (i >= 3 && i < 3 + 1001) ? pattern[(i - 3) % 4] : 0;
    wrong += bytes[i] != want;
  }
  EXPECT_EQ(wrong, 0);
  h.Destroy(b);
  EXPECT_VALIDATION_SILENT(h);
}

class AboveLayerTimelineMode : public ::testing::TestWithParam<const char*> {};

TEST_P(AboveLayerTimelineMode, DeviceExtensionQueriesNamingALayerReachBindery) {
  ScopedEnv mode("BINDERY_TIMELINE", GetParam());
  const bool force = std::strcmp(GetParam(), "force") == 0;
  VkHarness h({.layers_above = {kAboveLayer}, .bindery = true});
  ASSERT_TRUE(h.ok()) << h.error();
  Library above(BINDERY_ABOVE_LIBRARY, RTLD_NOW | RTLD_NOLOAD);
  auto enumerate = above.Get<BinderyAboveEnumerateFn>("bindery_above_enumerate_device_extensions");
  ASSERT_NE(enumerate, nullptr);
  // Its own name: exactly its own extensions on this device: VK_BINDERY_transfer_any_alignment,
  // and VK_KHR_timeline_semaphore only where it emulates it (force; auto over lavapipe,
  // which has timelines, passes through). Another layer's name: passed down, answered below.
  uint32_t ours = 0;
  EXPECT_EQ(enumerate("VK_LAYER_bindery", &ours), VK_SUCCESS);
  EXPECT_EQ(ours, force ? 2u : 1u);
  uint32_t validation = 99;
  EXPECT_EQ(enumerate("VK_LAYER_KHRONOS_validation", &validation), VK_SUCCESS);
  uint32_t all = 0;
  EXPECT_EQ(enumerate(nullptr, &all), VK_SUCCESS);
  EXPECT_GT(all, ours);
  EXPECT_VALIDATION_SILENT(h);
}

INSTANTIATE_TEST_SUITE_P(Modes, AboveLayerTimelineMode, ::testing::Values("auto", "force"),
                         [](const ::testing::TestParamInfo<const char*>& p) { return std::string(p.param); });

// What GetInstanceProcAddr(NULL, name) answers. The Khronos validation layer answers every
// name it intercepts, whatever the instance; Bindery must answer at least the global
// commands and vkCreateDevice (the loader document: older layers expect the instance to
// be ignored for vkCreateDevice), and the other Vulkan 1.0 commands it always intercepts.
TEST(LoaderContract, GetInstanceProcAddrWithoutAnInstanceMatchesTheValidationLayer) {
  Library bindery_lib(BINDERY_LAYER_LIBRARY, RTLD_NOW | RTLD_LOCAL);
  Library validation_lib("libVkLayer_khronos_validation.so", RTLD_NOW | RTLD_LOCAL);
  ASSERT_TRUE(bindery_lib.ok()) << dlerror();
  const NegotiatedLayer bindery = Negotiate(bindery_lib);
  ASSERT_NE(bindery.gipa, nullptr);
  for (const char* name :
       {"vkCreateInstance", "vkEnumerateInstanceExtensionProperties", "vkEnumerateInstanceLayerProperties",
        "vkGetInstanceProcAddr", "vkCreateDevice", "vkDestroyInstance", "vkEnumeratePhysicalDevices",
        "vkEnumerateDeviceExtensionProperties", "vkGetDeviceProcAddr", "vkDestroyDevice"}) {
    EXPECT_NE(bindery.gipa(VK_NULL_HANDLE, name), nullptr) << name;
    if (validation_lib.ok()) {
      const NegotiatedLayer validation = Negotiate(validation_lib);
      ASSERT_NE(validation.gipa, nullptr);
      EXPECT_NE(validation.gipa(VK_NULL_HANDLE, name), nullptr) << "the validation layer differs on " << name;
    }
  }
  // The same answer whichever handle comes with it (an instance Bindery never saw).
  // (a dispatchable handle is a pointer to a dispatch-table pointer; this table is no one's)
  static void* unknown_table[4] = {};
  static void* unknown_object = unknown_table;
  VkInstance stranger = reinterpret_cast<VkInstance>(&unknown_object);
  EXPECT_EQ(bindery.gipa(stranger, "vkCreateDevice"), bindery.gipa(VK_NULL_HANDLE, "vkCreateDevice"));
  // Without an instance there is no next layer to ask: unknown, extension and
  // per-device capability commands are NULL rather than guessed.
  for (const char* name : {"vkNoSuchFunctionBINDERY", "vkCreateDebugUtilsMessengerEXT", "vkCmdFillBuffer",
                           "vkCmdDispatch", "vkEnumeratePhysicalDeviceGroupsKHR"}) {
    EXPECT_EQ(bindery.gipa(VK_NULL_HANDLE, name), nullptr) << name;
  }
  EXPECT_EQ(bindery.gipa(VK_NULL_HANDLE, nullptr), nullptr);
}

TEST(LoaderContract, NegotiatesEveryInterfaceVersionTheLoaderMayOffer) {
  Library bindery_lib(BINDERY_LAYER_LIBRARY, RTLD_NOW | RTLD_LOCAL);
  auto negotiate =
      bindery_lib.Get<PFN_vkNegotiateLoaderLayerInterfaceVersion>("vkNegotiateLoaderLayerInterfaceVersion");
  ASSERT_NE(negotiate, nullptr);
  struct Case {
    uint32_t offered, answered;
  };
  // 1: the loader takes the functions from the manifest names; 2: from the struct;
  // later versions: the layer answers its own (2), as the interface document asks.
  for (const Case c : {Case{1, 1}, Case{2, 2}, Case{3, 2}, Case{7, 2}}) {
    VkNegotiateLayerInterface v{LAYER_NEGOTIATE_INTERFACE_STRUCT, nullptr, c.offered, nullptr, nullptr, nullptr};
    EXPECT_EQ(negotiate(&v), VK_SUCCESS) << c.offered;
    EXPECT_EQ(v.loaderLayerInterfaceVersion, c.answered) << c.offered;
    if (c.answered >= 2) {
      EXPECT_NE(v.pfnGetInstanceProcAddr, nullptr);
      EXPECT_NE(v.pfnGetDeviceProcAddr, nullptr);
      EXPECT_EQ(v.pfnGetPhysicalDeviceProcAddr, nullptr) << "Bindery adds no physical-device commands";
    }
  }
  VkNegotiateLayerInterface zero{LAYER_NEGOTIATE_INTERFACE_STRUCT, nullptr, 0, nullptr, nullptr, nullptr};
  EXPECT_EQ(negotiate(&zero), VK_ERROR_INITIALIZATION_FAILED);
  EXPECT_EQ(negotiate(nullptr), VK_ERROR_INITIALIZATION_FAILED);
  // The manifest's function names (used by interface 1 loaders) are exported.
  EXPECT_NE(bindery_lib.Get<PFN_vkGetInstanceProcAddr>("bindery_GetInstanceProcAddr"), nullptr);
  EXPECT_NE(bindery_lib.Get<PFN_vkGetDeviceProcAddr>("bindery_GetDeviceProcAddr"), nullptr);
}

TEST(LoaderContract, InstanceExtensionQueryAnswersOnlyForItself) {
  Library bindery_lib(BINDERY_LAYER_LIBRARY, RTLD_NOW | RTLD_LOCAL);
  const NegotiatedLayer bindery = Negotiate(bindery_lib);
  auto enumerate = reinterpret_cast<PFN_vkEnumerateInstanceExtensionProperties>(
      bindery.gipa(VK_NULL_HANDLE, "vkEnumerateInstanceExtensionProperties"));
  ASSERT_NE(enumerate, nullptr);
  uint32_t count = 7;
  EXPECT_EQ(enumerate("VK_LAYER_bindery", &count, nullptr), VK_SUCCESS);
  EXPECT_EQ(count, 0u);
  EXPECT_EQ(enumerate("VK_LAYER_KHRONOS_validation", &count, nullptr), VK_ERROR_LAYER_NOT_PRESENT);
  EXPECT_EQ(enumerate(nullptr, &count, nullptr), VK_ERROR_LAYER_NOT_PRESENT);
  auto layers = reinterpret_cast<PFN_vkEnumerateInstanceLayerProperties>(
      bindery.gipa(VK_NULL_HANDLE, "vkEnumerateInstanceLayerProperties"));
  ASSERT_NE(layers, nullptr);
  VkLayerProperties props[2];
  count = 2;
  EXPECT_EQ(layers(&count, props), VK_SUCCESS);
  ASSERT_EQ(count, 1u) << "a layer enumerates only itself";
  EXPECT_STREQ(props[0].layerName, "VK_LAYER_bindery");
}

}  // namespace
}  // namespace bindery::test
