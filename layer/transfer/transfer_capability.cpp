// The transfers capability: what it needs from the instance and the device, its state on
// a device, and the functions it hooks.
#include "transfer/transfer_capability.h"

#include <cstddef>
#include <cstring>

#include <vulkan/vk_bindery.h>

#include "chassis/device_editor.h"
#include "chassis/instance_editor.h"
#include "transfer/flush_point_hooks.h"
#include "transfer/hooks.h"
#include "transfer/image_hooks.h"
#include "transfer/passthrough_transfer_hooks.h"
#include "transfer/transfer_device.h"

namespace bindery::transfer {
namespace {

bool KernelsPlanned(const DevicePlan& p) { return static_cast<const TransferPlan&>(p).kernels; }
bool ImageKernelsPlanned(const DevicePlan& p) { return static_cast<const TransferPlan&>(p).image_kernels; }
// Image commands: kernels, and where small writes are coalesced, the flush of crossed writes.
bool ImageCommandsHooked(const DevicePlan& p) { return ImageKernelsPlanned(p) || SmallWritesPlanned(p); }

const Hook kHooks[] = {
    BINDERY_HOOK(CmdFillBuffer, nullptr),
    BINDERY_HOOK(CmdUpdateBuffer, nullptr),
    BINDERY_HOOK(CmdCopyBuffer, KernelsPlanned),
    BINDERY_HOOK(CmdCopyBuffer2, KernelsPlanned),
    BINDERY_HOOK(CmdCopyBuffer2KHR, KernelsPlanned),
    // Where small writes are coalesced: the points that flush them (flush_point_hooks.cpp).
    BINDERY_HOOK(CmdPipelineBarrier, SmallWritesPlanned),
    BINDERY_HOOK(CmdPipelineBarrier2, SmallWritesPlanned),
    BINDERY_HOOK(CmdPipelineBarrier2KHR, SmallWritesPlanned),
    BINDERY_HOOK(CmdWaitEvents, SmallWritesPlanned),
    BINDERY_HOOK(CmdWaitEvents2, SmallWritesPlanned),
    BINDERY_HOOK(CmdWaitEvents2KHR, SmallWritesPlanned),
    BINDERY_HOOK(CmdSetEvent, SmallWritesPlanned),
    BINDERY_HOOK(CmdSetEvent2, SmallWritesPlanned),
    BINDERY_HOOK(CmdSetEvent2KHR, SmallWritesPlanned),
    BINDERY_HOOK(CmdWriteTimestamp, SmallWritesPlanned),
    BINDERY_HOOK(CmdWriteTimestamp2, SmallWritesPlanned),
    BINDERY_HOOK(CmdWriteTimestamp2KHR, SmallWritesPlanned),
    BINDERY_HOOK(CmdBeginQuery, SmallWritesPlanned),
    BINDERY_HOOK(CmdEndQuery, SmallWritesPlanned),
    BINDERY_HOOK(CmdBeginQueryIndexedEXT, SmallWritesPlanned),
    BINDERY_HOOK(CmdEndQueryIndexedEXT, SmallWritesPlanned),
    BINDERY_HOOK(CmdBeginRenderPass, SmallWritesPlanned),
    BINDERY_HOOK(CmdBeginRenderPass2, SmallWritesPlanned),
    BINDERY_HOOK(CmdBeginRenderPass2KHR, SmallWritesPlanned),
    BINDERY_HOOK(CmdBeginRendering, SmallWritesPlanned),
    BINDERY_HOOK(CmdBeginRenderingKHR, SmallWritesPlanned),
    BINDERY_HOOK(CmdExecuteCommands, SmallWritesPlanned),
    BINDERY_HOOK(EndCommandBuffer, SmallWritesPlanned),
    // Transfer commands of other kinds: they flush small writes that waited past a
    // barrier (passthrough_transfer_hooks.cpp).
    BINDERY_HOOK(CmdCopyImage, ImageCommandsHooked),
    BINDERY_HOOK(CmdCopyImage2, ImageCommandsHooked),
    BINDERY_HOOK(CmdCopyImage2KHR, ImageCommandsHooked),
    BINDERY_HOOK(CmdCopyBufferToImage, ImageCommandsHooked),
    BINDERY_HOOK(CmdCopyBufferToImage2, ImageCommandsHooked),
    BINDERY_HOOK(CmdCopyBufferToImage2KHR, ImageCommandsHooked),
    BINDERY_HOOK(CmdCopyImageToBuffer, ImageCommandsHooked),
    BINDERY_HOOK(CmdCopyImageToBuffer2, ImageCommandsHooked),
    BINDERY_HOOK(CmdCopyImageToBuffer2KHR, ImageCommandsHooked),
    BINDERY_HOOK(CmdBlitImage, ImageCommandsHooked),
    BINDERY_HOOK(CmdBlitImage2, ImageCommandsHooked),
    BINDERY_HOOK(CmdBlitImage2KHR, ImageCommandsHooked),
    BINDERY_HOOK(CmdResolveImage, ImageCommandsHooked),
    BINDERY_HOOK(CmdResolveImage2, ImageCommandsHooked),
    BINDERY_HOOK(CmdResolveImage2KHR, ImageCommandsHooked),
    BINDERY_HOOK(CmdClearColorImage, ImageCommandsHooked),
    BINDERY_HOOK(CmdClearDepthStencilImage, SmallWritesPlanned),
    BINDERY_HOOK(CmdCopyQueryPoolResults, SmallWritesPlanned),
    BINDERY_HOOK(CmdWriteBufferMarkerAMD, SmallWritesPlanned),
    BINDERY_HOOK(CmdWriteBufferMarker2AMD, SmallWritesPlanned),
    BINDERY_HOOK(CmdCopyMemoryIndirectNV, SmallWritesPlanned),
    BINDERY_HOOK(CmdCopyMemoryToImageIndirectNV, SmallWritesPlanned),
    // Images kernels can reach (transfer/images.h).
    BINDERY_HOOK(CreateImage, ImageKernelsPlanned),
    BINDERY_HOOK(DestroyImage, ImageKernelsPlanned),
    BINDERY_HOOK(GetDeviceImageMemoryRequirements, ImageKernelsPlanned),
    BINDERY_HOOK(GetDeviceImageMemoryRequirementsKHR, ImageKernelsPlanned),
};

// Image kernels push their views as push descriptors, write through storage views without a
// format, view images with a usage of their own (VkImageViewUsageCreateInfo, 1.1 or
// VK_KHR_maintenance2), and bind back the application's compute descriptor sets after them.
void PlanImageKernels(DeviceEditor& editor, TransferPlan& plan) {
  if (!editor.RequestExtension(VK_KHR_PUSH_DESCRIPTOR_EXTENSION_NAME)) {
    plan.why_no_image_kernels = "the device lacks VK_KHR_push_descriptor";
    return;
  }
  if (editor.api_version() < VK_API_VERSION_1_1 && !(editor.RequestExtension(VK_KHR_MAINTENANCE_1_EXTENSION_NAME) &&
                                                     editor.RequestExtension(VK_KHR_MAINTENANCE_2_EXTENSION_NAME))) {
    plan.why_no_image_kernels = "a Vulkan 1.0 device without VK_KHR_maintenance1 and VK_KHR_maintenance2";
    return;
  }
  if (const char* why = editor.RequestCoreFeature(offsetof(VkPhysicalDeviceFeatures, shaderStorageImageWriteWithoutFormat))) {
    plan.why_no_image_kernels = "shaderStorageImageWriteWithoutFormat is not supported";
    (void)why;
    return;
  }
  editor.tracking().compute_descriptor_sets = true;
  plan.image_kernels = true;
}

class Transfers final : public Capability {
 public:
  const char* Name() const override { return "transfers"; }
  HookTable DeviceHooks() const override { return MakeHookTable(kHooks); }

  bool PlanInstance(const Settings& settings, InstanceEditor& editor) const override {
    // Kernels address buffers through VK_KHR_buffer_device_address under applications
    // older than Vulkan 1.2; under 1.0 that extension needs these two instance extensions
    // (promoted to 1.1).
    if (settings.transfers == Mode::kOff || editor.api_version() >= VK_API_VERSION_1_1) return false;
    editor.RequestExtension(VK_KHR_GET_PHYSICAL_DEVICE_PROPERTIES_2_EXTENSION_NAME);
    editor.RequestExtension(VK_KHR_DEVICE_GROUP_CREATION_EXTENSION_NAME);
    return false;  // no instance-level hooks
  }

  std::unique_ptr<DevicePlan> PlanDevice(DeviceEditor& editor) const override {
    const Settings& settings = editor.instance().settings;
    if (settings.transfers == Mode::kOff) return nullptr;
    auto plan = std::make_unique<TransferPlan>();
    // Our own extension is implemented here: the driver never sees it. Whether the
    // application enabled it decides what VK_WHOLE_SIZE means for aligned fills.
    plan->any_alignment = editor.Enabled(VK_BINDERY_TRANSFER_ANY_ALIGNMENT_EXTENSION_NAME);
    // VK_KHR_copy_memory_indirect's copies are transfer commands newer than the hook table
    // (every transfer command of the headers the layer is built with): with it enabled,
    // small writes never wait past a barrier (transfer/transfer_only_barriers.h).
    plan->cross_barriers = !editor.Enabled("VK_KHR_copy_memory_indirect");
    const auto* group = static_cast<const VkDeviceGroupDeviceCreateInfo*>(
        editor.FindApplicationStruct(VK_STRUCTURE_TYPE_DEVICE_GROUP_DEVICE_CREATE_INFO));
    const uint32_t physical_devices = group != nullptr ? group->physicalDeviceCount : 1;
    plan->device_group = physical_devices > 1;
    editor.HideExtension(VK_BINDERY_TRANSFER_ANY_ALIGNMENT_EXTENSION_NAME);

    TransferStrategy strategy = settings.transfer_strategy;
    if (settings.transfers == Mode::kForce && strategy == TransferStrategy::kAuto) strategy = TransferStrategy::kCompute;
    plan->policy = ChoosePolicy(editor.properties().vendorID, editor.driver_id(), strategy);
    ApplyFillEdges(settings.fill_edges, plan->policy);
    ApplyImageBlits(settings.image_blits, plan->policy);
    ApplyImageResolves(settings.image_resolves, plan->policy);
    if (settings.transfer_push_replay != PushReplay::kAuto) {
      plan->policy.replay_pushes = settings.transfer_push_replay == PushReplay::kOn;
    }
    // Buffer sizes (VK_WHOLE_SIZE fills) and per-command-buffer staging.
    editor.tracking().resources = true;
    editor.tracking().commands = true;
    if (!plan->policy.UsesKernels()) return plan;
    plan->why_no_kernels = DeviceGroupKeepsKernelsOff(physical_devices);
    if (plan->why_no_kernels != nullptr) return plan;

    plan->why_no_kernels = editor.RequestFeature(DeviceFeature::kBufferDeviceAddress);
    if (plan->why_no_kernels != nullptr) return plan;
    if (editor.address_mode() == AddressMode::kExt) {
      // The kernels carry addresses as uvec2 and bitcast them to pointers, which only
      // SPV_KHR_physical_storage_buffer allows (found on the H100); the EXT form the
      // application chose cannot be mixed with the KHR one.
      plan->why_no_kernels = "the application uses VK_EXT_buffer_device_address, whose SPIR-V form cannot carry the "
                             "kernels' addresses";
      return plan;
    }
    plan->kernels = true;
    // The compute pipeline and conditional rendering sent down, to put back after a kernel.
    // The application's pushes only where the driver loses them (Policy::replay_pushes):
    // the kernels push nothing (transfer/kernels.h).
    editor.tracking().command_state = true;
    editor.tracking().push_constants = plan->policy.replay_pushes;
    editor.tracking().address_rules.push_back(
        {VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT, plan->policy.address_min_buffer_size});
    if (plan->policy.UsesImageKernels()) PlanImageKernels(editor, *plan);
    return plan;
  }

  std::unique_ptr<CapabilityDevice> CreateDevice(DeviceState& device, DevicePlan& p) const override {
    const auto& plan = static_cast<const TransferPlan&>(p);
    auto transfers = std::make_unique<DeviceTransfers>(device, plan, device.Next(slot()));
    if (plan.why_no_kernels != nullptr) {
      BINDERY_LOG(device.log(), kInfo, "transfer-kernels",
                  "transfer policy '%s' wants compute kernels, but they are off on this device: bufferDeviceAddress: "
                  "%s; native paths (with edge polyfills) are used instead",
                  plan.policy.name, plan.why_no_kernels);
    } else if (plan.kernels && !transfers->KernelsPossible()) {
      BINDERY_LOG(device.log(), kWarn, "transfer-kernels",
                  "the transfer kernels could not be built on this device; native paths are used instead");
    }
    if (plan.policy.UsesImageKernels() && plan.why_no_kernels == nullptr && !transfers->ImageKernelsPossible()) {
      BINDERY_LOG(device.log(), kInfo, "transfer-image-kernels",
                  "transfer policy '%s' wants image kernels, but they are off on this device: %s; image commands go "
                  "down natively",
                  plan.policy.name,
                  plan.why_no_image_kernels != nullptr ? plan.why_no_image_kernels : "their pipelines could not be built");
    }
    BINDERY_LOG(device.log(), kDebug, "transfer-policy", "transfers on %s: policy '%s', kernels %s",
                device.properties.deviceName, plan.policy.name, transfers->KernelsPossible() ? "on" : "off");
    return transfers;
  }

  std::unique_ptr<CommandData> CreateCommandData(CapabilityDevice& device, VkCommandPool) const override {
    auto& transfers = static_cast<DeviceTransfers&>(device);
    return std::make_unique<TransferCommandData>(transfers.staging, transfers.small_writes());
  }

  void LayerDeviceExtensions(const InstanceState& instance, VkPhysicalDevice,
                             std::vector<VkExtensionProperties>& out) const override {
    if (instance.settings.transfers == Mode::kOff) return;
    VkExtensionProperties ext{};
    std::strncpy(ext.extensionName, VK_BINDERY_TRANSFER_ANY_ALIGNMENT_EXTENSION_NAME, sizeof(ext.extensionName) - 1);
    ext.specVersion = VK_BINDERY_TRANSFER_ANY_ALIGNMENT_SPEC_VERSION;
    out.push_back(ext);
  }
};

}  // namespace

Capability& TransferCapability() {
  static Transfers* capability = new Transfers();
  return *capability;
}

DeviceTransfers::DeviceTransfers(DeviceState& device_state, const TransferPlan& plan,
                                 const VkLayerDispatchTable& next_table)
    : device(device_state),
      next(next_table),
      policy(plan.policy),
      any_alignment(plan.any_alignment),
      cross_barriers(plan.cross_barriers),
      kernels(device_state, next_table),
      staging(device_state, next_table, plan.kernels && device_state.addressing.enabled(),
              device_state.instance->settings.staging_limit, plan.device_group),
      image_kernels(device_state, next_table),
      counters{&device_state.counters.Register("transfers polyfilled"),
               &device_state.counters.Register("passed through"),
               &device_state.counters.Register("transfer kernels"),
               &device_state.counters.Register("edge copies"),
               &device_state.counters.Register("image kernels"),
               &device_state.counters.Register("image native", &image_native_reasons)} {
  // The kernel pipelines are built now, not lazily on the application's recording thread.
  kernels_possible_ = plan.kernels && device_state.addressing.enabled() && device_state.trackers != nullptr &&
                      staging.CreateDirectory() && kernels.Build(staging, TransferCapability().slot());
  if (kernels_possible_ && plan.image_kernels) {
    // Which raw formats can be read (sampled) and written (storage, without a format).
    const InstanceState& instance = *device_state.instance;
    for (uint32_t bytes : {1u, 2u, 4u, 8u, 16u}) {
      VkFormatProperties properties{};
      instance.dispatch.GetPhysicalDeviceFormatProperties(device_state.physical_device, RawFormatForTexelBytes(bytes),
                                                          &properties);
      raw_sampled_[bytes] = (properties.optimalTilingFeatures & VK_FORMAT_FEATURE_SAMPLED_IMAGE_BIT) != 0;
      raw_storage_[bytes] = (properties.optimalTilingFeatures & VK_FORMAT_FEATURE_STORAGE_IMAGE_BIT) != 0;
    }
    image_kernels_possible_ = image_kernels.Build(staging, TransferCapability().slot());
  }
}

DeviceTransfers::~DeviceTransfers() { images.Clear(*this); }

VkFormatFeatureFlags DeviceTransfers::OptimalFeatures(VkFormat format) {
  std::lock_guard<std::mutex> lock(features_mutex_);
  for (const auto& [f, features] : features_) {
    if (f == format) return features;
  }
  VkFormatProperties properties{};
  device.instance->dispatch.GetPhysicalDeviceFormatProperties(device.physical_device, format, &properties);
  features_.emplace_back(format, properties.optimalTilingFeatures);
  return properties.optimalTilingFeatures;
}

void DeviceTransfers::NoteImageFallback(const char* why) {
  counters.image_native->Add();
  image_native_reasons.Add(why);
  {
    std::lock_guard<std::mutex> lock(logged_mutex_);
    for (const char* logged : logged_reasons_) {
      if (logged == why) return;
    }
    logged_reasons_.push_back(why);
  }
  BINDERY_LOG(device.log(), kInfo, "transfer-image-native",
              "an image command that pays as compute kernels went down natively: %s (logged once per reason; the "
              "summary counts them under 'image native')",
              why);
}

const char* DeviceGroupKeepsKernelsOff(uint32_t physical_devices) {
  if (physical_devices <= 1) return nullptr;
  return "the device is a group of several physical devices (its buffer addresses would need "
         "bufferDeviceAddressMultiDevice, the kernels' host-written parameter records one memory instance per "
         "physical device)";
}

void DeviceTransfers::LogQueryFallback() {
  if (query_fallback_logged_.exchange(true)) return;
  BINDERY_LOG(device.log(), kInfo, "transfer-queries",
              "transfers recorded while a query that counts dispatches is active (pipeline statistics with "
              "COMPUTE_SHADER_INVOCATIONS, a performance query, or statistics a secondary inherits) take the "
              "native path there, so the query never counts a transfer kernel (docs/transfers.md)");
}

}  // namespace bindery::transfer
