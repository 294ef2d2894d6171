// What the indirect-bindings capability needs from the instance and the device, its state
// on a device, and the functions it hooks.
//
// SAFETY: until the capability is complete and measured, only `indirect_bindings=force`
// turns it on; `auto` (the default) converts nothing on any device.
#include "bindings/bindings_capability.h"

#include "bindings/bindings_device.h"
#include "bindings/hooks.h"
#include "bindings/limits.h"
#include "chassis/device_editor.h"
#include "chassis/instance_editor.h"

namespace bindery::bindings {
namespace {

const Hook kHooks[] = {
    BINDERY_HOOK(CreateDescriptorSetLayout, nullptr),
    BINDERY_HOOK(DestroyDescriptorSetLayout, nullptr),
    BINDERY_HOOK(CreatePipelineLayout, nullptr),
    BINDERY_HOOK(DestroyPipelineLayout, nullptr),
    BINDERY_HOOK(CreateDescriptorPool, nullptr),
    BINDERY_HOOK(DestroyDescriptorPool, nullptr),
    BINDERY_HOOK(ResetDescriptorPool, nullptr),
    BINDERY_HOOK(AllocateDescriptorSets, nullptr),
    BINDERY_HOOK(FreeDescriptorSets, nullptr),
    BINDERY_HOOK(UpdateDescriptorSets, nullptr),
    BINDERY_HOOK(CreateDescriptorUpdateTemplate, nullptr),
    BINDERY_HOOK(CreateDescriptorUpdateTemplateKHR, nullptr),
    BINDERY_HOOK(DestroyDescriptorUpdateTemplate, nullptr),
    BINDERY_HOOK(DestroyDescriptorUpdateTemplateKHR, nullptr),
    BINDERY_HOOK(UpdateDescriptorSetWithTemplate, nullptr),
    BINDERY_HOOK(UpdateDescriptorSetWithTemplateKHR, nullptr),
    BINDERY_HOOK(CreateShaderModule, nullptr),
    BINDERY_HOOK(DestroyShaderModule, nullptr),
    BINDERY_HOOK(CreateComputePipelines, nullptr),
    BINDERY_HOOK(CreateGraphicsPipelines, nullptr),
    BINDERY_HOOK(CmdBindDescriptorSets, nullptr),
    BINDERY_HOOK(CmdPushConstants, nullptr),
    // Fallback pipelines (fallback.cpp).
    BINDERY_HOOK(CmdBindPipeline, nullptr),
    BINDERY_HOOK(DestroyPipeline, nullptr),
    BINDERY_HOOK(CmdDraw, nullptr),
    BINDERY_HOOK(CmdDrawIndexed, nullptr),
    BINDERY_HOOK(CmdDrawIndirect, nullptr),
    BINDERY_HOOK(CmdDrawIndexedIndirect, nullptr),
    BINDERY_HOOK(CmdDrawIndirectCount, nullptr),
    BINDERY_HOOK(CmdDrawIndexedIndirectCount, nullptr),
    BINDERY_HOOK(CmdDrawIndirectCountKHR, nullptr),
    BINDERY_HOOK(CmdDrawIndexedIndirectCountKHR, nullptr),
    BINDERY_HOOK(CmdDispatch, nullptr),
    BINDERY_HOOK(CmdDispatchBase, nullptr),
    BINDERY_HOOK(CmdDispatchBaseKHR, nullptr),
    BINDERY_HOOK(CmdDispatchIndirect, nullptr),
};

// Physical-device queries: the raised limits (bindings/limits.h).
const Hook kInstanceHooks[] = {
    BINDERY_HOOK(GetPhysicalDeviceProperties, nullptr),
    BINDERY_HOOK(GetPhysicalDeviceProperties2, nullptr),
    BINDERY_HOOK(GetPhysicalDeviceProperties2KHR, nullptr),
};

class Bindings final : public Capability {
 public:
  const char* Name() const override { return "indirect bindings"; }
  HookTable DeviceHooks() const override { return MakeHookTable(kHooks); }
  HookTable InstanceHooks() const override { return MakeHookTable(kInstanceHooks); }

  bool PlanInstance(const Settings& settings, InstanceEditor& editor) const override {
    if (settings.indirect_bindings != Mode::kForce) return false;
    // Under a Vulkan 1.0 application, VK_KHR_buffer_device_address needs these (promoted
    // to 1.1).
    if (editor.api_version() < VK_API_VERSION_1_1) {
      editor.RequestExtension(VK_KHR_GET_PHYSICAL_DEVICE_PROPERTIES_2_EXTENSION_NAME);
      editor.RequestExtension(VK_KHR_DEVICE_GROUP_CREATION_EXTENSION_NAME);
    }
    return true;  // the raised limits
  }

  std::unique_ptr<DevicePlan> PlanDevice(DeviceEditor& editor) const override {
    const Settings& settings = editor.instance().settings;
    // `auto` converts nothing until the capability is complete and measured.
    if (settings.indirect_bindings != Mode::kForce) return nullptr;
    if (const char* why = editor.RequestFeature(DeviceFeature::kBufferDeviceAddress)) {
      BINDERY_LOG(editor.instance().log(), kWarn, "bindings-off",
                  "indirect bindings are off on %s: bufferDeviceAddress: %s", editor.properties().deviceName, why);
      return nullptr;
    }
    auto plan = std::make_unique<BindingsPlan>();
    plan->api_version = editor.api_version();
    plan->shader_int64 = editor.application_features().shaderInt64 == VK_TRUE;
    plan->bounds_checks = editor.application_features().robustBufferAccess == VK_TRUE;
    if (auto* r2 = static_cast<const VkPhysicalDeviceRobustness2FeaturesEXT*>(
            editor.FindApplicationStruct(VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_ROBUSTNESS_2_FEATURES_EXT))) {
      plan->bounds_checks = plan->bounds_checks || r2->robustBufferAccess2 == VK_TRUE;
    }
    plan->convert_uniform_buffers = settings.bindings_convert_ubo;
    plan->dump_dir = settings.bindings_dump_dir;
    editor.tracking().resources = true;
    editor.tracking().commands = true;  // per-command-buffer bind state (fallbacks)
    VkBufferUsageFlags usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT;
    if (plan->convert_uniform_buffers) usage |= VK_BUFFER_USAGE_UNIFORM_BUFFER_BIT;
    editor.tracking().address_rules.push_back({usage, 0});
    return plan;
  }

  std::unique_ptr<CommandData> CreateCommandData(CapabilityDevice&, VkCommandPool) const override {
    return std::make_unique<BindingsCommandData>();
  }

  std::unique_ptr<CapabilityDevice> CreateDevice(DeviceState& device, DevicePlan& p) const override {
    auto bindings = std::make_unique<DeviceBindings>(device, static_cast<const BindingsPlan&>(p), device.Next(slot()));
    BINDERY_LOG(device.log(), kInfo, "bindings", "indirect bindings on %s: addresses as %s, bounds checks %s",
                device.properties.deviceName, bindings->plan.shader_int64 ? "uint64" : "uvec2",
                bindings->plan.bounds_checks ? "on" : "off");
    return bindings;
  }
};

}  // namespace

Capability& BindingsCapability() {
  static Bindings* capability = new Bindings();
  return *capability;
}

DeviceBindings::DeviceBindings(DeviceState& device_state, const BindingsPlan& p, const VkLayerDispatchTable& next_table)
    : device(device_state),
      next(next_table),
      plan(p),
      counters{&device_state.counters.Register("pipelines rewritten"),
               &device_state.counters.Register("fallen back"),
               &device_state.counters.Register("descriptor sets converted"),
               &device_state.counters.Register("argument-block bytes")} {
  max_push_bytes = device_state.properties.limits.maxPushConstantsSize;
  device_state.instance->dispatch.GetPhysicalDeviceMemoryProperties(device_state.physical_device, &memory_properties);
}

DeviceBindings::~DeviceBindings() {
  templates.ForEach([&](VkDescriptorUpdateTemplate, TemplateShadow& t) {
    if (t.native != VK_NULL_HANDLE && next.DestroyDescriptorUpdateTemplate != nullptr) {
      next.DestroyDescriptorUpdateTemplate(device.handle, t.native, nullptr);
    }
  });
  for (VkDescriptorPool p : fallback_pools) next.DestroyDescriptorPool(device.handle, p, nullptr);
  for (VkPipelineLayout l : owned_pipeline_layouts) next.DestroyPipelineLayout(device.handle, l, nullptr);
  for (VkDescriptorSetLayout l : owned_set_layouts) next.DestroyDescriptorSetLayout(device.handle, l, nullptr);
  // Pools the application did not destroy: their argument blocks go with the device.
  pools.ForEach([&](VkDescriptorPool, PoolShadow& pool) {
    if (pool.buffer != VK_NULL_HANDLE) next.DestroyBuffer(device.handle, pool.buffer, nullptr);
    if (pool.memory != VK_NULL_HANDLE) next.FreeMemory(device.handle, pool.memory, nullptr);
  });
}

DeviceBindings& BindingsOf(VkDevice device) {
  return *StateRegistry::Get().FindDevice(device)->State<DeviceBindings>(BindingsCapability().slot());
}

DeviceBindings& BindingsOf(VkCommandBuffer cb) {
  return *StateRegistry::Get().FindDevice(cb)->State<DeviceBindings>(BindingsCapability().slot());
}

}  // namespace bindery::bindings
