// The emulated timeline's host waits poll their fences before blocking only where that was
// measured to pay: NVIDIA's proprietary driver (the H100's round trip, docs/timeline.md).
#include <gtest/gtest.h>

#include "timeline/timeline_device.h"

namespace bindery::timeline {
namespace {

TEST(TimelineHostWaitSpin, PollsFiftyMicrosecondsOnlyOnNvidiasDriver) {
  EXPECT_EQ(DefaultHostWaitSpinNs(VK_DRIVER_ID_NVIDIA_PROPRIETARY), 50'000u);
  for (VkDriverId other : {VK_DRIVER_ID_MESA_LLVMPIPE, VK_DRIVER_ID_MESA_RADV, VK_DRIVER_ID_INTEL_OPEN_SOURCE_MESA,
                           VK_DRIVER_ID_AMD_PROPRIETARY, VK_DRIVER_ID_MESA_NVK, static_cast<VkDriverId>(0)}) {
    EXPECT_EQ(DefaultHostWaitSpinNs(other), 0u) << other;
  }
}

}  // namespace
}  // namespace bindery::timeline
