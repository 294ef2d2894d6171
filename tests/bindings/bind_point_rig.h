// A small program builder for the bind-point tests: set layouts, pipeline layouts,
// compute and graphics pipelines (an attachment-less render pass, one triangle over it),
// sets of buffers, host-visible buffers read back at the end. One Rig is one run of one
// program under one indirect_bindings mode; Finish() destroys everything and the device
// and returns what the program left in its buffers, the layer's summary and what
// validation (below the layer, synchronization validation on) said.
#pragma once

#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "bp_fullscreen_vert.h"
#include "integration/test_env.h"
#include "support/vk_objects.h"

namespace bindery::test {

struct BindPointRun {
  std::string skip;  // why the program could not run here ("" when it ran)
  std::vector<std::vector<uint8_t>> buffers;
  std::string summary;
  std::string validation;  // formatted validation problems ("" when silent)
  std::vector<Message> bindery;
};

struct RigOptions {
  bool graphics = false;  // a graphics queue and fragment stores
  std::vector<const char*> device_extensions;
  const void* device_pnext = nullptr;
  std::vector<std::string> layers_between;  // below the layer, above validation
};

class BindPointRig {
 public:
  static constexpr VkDeviceSize kBufferBytes = 256;

  BindPointRig(const char* mode, const RigOptions& options = {})
      : bindings_("BINDERY_INDIRECT_BINDINGS", mode), level_("BINDERY_LOG_LEVEL", "info") {
    HarnessOptions h;
    features_.fragmentStoresAndAtomics = VK_TRUE;
    features_.vertexPipelineStoresAndAtomics = VK_TRUE;
    h.enabled_features = options.graphics ? &features_ : nullptr;
    h.queue_flags = options.graphics ? VK_QUEUE_GRAPHICS_BIT | VK_QUEUE_COMPUTE_BIT : VK_QUEUE_COMPUTE_BIT;
    h.device_extensions = options.device_extensions;
    h.device_pnext = options.device_pnext;
    h.layers_between = options.layers_between;
    h_ = std::make_unique<VkHarness>(h);
  }
  ~BindPointRig() { Release(); }

  VkHarness& h() { return *h_; }
  VkDevice d() { return h_->device(); }
  bool ok() const { return h_->ok(); }

  VkDescriptorSetLayout SetLayout(const std::vector<VkDescriptorSetLayoutBinding>& bindings,
                                  VkDescriptorSetLayoutCreateFlags flags = 0) {
    VkDescriptorSetLayoutCreateInfo info{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO};
    info.flags = flags;
    info.bindingCount = static_cast<uint32_t>(bindings.size());
    info.pBindings = bindings.data();
    VkDescriptorSetLayout l = VK_NULL_HANDLE;
    EXPECT_EQ(vkCreateDescriptorSetLayout(d(), &info, nullptr, &l), VK_SUCCESS);
    set_layouts_.push_back(l);
    return l;
  }
  VkPipelineLayout Layout(const std::vector<VkDescriptorSetLayout>& sets,
                          const std::vector<VkPushConstantRange>& ranges = {}) {
    VkPipelineLayoutCreateInfo info{VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO};
    info.setLayoutCount = static_cast<uint32_t>(sets.size());
    info.pSetLayouts = sets.data();
    info.pushConstantRangeCount = static_cast<uint32_t>(ranges.size());
    info.pPushConstantRanges = ranges.data();
    VkPipelineLayout l = VK_NULL_HANDLE;
    EXPECT_EQ(vkCreatePipelineLayout(d(), &info, nullptr, &l), VK_SUCCESS);
    layouts_.push_back(l);
    return l;
  }
  VkShaderModule Module(const uint32_t* code, size_t bytes) {
    const VkShaderModule m = CreateShaderModule(d(), code, bytes);
    EXPECT_NE(m, VK_NULL_HANDLE) << "vkCreateShaderModule failed";
    modules_.push_back(m);
    return m;
  }
  VkPipeline Compute(const uint32_t* code, size_t bytes, VkPipelineLayout layout) {
    VkComputePipelineCreateInfo info{VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO};
    info.stage = {VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO};
    info.stage.stage = VK_SHADER_STAGE_COMPUTE_BIT;
    info.stage.module = Module(code, bytes);
    info.stage.pName = "main";
    info.layout = layout;
    VkPipeline p = VK_NULL_HANDLE;
    EXPECT_EQ(vkCreateComputePipelines(d(), VK_NULL_HANDLE, 1, &info, nullptr, &p), VK_SUCCESS);
    pipelines_.push_back(p);
    return p;
  }
  // One triangle over the render pass's 4x4 area, `frag` as its fragment shader.
  VkPipeline Graphics(const uint32_t* frag, size_t bytes, VkPipelineLayout layout) {
    VkPipeline p = VK_NULL_HANDLE;
    EXPECT_EQ(CreateGraphicsPipeline(d(), layout, Module(bp_fullscreen_vert, sizeof(bp_fullscreen_vert)),
                                     Module(frag, bytes), 4, 4, RenderPass(), VK_FORMAT_UNDEFINED, &p, 0),
              VK_SUCCESS);
    pipelines_.push_back(p);
    return p;
  }
  // A zero-filled host-visible buffer, read back by Finish() in creation order.
  VkBuffer Buffer(VkBufferUsageFlags usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT, uint32_t first_word = 0) {
    HostBuffer b = h_->CreateHostBuffer(kBufferBytes, usage);
    std::memset(b.mapped, 0, kBufferBytes);
    static_cast<uint32_t*>(b.mapped)[0] = first_word;
    buffers_.push_back(b);
    return b.buffer;
  }
  // A host-visible storage buffer on exportable OPAQUE_FD memory (addressable where the
  // driver allows external memory an address: lavapipe does; not below
  // tests/no_address_layer), read back like the others; VK_NULL_HANDLE where the device
  // cannot export such buffers.
  VkBuffer ExternalBuffer() {
    constexpr VkExternalMemoryHandleTypeFlagBits kHandle = VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT;
    VkPhysicalDeviceExternalBufferInfo query{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_EXTERNAL_BUFFER_INFO};
    query.usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT;
    query.handleType = kHandle;
    VkExternalBufferProperties props{VK_STRUCTURE_TYPE_EXTERNAL_BUFFER_PROPERTIES};
    vkGetPhysicalDeviceExternalBufferProperties(h_->physical_device(), &query, &props);
    if ((props.externalMemoryProperties.externalMemoryFeatures & VK_EXTERNAL_MEMORY_FEATURE_EXPORTABLE_BIT) == 0) {
      return VK_NULL_HANDLE;
    }
    HostBuffer b = h_->CreateHostBuffer(kBufferBytes, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT, kHandle);
    if (b.buffer == VK_NULL_HANDLE) return VK_NULL_HANDLE;
    std::memset(b.mapped, 0, kBufferBytes);
    buffers_.push_back(b);
    return b.buffer;
  }
  uint32_t* Words(size_t index) { return static_cast<uint32_t*>(buffers_[index].mapped); }
  // A set of `layout` with `buffers[i]` (whole range, of `types[i]`) at binding `bindings[i]`.
  VkDescriptorSet Set(VkDescriptorSetLayout layout, const std::vector<uint32_t>& bindings,
                      const std::vector<VkDescriptorType>& types, const std::vector<VkBuffer>& buffers,
                      const std::vector<uint32_t>& elements = {}) {
    VkDescriptorSetAllocateInfo alloc{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO};
    alloc.descriptorPool = Pool();
    alloc.descriptorSetCount = 1;
    alloc.pSetLayouts = &layout;
    VkDescriptorSet set = VK_NULL_HANDLE;
    EXPECT_EQ(vkAllocateDescriptorSets(d(), &alloc, &set), VK_SUCCESS);
    for (size_t i = 0; i < buffers.size(); ++i) {
      VkDescriptorBufferInfo info{buffers[i], 0, VK_WHOLE_SIZE};
      VkWriteDescriptorSet w{VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET};
      w.dstSet = set;
      w.dstBinding = bindings[i];
      w.dstArrayElement = elements.empty() ? 0 : elements[i];
      w.descriptorCount = 1;
      w.descriptorType = types[i];
      w.pBufferInfo = &info;
      vkUpdateDescriptorSets(d(), 1, &w, 0, nullptr);
    }
    return set;
  }
  void BeginPass(VkCommandBuffer cb) {
    VkRenderPassBeginInfo begin{VK_STRUCTURE_TYPE_RENDER_PASS_BEGIN_INFO};
    begin.renderPass = RenderPass();
    begin.framebuffer = Framebuffer();
    begin.renderArea = {{0, 0}, {4, 4}};
    vkCmdBeginRenderPass(cb, &begin, VK_SUBPASS_CONTENTS_INLINE);
  }
  // Shader writes made visible to the next shaders and to the host.
  static void Barrier(VkCommandBuffer cb) {
    RecordMemoryBarrier(cb, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, VK_ACCESS_SHADER_WRITE_BIT,
                        VK_PIPELINE_STAGE_ALL_COMMANDS_BIT | VK_PIPELINE_STAGE_HOST_BIT,
                        VK_ACCESS_HOST_READ_BIT | VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT);
  }

  BindPointRun Finish() {
    BindPointRun run;
    for (const HostBuffer& b : buffers_) {
      const uint8_t* bytes = static_cast<const uint8_t*>(b.mapped);
      run.buffers.emplace_back(bytes, bytes + kBufferBytes);
    }
    Release();
    h_->DestroyDevice();
    for (const Message& m : h_->BinderyMessages()) {
      if (m.id == "BINDERY-summary") run.summary = m.text;
    }
    run.bindery = h_->BinderyMessages();
    if (!h_->ValidationProblems().empty()) run.validation = VkHarness::Format(h_->ValidationProblems());
    return run;
  }

 private:
  VkDescriptorPool Pool() {
    if (pool_ != VK_NULL_HANDLE) return pool_;
    VkDescriptorPoolSize sizes[2] = {{VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 128}, {VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER, 32}};
    VkDescriptorPoolCreateInfo info{VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO};
    info.maxSets = 16;
    info.poolSizeCount = 2;
    info.pPoolSizes = sizes;
    EXPECT_EQ(vkCreateDescriptorPool(d(), &info, nullptr, &pool_), VK_SUCCESS);
    return pool_;
  }
  VkRenderPass RenderPass() {
    if (render_pass_ != VK_NULL_HANDLE) return render_pass_;
    VkSubpassDescription subpass{};
    subpass.pipelineBindPoint = VK_PIPELINE_BIND_POINT_GRAPHICS;
    VkRenderPassCreateInfo info{VK_STRUCTURE_TYPE_RENDER_PASS_CREATE_INFO};
    info.subpassCount = 1;
    info.pSubpasses = &subpass;
    EXPECT_EQ(vkCreateRenderPass(d(), &info, nullptr, &render_pass_), VK_SUCCESS);
    return render_pass_;
  }
  VkFramebuffer Framebuffer() {
    if (framebuffer_ != VK_NULL_HANDLE) return framebuffer_;
    VkFramebufferCreateInfo info{VK_STRUCTURE_TYPE_FRAMEBUFFER_CREATE_INFO};
    info.renderPass = RenderPass();
    info.width = 4;
    info.height = 4;
    info.layers = 1;
    EXPECT_EQ(vkCreateFramebuffer(d(), &info, nullptr, &framebuffer_), VK_SUCCESS);
    return framebuffer_;
  }
  void Release() {
    if (!h_ || h_->device() == VK_NULL_HANDLE) return;
    for (VkPipeline p : pipelines_) vkDestroyPipeline(d(), p, nullptr);
    for (VkShaderModule m : modules_) vkDestroyShaderModule(d(), m, nullptr);
    for (VkPipelineLayout l : layouts_) vkDestroyPipelineLayout(d(), l, nullptr);
    if (pool_ != VK_NULL_HANDLE) vkDestroyDescriptorPool(d(), pool_, nullptr);
    for (VkDescriptorSetLayout l : set_layouts_) vkDestroyDescriptorSetLayout(d(), l, nullptr);
    if (framebuffer_ != VK_NULL_HANDLE) vkDestroyFramebuffer(d(), framebuffer_, nullptr);
    if (render_pass_ != VK_NULL_HANDLE) vkDestroyRenderPass(d(), render_pass_, nullptr);
    for (HostBuffer& b : buffers_) h_->Destroy(b);
    pipelines_.clear();
    modules_.clear();
    layouts_.clear();
    set_layouts_.clear();
    buffers_.clear();
    pool_ = VK_NULL_HANDLE;
    framebuffer_ = VK_NULL_HANDLE;
    render_pass_ = VK_NULL_HANDLE;
  }

  ScopedEnv bindings_;
  ScopedEnv level_;
  VkPhysicalDeviceFeatures features_{};
  std::unique_ptr<VkHarness> h_;
  std::vector<VkPipeline> pipelines_;
  std::vector<VkShaderModule> modules_;
  std::vector<VkPipelineLayout> layouts_;
  std::vector<VkDescriptorSetLayout> set_layouts_;
  std::vector<HostBuffer> buffers_;
  VkDescriptorPool pool_ = VK_NULL_HANDLE;
  VkRenderPass render_pass_ = VK_NULL_HANDLE;
  VkFramebuffer framebuffer_ = VK_NULL_HANDLE;
};

}  // namespace bindery::test
