// A small Vulkan harness for integration tests and benchmarks: one instance + device on
// the first physical device (lavapipe in CI), with VK_LAYER_bindery enabled by name and
// VK_LAYER_KHRONOS_validation *below* it (listed after it), synchronization validation
// on, and a messenger that captures every message so tests can fail on any validation
// warning or error.
#pragma once

#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

#include <vulkan/vulkan.h>

namespace bindery::test {

struct HarnessOptions {
  std::vector<std::string> layers_above;  // extra layers above bindery (closest to the app)
  bool bindery = true;     // enable VK_LAYER_bindery by name (closest to the app but for layers_above)
  bool validation = true;  // enable VK_LAYER_KHRONOS_validation below every other layer
  std::vector<std::string> layers_between;  // extra layers below bindery, above validation
  std::vector<std::string> layers_below;    // extra layers below validation (a stand-in driver)
  const void* instance_pnext = nullptr;     // appended to the instance create chain
  const void* device_pnext = nullptr;       // device create chain (before the harness's own)
  uint32_t api_version = VK_API_VERSION_1_3;
  std::vector<const char*> instance_extensions;  // besides VK_EXT_debug_utils (e.g. surface extensions)
  std::vector<const char*> device_extensions;
  // Enabled where the physical device offers them (device_extension_enabled() says which).
  std::vector<const char*> optional_device_extensions;
  // The queue family of the device's (first) queue; UINT32_MAX: the first family with
  // every bit of queue_flags.
  uint32_t queue_family = UINT32_MAX;
  VkQueueFlags queue_flags = VK_QUEUE_COMPUTE_BIT;
  // Queues the device gets (tests across queues): from the chosen family while it has
  // enough, else one more from each other family with queue_flags. Fewer where the device
  // has fewer (queue_count() says how many: a test skips on that, the harness does not fail).
  uint32_t queue_count = 1;
  const VkPhysicalDeviceFeatures* enabled_features = nullptr;  // VkDeviceCreateInfo::pEnabledFeatures
  // Create the device as a device group of its one physical device (VkDeviceGroupDeviceCreateInfo).
  bool device_group = false;
};

struct Message {
  VkDebugUtilsMessageSeverityFlagBitsEXT severity;
  std::string id;
  std::string text;
};

struct HostBuffer {
  VkBuffer buffer = VK_NULL_HANDLE;
  VkDeviceMemory memory = VK_NULL_HANDLE;
  void* mapped = nullptr;
  VkDeviceSize size = 0;
};

struct ComputeKernel {
  VkShaderModule module = VK_NULL_HANDLE;
  VkDescriptorSetLayout set_layout = VK_NULL_HANDLE;
  VkPipelineLayout layout = VK_NULL_HANDLE;
  VkPipeline pipeline = VK_NULL_HANDLE;
};

class VkHarness {
 public:
  explicit VkHarness(const HarnessOptions& options = {});
  ~VkHarness();
  VkHarness(const VkHarness&) = delete;
  VkHarness& operator=(const VkHarness&) = delete;

  bool ok() const { return error_.empty(); }
  const std::string& error() const { return error_; }

  VkInstance instance() const { return instance_; }
  VkPhysicalDevice physical_device() const { return physical_; }
  VkDevice device() const { return device_; }
  VkQueue queue() const { return queue_; }
  uint32_t queue_family() const { return queue_family_; }
  VkCommandPool command_pool() const { return pool_; }
  // Whether the device was created with `name` (asked for, or optional and offered).
  bool device_extension_enabled(const char* name) const;
  // Every queue the device got (queue_at(0) == queue()), its family and a command pool of it.
  uint32_t queue_count() const { return static_cast<uint32_t>(queues_.size()); }
  VkQueue queue_at(uint32_t i) const { return queues_[i].queue; }
  uint32_t queue_family_at(uint32_t i) const { return queues_[i].family; }
  VkCommandPool command_pool_at(uint32_t i) const { return queues_[i].pool; }

  // Every captured message; validation problems are warnings/errors that come from
  // neither Bindery ("BINDERY-*") nor the loader's own chatter.
  std::vector<Message> Messages() const;
  std::vector<Message> ValidationProblems() const;
  std::vector<Message> BinderyMessages() const;
  // The text of the layer's last per-device summary (BINDERY-summary, printed at
  // vkDestroyDevice with log_level=info); "" if none came.
  std::string BinderySummary() const;
  static std::string Format(const std::vector<Message>& messages);

  // A buffer on host-visible, coherent memory, mapped; empty when it could not be made.
  // `export_handles`: the memory is exportable as those handle types (external memory).
  HostBuffer CreateHostBuffer(VkDeviceSize size, VkBufferUsageFlags usage,
                              VkExternalMemoryHandleTypeFlags export_handles = 0);
  void Destroy(HostBuffer& buffer);
  // `set_bindings` storage buffers in set 0, optional push-constant bytes.
  ComputeKernel CreateKernel(const uint32_t* spirv, size_t spirv_bytes, uint32_t set_bindings,
                             uint32_t push_constant_bytes = 0);
  void Destroy(ComputeKernel& kernel);
  // A descriptor set for `kernel` with buffers[i] (whole range) at binding i, from a pool
  // the harness owns and frees with the device.
  VkDescriptorSet AllocateStorageSet(const ComputeKernel& kernel, const std::vector<VkBuffer>& buffers);

  // Destroys the device early (tests that check what the layer says at device destruction).
  void DestroyDevice();

  // A one-time command buffer of the pool of queue `queue_index`'s family, begun.
  VkCommandBuffer BeginCommands(uint32_t queue_index = 0);
  // Ends, submits, waits for the queue to idle and frees the command buffer.
  VkResult SubmitAndWait(VkCommandBuffer cb);
  // Ends, submits on queue `queue_index` and frees `cb` (begun by BeginCommands(queue_index)).
  VkResult SubmitAndWait(VkCommandBuffer cb, uint32_t queue_index);

 private:
  static VKAPI_ATTR VkBool32 VKAPI_CALL Callback(VkDebugUtilsMessageSeverityFlagBitsEXT severity,
                                                 VkDebugUtilsMessageTypeFlagsEXT types,
                                                 const VkDebugUtilsMessengerCallbackDataEXT* data, void* user);
  uint32_t FindMemoryType(uint32_t type_bits, VkMemoryPropertyFlags flags) const;

  std::string error_;
  VkInstance instance_ = VK_NULL_HANDLE;
  VkDebugUtilsMessengerEXT messenger_ = VK_NULL_HANDLE;
  VkPhysicalDevice physical_ = VK_NULL_HANDLE;
  VkDevice device_ = VK_NULL_HANDLE;
  VkQueue queue_ = VK_NULL_HANDLE;
  uint32_t queue_family_ = 0;
  VkCommandPool pool_ = VK_NULL_HANDLE;
  struct QueueSlot {
    VkQueue queue;
    uint32_t family;
    VkCommandPool pool;  // one per family, shared by that family's queues
  };
  std::vector<QueueSlot> queues_;
  std::vector<uint32_t> families_;  // distinct families with queues (buffers are shared by all)
  VkDescriptorPool descriptor_pool_ = VK_NULL_HANDLE;
  std::vector<std::string> device_extensions_;  // enabled at vkCreateDevice
  mutable std::mutex messages_mutex_;
  std::vector<Message> messages_;
};

// A counter of a summary line ("pipelines rewritten 2, ..." -> 2 for "pipelines
// rewritten"); ~0 when the summary does not name it.
uint64_t SummaryCounter(const std::string& summary, const std::string& name);

}  // namespace bindery::test
