// Present behind parked work, with a real swapchain on an Xvfb server the test starts:
// a present whose wait semaphore is signalled by a parked submission returns at once (the
// calling thread never blocks on parked work) and reaches the driver only after that
// submission (validation, synchronization validation on, would report a present waiting
// on a binary semaphore nothing is going to signal). Both configurations (timeline_rig.h).
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <string>
#include <thread>

#include <xcb/xcb.h>
#define VK_USE_PLATFORM_XCB_KHR
#include <vulkan/vulkan.h>

#include "integration/timeline_rig.h"

namespace bindery::test {
namespace {

constexpr uint64_t kSecond = 1'000'000'000ull;

// An Xvfb server for the test's lifetime (-displayfd: it picks a free display and tells
// us which). Killed with the test process too (PR_SET_PDEATHSIG).
class Xvfb {
 public:
  Xvfb() {
    int fds[2];
    if (pipe(fds) != 0) return;
    pid_ = fork();
    if (pid_ == 0) {
      prctl(PR_SET_PDEATHSIG, SIGKILL);
      close(fds[0]);
      if (fds[1] != 3) {
        dup2(fds[1], 3);
        close(fds[1]);
      }
      const int null = open("/dev/null", O_WRONLY);
      if (null >= 0) {
        dup2(null, 1);
        dup2(null, 2);
      }
      execlp("Xvfb", "Xvfb", "-displayfd", "3", "-screen", "0", "320x240x24", "-nolisten", "tcp", nullptr);
      _exit(127);
    }
    close(fds[1]);
    if (pid_ < 0) {
      close(fds[0]);
      return;
    }
    std::string number;
    pollfd p{fds[0], POLLIN, 0};
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (std::chrono::steady_clock::now() < deadline && poll(&p, 1, 100) >= 0) {
      if ((p.revents & (POLLIN | POLLHUP)) == 0) continue;
      char c;
      if (read(fds[0], &c, 1) != 1) break;
      if (c == '\n') break;
      number += c;
    }
    close(fds[0]);
    if (!number.empty()) display_ = ":" + number;
  }
  ~Xvfb() {
    if (pid_ > 0) {
      kill(pid_, SIGTERM);
      waitpid(pid_, nullptr, 0);
    }
  }
  // Empty when it did not start (not installed?).
  const std::string& display() const { return display_; }

 private:
  pid_t pid_ = -1;
  std::string display_;
};

class TimelinePresent : public ::testing::TestWithParam<TimelineConfig> {};

// Whether the first physical device offers a device extension (asked without layers).
bool DeviceHasExtension(const char* name) {
  VkApplicationInfo app{VK_STRUCTURE_TYPE_APPLICATION_INFO};
  app.apiVersion = VK_API_VERSION_1_3;
  VkInstanceCreateInfo ici{VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO};
  ici.pApplicationInfo = &app;
  VkInstance instance = VK_NULL_HANDLE;
  if (vkCreateInstance(&ici, nullptr, &instance) != VK_SUCCESS) return false;
  bool found = false;
  uint32_t n = 0;
  vkEnumeratePhysicalDevices(instance, &n, nullptr);
  std::vector<VkPhysicalDevice> devices(n);
  vkEnumeratePhysicalDevices(instance, &n, devices.data());
  if (n != 0) {
    uint32_t count = 0;
    vkEnumerateDeviceExtensionProperties(devices[0], nullptr, &count, nullptr);
    std::vector<VkExtensionProperties> props(count);
    vkEnumerateDeviceExtensionProperties(devices[0], nullptr, &count, props.data());
    for (const VkExtensionProperties& p : props) found = found || std::strcmp(p.extensionName, name) == 0;
  }
  vkDestroyInstance(instance, nullptr);
  return found;
}

TEST_P(TimelinePresent, APresentBehindParkedWorkIsOrderedAndDoesNotBlock) {
  Xvfb server;
  if (server.display().empty()) GTEST_SKIP() << "Xvfb could not be started (scripts/test installs the xvfb package)";
  xcb_connection_t* connection = xcb_connect(server.display().c_str(), nullptr);
  ASSERT_EQ(xcb_connection_has_error(connection), 0) << "cannot connect to Xvfb at " << server.display();
  xcb_screen_t* screen = xcb_setup_roots_iterator(xcb_get_setup(connection)).data;
  const xcb_window_t window = xcb_generate_id(connection);
  xcb_create_window(connection, XCB_COPY_FROM_PARENT, window, screen->root, 0, 0, 64, 64, 0,
                    XCB_WINDOW_CLASS_INPUT_OUTPUT, screen->root_visual, 0, nullptr);
  xcb_map_window(connection, window);
  xcb_flush(connection);

  {
    // VK_KHR_incremental_present where the device has it: the held-back present carries
    // VkPresentRegionsKHR, which must reach the driver with it.
    const bool regions = DeviceHasExtension(VK_KHR_INCREMENTAL_PRESENT_EXTENSION_NAME);
    std::vector<const char*> device_extensions = {VK_KHR_SWAPCHAIN_EXTENSION_NAME};
    if (regions) device_extensions.push_back(VK_KHR_INCREMENTAL_PRESENT_EXTENSION_NAME);
    TimelineRig rig(GetParam(), {VK_KHR_SURFACE_EXTENSION_NAME, VK_KHR_XCB_SURFACE_EXTENSION_NAME},
                    device_extensions);
    ASSERT_TRUE(rig.ok()) << rig.h->error();
    VkXcbSurfaceCreateInfoKHR sci{VK_STRUCTURE_TYPE_XCB_SURFACE_CREATE_INFO_KHR};
    sci.connection = connection;
    sci.window = window;
    VkSurfaceKHR surface = VK_NULL_HANDLE;
    ASSERT_EQ(vkCreateXcbSurfaceKHR(rig.h->instance(), &sci, nullptr, &surface), VK_SUCCESS);
    VkBool32 supported = VK_FALSE;
    vkGetPhysicalDeviceSurfaceSupportKHR(rig.h->physical_device(), rig.h->queue_family(), surface, &supported);
    if (!supported) {
      vkDestroySurfaceKHR(rig.h->instance(), surface, nullptr);
      xcb_disconnect(connection);
      GTEST_SKIP() << "the test queue's family cannot present to an Xvfb window";
    }
    VkSurfaceCapabilitiesKHR caps{};
    ASSERT_EQ(vkGetPhysicalDeviceSurfaceCapabilitiesKHR(rig.h->physical_device(), surface, &caps), VK_SUCCESS);
    uint32_t format_count = 1;
    VkSurfaceFormatKHR format{};
    ASSERT_GE(vkGetPhysicalDeviceSurfaceFormatsKHR(rig.h->physical_device(), surface, &format_count, &format),
              VK_SUCCESS);
    VkSwapchainCreateInfoKHR sc{VK_STRUCTURE_TYPE_SWAPCHAIN_CREATE_INFO_KHR};
    sc.surface = surface;
    sc.minImageCount = std::max(2u, caps.minImageCount);
    if (caps.maxImageCount != 0) sc.minImageCount = std::min(sc.minImageCount, caps.maxImageCount);
    sc.imageFormat = format.format;
    sc.imageColorSpace = format.colorSpace;
    sc.imageExtent = caps.currentExtent.width != UINT32_MAX ? caps.currentExtent : VkExtent2D{64, 64};
    sc.imageArrayLayers = 1;
    sc.imageUsage = VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT;
    sc.imageSharingMode = VK_SHARING_MODE_EXCLUSIVE;
    sc.preTransform = caps.currentTransform;
    sc.compositeAlpha = VK_COMPOSITE_ALPHA_OPAQUE_BIT_KHR;
    for (VkCompositeAlphaFlagBitsKHR a : {VK_COMPOSITE_ALPHA_OPAQUE_BIT_KHR, VK_COMPOSITE_ALPHA_INHERIT_BIT_KHR,
                                          VK_COMPOSITE_ALPHA_PRE_MULTIPLIED_BIT_KHR,
                                          VK_COMPOSITE_ALPHA_POST_MULTIPLIED_BIT_KHR}) {
      if (caps.supportedCompositeAlpha & a) {
        sc.compositeAlpha = a;
        break;
      }
    }
    sc.presentMode = VK_PRESENT_MODE_FIFO_KHR;
    sc.clipped = VK_TRUE;
    VkSwapchainKHR swapchain = VK_NULL_HANDLE;
    ASSERT_EQ(vkCreateSwapchainKHR(rig.device, &sc, nullptr, &swapchain), VK_SUCCESS);
    uint32_t image_count = 0;
    vkGetSwapchainImagesKHR(rig.device, swapchain, &image_count, nullptr);
    std::vector<VkImage> images(image_count);
    vkGetSwapchainImagesKHR(rig.device, swapchain, &image_count, images.data());

    VkSemaphore acquired = rig.Binary(), rendered = rig.Binary(), gate = rig.Timeline();
    uint32_t index = 0;
    ASSERT_EQ(vkAcquireNextImageKHR(rig.device, swapchain, 5 * kSecond, acquired, VK_NULL_HANDLE, &index),
              VK_SUCCESS);
    // The image goes to PRESENT_SRC in a command buffer that waits the acquire and the gate.
    VkCommandBuffer cb = rig.h->BeginCommands();
    VkImageMemoryBarrier to_present{VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER};
    to_present.oldLayout = VK_IMAGE_LAYOUT_UNDEFINED;
    to_present.newLayout = VK_IMAGE_LAYOUT_PRESENT_SRC_KHR;
    to_present.srcQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
    to_present.dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
    to_present.image = images[index];
    to_present.subresourceRange = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1};
    vkCmdPipelineBarrier(cb, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, 0, 0, nullptr,
                         0, nullptr, 1, &to_present);
    ASSERT_EQ(vkEndCommandBuffer(cb), VK_SUCCESS);
    // Parked: gate = 1 is neither signalled nor pending.
    ASSERT_EQ(rig.Submit({{acquired, 0}, {gate, 1}}, {{rendered, 0}}, cb), VK_SUCCESS);

    VkPresentInfoKHR present{VK_STRUCTURE_TYPE_PRESENT_INFO_KHR};
    present.waitSemaphoreCount = 1;
    present.pWaitSemaphores = &rendered;
    present.swapchainCount = 1;
    present.pSwapchains = &swapchain;
    present.pImageIndices = &index;
    VkRectLayerKHR rect{{1, 2}, {3, 4}, 0};
    VkPresentRegionKHR region{1, &rect};
    VkPresentRegionsKHR present_regions{VK_STRUCTURE_TYPE_PRESENT_REGIONS_KHR};
    present_regions.swapchainCount = 1;
    present_regions.pRegions = &region;
    if (regions) present.pNext = &present_regions;
    const auto before = std::chrono::steady_clock::now();
    EXPECT_EQ(vkQueuePresentKHR(rig.queue, &present), VK_SUCCESS);
    const double present_ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - before).count();
    // A present that blocked on the parked work would never return (the gate is signalled
    // below); 2 s, not 100 ms, so that a loaded machine under ThreadSanitizer does not fail it.
    EXPECT_LT(present_ms, 2000.0) << "the present blocked the calling thread on parked work";
    rect = {};  // the application's structs are its own again after the call: the layer copied them
    // Still parked: nothing has reached the driver, the gate is not signalled.
    EXPECT_EQ(rig.Value(gate), 0u);
    std::this_thread::sleep_for(std::chrono::milliseconds(20));

    ASSERT_EQ(rig.Signal(gate, 1), VK_SUCCESS);
    // vkQueueWaitIdle includes parked work: the submission, then the present.
    EXPECT_EQ(vkQueueWaitIdle(rig.queue), VK_SUCCESS);
    for (const Message& m : rig.h->BinderyMessages()) {
      EXPECT_EQ(m.text.find("loses pNext"), std::string::npos) << m.text;
    }
    if (regions && GetParam() == TimelineConfig::kNoTimelineDriver) {
      // The layer below Bindery saw the released present with the application's region.
      void* lib = dlopen(BINDERY_NO_TIMELINE_LIBRARY, RTLD_NOW | RTLD_NOLOAD);
      ASSERT_NE(lib, nullptr);
      auto seen = reinterpret_cast<BinderyNoTimelinePresentRegionsFn>(dlsym(lib, "bindery_no_timeline_present_regions"));
      dlclose(lib);
      ASSERT_NE(seen, nullptr);
      VkRectLayerKHR last{};
      EXPECT_EQ(seen(&last), 1u) << "the held-back present reached the driver without VkPresentRegionsKHR";
      EXPECT_EQ(last.offset.x, 1);
      EXPECT_EQ(last.offset.y, 2);
      EXPECT_EQ(last.extent.width, 3u);
      EXPECT_EQ(last.extent.height, 4u);
    }
    // The swapchain still works: the next image can be acquired and presented directly.
    VkFenceCreateInfo fci{VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
    VkFence fence = VK_NULL_HANDLE;
    ASSERT_EQ(vkCreateFence(rig.device, &fci, nullptr, &fence), VK_SUCCESS);
    uint32_t next_index = 0;
    EXPECT_EQ(vkAcquireNextImageKHR(rig.device, swapchain, 5 * kSecond, VK_NULL_HANDLE, fence, &next_index),
              VK_SUCCESS);
    EXPECT_EQ(vkWaitForFences(rig.device, 1, &fence, VK_TRUE, 5 * kSecond), VK_SUCCESS);
    vkDeviceWaitIdle(rig.device);
    vkDestroyFence(rig.device, fence, nullptr);
    vkFreeCommandBuffers(rig.device, rig.h->command_pool(), 1, &cb);
    vkDestroySwapchainKHR(rig.device, swapchain, nullptr);
    vkDestroySurfaceKHR(rig.h->instance(), surface, nullptr);
    rig.ExpectClean();
  }
  xcb_destroy_window(connection, window);
  xcb_disconnect(connection);
}

INSTANTIATE_TEST_SUITE_P(Configs, TimelinePresent,
                         ::testing::Values(TimelineConfig::kForce, TimelineConfig::kNoTimelineDriver), ConfigName);

}  // namespace
}  // namespace bindery::test
