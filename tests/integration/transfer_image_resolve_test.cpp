// Resolves as kernels (docs/transfers.md, "Images"): a resolve's averaging and rounding are
// the implementation's (and which sample an integer resolve takes), so the layer runs one as a
// kernel only for the classes (format encoding, sample count) proven on that driver to give
// the native bytes (transfer/policy.cpp, ProvenResolves). This test is the proof and the
// differential test, run on each driver:
//   - every case natively (no layer);
//   - every case as a kernel wherever one can run (`image_resolves=all`): the table of which
//     classes match byte for byte is printed (what ProvenResolves may list for this driver);
//   - with the policy's own choice (`transfers=force`): every case must give the native
//     bytes, and the proven cases must have run as kernels.
// Sources are rendered: each sample of each pixel its own hashed value (one draw per sample,
// gl_SampleMask), so the resolve averages samples that differ. Destinations hold any bits
// (the texels around a region must keep theirs). Region forms: the whole image across both
// layers, an offset partial region into mip 1, two regions in one command (one per layer),
// and vkCmdResolveImage2.
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <map>
#include <random>
#include <sstream>

#include "integration/transfer_image_rig.h"
#include "resolve_fill_frag_0.h"
#include "resolve_fill_frag_1.h"
#include "resolve_fill_frag_2.h"
#include "resolve_fill_vert.h"
#include "support/vk_objects.h"

namespace bindery::test::transfer {
namespace {

struct ResolveFormat {
  const char* name;
  VkFormat format;
  uint32_t kind;  // 0 float, 1 unsigned, 2 signed (the fill shader's output)
  float scale, bias;  // float outputs: value = byte * scale + bias
};

const ResolveFormat kFormats[] = {
    {"unorm8", VK_FORMAT_R8G8B8A8_UNORM, 0, 1.0f / 251.0f, 0.0f},
    {"unorm8 (BGRA)", VK_FORMAT_B8G8R8A8_UNORM, 0, 1.0f / 251.0f, 0.0f},
    {"unorm8 (R)", VK_FORMAT_R8_UNORM, 0, 1.0f / 253.0f, 0.0f},
    {"srgb8", VK_FORMAT_R8G8B8A8_SRGB, 0, 1.0f / 251.0f, 0.0f},
    {"snorm8", VK_FORMAT_R8G8B8A8_SNORM, 0, 1.0f / 125.0f, -1.0f},
    {"unorm16", VK_FORMAT_R16G16B16A16_UNORM, 0, 1.0f / 251.0f, 0.0f},
    {"float16", VK_FORMAT_R16G16B16A16_SFLOAT, 0, 1.0f / 37.0f, -3.0f},
    {"float32", VK_FORMAT_R32G32B32A32_SFLOAT, 0, 1.0f / 37.0f, -3.0f},
    {"float32 (R)", VK_FORMAT_R32_SFLOAT, 0, 1.0f / 37.0f, -3.0f},
    {"uint8", VK_FORMAT_R8G8B8A8_UINT, 1, 0, 0},
    {"uint16 (RG)", VK_FORMAT_R16G16_UINT, 1, 0, 0},
    {"sint8", VK_FORMAT_R8G8B8A8_SINT, 2, 0, 0},
    {"sint32 (R)", VK_FORMAT_R32_SINT, 2, 0, 0},
};

constexpr VkExtent3D kExtent{64, 48, 1};
constexpr uint32_t kLayers = 2;

struct ResolveCase {
  std::string name;
  const ResolveFormat* format;
  VkSampleCountFlagBits samples;
  std::vector<VkImageResolve> regions;
  bool resolve2 = false;
};

std::vector<ResolveCase> Cases() {
  const VkImageAspectFlags color = VK_IMAGE_ASPECT_COLOR_BIT;
  std::vector<ResolveCase> cases;
  for (const ResolveFormat& f : kFormats) {
    for (VkSampleCountFlagBits samples : {VK_SAMPLE_COUNT_2_BIT, VK_SAMPLE_COUNT_4_BIT, VK_SAMPLE_COUNT_8_BIT}) {
      const std::string prefix = std::string(f.name) + ", " + std::to_string(samples) + "x, ";
      VkImageResolve whole{{color, 0, 0, kLayers}, {0, 0, 0}, {color, 0, 0, kLayers}, {0, 0, 0}, kExtent};
      VkImageResolve partial{{color, 0, 1, 1}, {5, 7, 0}, {color, 1, 0, 1}, {3, 2, 0}, {27, 19, 1}};
      VkImageResolve a{{color, 0, 0, 1}, {30, 20, 0}, {color, 0, 1, 1}, {40, 30, 0}, {20, 17, 1}};
      VkImageResolve b{{color, 0, 1, 1}, {0, 0, 0}, {color, 0, 0, 1}, {1, 1, 0}, {16, 16, 1}};
      cases.push_back({prefix + "whole image, 2 layers", &f, samples, {whole}});
      cases.push_back({prefix + "offset partial region into mip 1", &f, samples, {partial}});
      cases.push_back({prefix + "two regions", &f, samples, {a, b}});
      cases.push_back({prefix + "whole image, vkCmdResolveImage2", &f, samples, {whole}, true});
    }
  }
  return cases;
}

bool MultisampleSupported(VkHarness& h, VkFormat format, VkSampleCountFlagBits samples) {
  VkImageFormatProperties p{};
  if (vkGetPhysicalDeviceImageFormatProperties(
          h.physical_device(), format, VK_IMAGE_TYPE_2D, VK_IMAGE_TILING_OPTIMAL,
          VK_IMAGE_USAGE_TRANSFER_SRC_BIT | VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT, 0, &p) != VK_SUCCESS) {
    return false;
  }
  return (p.sampleCounts & samples) != 0 && p.maxArrayLayers >= kLayers;
}

// The fill pipelines (one per format and sample count) and what they are made of.
class Filler {
 public:
  explicit Filler(ImageRun& run) : run_(run) {
    VkDevice device = run.h().device();
    VkPushConstantRange range{VK_SHADER_STAGE_FRAGMENT_BIT, 0, 16};
    VkPipelineLayoutCreateInfo plci{VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO};
    plci.pushConstantRangeCount = 1;
    plci.pPushConstantRanges = &range;
    vkCreatePipelineLayout(device, &plci, nullptr, &layout_);
    vert_ = CreateShaderModule(device, resolve_fill_vert, sizeof(resolve_fill_vert));
    frag_[0] = CreateShaderModule(device, resolve_fill_frag_0, sizeof(resolve_fill_frag_0));
    frag_[1] = CreateShaderModule(device, resolve_fill_frag_1, sizeof(resolve_fill_frag_1));
    frag_[2] = CreateShaderModule(device, resolve_fill_frag_2, sizeof(resolve_fill_frag_2));
  }
  // The run ends after the filler (its objects go once the device is idle).
  ~Filler() {
    VkDevice device = run_.h().device();
    run_.OnDestroy([device, pipelines = pipelines_, views = views_, frag = std::vector<VkShaderModule>(frag_, frag_ + 3),
                    vert = vert_, layout = layout_] {
      for (VkPipeline p : pipelines) vkDestroyPipeline(device, p, nullptr);
      for (VkImageView v : views) vkDestroyImageView(device, v, nullptr);
      for (VkShaderModule m : frag) vkDestroyShaderModule(device, m, nullptr);
      vkDestroyShaderModule(device, vert, nullptr);
      vkDestroyPipelineLayout(device, layout, nullptr);
    });
  }
  Filler(const Filler&) = delete;
  Filler& operator=(const Filler&) = delete;

  // Renders every sample of every layer of `image` (UNDEFINED before), leaving it in
  // TRANSFER_SRC_OPTIMAL for the resolve.
  void Fill(VkCommandBuffer cb, const TestImage& image, const ResolveFormat& f, uint32_t seed) {
    VkDevice device = run_.h().device();
    const VkSampleCountFlagBits samples = image.info.samples;
    VkPipeline pipeline = Pipeline(f, samples);
    VkImageMemoryBarrier to_attachment{VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER};
    to_attachment.dstAccessMask = VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT;
    to_attachment.oldLayout = VK_IMAGE_LAYOUT_UNDEFINED;
    to_attachment.newLayout = VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL;
    to_attachment.srcQueueFamilyIndex = to_attachment.dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
    to_attachment.image = image.image;
    to_attachment.subresourceRange = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, kLayers};
    vkCmdPipelineBarrier(cb, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT, 0, 0,
                         nullptr, 0, nullptr, 1, &to_attachment);
    for (uint32_t layer = 0; layer < kLayers; ++layer) {
      VkImageViewCreateInfo vci{VK_STRUCTURE_TYPE_IMAGE_VIEW_CREATE_INFO};
      vci.image = image.image;
      vci.viewType = VK_IMAGE_VIEW_TYPE_2D;
      vci.format = image.info.format;
      vci.subresourceRange = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, layer, 1};
      VkImageView view = VK_NULL_HANDLE;
      EXPECT_EQ(vkCreateImageView(device, &vci, nullptr, &view), VK_SUCCESS);
      views_.push_back(view);
      VkRenderingAttachmentInfo attachment{VK_STRUCTURE_TYPE_RENDERING_ATTACHMENT_INFO};
      attachment.imageView = view;
      attachment.imageLayout = VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL;
      attachment.loadOp = VK_ATTACHMENT_LOAD_OP_CLEAR;
      attachment.storeOp = VK_ATTACHMENT_STORE_OP_STORE;
      VkRenderingInfo ri{VK_STRUCTURE_TYPE_RENDERING_INFO};
      ri.renderArea = {{0, 0}, {kExtent.width, kExtent.height}};
      ri.layerCount = 1;
      ri.colorAttachmentCount = 1;
      ri.pColorAttachments = &attachment;
      vkCmdBeginRendering(cb, &ri);
      vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_GRAPHICS, pipeline);
      const VkViewport viewport{0, 0, float(kExtent.width), float(kExtent.height), 0, 1};
      const VkRect2D scissor{{0, 0}, {kExtent.width, kExtent.height}};
      vkCmdSetViewport(cb, 0, 1, &viewport);
      vkCmdSetScissor(cb, 0, 1, &scissor);
      for (uint32_t s = 0; s < static_cast<uint32_t>(samples); ++s) {
        struct {
          uint32_t seed, sample;
          float scale, bias;
        } push{seed * 16 + layer, s, f.scale, f.bias};
        vkCmdPushConstants(cb, layout_, VK_SHADER_STAGE_FRAGMENT_BIT, 0, sizeof(push), &push);
        vkCmdDraw(cb, 3, 1, 0, 0);
      }
      vkCmdEndRendering(cb);
    }
    VkImageMemoryBarrier to_src = to_attachment;
    to_src.srcAccessMask = VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT;
    to_src.dstAccessMask = VK_ACCESS_TRANSFER_READ_BIT;
    to_src.oldLayout = VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL;
    to_src.newLayout = VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL;
    vkCmdPipelineBarrier(cb, VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT, 0, 0,
                         nullptr, 0, nullptr, 1, &to_src);
  }

 private:
  VkPipeline Pipeline(const ResolveFormat& f, VkSampleCountFlagBits samples) {
    VkPipelineShaderStageCreateInfo stages[2] = {{VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO},
                                                 {VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO}};
    stages[0].stage = VK_SHADER_STAGE_VERTEX_BIT;
    stages[0].module = vert_;
    stages[0].pName = "main";
    stages[1].stage = VK_SHADER_STAGE_FRAGMENT_BIT;
    stages[1].module = frag_[f.kind];
    stages[1].pName = "main";
    VkPipelineVertexInputStateCreateInfo vertex_input{VK_STRUCTURE_TYPE_PIPELINE_VERTEX_INPUT_STATE_CREATE_INFO};
    VkPipelineInputAssemblyStateCreateInfo assembly{VK_STRUCTURE_TYPE_PIPELINE_INPUT_ASSEMBLY_STATE_CREATE_INFO};
    assembly.topology = VK_PRIMITIVE_TOPOLOGY_TRIANGLE_LIST;
    VkPipelineViewportStateCreateInfo viewport{VK_STRUCTURE_TYPE_PIPELINE_VIEWPORT_STATE_CREATE_INFO};
    viewport.viewportCount = 1;
    viewport.scissorCount = 1;
    VkPipelineRasterizationStateCreateInfo raster{VK_STRUCTURE_TYPE_PIPELINE_RASTERIZATION_STATE_CREATE_INFO};
    raster.polygonMode = VK_POLYGON_MODE_FILL;
    raster.cullMode = VK_CULL_MODE_NONE;
    raster.lineWidth = 1.0f;
    VkPipelineMultisampleStateCreateInfo multisample{VK_STRUCTURE_TYPE_PIPELINE_MULTISAMPLE_STATE_CREATE_INFO};
    multisample.rasterizationSamples = samples;
    VkPipelineColorBlendAttachmentState blend_attachment{};
    blend_attachment.colorWriteMask = 0xF;
    VkPipelineColorBlendStateCreateInfo blend{VK_STRUCTURE_TYPE_PIPELINE_COLOR_BLEND_STATE_CREATE_INFO};
    blend.attachmentCount = 1;
    blend.pAttachments = &blend_attachment;
    const VkDynamicState dynamic_states[2] = {VK_DYNAMIC_STATE_VIEWPORT, VK_DYNAMIC_STATE_SCISSOR};
    VkPipelineDynamicStateCreateInfo dynamic{VK_STRUCTURE_TYPE_PIPELINE_DYNAMIC_STATE_CREATE_INFO};
    dynamic.dynamicStateCount = 2;
    dynamic.pDynamicStates = dynamic_states;
    VkPipelineRenderingCreateInfo rendering{VK_STRUCTURE_TYPE_PIPELINE_RENDERING_CREATE_INFO};
    rendering.colorAttachmentCount = 1;
    rendering.pColorAttachmentFormats = &f.format;
    VkGraphicsPipelineCreateInfo gpci{VK_STRUCTURE_TYPE_GRAPHICS_PIPELINE_CREATE_INFO};
    gpci.pNext = &rendering;
    gpci.stageCount = 2;
    gpci.pStages = stages;
    gpci.pVertexInputState = &vertex_input;
    gpci.pInputAssemblyState = &assembly;
    gpci.pViewportState = &viewport;
    gpci.pRasterizationState = &raster;
    gpci.pMultisampleState = &multisample;
    gpci.pColorBlendState = &blend;
    gpci.pDynamicState = &dynamic;
    gpci.layout = layout_;
    VkPipeline pipeline = VK_NULL_HANDLE;
    EXPECT_EQ(vkCreateGraphicsPipelines(run_.h().device(), VK_NULL_HANDLE, 1, &gpci, nullptr, &pipeline), VK_SUCCESS);
    pipelines_.push_back(pipeline);
    return pipeline;
  }

  ImageRun& run_;
  VkPipelineLayout layout_ = VK_NULL_HANDLE;
  VkShaderModule vert_ = VK_NULL_HANDLE;
  VkShaderModule frag_[3] = {};
  std::vector<VkPipeline> pipelines_;
  std::vector<VkImageView> views_;
};

// Each case the device supports: the multisampled source (64 x 48, 2 layers) rendered, the
// destination (2 mips, 2 layers) filled with any bits, the resolve, the destination read back.
// `ran` gets the names of the cases run (the same in every run: support is the device's).
bool Program(ImageRun& run, VkCommandBuffer cb, const std::vector<ResolveCase>& cases, std::vector<std::string>* ran) {
  Filler filler(run);
  ran->clear();
  for (uint32_t i = 0; i < cases.size(); ++i) {
    const ResolveCase& c = cases[i];
    if (!MultisampleSupported(run.h(), c.format->format, c.samples)) continue;
    VkImageCreateInfo src_info = ImageInfo(c.format->format, VK_IMAGE_TYPE_2D, kExtent, 1, kLayers,
                                           VK_IMAGE_USAGE_TRANSFER_SRC_BIT | VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT);
    src_info.samples = c.samples;
    const VkImageCreateInfo dst_info = ImageInfo(c.format->format, VK_IMAGE_TYPE_2D, kExtent, 2, kLayers);
    if (!ImageSupported(run.h(), dst_info)) continue;
    ran->push_back(c.name);
    const TestImage src = run.Image(src_info);
    const TestImage dst = run.Image(dst_info);
    filler.Fill(cb, src, *c.format, i + 1);
    std::mt19937 rng(1000 + i);
    std::vector<uint8_t> bits(dst.bytes);
    for (uint8_t& b : bits) b = static_cast<uint8_t>(rng());
    run.Upload(cb, dst, bits, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL);
    if (c.resolve2) {
      std::vector<VkImageResolve2> regions;
      for (const VkImageResolve& r : c.regions) {
        regions.push_back({VK_STRUCTURE_TYPE_IMAGE_RESOLVE_2, nullptr, r.srcSubresource, r.srcOffset, r.dstSubresource,
                           r.dstOffset, r.extent});
      }
      VkResolveImageInfo2 info{VK_STRUCTURE_TYPE_RESOLVE_IMAGE_INFO_2};
      info.srcImage = src.image;
      info.srcImageLayout = VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL;
      info.dstImage = dst.image;
      info.dstImageLayout = VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL;
      info.regionCount = static_cast<uint32_t>(regions.size());
      info.pRegions = regions.data();
      vkCmdResolveImage2(cb, &info);
    } else {
      vkCmdResolveImage(cb, src.image, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, dst.image,
                        VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, static_cast<uint32_t>(c.regions.size()),
                        c.regions.data());
    }
    run.Download(cb, dst, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL);
  }
  return !ran->empty();
}

RigOptions DynamicRendering(std::vector<std::pair<std::string, std::string>> env = {}) {
  static VkPhysicalDeviceVulkan13Features v13{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_3_FEATURES};
  v13.dynamicRendering = VK_TRUE;
  RigOptions options;
  options.device_pnext = &v13;
  options.env = std::move(env);
  return options;
}

std::string ClassOf(const ResolveCase& c) {
  return std::string(c.format->name) + ", " + std::to_string(c.samples) + "x";
}

TEST(TransferImageResolveProof, ProvenClassesGiveTheNativeBytesAsKernels) {
  const std::vector<ResolveCase> cases = Cases();
  std::vector<std::string> names, names_every, names_policy;
  const ImageRunResult native = RunImageProgram(
      kLayerOff, [&](ImageRun& run, VkCommandBuffer cb) { return Program(run, cb, cases, &names); },
      DynamicRendering());
  if (native.error == "skipped") GTEST_SKIP() << "no format of the list can be multisampled here";
  const ImageRunResult every = RunImageProgram(
      kForceCompute, [&](ImageRun& run, VkCommandBuffer cb) { return Program(run, cb, cases, &names_every); },
      DynamicRendering({{"BINDERY_IMAGE_RESOLVES", "all"}}));
  const ImageRunResult policy = RunImageProgram(
      kForceCompute, [&](ImageRun& run, VkCommandBuffer cb) { return Program(run, cb, cases, &names_policy); },
      DynamicRendering());
  ASSERT_BOTH_RAN_SILENTLY(native, every);
  ASSERT_BOTH_RAN_SILENTLY(native, policy);
  ASSERT_EQ(names, names_every);
  ASSERT_EQ(names, names_policy);
  ASSERT_EQ(native.downloads.size(), names.size());
  ASSERT_EQ(every.downloads.size(), names.size());
  // The survey: which classes match when every resolve runs as a kernel.
  std::map<std::string, const ResolveCase*> by_name;
  for (const ResolveCase& c : cases) by_name[c.name] = &c;
  std::map<std::string, std::pair<uint32_t, uint32_t>> classes;
  for (size_t i = 0; i < names.size(); ++i) {
    auto& [same, total] = classes[ClassOf(*by_name[names[i]])];
    const bool match = every.downloads[i] == native.downloads[i];
    same += match ? 1 : 0;
    ++total;
    if (!match && std::getenv("BINDERY_RESOLVE_PROOF_VERBOSE") != nullptr) {
      const auto& a = native.downloads[i];
      const auto& b = every.downloads[i];
      size_t first = 0, count = 0;
      for (size_t j = 0; j < a.size(); ++j) {
        if (a[j] != b[j] && count++ == 0) first = j;
      }
      std::cout << "  differs: " << names[i] << ": " << count << " bytes, first at " << first << " (native "
                << int(a[first]) << ", kernel " << int(b[first]) << ")\n";
    }
  }
  std::ostringstream table;
  for (const auto& [key, counts] : classes) {
    table << "  " << key << ": " << (counts.first == counts.second ? "native bytes" : "differs") << " ("
          << counts.first << "/" << counts.second << " cases)\n";
  }
  std::cout << "[ resolve classes as kernels (image_resolves=all) ]\n"
            << table.str() << "[ image kernels ] " << every.Counter("image kernels") << " for " << names.size()
            << " resolves and " << every.staging << " uploads and downloads; under the policy: "
            << policy.Counter("image kernels") << "\n";
  // What the policy runs as kernels gives exactly the native bytes.
  EXPECT_TRUE(SameDownloads(native, policy, names)) << policy.summary;
  // And the kernel must have run for the resolves whose formats it can store (a test that
  // cannot fail proves nothing): under `image_resolves=all` every such resolve is a kernel.
  uint64_t storable = 0;
  for (const std::string& n : names) {
    const VkFormat f = by_name[n]->format->format;
    storable += f == VK_FORMAT_R8G8B8A8_SRGB ? 0 : 1;  // sRGB has no storage: native
  }
  EXPECT_GE(every.Counter("image kernels"), every.staging + storable) << every.summary;
  if (std::getenv("BINDERY_RESOLVE_PROOF_VERBOSE") != nullptr) std::cout << policy.summary << "\n";
}

// What a resolve kernel must not or cannot take goes down natively, is counted under "image
// native" with its reason, and gives the driver's bytes: a source with external memory (the
// layer never extends it, so it has no SAMPLED usage), a class not proven on this driver
// (`image_resolves=off` here: none is), and the proven class beside them runs as a kernel.
TEST(TransferImageResolve, WhatKernelsCannotTakeGoesNativeWithItsReason) {
  const VkImageAspectFlags color = VK_IMAGE_ASPECT_COLOR_BIT;
  const VkImageResolve whole{{color, 0, 0, kLayers}, {0, 0, 0}, {color, 0, 0, kLayers}, {0, 0, 0}, kExtent};
  auto program = [&](ImageRun& run, VkCommandBuffer cb) {
    if (!MultisampleSupported(run.h(), VK_FORMAT_R8G8B8A8_UNORM, VK_SAMPLE_COUNT_4_BIT)) return false;
    Filler filler(run);
    VkExternalMemoryImageCreateInfo external{VK_STRUCTURE_TYPE_EXTERNAL_MEMORY_IMAGE_CREATE_INFO};
    external.handleTypes = VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT;
    for (int i = 0; i < 2; ++i) {
      VkImageCreateInfo src_info = ImageInfo(VK_FORMAT_R8G8B8A8_UNORM, VK_IMAGE_TYPE_2D, kExtent, 1, kLayers,
                                             VK_IMAGE_USAGE_TRANSFER_SRC_BIT | VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT);
      src_info.samples = VK_SAMPLE_COUNT_4_BIT;
      if (i == 0) src_info.pNext = &external;
      const TestImage src = run.Image(src_info);
      const TestImage dst = run.Image(ImageInfo(VK_FORMAT_R8G8B8A8_UNORM, VK_IMAGE_TYPE_2D, kExtent, 1, kLayers));
      filler.Fill(cb, src, kFormats[0], 77 + i);
      run.Upload(cb, dst, std::vector<uint8_t>(dst.bytes, 0x5A), VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL);
      vkCmdResolveImage(cb, src.image, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, dst.image,
                        VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, 1, &whole);
      run.Download(cb, dst, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL);
    }
    return true;
  };
  const ImageRunResult native = RunImageProgram(kLayerOff, program, DynamicRendering());
  if (native.error == "skipped") GTEST_SKIP() << "no 4x R8G8B8A8_UNORM colour attachments here";
  const ImageRunResult forced = RunImageProgram(kForceCompute, program, DynamicRendering({{"BINDERY_IMAGE_RESOLVES", "all"}}));
  const ImageRunResult off = RunImageProgram(kForceCompute, program, DynamicRendering({{"BINDERY_IMAGE_RESOLVES", "off"}}));
  ASSERT_BOTH_RAN_SILENTLY(native, forced);
  ASSERT_BOTH_RAN_SILENTLY(native, off);
  // Under `all` the plain source's class runs as a kernel whether or not it is proven here: its
  // bytes are the driver's only where the class is (NVIDIA's 4x unorm8 resolve rounds one unit
  // away from the plain average, docs/transfers.md), so only the external source's are compared.
  EXPECT_TRUE(SameDownloads(native, forced, {"external source"}));
  EXPECT_TRUE(SameDownloads(native, off, {"external source", "plain source"}));
  // The plain source's resolve is a kernel; the external one's is native with its reason.
  EXPECT_EQ(forced.Counter("image kernels"), forced.staging + 1) << forced.summary;
  EXPECT_NE(forced.summary.find("external, swapchain, DRM-modifier or other extended image create info"),
            std::string::npos)
      << forced.summary;
  // Resolves off: none is a kernel, and none counts as a fallback (the policy never wanted one).
  EXPECT_EQ(off.Counter("image kernels"), off.staging) << off.summary;
}

// SAMPLED is added to a multisampled image only where rendering into one was measured no
// slower with it (Policy::multisampled_sampled_measured, the bindery_probe image/msaa rows).
// NVIDIA's row (`transfer_strategy=nvidia` here) has not measured it: with lavapipe's proven
// 4x unorm8 class and NVIDIA's thresholds (a 1.25 MiB resolve), the source stays as the
// application made it and the resolve is the driver's, with the reason in the summary;
// `image_resolves=all` (measurement) extends it and runs the kernel. Both give the native bytes.
TEST(TransferImageResolve, UnmeasuredSampledCostKeepsMultisampledImagesAsMade) {
  constexpr VkExtent3D kLarge{640, 512, 1};
  const VkImageAspectFlags color = VK_IMAGE_ASPECT_COLOR_BIT;
  const VkImageResolve whole{{color, 0, 0, 1}, {0, 0, 0}, {color, 0, 0, 1}, {0, 0, 0}, kLarge};
  auto program = [&](ImageRun& run, VkCommandBuffer cb) {
    if (!MultisampleSupported(run.h(), VK_FORMAT_R8G8B8A8_UNORM, VK_SAMPLE_COUNT_4_BIT)) return false;
    VkImageCreateInfo src_info = ImageInfo(VK_FORMAT_R8G8B8A8_UNORM, VK_IMAGE_TYPE_2D, kLarge, 1, 1,
                                           VK_IMAGE_USAGE_TRANSFER_SRC_BIT | VK_IMAGE_USAGE_TRANSFER_DST_BIT |
                                               VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT);
    src_info.samples = VK_SAMPLE_COUNT_4_BIT;
    const TestImage src = run.Image(src_info);
    const TestImage dst = run.Image(ImageInfo(VK_FORMAT_R8G8B8A8_UNORM, VK_IMAGE_TYPE_2D, kLarge, 1, 1));
    // The source's samples: a clear (valid on a multisampled image, never a kernel).
    VkImageMemoryBarrier to_dst{VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER};
    to_dst.dstAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT;
    to_dst.oldLayout = VK_IMAGE_LAYOUT_UNDEFINED;
    to_dst.newLayout = VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL;
    to_dst.srcQueueFamilyIndex = to_dst.dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
    to_dst.image = src.image;
    to_dst.subresourceRange = {color, 0, 1, 0, 1};
    vkCmdPipelineBarrier(cb, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT, 0, 0, nullptr, 0,
                         nullptr, 1, &to_dst);
    VkClearColorValue value{};
    value.float32[0] = 0.3f;
    value.float32[1] = 0.6f;
    value.float32[2] = 0.1f;
    value.float32[3] = 1.0f;
    vkCmdClearColorImage(cb, src.image, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, &value, 1, &to_dst.subresourceRange);
    VkImageMemoryBarrier to_src = to_dst;
    to_src.srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT;
    to_src.dstAccessMask = VK_ACCESS_TRANSFER_READ_BIT;
    to_src.oldLayout = VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL;
    to_src.newLayout = VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL;
    vkCmdPipelineBarrier(cb, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT, 0, 0, nullptr, 0, nullptr,
                         1, &to_src);
    run.Upload(cb, dst, std::vector<uint8_t>(dst.bytes, 0x5A), VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL);
    vkCmdResolveImage(cb, src.image, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, dst.image,
                      VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, 1, &whole);
    run.Download(cb, dst, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL);
    return true;
  };
  const ImageRunResult native = RunImageProgram(kLayerOff, program);
  if (native.error == "skipped") GTEST_SKIP() << "no 4x R8G8B8A8_UNORM colour attachments here";
  const ImageRunResult nvidia = RunImageProgram(kAutoNvidiaPolicy, program);
  RigOptions measuring;
  measuring.env = {{"BINDERY_IMAGE_RESOLVES", "all"}};
  const ImageRunResult all = RunImageProgram(kAutoNvidiaPolicy, program, measuring);
  ASSERT_BOTH_RAN_SILENTLY(native, nvidia);
  ASSERT_BOTH_RAN_SILENTLY(native, all);
  EXPECT_TRUE(SameDownloads(native, nvidia, {"resolved"}));
  EXPECT_TRUE(SameDownloads(native, all, {"resolved"}));
  EXPECT_EQ(nvidia.Counter("image kernels"), nvidia.staging) << nvidia.summary;
  EXPECT_NE(nvidia.summary.find("the SAMPLED usage's cost to rendering is not measured on this driver"),
            std::string::npos)
      << nvidia.summary;
  EXPECT_EQ(all.Counter("image kernels"), all.staging + 1) << all.summary;
}

// Memory requirements asked without an image (maintenance4) are those of the multisampled
// image the layer creates for the same create info (SAMPLED added alike).
TEST(TransferImageResolve, DeviceImageRequirementsMatchTheCreatedMultisampledImage) {
  Rig rig(kForceCompute);
  ASSERT_TRUE(rig.ok()) << rig.error();
  VkDevice device = rig.h().device();
  if (!MultisampleSupported(rig.h(), VK_FORMAT_R8G8B8A8_UNORM, VK_SAMPLE_COUNT_4_BIT)) {
    rig.Finish();
    GTEST_SKIP() << "no 4x R8G8B8A8_UNORM colour attachments here";
  }
  VkImageCreateInfo info = ImageInfo(VK_FORMAT_R8G8B8A8_UNORM, VK_IMAGE_TYPE_2D, {257, 129, 1}, 1, 3,
                                     VK_IMAGE_USAGE_TRANSFER_SRC_BIT | VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT);
  info.samples = VK_SAMPLE_COUNT_4_BIT;
  VkImage image = VK_NULL_HANDLE;
  ASSERT_EQ(vkCreateImage(device, &info, nullptr, &image), VK_SUCCESS);
  VkMemoryRequirements created{};
  vkGetImageMemoryRequirements(device, image, &created);
  VkDeviceImageMemoryRequirements asked{VK_STRUCTURE_TYPE_DEVICE_IMAGE_MEMORY_REQUIREMENTS};
  asked.pCreateInfo = &info;
  VkMemoryRequirements2 answer{VK_STRUCTURE_TYPE_MEMORY_REQUIREMENTS_2};
  vkGetDeviceImageMemoryRequirements(device, &asked, &answer);
  EXPECT_EQ(answer.memoryRequirements.size, created.size);
  EXPECT_EQ(answer.memoryRequirements.alignment, created.alignment);
  EXPECT_EQ(answer.memoryRequirements.memoryTypeBits, created.memoryTypeBits);
  vkDestroyImage(device, image, nullptr);
  rig.Finish();
  EXPECT_VALIDATION_SILENT(rig.h());
}

}  // namespace
}  // namespace bindery::test::transfer
