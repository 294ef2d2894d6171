// DeviceTimelines, exports of payloads that parked work is to signal. A sync-fd (or any
// copy-transference) export needs a signal operation the driver has; while the work that
// signals the fence or binary semaphore is parked the driver was never asked to signal it,
// so the export waits until the submit thread has sent that work down.
#include "timeline/timeline_device.h"

namespace bindery::timeline {
namespace {

// How long one look waits for a change before looking again (a release always bumps the
// change signal; this only bounds a missed wake-up).
constexpr uint64_t kLookNs = 100'000'000;

}  // namespace

template <typename StillParked>
static VkResult WaitSentDown(DeviceTimelines& t, StillParked still_parked, const char* call, const char* what) {
  bool told = false;
  for (;;) {
    const uint64_t seen = t.Generation();
    if (!still_parked()) return VK_SUCCESS;
    if (t.lost()) {
      BINDERY_LOG(t.device.log(), kError, "timeline-external",
                  "%s: the %s belongs to parked work dropped by a device loss; nothing to export", call, what);
      return VK_ERROR_DEVICE_LOST;
    }
    if (!told) {
      told = true;
      BINDERY_LOG(t.device.log(), kInfo, "timeline-external",
                  "%s: the %s is signalled by work parked behind an unsignalled timeline wait; the export waits "
                  "until that work goes down",
                  call, what);
    }
    t.WaitChange(seen, kLookNs);
  }
}

VkResult DeviceTimelines::WaitFenceSentDown(VkFence fence, const char* call) {
  return WaitSentDown(*this, [&] { return FenceParked(fence); }, call, "fence");
}

VkResult DeviceTimelines::WaitBinarySentDown(VkSemaphore semaphore, const char* call) {
  return WaitSentDown(*this, [&] { return BinaryParked(semaphore); }, call, "semaphore");
}

}  // namespace bindery::timeline
