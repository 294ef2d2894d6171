// The timeline capability: where it runs, what it hides from the driver, and the
// functions it hooks. OFF-safe: with `auto` on a driver that has timelines (or an
// application that does not enable the feature) PlanDevice returns nullptr and not one
// timeline hook is installed on the device.
#include "timeline/timeline_capability.h"

#include <cstring>

#include "chassis/device_editor.h"
#include "timeline/exposure.h"
#include "timeline/hooks.h"
#include "timeline/timeline_device.h"

namespace bindery::timeline {
namespace {

const Hook kDeviceHooks[] = {
    BINDERY_HOOK(CreateSemaphore, nullptr),
    BINDERY_HOOK(DestroySemaphore, nullptr),
    BINDERY_PROVIDED_HOOK(GetSemaphoreCounterValue, nullptr),
    BINDERY_PROVIDED_HOOK(GetSemaphoreCounterValueKHR, nullptr),
    BINDERY_PROVIDED_HOOK(WaitSemaphores, nullptr),
    BINDERY_PROVIDED_HOOK(WaitSemaphoresKHR, nullptr),
    BINDERY_PROVIDED_HOOK(SignalSemaphore, nullptr),
    BINDERY_PROVIDED_HOOK(SignalSemaphoreKHR, nullptr),
    BINDERY_HOOK(QueueSubmit, nullptr),
    BINDERY_HOOK(QueueSubmit2, nullptr),
    BINDERY_HOOK(QueueSubmit2KHR, nullptr),
    BINDERY_HOOK(QueueBindSparse, nullptr),
    BINDERY_HOOK(QueuePresentKHR, nullptr),
    BINDERY_HOOK(AcquireNextImageKHR, nullptr),
    BINDERY_HOOK(AcquireNextImage2KHR, nullptr),
    BINDERY_HOOK(QueueWaitIdle, nullptr),
    BINDERY_HOOK(DeviceWaitIdle, nullptr),
    BINDERY_HOOK(WaitForFences, nullptr),
    BINDERY_HOOK(GetFenceStatus, nullptr),
    BINDERY_HOOK(GetSemaphoreFdKHR, nullptr),
    BINDERY_HOOK(ImportSemaphoreFdKHR, nullptr),
    BINDERY_HOOK(GetFenceFdKHR, nullptr),
    BINDERY_HOOK(DestroyFence, nullptr),
};

const Hook kInstanceHooks[] = {
    BINDERY_HOOK(GetPhysicalDeviceFeatures2, nullptr),
    BINDERY_HOOK(GetPhysicalDeviceFeatures2KHR, nullptr),
    BINDERY_HOOK(GetPhysicalDeviceProperties2, nullptr),
    BINDERY_HOOK(GetPhysicalDeviceProperties2KHR, nullptr),
    BINDERY_HOOK(GetPhysicalDeviceExternalSemaphoreProperties, nullptr),
    BINDERY_HOOK(GetPhysicalDeviceExternalSemaphorePropertiesKHR, nullptr),
};

class Timelines final : public Capability {
 public:
  const char* Name() const override { return "timeline"; }
  HookTable DeviceHooks() const override { return MakeHookTable(kDeviceHooks); }
  HookTable InstanceHooks() const override { return MakeHookTable(kInstanceHooks); }

  bool PlanInstance(const Settings& settings, InstanceEditor&) const override {
    return settings.timeline != Mode::kOff;
  }

  std::unique_ptr<DevicePlan> PlanDevice(DeviceEditor& editor) const override {
    const InstanceState& instance = editor.instance();
    if (!EmulatesOn(instance, editor.physical_device())) return nullptr;
    // An application that did not enable the feature cannot use timelines: stay off.
    if (!editor.FeatureEnabledByApplication(DeviceFeature::kTimelineSemaphore)) return nullptr;
    if (const char* why = editor.HideFeature(DeviceFeature::kTimelineSemaphore)) {
      BINDERY_LOG(instance.logger ? *instance.logger : FallbackLogger(), kError, "timeline-plan",
                  "timeline emulation is off on this device: %s; the driver gets the application's request", why);
      return nullptr;
    }
    auto plan = std::make_unique<TimelinePlan>();
    plan->host_wait_spin_ns = DefaultHostWaitSpinNs(editor.driver_id());
    return plan;
  }

  std::unique_ptr<CapabilityDevice> CreateDevice(DeviceState& device, DevicePlan& plan) const override {
    BINDERY_LOG(device.log(), kInfo, "timeline", "timeline semaphores emulated on %s (timeline=%s)",
                device.properties.deviceName,
                device.instance->settings.timeline == Mode::kForce ? "force" : "auto");
    return std::make_unique<DeviceTimelines>(device, static_cast<TimelinePlan&>(plan), device.Next(slot()));
  }

  void LayerDeviceExtensions(const InstanceState& instance, VkPhysicalDevice physical_device,
                             std::vector<VkExtensionProperties>& out) const override {
    // Only where the layer emulates timelines on this device (auto over a driver that has
    // them passes through: the layer does not implement the extension there).
    if (!EmulatesOn(instance, physical_device)) return;
    VkExtensionProperties ext{};
    std::strncpy(ext.extensionName, VK_KHR_TIMELINE_SEMAPHORE_EXTENSION_NAME, sizeof(ext.extensionName) - 1);
    ext.specVersion = VK_KHR_TIMELINE_SEMAPHORE_SPEC_VERSION;
    out.push_back(ext);
  }
};

}  // namespace

Capability& TimelineCapability() {
  static Timelines* capability = new Timelines();
  return *capability;
}

}  // namespace bindery::timeline
