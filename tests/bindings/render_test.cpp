// Graphics (docs/indirect-bindings.md). An offscreen render whose vertex and fragment shaders read
// and write storage buffers (positions, a per-vertex write, a palette, an atomic fragment
// count) gives the same image and the same buffers with indirect bindings forced as off,
// with validation (synchronization validation on) silent, and the forced run really
// rewrote the pipeline.
#include <gtest/gtest.h>

#include <cstring>
#include <memory>
#include <regex>

#include "integration/test_env.h"
#include "support/vk_objects.h"
#include "ssbo_draw_frag.h"
#include "ssbo_draw_vert.h"

namespace bindery::test {
namespace {

constexpr uint32_t kSize = 64;
constexpr uint32_t kVertices = 6;

struct RenderOutput : ModeRunResult {
  std::vector<uint8_t> image, seen, count;
};

uint32_t FindMemory(VkPhysicalDevice pd, uint32_t bits, VkMemoryPropertyFlags flags) {
  VkPhysicalDeviceMemoryProperties props;
  vkGetPhysicalDeviceMemoryProperties(pd, &props);
  for (uint32_t i = 0; i < props.memoryTypeCount; ++i) {
    if ((bits & (1u << i)) && (props.memoryTypes[i].propertyFlags & flags) == flags) return i;
  }
  return 0;
}

VkDescriptorSetLayout StorageLayout(VkDevice d, VkShaderStageFlags stages) {
  VkDescriptorSetLayoutBinding b[2] = {{0, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1, stages, nullptr},
                                       {1, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1, stages, nullptr}};
  VkDescriptorSetLayoutCreateInfo info{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO};
  info.bindingCount = 2;
  info.pBindings = b;
  VkDescriptorSetLayout l = VK_NULL_HANDLE;
  vkCreateDescriptorSetLayout(d, &info, nullptr, &l);
  return l;
}

// `full_push_constants`: the pipeline layout also has a push-constant range over all of
// maxPushConstantsSize (the shaders declare none), so the root goes to the reserved set.
RenderOutput Render(const char* mode, bool full_push_constants = false) {
  VkPhysicalDeviceFeatures2 features{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2};
  features.features.vertexPipelineStoresAndAtomics = VK_TRUE;
  features.features.fragmentStoresAndAtomics = VK_TRUE;
  HarnessOptions options;
  options.device_pnext = &features;
  return RunWithBindings<RenderOutput>(mode, options, [&](VkHarness& h, RenderOutput& out) {
    VkDevice d = h.device();

    // Buffers: positions (two triangles), per-vertex writes, palette, fragment count,
    // image readback.
    const float positions[kVertices][4] = {{-0.8f, -0.8f, 0, 1}, {0.8f, -0.8f, 0, 1}, {-0.8f, 0.6f, 0, 1},
                                           {0.9f, -0.2f, 0, 1},  {0.9f, 0.9f, 0, 1},   {-0.3f, 0.9f, 0, 1}};
    const float palette[4][4] = {{1, 0, 0, 1}, {0, 1, 0, 1}, {0, 0, 1, 1}, {1, 1, 0, 1}};
    const VkBufferUsageFlags storage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT;
    HostBuffer pos = h.CreateHostBuffer(sizeof(positions), storage);
    HostBuffer seen = h.CreateHostBuffer(kVertices * 4, storage);
    HostBuffer pal = h.CreateHostBuffer(sizeof(palette), storage);
    HostBuffer count = h.CreateHostBuffer(4, storage);
    HostBuffer readback = h.CreateHostBuffer(kSize * kSize * 4, VK_BUFFER_USAGE_TRANSFER_DST_BIT);
    std::memcpy(pos.mapped, positions, sizeof(positions));
    std::memcpy(pal.mapped, palette, sizeof(palette));
    std::memset(seen.mapped, 0, kVertices * 4);
    std::memset(count.mapped, 0, 4);

    // Colour target.
    VkImageCreateInfo ici{VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO};
    ici.imageType = VK_IMAGE_TYPE_2D;
    ici.format = VK_FORMAT_R8G8B8A8_UNORM;
    ici.extent = {kSize, kSize, 1};
    ici.mipLevels = 1;
    ici.arrayLayers = 1;
    ici.samples = VK_SAMPLE_COUNT_1_BIT;
    ici.tiling = VK_IMAGE_TILING_OPTIMAL;
    ici.usage = VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT | VK_IMAGE_USAGE_TRANSFER_SRC_BIT;
    VkImage image = VK_NULL_HANDLE;
    vkCreateImage(d, &ici, nullptr, &image);
    VkMemoryRequirements req;
    vkGetImageMemoryRequirements(d, image, &req);
    VkMemoryAllocateInfo mai{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
    mai.allocationSize = req.size;
    mai.memoryTypeIndex = FindMemory(h.physical_device(), req.memoryTypeBits, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT);
    VkDeviceMemory image_memory = VK_NULL_HANDLE;
    vkAllocateMemory(d, &mai, nullptr, &image_memory);
    vkBindImageMemory(d, image, image_memory, 0);
    VkImageViewCreateInfo ivci{VK_STRUCTURE_TYPE_IMAGE_VIEW_CREATE_INFO};
    ivci.image = image;
    ivci.viewType = VK_IMAGE_VIEW_TYPE_2D;
    ivci.format = ici.format;
    ivci.subresourceRange = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1};
    VkImageView view = VK_NULL_HANDLE;
    vkCreateImageView(d, &ivci, nullptr, &view);

    VkAttachmentDescription color{0, ici.format, VK_SAMPLE_COUNT_1_BIT, VK_ATTACHMENT_LOAD_OP_CLEAR,
                                  VK_ATTACHMENT_STORE_OP_STORE, VK_ATTACHMENT_LOAD_OP_DONT_CARE,
                                  VK_ATTACHMENT_STORE_OP_DONT_CARE, VK_IMAGE_LAYOUT_UNDEFINED,
                                  VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL};
    VkAttachmentReference ref{0, VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL};
    VkSubpassDescription subpass{};
    subpass.pipelineBindPoint = VK_PIPELINE_BIND_POINT_GRAPHICS;
    subpass.colorAttachmentCount = 1;
    subpass.pColorAttachments = &ref;
    VkSubpassDependency deps[2] = {
        {VK_SUBPASS_EXTERNAL, 0, VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT,
         VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT, 0, VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT, 0},
        {0, VK_SUBPASS_EXTERNAL, VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT,
         VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT, VK_ACCESS_TRANSFER_READ_BIT, 0}};
    VkRenderPassCreateInfo rpci{VK_STRUCTURE_TYPE_RENDER_PASS_CREATE_INFO};
    rpci.attachmentCount = 1;
    rpci.pAttachments = &color;
    rpci.subpassCount = 1;
    rpci.pSubpasses = &subpass;
    rpci.dependencyCount = 2;
    rpci.pDependencies = deps;
    VkRenderPass pass = VK_NULL_HANDLE;
    vkCreateRenderPass(d, &rpci, nullptr, &pass);
    VkFramebufferCreateInfo fci{VK_STRUCTURE_TYPE_FRAMEBUFFER_CREATE_INFO};
    fci.renderPass = pass;
    fci.attachmentCount = 1;
    fci.pAttachments = &view;
    fci.width = kSize;
    fci.height = kSize;
    fci.layers = 1;
    VkFramebuffer framebuffer = VK_NULL_HANDLE;
    vkCreateFramebuffer(d, &fci, nullptr, &framebuffer);

    // Sets: 0 for the vertex stage, 1 for the fragment stage.
    VkDescriptorSetLayout set_layouts[2] = {StorageLayout(d, VK_SHADER_STAGE_VERTEX_BIT),
                                            StorageLayout(d, VK_SHADER_STAGE_FRAGMENT_BIT)};
    VkPipelineLayoutCreateInfo plci{VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO};
    plci.setLayoutCount = 2;
    plci.pSetLayouts = set_layouts;
    VkPhysicalDeviceProperties props;
    vkGetPhysicalDeviceProperties(h.physical_device(), &props);
    const VkPushConstantRange full_range{VK_SHADER_STAGE_VERTEX_BIT | VK_SHADER_STAGE_FRAGMENT_BIT, 0,
                                         props.limits.maxPushConstantsSize};
    if (full_push_constants) {
      plci.pushConstantRangeCount = 1;
      plci.pPushConstantRanges = &full_range;
    }
    VkPipelineLayout layout = VK_NULL_HANDLE;
    vkCreatePipelineLayout(d, &plci, nullptr, &layout);
    const VkDescriptorPool pool = CreateDescriptorPool(d, 2, {{VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 4}});
    VkDescriptorSetAllocateInfo dsai{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO};
    dsai.descriptorPool = pool;
    dsai.descriptorSetCount = 2;
    dsai.pSetLayouts = set_layouts;
    VkDescriptorSet sets[2] = {};
    if (vkAllocateDescriptorSets(d, &dsai, sets) != VK_SUCCESS) out.error = "vkAllocateDescriptorSets failed";
    VkDescriptorBufferInfo infos[4] = {{pos.buffer, 0, VK_WHOLE_SIZE},
                                       {seen.buffer, 0, VK_WHOLE_SIZE},
                                       {pal.buffer, 0, VK_WHOLE_SIZE},
                                       {count.buffer, 0, 4}};
    VkWriteDescriptorSet writes[2] = {{VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET}, {VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET}};
    for (int s = 0; s < 2; ++s) {
      writes[s].dstSet = sets[s];
      writes[s].descriptorCount = 2;  // bindings 0 and 1
      writes[s].descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
      writes[s].pBufferInfo = &infos[2 * s];
    }
    vkUpdateDescriptorSets(d, 2, writes, 0, nullptr);

    // Pipeline.
    const VkShaderModule vertex = CreateShaderModule(d, ssbo_draw_vert, sizeof(ssbo_draw_vert));
    const VkShaderModule fragment = CreateShaderModule(d, ssbo_draw_frag, sizeof(ssbo_draw_frag));
    VkPipeline pipeline = VK_NULL_HANDLE;
    if (CreateGraphicsPipeline(d, layout, vertex, fragment, kSize, kSize, pass, VK_FORMAT_UNDEFINED, &pipeline) !=
        VK_SUCCESS) {
      out.error = "vkCreateGraphicsPipelines failed";
    }

    if (out.error.empty()) {
      VkCommandBuffer cb = h.BeginCommands();
      VkClearValue clear{};
      clear.color = {{0.1f, 0.2f, 0.3f, 1.0f}};
      VkRenderPassBeginInfo rpbi{VK_STRUCTURE_TYPE_RENDER_PASS_BEGIN_INFO};
      rpbi.renderPass = pass;
      rpbi.framebuffer = framebuffer;
      rpbi.renderArea = {{0, 0}, {kSize, kSize}};
      rpbi.clearValueCount = 1;
      rpbi.pClearValues = &clear;
      vkCmdBeginRenderPass(cb, &rpbi, VK_SUBPASS_CONTENTS_INLINE);
      vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_GRAPHICS, pipeline);
      vkCmdBindDescriptorSets(cb, VK_PIPELINE_BIND_POINT_GRAPHICS, layout, 0, 2, sets, 0, nullptr);
      vkCmdDraw(cb, kVertices, 1, 0, 0);
      vkCmdEndRenderPass(cb);
      VkBufferImageCopy region{};
      region.imageSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1};
      region.imageExtent = {kSize, kSize, 1};
      vkCmdCopyImageToBuffer(cb, image, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, readback.buffer, 1, &region);
      BarrierToHost(cb,
                    VK_PIPELINE_STAGE_TRANSFER_BIT | VK_PIPELINE_STAGE_VERTEX_SHADER_BIT | VK_PIPELINE_STAGE_FRAGMENT_SHADER_BIT,
                    VK_ACCESS_TRANSFER_WRITE_BIT | VK_ACCESS_SHADER_WRITE_BIT);
      if (h.SubmitAndWait(cb) != VK_SUCCESS) out.error = "submit failed";
      const uint8_t* p = static_cast<const uint8_t*>(readback.mapped);
      out.image.assign(p, p + kSize * kSize * 4);
      p = static_cast<const uint8_t*>(seen.mapped);
      out.seen.assign(p, p + kVertices * 4);
      p = static_cast<const uint8_t*>(count.mapped);
      out.count.assign(p, p + 4);
    }

    vkDestroyPipeline(d, pipeline, nullptr);
    vkDestroyShaderModule(d, vertex, nullptr);
    vkDestroyShaderModule(d, fragment, nullptr);
    vkDestroyDescriptorPool(d, pool, nullptr);
    vkDestroyPipelineLayout(d, layout, nullptr);
    for (VkDescriptorSetLayout l : set_layouts) vkDestroyDescriptorSetLayout(d, l, nullptr);
    vkDestroyFramebuffer(d, framebuffer, nullptr);
    vkDestroyRenderPass(d, pass, nullptr);
    vkDestroyImageView(d, view, nullptr);
    vkDestroyImage(d, image, nullptr);
    vkFreeMemory(d, image_memory, nullptr);
    for (HostBuffer* b : {&pos, &seen, &pal, &count, &readback}) h.Destroy(*b);
  });
}

void ExpectSameRender(const RenderOutput& native, const RenderOutput& forced) {
  ASSERT_BOTH_RAN_SILENTLY(native, forced);
  EXPECT_NE(forced.summary.find("pipelines rewritten 1,"), std::string::npos) << forced.summary;
  // The render really happened: vertices wrote their ids, fragments were counted, and
  // the image is not just the clear colour.
  uint32_t fragments = 0;
  std::memcpy(&fragments, native.count.data(), 4);
  EXPECT_GT(fragments, 100u);
  uint32_t id5 = 0;
  std::memcpy(&id5, native.seen.data() + 20, 4);
  EXPECT_EQ(id5, 5u * 7u + 1u);
  EXPECT_EQ(native.image, forced.image);
  EXPECT_EQ(native.seen, forced.seen);
  EXPECT_EQ(native.count, forced.count);
}

TEST(BindingsGraphics, OffscreenRenderWithStorageBuffersInVertexAndFragmentMatchesNative) {
  ExpectSameRender(Render("off"), Render("force"));
}

// The same render with push-constant space full: vertex and fragment
// shaders read the root from the reserved set's ring buffer.
TEST(BindingsGraphics, RootInTheReservedSetWhenPushConstantsAreFull) {
  const RenderOutput forced = Render("force", true);
  ExpectSameRender(Render("off", true), forced);
  EXPECT_EQ(forced.summary.find("root ring bytes 0"), std::string::npos) << forced.summary;
  EXPECT_NE(forced.summary.find("root ring bytes"), std::string::npos) << forced.summary;
}

}  // namespace
}  // namespace bindery::test
