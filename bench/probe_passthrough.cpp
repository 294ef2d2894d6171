// record/* rows of bindery_probe for commands no capability changes: binds of a set the
// indirect-bindings capability leaves native (one uniform buffer), and draws inside a
// render pass. CPU time of this thread per command, 1000 commands per command buffer.
#include <time.h>

#include <cstdint>
#include <string>

#include "probe_draw_frag_spv.h"
#include "probe_draw_vert_spv.h"
#include "probe_ubo_spv.h"
#include "probe_workloads.h"

namespace bindery::bench {
namespace {

constexpr uint32_t kCommands = kRecordCommands;
constexpr uint32_t kSets = 16;

VkShaderModule Module(VkDevice device, const uint32_t* code, size_t bytes) {
  VkShaderModuleCreateInfo info{VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO};
  info.codeSize = bytes;
  info.pCode = code;
  VkShaderModule module = VK_NULL_HANDLE;
  vkCreateShaderModule(device, &info, nullptr, &module);
  return module;
}

// Everything the two rows need; destroyed with the object.
struct Objects {
  explicit Objects(VkDevice d) : device(d) {}
  ~Objects() {
    vkDeviceWaitIdle(device);
    for (VkPipeline p : {compute, compute_ranged, graphics}) vkDestroyPipeline(device, p, nullptr);
    for (VkPipelineLayout l : {compute_layout, ranged_layout, graphics_layout}) vkDestroyPipelineLayout(device, l, nullptr);
    for (VkDescriptorSetLayout l : set_layouts) vkDestroyDescriptorSetLayout(device, l, nullptr);
    vkDestroyDescriptorPool(device, pool, nullptr);
    for (VkShaderModule m : modules) vkDestroyShaderModule(device, m, nullptr);
    vkDestroyFramebuffer(device, framebuffer, nullptr);
    vkDestroyRenderPass(device, render_pass, nullptr);
    vkDestroyImageView(device, view, nullptr);
    vkDestroyImage(device, image, nullptr);
    vkFreeMemory(device, image_memory, nullptr);
  }
  VkDevice device;
  VkShaderModule modules[3] = {};
  VkDescriptorSetLayout set_layouts[2] = {};  // 0: one uniform buffer; 1: one storage buffer
  VkPipelineLayout compute_layout = VK_NULL_HANDLE, graphics_layout = VK_NULL_HANDLE;
  VkPipeline compute = VK_NULL_HANDLE, graphics = VK_NULL_HANDLE;
  // The same compute pipeline through a layout with the push-constant ranges the layer gives
  // a converting layout on a 256-byte device with the split root (graphics stages over
  // [0, 128), compute over [128, 256)): is a native bind slower through such a layout?
  VkPipelineLayout ranged_layout = VK_NULL_HANDLE;
  VkPipeline compute_ranged = VK_NULL_HANDLE;
  VkDescriptorPool pool = VK_NULL_HANDLE;
  VkDescriptorSet ubo_sets[kSets] = {};
  VkDescriptorSet out_set = VK_NULL_HANDLE;
  VkImage image = VK_NULL_HANDLE;
  VkDeviceMemory image_memory = VK_NULL_HANDLE;
  VkImageView view = VK_NULL_HANDLE;
  VkRenderPass render_pass = VK_NULL_HANDLE;
  VkFramebuffer framebuffer = VK_NULL_HANDLE;
};

bool CreateComputePart(ProbeDevice& d, Objects& o, const DeviceBuffer& ubo, const DeviceBuffer& out) {
  const VkDevice dev = d.device();
  for (uint32_t i = 0; i < 2; ++i) {
    VkDescriptorSetLayoutBinding b{0, i == 0 ? VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER : VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1,
                                   VK_SHADER_STAGE_COMPUTE_BIT, nullptr};
    VkDescriptorSetLayoutCreateInfo info{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO};
    info.bindingCount = 1;
    info.pBindings = &b;
    if (vkCreateDescriptorSetLayout(dev, &info, nullptr, &o.set_layouts[i]) != VK_SUCCESS) return false;
  }
  VkPipelineLayoutCreateInfo pl{VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO};
  pl.setLayoutCount = 2;
  pl.pSetLayouts = o.set_layouts;
  if (vkCreatePipelineLayout(dev, &pl, nullptr, &o.compute_layout) != VK_SUCCESS) return false;
  o.modules[0] = Module(dev, probe_ubo_spv, sizeof(probe_ubo_spv));
  VkComputePipelineCreateInfo cp{VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO};
  cp.stage = {VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO};
  cp.stage.stage = VK_SHADER_STAGE_COMPUTE_BIT;
  cp.stage.module = o.modules[0];
  cp.stage.pName = "main";
  cp.layout = o.compute_layout;
  if (vkCreateComputePipelines(dev, VK_NULL_HANDLE, 1, &cp, nullptr, &o.compute) != VK_SUCCESS) return false;
  const uint32_t max_push = d.limits().maxPushConstantsSize;
  const VkPushConstantRange ranges[2] = {{VK_SHADER_STAGE_ALL_GRAPHICS, 0, max_push / 2},
                                         {VK_SHADER_STAGE_COMPUTE_BIT, max_push / 2, max_push / 2}};
  pl.pushConstantRangeCount = 2;
  pl.pPushConstantRanges = ranges;
  if (vkCreatePipelineLayout(dev, &pl, nullptr, &o.ranged_layout) != VK_SUCCESS) return false;
  cp.layout = o.ranged_layout;
  if (vkCreateComputePipelines(dev, VK_NULL_HANDLE, 1, &cp, nullptr, &o.compute_ranged) != VK_SUCCESS) return false;

  const VkDescriptorPoolSize sizes[2] = {{VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER, kSets},
                                         {VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1}};
  VkDescriptorPoolCreateInfo dp{VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO};
  dp.maxSets = kSets + 1;
  dp.poolSizeCount = 2;
  dp.pPoolSizes = sizes;
  if (vkCreateDescriptorPool(dev, &dp, nullptr, &o.pool) != VK_SUCCESS) return false;
  for (uint32_t i = 0; i <= kSets; ++i) {
    VkDescriptorSetAllocateInfo alloc{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO};
    alloc.descriptorPool = o.pool;
    alloc.descriptorSetCount = 1;
    alloc.pSetLayouts = &o.set_layouts[i == kSets ? 1 : 0];
    VkDescriptorSet& set = i == kSets ? o.out_set : o.ubo_sets[i];
    if (vkAllocateDescriptorSets(dev, &alloc, &set) != VK_SUCCESS) return false;
    VkDescriptorBufferInfo info{i == kSets ? out.buffer : ubo.buffer, 0, VK_WHOLE_SIZE};
    VkWriteDescriptorSet w{VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET};
    w.dstSet = set;
    w.descriptorCount = 1;
    w.descriptorType = i == kSets ? VK_DESCRIPTOR_TYPE_STORAGE_BUFFER : VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER;
    w.pBufferInfo = &info;
    vkUpdateDescriptorSets(dev, 1, &w, 0, nullptr);
  }
  return true;
}

bool CreateGraphicsPart(ProbeDevice& d, Objects& o) {
  const VkDevice dev = d.device();
  constexpr VkFormat kFormat = VK_FORMAT_R8G8B8A8_UNORM;
  VkImageCreateInfo ii{VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO};
  ii.imageType = VK_IMAGE_TYPE_2D;
  ii.format = kFormat;
  ii.extent = {16, 16, 1};
  ii.mipLevels = 1;
  ii.arrayLayers = 1;
  ii.samples = VK_SAMPLE_COUNT_1_BIT;
  ii.tiling = VK_IMAGE_TILING_OPTIMAL;
  ii.usage = VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT;
  if (vkCreateImage(dev, &ii, nullptr, &o.image) != VK_SUCCESS) return false;
  VkMemoryRequirements req;
  vkGetImageMemoryRequirements(dev, o.image, &req);
  VkPhysicalDeviceMemoryProperties props;
  vkGetPhysicalDeviceMemoryProperties(d.physical_device(), &props);
  uint32_t type = 0;
  while (type < props.memoryTypeCount && (req.memoryTypeBits & (1u << type)) == 0) ++type;
  VkMemoryAllocateInfo mai{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
  mai.allocationSize = req.size;
  mai.memoryTypeIndex = type;
  if (type == props.memoryTypeCount || vkAllocateMemory(dev, &mai, nullptr, &o.image_memory) != VK_SUCCESS ||
      vkBindImageMemory(dev, o.image, o.image_memory, 0) != VK_SUCCESS) {
    return false;
  }
  VkImageViewCreateInfo vi{VK_STRUCTURE_TYPE_IMAGE_VIEW_CREATE_INFO};
  vi.image = o.image;
  vi.viewType = VK_IMAGE_VIEW_TYPE_2D;
  vi.format = kFormat;
  vi.subresourceRange = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1};
  if (vkCreateImageView(dev, &vi, nullptr, &o.view) != VK_SUCCESS) return false;
  VkAttachmentDescription color{};
  color.format = kFormat;
  color.samples = VK_SAMPLE_COUNT_1_BIT;
  color.loadOp = VK_ATTACHMENT_LOAD_OP_CLEAR;
  color.storeOp = VK_ATTACHMENT_STORE_OP_STORE;
  color.stencilLoadOp = VK_ATTACHMENT_LOAD_OP_DONT_CARE;
  color.stencilStoreOp = VK_ATTACHMENT_STORE_OP_DONT_CARE;
  color.initialLayout = VK_IMAGE_LAYOUT_UNDEFINED;
  color.finalLayout = VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL;
  VkAttachmentReference ref{0, VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL};
  VkSubpassDescription subpass{};
  subpass.pipelineBindPoint = VK_PIPELINE_BIND_POINT_GRAPHICS;
  subpass.colorAttachmentCount = 1;
  subpass.pColorAttachments = &ref;
  VkRenderPassCreateInfo rp{VK_STRUCTURE_TYPE_RENDER_PASS_CREATE_INFO};
  rp.attachmentCount = 1;
  rp.pAttachments = &color;
  rp.subpassCount = 1;
  rp.pSubpasses = &subpass;
  if (vkCreateRenderPass(dev, &rp, nullptr, &o.render_pass) != VK_SUCCESS) return false;
  VkFramebufferCreateInfo fb{VK_STRUCTURE_TYPE_FRAMEBUFFER_CREATE_INFO};
  fb.renderPass = o.render_pass;
  fb.attachmentCount = 1;
  fb.pAttachments = &o.view;
  fb.width = 16;
  fb.height = 16;
  fb.layers = 1;
  if (vkCreateFramebuffer(dev, &fb, nullptr, &o.framebuffer) != VK_SUCCESS) return false;

  VkPipelineLayoutCreateInfo pl{VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO};
  if (vkCreatePipelineLayout(dev, &pl, nullptr, &o.graphics_layout) != VK_SUCCESS) return false;
  o.modules[1] = Module(dev, probe_draw_vert_spv, sizeof(probe_draw_vert_spv));
  o.modules[2] = Module(dev, probe_draw_frag_spv, sizeof(probe_draw_frag_spv));
  VkPipelineShaderStageCreateInfo stages[2] = {{VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO},
                                               {VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO}};
  stages[0].stage = VK_SHADER_STAGE_VERTEX_BIT;
  stages[0].module = o.modules[1];
  stages[0].pName = "main";
  stages[1].stage = VK_SHADER_STAGE_FRAGMENT_BIT;
  stages[1].module = o.modules[2];
  stages[1].pName = "main";
  VkPipelineVertexInputStateCreateInfo vertex{VK_STRUCTURE_TYPE_PIPELINE_VERTEX_INPUT_STATE_CREATE_INFO};
  VkPipelineInputAssemblyStateCreateInfo assembly{VK_STRUCTURE_TYPE_PIPELINE_INPUT_ASSEMBLY_STATE_CREATE_INFO};
  assembly.topology = VK_PRIMITIVE_TOPOLOGY_TRIANGLE_LIST;
  VkViewport viewport{0, 0, 16, 16, 0, 1};
  VkRect2D scissor{{0, 0}, {16, 16}};
  VkPipelineViewportStateCreateInfo vp{VK_STRUCTURE_TYPE_PIPELINE_VIEWPORT_STATE_CREATE_INFO};
  vp.viewportCount = 1;
  vp.pViewports = &viewport;
  vp.scissorCount = 1;
  vp.pScissors = &scissor;
  VkPipelineRasterizationStateCreateInfo raster{VK_STRUCTURE_TYPE_PIPELINE_RASTERIZATION_STATE_CREATE_INFO};
  raster.lineWidth = 1;
  VkPipelineMultisampleStateCreateInfo ms{VK_STRUCTURE_TYPE_PIPELINE_MULTISAMPLE_STATE_CREATE_INFO};
  ms.rasterizationSamples = VK_SAMPLE_COUNT_1_BIT;
  VkPipelineColorBlendAttachmentState blend{};
  blend.colorWriteMask = 0xF;
  VkPipelineColorBlendStateCreateInfo cb{VK_STRUCTURE_TYPE_PIPELINE_COLOR_BLEND_STATE_CREATE_INFO};
  cb.attachmentCount = 1;
  cb.pAttachments = &blend;
  VkGraphicsPipelineCreateInfo gp{VK_STRUCTURE_TYPE_GRAPHICS_PIPELINE_CREATE_INFO};
  gp.stageCount = 2;
  gp.pStages = stages;
  gp.pVertexInputState = &vertex;
  gp.pInputAssemblyState = &assembly;
  gp.pViewportState = &vp;
  gp.pRasterizationState = &raster;
  gp.pMultisampleState = &ms;
  gp.pColorBlendState = &cb;
  gp.layout = o.graphics_layout;
  gp.renderPass = o.render_pass;
  return vkCreateGraphicsPipelines(dev, VK_NULL_HANDLE, 1, &gp, nullptr, &o.graphics) == VK_SUCCESS;
}

}  // namespace

std::vector<ProbeResult> RunPassThroughProbes(ProbeDevice& d) {
  std::vector<ProbeResult> out;
  const ProbeFns& fn = d.fn();
  DeviceBuffer storage = d.CreateBuffer(64 * 1024);
  Objects o(d.device());
  std::string error;
  DeviceBuffer uniform = CreateDeviceBuffer(d.physical_device(), d.device(), 256,
                                            VK_BUFFER_USAGE_UNIFORM_BUFFER_BIT, &error);
  const char* const bind_row = "record/bind native set (1 UBO) + dispatch";
  const char* const draw_row = "record/draw (in a render pass)";
  if (RowWanted(bind_row) && uniform.buffer != VK_NULL_HANDLE && storage.buffer != VK_NULL_HANDLE &&
      CreateComputePart(d, o, uniform, storage)) {
    const double ns = PerRecordedCommandNs(d, [&](VkCommandBuffer cb) {
      fn.CmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_COMPUTE, o.compute);
      fn.CmdBindDescriptorSets(cb, VK_PIPELINE_BIND_POINT_COMPUTE, o.compute_layout, 1, 1, &o.out_set, 0, nullptr);
      for (uint32_t i = 0; i < kCommands; ++i) {
        fn.CmdBindDescriptorSets(cb, VK_PIPELINE_BIND_POINT_COMPUTE, o.compute_layout, 0, 1, &o.ubo_sets[i % kSets], 0,
                                 nullptr);
        fn.CmdDispatch(cb, 1, 1, 1);
      }
      return true;
    });
    if (ns >= 0) out.push_back({bind_row, "ns/cmd", ns});
    const char* const ranged_row = "record/bind native UBO set + dispatch through root-shaped push ranges";
    const uint32_t half = d.limits().maxPushConstantsSize / 2;
    const uint8_t root[16] = {};
    const double ranged = !RowWanted(ranged_row) ? -1 : PerRecordedCommandNs(d, [&](VkCommandBuffer cb) {
      fn.CmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_COMPUTE, o.compute_ranged);
      fn.CmdPushConstants(cb, o.ranged_layout, VK_SHADER_STAGE_COMPUTE_BIT, half, sizeof(root), root);
      fn.CmdBindDescriptorSets(cb, VK_PIPELINE_BIND_POINT_COMPUTE, o.ranged_layout, 1, 1, &o.out_set, 0, nullptr);
      for (uint32_t i = 0; i < kCommands; ++i) {
        fn.CmdBindDescriptorSets(cb, VK_PIPELINE_BIND_POINT_COMPUTE, o.ranged_layout, 0, 1, &o.ubo_sets[i % kSets], 0,
                                 nullptr);
        fn.CmdDispatch(cb, 1, 1, 1);
      }
      return true;
    });
    if (ranged >= 0) out.push_back({ranged_row, "ns/cmd", ranged});
  }
  if (RowWanted(draw_row) && CreateGraphicsPart(d, o)) {
    auto draw = reinterpret_cast<PFN_vkCmdDraw>(vkGetDeviceProcAddr(d.device(), "vkCmdDraw"));
    const double ns = PerRecordedCommandNs(d, [&](VkCommandBuffer cb) {
      VkClearValue clear{};
      VkRenderPassBeginInfo begin{VK_STRUCTURE_TYPE_RENDER_PASS_BEGIN_INFO};
      begin.renderPass = o.render_pass;
      begin.framebuffer = o.framebuffer;
      begin.renderArea = {{0, 0}, {16, 16}};
      begin.clearValueCount = 1;
      begin.pClearValues = &clear;
      vkCmdBeginRenderPass(cb, &begin, VK_SUBPASS_CONTENTS_INLINE);
      fn.CmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_GRAPHICS, o.graphics);
      for (uint32_t i = 0; i < kCommands; ++i) draw(cb, 3, 1, 0, 0);
      vkCmdEndRenderPass(cb);
      return true;
    });
    if (ns >= 0) out.push_back({draw_row, "ns/cmd", ns});
  }
  DestroyDeviceBuffer(d.device(), uniform);
  d.Destroy(storage);
  return out;
}

}  // namespace bindery::bench
