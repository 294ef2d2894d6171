// What the indirect-bindings capability needs from the instance and the device, its state
// on a device made and torn down (bindings_device.h), and the functions it hooks (hooks.h).
//
// Which layouts convert in each mode is model/policy.h's decision: `force` every one,
// `auto` (the default) every one only on drivers where it was measured to pay, elsewhere
// only layouts beyond a driver limit.
#include "bindings/device/bindings_capability.h"

#include <algorithm>
#include <cstddef>
#include <type_traits>

#include "bindings/model/argument_memory.h"
#include "bindings/device/bindings_device.h"
#include "bindings/device/hooks.h"
#include "bindings/device/limits.h"
#include "bindings/pipelines/native_twin.h"
#include "bindings/model/lookup_cache.h"
#include "chassis/device_editor.h"
#include "chassis/instance_editor.h"
#include "chassis/newer_vulkan.h"
#include "chassis/state.h"
#include "spirv/uniform_descriptor_index.h"

namespace bindery::bindings {
namespace {

// The debug setting bindings_skip leaves groups of hooks out (a device where it does
// converts nothing, so each hook left out would only have passed its call on).
bool Skips(const DevicePlan& p, uint32_t part) { return (static_cast<const BindingsPlan&>(p).skip & part) != 0; }
bool DescriptorHooks(const DevicePlan& p) { return !Skips(p, kSkipDescriptorHooks); }
bool PipelineHooks(const DevicePlan& p) { return !Skips(p, kSkipPipelineHooks); }
bool RecordHooks(const DevicePlan& p) { return !Skips(p, kSkipRecordHooks); }

const Hook kHooks[] = {
    BINDERY_HOOK(CreateDescriptorSetLayout, DescriptorHooks),
    BINDERY_HOOK(DestroyDescriptorSetLayout, DescriptorHooks),
    BINDERY_HOOK(GetDescriptorSetLayoutSupport, DescriptorHooks),
    BINDERY_HOOK(GetDescriptorSetLayoutSupportKHR, DescriptorHooks),
    BINDERY_HOOK(CreatePipelineLayout, DescriptorHooks),
    BINDERY_HOOK(DestroyPipelineLayout, DescriptorHooks),
    BINDERY_HOOK(CreateDescriptorPool, DescriptorHooks),
    BINDERY_HOOK(DestroyDescriptorPool, DescriptorHooks),
    BINDERY_HOOK(ResetDescriptorPool, DescriptorHooks),
    BINDERY_HOOK(AllocateDescriptorSets, DescriptorHooks),
    BINDERY_HOOK(FreeDescriptorSets, DescriptorHooks),
    BINDERY_HOOK(UpdateDescriptorSets, DescriptorHooks),
    BINDERY_HOOK(DestroyBuffer, PipelineHooks),  // empties the buffer lookup caches
    // Layer-owned sets in the functions that name any object (owned_object_hooks.cpp).
    BINDERY_HOOK(SetDebugUtilsObjectNameEXT, DescriptorHooks),
    BINDERY_HOOK(SetDebugUtilsObjectTagEXT, DescriptorHooks),
    BINDERY_HOOK(DebugMarkerSetObjectNameEXT, DescriptorHooks),
    BINDERY_HOOK(DebugMarkerSetObjectTagEXT, DescriptorHooks),
    BINDERY_HOOK(SetPrivateData, DescriptorHooks),
    BINDERY_HOOK(SetPrivateDataEXT, DescriptorHooks),
    BINDERY_HOOK(GetPrivateData, DescriptorHooks),
    BINDERY_HOOK(GetPrivateDataEXT, DescriptorHooks),
    BINDERY_HOOK(DestroyPrivateDataSlot, DescriptorHooks),
    BINDERY_HOOK(DestroyPrivateDataSlotEXT, DescriptorHooks),
    BINDERY_HOOK(CreateDescriptorUpdateTemplate, DescriptorHooks),
    BINDERY_HOOK(CreateDescriptorUpdateTemplateKHR, DescriptorHooks),
    BINDERY_HOOK(DestroyDescriptorUpdateTemplate, DescriptorHooks),
    BINDERY_HOOK(DestroyDescriptorUpdateTemplateKHR, DescriptorHooks),
    BINDERY_HOOK(UpdateDescriptorSetWithTemplate, DescriptorHooks),
    BINDERY_HOOK(UpdateDescriptorSetWithTemplateKHR, DescriptorHooks),
    BINDERY_HOOK(CreateShaderModule, PipelineHooks),
    BINDERY_HOOK(CreateBuffer, PipelineHooks),  // buffers without addresses (native_twin.h)
    BINDERY_HOOK(DestroyShaderModule, PipelineHooks),
    BINDERY_HOOK(CreateComputePipelines, PipelineHooks),
    BINDERY_HOOK(CreateGraphicsPipelines, PipelineHooks),
    BINDERY_HOOK(CmdBindDescriptorSets, RecordHooks),
    BINDERY_HOOK(CmdPushConstants, RecordHooks),
    // Push descriptors (push_descriptor_hooks.cpp): installed where the device has them.
    BINDERY_HOOK(CmdPushDescriptorSetKHR, RecordHooks),
    BINDERY_HOOK(CmdPushDescriptorSetWithTemplateKHR, RecordHooks),
    // VK_KHR_maintenance6 (maintenance6_hooks.cpp): offered under auto, so translated to
    // the 1-commands above once a layout converts.
    BINDERY_HOOK(CmdBindDescriptorSets2KHR, RecordHooks),
    BINDERY_HOOK(CmdPushConstants2KHR, RecordHooks),
    BINDERY_HOOK(CmdPushDescriptorSet2KHR, RecordHooks),
    BINDERY_HOOK(CmdPushDescriptorSetWithTemplate2KHR, RecordHooks),
    // The bind point's state (bind_point_state.h): pipeline binds and every draw and
    // dispatch go through its pre-draw step (draw_hooks.cpp). Installed whatever the
    // policy: under auto a layout beyond a driver limit converts at any time, and its
    // pipelines then need twins and ring roots like any other; until the first layout
    // converts each hook only passes the call on.
    BINDERY_HOOK(CmdBindPipeline, RecordHooks),
    BINDERY_HOOK(DestroyPipeline, PipelineHooks),
    BINDERY_HOOK(CmdDraw, RecordHooks),
    BINDERY_HOOK(CmdDrawIndexed, RecordHooks),
    BINDERY_HOOK(CmdDrawMultiEXT, RecordHooks),
    BINDERY_HOOK(CmdDrawMultiIndexedEXT, RecordHooks),
    BINDERY_HOOK(CmdDrawIndirect, RecordHooks),
    BINDERY_HOOK(CmdDrawIndexedIndirect, RecordHooks),
    BINDERY_HOOK(CmdDrawIndirectByteCountEXT, RecordHooks),
    BINDERY_HOOK(CmdDrawIndirectCount, RecordHooks),
    BINDERY_HOOK(CmdDrawIndexedIndirectCount, RecordHooks),
    BINDERY_HOOK(CmdDrawIndirectCountKHR, RecordHooks),
    BINDERY_HOOK(CmdDrawIndexedIndirectCountKHR, RecordHooks),
    BINDERY_HOOK(CmdDrawIndirectCountAMD, RecordHooks),
    BINDERY_HOOK(CmdDrawIndexedIndirectCountAMD, RecordHooks),
    BINDERY_HOOK(CmdDrawMeshTasksEXT, RecordHooks),
    BINDERY_HOOK(CmdDrawMeshTasksIndirectEXT, RecordHooks),
    BINDERY_HOOK(CmdDrawMeshTasksIndirectCountEXT, RecordHooks),
    BINDERY_HOOK(CmdDrawMeshTasksNV, RecordHooks),
    BINDERY_HOOK(CmdDrawMeshTasksIndirectNV, RecordHooks),
    BINDERY_HOOK(CmdDrawMeshTasksIndirectCountNV, RecordHooks),
    BINDERY_HOOK(CmdDrawClusterHUAWEI, RecordHooks),
    BINDERY_HOOK(CmdDrawClusterIndirectHUAWEI, RecordHooks),
    BINDERY_HOOK(CmdDispatch, RecordHooks),
    BINDERY_HOOK(CmdDispatchBase, RecordHooks),
    BINDERY_HOOK(CmdDispatchBaseKHR, RecordHooks),
    BINDERY_HOOK(CmdDispatchIndirect, RecordHooks),
};

// Physical-device queries: the raised limits (limits.h).
const Hook kInstanceHooks[] = {
    BINDERY_HOOK(GetPhysicalDeviceProperties, nullptr),
    BINDERY_HOOK(GetPhysicalDeviceProperties2, nullptr),
    BINDERY_HOOK(GetPhysicalDeviceProperties2KHR, nullptr),
    // Debug names and tags of layer-owned sets (owned_object_hooks.cpp): the loader calls
    // these down the instance chain.
    Hook{"vkSetDebugUtilsObjectNameEXT", reinterpret_cast<PFN_vkVoidFunction>(&InstanceSetDebugUtilsObjectNameEXT),
         nullptr, false},
    Hook{"vkSetDebugUtilsObjectTagEXT", reinterpret_cast<PFN_vkVoidFunction>(&InstanceSetDebugUtilsObjectTagEXT),
         nullptr, false},
};

class Bindings final : public Capability {
 public:
  const char* Name() const override { return "indirect bindings"; }
  HookTable DeviceHooks() const override { return MakeHookTable(kHooks); }
  HookTable InstanceHooks() const override { return MakeHookTable(kInstanceHooks); }

  bool PlanInstance(const Settings& settings, InstanceEditor& editor) const override {
    // The stores below find the capability's state by its slot (model/device_core.h).
    g_bindings_slot.store(slot(), std::memory_order_relaxed);
    if (settings.indirect_bindings == Mode::kOff) return false;
    // Under a Vulkan 1.0 application, VK_KHR_buffer_device_address needs these (promoted
    // to 1.1).
    if (editor.api_version() < VK_API_VERSION_1_1) {
      editor.RequestExtension(VK_KHR_GET_PHYSICAL_DEVICE_PROPERTIES_2_EXTENSION_NAME);
      editor.RequestExtension(VK_KHR_DEVICE_GROUP_CREATION_EXTENSION_NAME);
    }
    return true;  // the raised limits
  }

  // Where every layout converts, the application holds smaller native layouts, layer-owned
  // set handles and pipeline layouts with a root. These extensions' commands take those
  // objects and the capability does not translate them all, so they are not offered there:
  //   VK_KHR_maintenance6: its descriptor commands are translated to their 1-commands
  //     (maintenance6_hooks.cpp), but not where the layout is a VkPipelineLayoutCreateInfo
  //     in pNext (dynamicPipelineLayout), which every layout converting would make common;
  //   VK_EXT_descriptor_buffer: layout sizes and offsets of converted layouts are wrong;
  //   VK_EXT_shader_object: vkCreateShadersEXT takes set layouts, its shaders are not rewritten;
  //   VK_VALVE_descriptor_set_host_mapping: takes sets (layer-owned handles);
  //   ray tracing (VK_KHR_ray_tracing_pipeline, VK_NV_ray_tracing) and mesh/task shaders
  //     (VK_EXT_mesh_shader, VK_NV_mesh_shader): their pipelines and stages are not
  //     rewritten and the root does not reach them, so a pipeline of theirs on a converting
  //     layout would be half converted (its sets' buffers gone from the native layout).
  //   generated commands (NV, EXT), VK_AMDX_shader_enqueue, VK_HUAWEI_subpass_shading:
  //     draw or dispatch without the pre-draw step (bind_point_state.h).
  // Under auto on a driver where conversion does not pay, only layouts beyond the driver's
  // limits convert (invalid natively, so no valid use of these extensions meets them).
  void HiddenDeviceExtensions(const InstanceState& instance, VkPhysicalDevice pd,
                              std::vector<const char*>& hidden) const override {
    if (!ConvertsEveryLayout(instance, pd)) return;
    hidden.push_back(kKhrMaintenance6);
    hidden.push_back(VK_EXT_DESCRIPTOR_BUFFER_EXTENSION_NAME);
    hidden.push_back(kExtShaderObject);
    hidden.push_back(VK_VALVE_DESCRIPTOR_SET_HOST_MAPPING_EXTENSION_NAME);
    hidden.push_back(VK_KHR_RAY_TRACING_PIPELINE_EXTENSION_NAME);
    hidden.push_back(VK_NV_RAY_TRACING_EXTENSION_NAME);
    hidden.push_back(VK_EXT_MESH_SHADER_EXTENSION_NAME);
    hidden.push_back(VK_NV_MESH_SHADER_EXTENSION_NAME);
    // Commands that draw or dispatch without going through the pre-draw step (generated
    // commands, work graphs, subpass shading: bind points or binds it does not follow).
    hidden.push_back("VK_NV_device_generated_commands");
    hidden.push_back("VK_EXT_device_generated_commands");
    hidden.push_back("VK_AMDX_shader_enqueue");
    hidden.push_back("VK_HUAWEI_subpass_shading");
  }

  // lavapipe takes a dynamically uniform descriptor-array index from a fixed SIMD lane,
  // active or not, which a uniform buffer read through its address leaves at 0 there
  // (spirv/uniform_descriptor_index.h): where it has subgroup ballot, rewritten fragment
  // and compute modules broadcast such indices from the first active lane.
  static uint32_t BroadcastIndexModels(const DeviceEditor& editor) {
    if (editor.driver_id() != VK_DRIVER_ID_MESA_LLVMPIPE || editor.api_version() < VK_API_VERSION_1_1) return 0;
    PFN_vkGetPhysicalDeviceProperties2 properties2 = editor.instance().Properties2();
    if (properties2 == nullptr) return 0;
    VkPhysicalDeviceSubgroupProperties subgroup{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_PROPERTIES};
    VkPhysicalDeviceProperties2 properties{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2, &subgroup};
    properties2(editor.physical_device(), &properties);
    if ((subgroup.supportedOperations & VK_SUBGROUP_FEATURE_BALLOT_BIT) == 0) return 0;
    uint32_t models = 0;
    if ((subgroup.supportedStages & VK_SHADER_STAGE_FRAGMENT_BIT) != 0) models |= 1u << spv::ExecutionModelFragment;
    if ((subgroup.supportedStages & VK_SHADER_STAGE_COMPUTE_BIT) != 0) models |= 1u << spv::ExecutionModelGLCompute;
    return models;
  }

  // The parts the debug setting bindings_skip leaves out: only where the policy converts
  // no more than the layouts beyond the driver's limits (PlanDevice then stops those too
  // unless `features` is all that is left out), never under force, whose conversions need
  // every part.
  static uint32_t SkippedParts(const DeviceEditor& editor, const BindingsPolicy& policy) {
    const uint32_t skip = editor.instance().settings.bindings_skip;
    if (skip == 0) return 0;
    if (policy.convert_everything) {
      BINDERY_LOG(editor.instance().log(), kWarn, "bindings-skip",
                  "bindings_skip is ignored on %s: indirect bindings convert every layout there (%s)",
                  editor.properties().deviceName, policy.name);
      return 0;
    }
    BINDERY_LOG(editor.instance().log(), kInfo, "bindings-skip",
                "bindings_skip 0x%x on %s (a debug setting): those parts of indirect bindings are left out%s", skip,
                editor.properties().deviceName,
                (skip & ~uint32_t{kSkipFeatures}) != 0 ? " and no layout converts" : "");
    return skip;
  }

  std::unique_ptr<DevicePlan> PlanDevice(DeviceEditor& editor) const override {
    const Settings& settings = editor.instance().settings;
    const BindingsPolicy policy =
        ChooseBindingsPolicy(settings.indirect_bindings, editor.properties().vendorID, editor.driver_id());
    if (!policy.convert_everything && !policy.convert_over_limits) return nullptr;
    if (const char* why = editor.RequestFeature(DeviceFeature::kBufferDeviceAddress)) {
      // Asked for explicitly: a warning; under auto the application loses nothing it had.
      if (settings.indirect_bindings == Mode::kForce) {
        BINDERY_LOG(editor.instance().log(), kWarn, "bindings-off",
                    "indirect bindings are off on %s: bufferDeviceAddress: %s", editor.properties().deviceName, why);
      } else {
        BINDERY_LOG(editor.instance().log(), kInfo, "bindings-off",
                    "indirect bindings are off on %s: bufferDeviceAddress: %s", editor.properties().deviceName, why);
      }
      return nullptr;
    }
    auto plan = std::make_unique<BindingsPlan>();
    plan->policy = policy;
    plan->skip = SkippedParts(editor, policy);
    if ((plan->skip & ~uint32_t{kSkipFeatures}) != 0) plan->policy.convert_over_limits = false;
    const bool features = (plan->skip & kSkipFeatures) == 0;
    plan->native_limits = editor.properties().limits;
    plan->api_version = editor.api_version();
    // 64-bit offsets and sizes (buffers beyond 4 GiB: spirv/pointer_pass_wide_indices.cpp,
    // and 8/16-bit storage-only buffers, which a uvec2 address cannot reach) need
    // shaderInt64: where the device has it, the layer enables it itself, below the
    // application (whose features query and create info stay its own), so an unchanged
    // program reaches every byte of its buffers.
    plan->shader_int64 =
        features && editor.RequestCoreFeature(offsetof(VkPhysicalDeviceFeatures, shaderInt64)) == nullptr;
    // 8/16-bit values a module declares for storage only are merged and zeroed as they are
    // where these exist (spirv::RewriteOptions::float16): widened to 32 bits and back, a
    // 16-bit float's signalling NaN came back quiet (ggml's quantized block copies).
    plan->shader_int16 =
        features && editor.RequestCoreFeature(offsetof(VkPhysicalDeviceFeatures, shaderInt16)) == nullptr;
    plan->shader_float16 = features && editor.RequestFeature(DeviceFeature::kShaderFloat16) == nullptr;
    plan->shader_int8 = features && editor.RequestFeature(DeviceFeature::kShaderInt8) == nullptr;
    plan->bounds_checks = editor.application_features().robustBufferAccess == VK_TRUE;
    if (auto* r2 = static_cast<const VkPhysicalDeviceRobustness2FeaturesEXT*>(
            editor.FindApplicationStruct(VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_ROBUSTNESS_2_FEATURES_EXT))) {
      plan->bounds_checks = plan->bounds_checks || r2->robustBufferAccess2 == VK_TRUE;
      plan->null_descriptor = r2->nullDescriptor == VK_TRUE;  // null records read 0 (robustness.h)
    }
    plan->convert_uniform_buffers = settings.bindings_convert_ubo;
    plan->dump_dir = settings.bindings_dump_dir;
    plan->validate = settings.bindings_validate;
    plan->records_in_root = settings.bindings_records_in_root;
    plan->restrict_pointers = settings.bindings_restrict;
    plan->root_split = settings.bindings_root_split == Settings::RootSplit::kOn ||
                       (settings.bindings_root_split == Settings::RootSplit::kAuto &&
                        editor.properties().limits.maxPushConstantsSize >= 256);
    plan->broadcast_descriptor_index_models = BroadcastIndexModels(editor);
    if (editor.driver_id() == VK_DRIVER_ID_MESA_LLVMPIPE) plan->lane_zero_descriptor_index_models = ~0u;
    editor.tracking().resources = (plan->skip & kSkipResources) == 0;
    // per-command-buffer state: binds (fallbacks), the root ring
    editor.tracking().commands = (plan->skip & kSkipCommands) == 0;
    VkBufferUsageFlags usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT;
    if (plan->convert_uniform_buffers) usage |= VK_BUFFER_USAGE_UNIFORM_BUFFER_BIT;
    if ((plan->skip & kSkipAddresses) == 0) editor.tracking().address_rules.push_back({usage, 0});
    return plan;
  }

  std::unique_ptr<CommandData> CreateCommandData(CapabilityDevice& device, VkCommandPool) const override {
    return std::make_unique<BindingsCommandData>(static_cast<DeviceBindings&>(device).ring_pool);
  }

  std::unique_ptr<CapabilityDevice> CreateDevice(DeviceState& device, DevicePlan& p) const override {
    auto bindings = std::make_unique<DeviceBindings>(device, static_cast<const BindingsPlan&>(p), device.Next(slot()));
    bindings->slot = slot();
    // Another device holds its slot: the hooks take the registry's lookup instead.
    if (g_bindings_by_key.Insert(DispatchKey(device.handle), bindings.get())) bindings->index_key = DispatchKey(device.handle);
    const VkPhysicalDeviceMemoryProperties& memory = bindings->memory_properties;
    const uint32_t argument_type = ChooseArgumentMemoryType(memory, ~0u);
    const bool argument_local = argument_type != UINT32_MAX &&
                                (memory.memoryTypes[argument_type].propertyFlags & VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT) != 0;
    BINDERY_LOG(device.log(), kInfo, "bindings",
                "indirect bindings on %s (%s): addresses as %s, bounds checks %s, argument blocks in %s memory (type %u)",
                device.properties.deviceName, bindings->plan.policy.name,
                bindings->plan.shader_int64 ? "uint64" : "uvec2", bindings->plan.bounds_checks     ? "on"
                : bindings->plan.null_descriptor ? "on (null descriptors)"
                                                 : "off",
                argument_local ? "device-local" : "system", argument_type);
    return bindings;
  }
};

}  // namespace

Capability& BindingsCapability() {
  static Bindings* capability = new Bindings();
  return *capability;
}

DeviceBindings::DeviceBindings(DeviceState& device_state, const BindingsPlan& p, const VkLayerDispatchTable& next_table)
    : RecordStore(device_state, p, next_table) {
  // The reserved set's layout: made once, so every pipeline layout with a ring root names
  // the same one (and every ring block's set can be bound with any of them).
  const VkDescriptorSetLayoutBinding root{0, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER_DYNAMIC, 1, VK_SHADER_STAGE_ALL, nullptr};
  VkDescriptorSetLayoutCreateInfo info{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO};
  info.bindingCount = 1;
  info.pBindings = &root;
  if ((p.skip & kSkipRootLayout) != 0 || ring_alignment > kRingRootBytes ||
      next.CreateDescriptorSetLayout(device.handle, &info, nullptr, &root_set_layout) != VK_SUCCESS) {
    root_set_layout = VK_NULL_HANDLE;
  }
}

DeviceBindings::~DeviceBindings() {
  if (index_key != nullptr) g_bindings_by_key.Erase(index_key);
  // Ring-root layout copies the application's leftover layouts and pipelines still hold
  // go while the device and the next table are there (RingLayoutCopy destroys its own).
  ring_pipelines.ForEach([](VkPipeline, RingPipeline& p) { p.keep_copy.reset(); });
  pipeline_layouts.ForEach([](VkPipelineLayout, PipelineLayoutShadow& l) { l.ring_copy.reset(); });
  rewrites.ForEach([&](const CachedRewrite& r) {
    if (r.driver_module != VK_NULL_HANDLE) next.DestroyShaderModule(device.handle, r.driver_module, nullptr);
  });
  twins.ForEach([&](VkPipeline, NativeTwin& t) {
    if (t.pipeline != VK_NULL_HANDLE) next.DestroyPipeline(device.handle, t.pipeline, nullptr);
  });
  InvalidateLookupCaches();  // a later device may reuse this one's address and handles
  templates.ForEach([&](VkDescriptorUpdateTemplate, TemplateShadow& t) {
    if (t.native != VK_NULL_HANDLE) t.destroy(device.handle, t.native, nullptr);
    if (t.full != VK_NULL_HANDLE) t.destroy(device.handle, t.full, nullptr);
  });
  for (const RetiredTemplate& t : retired_templates) t.destroy(device.handle, t.full, nullptr);
  for (VkDescriptorPool p : fallback_pools) next.DestroyDescriptorPool(device.handle, p, nullptr);
  for (VkDescriptorPool p : fallback_uab_pools) next.DestroyDescriptorPool(device.handle, p, nullptr);
  for (VkPipelineLayout l : owned_pipeline_layouts) next.DestroyPipelineLayout(device.handle, l, nullptr);
  for (VkDescriptorSetLayout l : owned_set_layouts) next.DestroyDescriptorSetLayout(device.handle, l, nullptr);
  // The ring's blocks (and their reserved sets) go with ring_pool, after this.
  if (root_set_layout != VK_NULL_HANDLE) next.DestroyDescriptorSetLayout(device.handle, root_set_layout, nullptr);
  // Pools the application did not destroy: their argument blocks and set arenas go with
  // the device (the blocks straight to the layer below the stack: the tracking stage,
  // which hooks buffer and memory destruction, has dropped its trackers by now).
  pools.ForEach([&](VkDescriptorPool, PoolShadow& pool) {
    if (pool.slots != nullptr) ReleaseOwnedArena(pool.slots, pool.arena_bytes);
    if (pool.buffer != VK_NULL_HANDLE) device.driver.DestroyBuffer(device.handle, pool.buffer, nullptr);
    if (pool.memory != VK_NULL_HANDLE) device.driver.FreeMemory(device.handle, pool.memory, nullptr);
  });
}

}  // namespace bindery::bindings
