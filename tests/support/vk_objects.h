// The Vulkan objects every test builds, one call each: set layouts, pipeline layouts,
// shader modules, compute pipelines (from SPIR-V compiled from GLSL at build time,
// bindery_embed_shader), descriptor pools, sets and buffer writes, and the barrier that
// makes device writes visible to a host read-back. Each Create* returns VK_NULL_HANDLE
// (or the driver's error) on failure, so the test decides what a failure means; an
// ObjectBag destroys what a test hands it, in reverse order.
//
// Together with vk_harness.h (instance and device with validation below the layer and a
// message monitor, host-visible buffers, one-time command buffers, submit and wait) this
// is the test framework (docs/testing.md).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include <vulkan/vulkan.h>

namespace bindery::test {

// Specialization constants: (constant id, 32-bit value) pairs.
using SpecConstants = std::vector<std::pair<uint32_t, uint32_t>>;
// Descriptor counts of a pool, per type.
using PoolCounts = std::map<VkDescriptorType, uint32_t>;
// The compute-stage descriptor bindings of a pipeline: set -> binding -> type and count.
struct BindingSlot {
  VkDescriptorType type = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
  uint32_t count = 0;
};
using SetBindings = std::map<uint32_t, std::map<uint32_t, BindingSlot>>;

class ObjectBag;

VkDescriptorSetLayout CreateSetLayout(VkDevice device, const std::vector<VkDescriptorSetLayoutBinding>& bindings,
                                      VkDescriptorSetLayoutCreateFlags flags = 0);
// One layout per set 0..last (an empty layout where a set has no binding), kept in `bag`;
// empty when one could not be created.
std::vector<VkDescriptorSetLayout> CreateSetLayouts(VkDevice device, const SetBindings& sets, ObjectBag& bag);
// The descriptors of every set, per type (for a pool holding one of each set).
PoolCounts CountDescriptors(const SetBindings& sets);
// `push_bytes` of push constants at offset 0 for `push_stages` (none when 0).
VkPipelineLayout CreatePipelineLayout(VkDevice device, const std::vector<VkDescriptorSetLayout>& set_layouts,
                                      uint32_t push_bytes = 0,
                                      VkShaderStageFlags push_stages = VK_SHADER_STAGE_COMPUTE_BIT);
VkShaderModule CreateShaderModule(VkDevice device, const uint32_t* code, size_t bytes);
// The create infos, for tests that make the object through a particular entry point or
// chain more to it: `code` is SPIR-V of `bytes` bytes; the pipeline is one compute stage
// (`entry_point` of `module`) in `layout`.
VkShaderModuleCreateInfo ShaderModuleInfo(const uint32_t* code, size_t bytes);
VkComputePipelineCreateInfo ComputePipelineInfo(VkShaderModule module, VkPipelineLayout layout,
                                                const char* entry_point = "main");
// Returns the driver's result; `*pipeline` is VK_NULL_HANDLE unless it succeeded.
VkResult CreateComputePipeline(VkDevice device, VkPipelineLayout layout, VkShaderModule module,
                               const char* entry_point, const SpecConstants& spec, VkPipeline* pipeline,
                               VkPipelineCreateFlags flags = 0);
// The same from SPIR-V words (the module lives only while the pipeline is created).
VkPipeline CreateComputePipeline(VkDevice device, VkPipelineLayout layout, const uint32_t* code, size_t bytes,
                                 const SpecConstants& spec = {});
// A vertex + fragment pipeline (entry points "main") drawing triangle lists without vertex
// input, culling or blending into one colour attachment of `width` x `height`: subpass 0
// of `render_pass`, or with `render_pass` VK_NULL_HANDLE, dynamic rendering to
// `color_format`. `color_attachments` 0: a subpass without attachments (the shaders write
// storage buffers). Returns the driver's result; `*pipeline` is VK_NULL_HANDLE unless it succeeded.
VkResult CreateGraphicsPipeline(VkDevice device, VkPipelineLayout layout, VkShaderModule vertex,
                                VkShaderModule fragment, uint32_t width, uint32_t height, VkRenderPass render_pass,
                                VkFormat color_format, VkPipeline* pipeline, uint32_t color_attachments = 1);
VkDescriptorPool CreateDescriptorPool(VkDevice device, uint32_t max_sets, const PoolCounts& counts,
                                      VkDescriptorPoolCreateFlags flags = 0);
VkDescriptorSet AllocateSet(VkDevice device, VkDescriptorPool pool, VkDescriptorSetLayout layout);
// The allocate info of `count` sets of `layouts` from `pool` (for tests that allocate
// several at once, or expect a failure).
VkDescriptorSetAllocateInfo SetAllocateInfo(VkDescriptorPool pool, uint32_t count,
                                            const VkDescriptorSetLayout* layouts);
// The create info of an update template over `count` entries: for descriptor sets of
// `set_layout`, or for pushes to set `set` of `pipeline_layout` at `bind_point`.
VkDescriptorUpdateTemplateCreateInfo SetTemplateInfo(const VkDescriptorUpdateTemplateEntry* entries, uint32_t count,
                                                     VkDescriptorSetLayout set_layout);
VkDescriptorUpdateTemplateCreateInfo PushTemplateInfo(const VkDescriptorUpdateTemplateEntry* entries, uint32_t count,
                                                      VkPipelineBindPoint bind_point, VkPipelineLayout pipeline_layout,
                                                      uint32_t set = 0);
// A write of `count` buffer descriptors starting at (binding, element).
VkWriteDescriptorSet BufferWrite(VkDescriptorSet set, uint32_t binding, uint32_t element, VkDescriptorType type,
                                 const VkDescriptorBufferInfo* infos, uint32_t count = 1);
// Binds `pipeline` and `sets` (from set 0) at the compute bind point and dispatches
// `groups_x` x 1 x 1 work groups.
void RecordDispatch(VkCommandBuffer cb, VkPipeline pipeline, VkPipelineLayout layout,
                    const std::vector<VkDescriptorSet>& sets, uint32_t groups_x = 1);
// Submits `cbs` (recorded and ended) in one batch on `queue` and waits for it to idle;
// returns the first failure.
VkResult SubmitAndWaitIdle(VkQueue queue, const std::vector<VkCommandBuffer>& cbs);
// One global memory barrier: writes of `src_stages` / `src_access` made visible to
// `dst_access` in `dst_stages`.
void RecordMemoryBarrier(VkCommandBuffer cb, VkPipelineStageFlags src_stages, VkAccessFlags src_access,
                         VkPipelineStageFlags dst_stages, VkAccessFlags dst_access);
// Device writes of `src_stages` / `src_access` made visible to host reads.
void BarrierToHost(VkCommandBuffer cb, VkPipelineStageFlags src_stages = VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                   VkAccessFlags src_access = VK_ACCESS_SHADER_WRITE_BIT);

// The names of the device extensions `layer` (nullptr: the whole chain) offers on `pd`;
// returns the first enumeration call's failure, if any.
VkResult DeviceExtensionNames(VkPhysicalDevice pd, const char* layer, std::vector<std::string>* names);

// Owns Vulkan objects of one device and destroys them in reverse order of Keep.
class ObjectBag {
 public:
  explicit ObjectBag(VkDevice device) : device_(device) {}
  ~ObjectBag();
  ObjectBag(const ObjectBag&) = delete;
  ObjectBag& operator=(const ObjectBag&) = delete;

  VkDescriptorSetLayout Keep(VkDescriptorSetLayout handle);
  VkPipelineLayout Keep(VkPipelineLayout handle);
  VkShaderModule Keep(VkShaderModule handle);
  VkPipeline Keep(VkPipeline handle);
  VkDescriptorPool Keep(VkDescriptorPool handle);
  VkDescriptorUpdateTemplate Keep(VkDescriptorUpdateTemplate handle);
  // Destroys everything kept so far (before the device goes, when the bag outlives it).
  void DestroyAll();

 private:
  VkDevice device_;
  std::vector<std::function<void()>> destroys_;
};

}  // namespace bindery::test
