#include "interpreter.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <map>
#include <set>

#include <unistd.h>

#include "compile.h"
#include "generator.h"
#include "glsl.h"

namespace bindery::apifuzz {
namespace {

VkDescriptorType VkType(DescType t) {
  switch (t) {
    case DescType::kStorage: return VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
    case DescType::kUniform: return VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER;
    case DescType::kStorageDynamic: return VK_DESCRIPTOR_TYPE_STORAGE_BUFFER_DYNAMIC;
    case DescType::kUniformDynamic: return VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER_DYNAMIC;
    case DescType::kSampledImage: return VK_DESCRIPTOR_TYPE_SAMPLED_IMAGE;
    case DescType::kStorageImage: return VK_DESCRIPTOR_TYPE_STORAGE_IMAGE;
    case DescType::kCombinedImageSampler: return VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER;
  }
  return VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
}

// One descriptor's info, buffer or image; both are 24 bytes, so an array of these is also
// an array of either (writes point pBufferInfo/pImageInfo into it, templates use one stride).
union DescInfo {
  VkDescriptorBufferInfo buffer;
  VkDescriptorImageInfo image;
};
static_assert(sizeof(DescInfo) == sizeof(VkDescriptorBufferInfo) && sizeof(DescInfo) == sizeof(VkDescriptorImageInfo),
              "descriptor infos share one stride");

struct ImageObject {
  VkImage image = VK_NULL_HANDLE;
  VkDeviceMemory memory = VK_NULL_HANDLE;
  VkImageView view = VK_NULL_HANDLE;
};

constexpr uint32_t kTexBytes = 4 * kTexSize * kTexSize;

struct HostBuffer {
  VkBuffer buffer = VK_NULL_HANDLE;
  VkDeviceMemory memory = VK_NULL_HANDLE;
  void* mapped = nullptr;
  uint32_t size = 0;
};

class Interpreter {
 public:
  Interpreter(const Device& d, const Program& p)
      : d_(d), p_(p), dev_(d.device), repush_after_bind_(LosesPushesAcrossBinds(d.physical)) {}
  ~Interpreter() { Destroy(); }

  RunResult Run() {
    Load();
    if (!Setup()) return result_;
    InitImage();
    for (size_t i = 0; i < p_.steps.size() && !result_.device_lost; ++i) {
      if (!done_late_.count(i)) DoStep(i);
    }
    if (!result_.device_lost) FinishAndRead();
    return result_;
  }

 private:
  template <class F>
  F Proc(const char* name) {
    return reinterpret_cast<F>(vkGetDeviceProcAddr(dev_, name));
  }
  void Load() {
    push_set_ = Proc<PFN_vkCmdPushDescriptorSetKHR>("vkCmdPushDescriptorSetKHR");
    push_template_ = Proc<PFN_vkCmdPushDescriptorSetWithTemplateKHR>("vkCmdPushDescriptorSetWithTemplateKHR");
    draw_multi_ = Proc<PFN_vkCmdDrawMultiEXT>("vkCmdDrawMultiEXT");
    draw_multi_indexed_ = Proc<PFN_vkCmdDrawMultiIndexedEXT>("vkCmdDrawMultiIndexedEXT");
  }

  uint32_t MemoryType(uint32_t bits, VkMemoryPropertyFlags flags) {
    VkPhysicalDeviceMemoryProperties props;
    vkGetPhysicalDeviceMemoryProperties(d_.physical, &props);
    for (uint32_t i = 0; i < props.memoryTypeCount; ++i) {
      if ((bits & (1u << i)) && (props.memoryTypes[i].propertyFlags & flags) == flags) return i;
    }
    return 0;
  }

  // A host-visible buffer; `external`: on OPAQUE_FD external memory, allocated for export or
  // imported from an fd another allocation exported (that one freed once imported: the
  // import holds the payload).
  HostBuffer MakeBuffer(uint32_t size, VkBufferUsageFlags usage, External external = External::kNone) {
    HostBuffer b;
    b.size = size;
    constexpr VkExternalMemoryHandleTypeFlagBits kHandle = VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT;
    VkExternalMemoryBufferCreateInfo external_info{VK_STRUCTURE_TYPE_EXTERNAL_MEMORY_BUFFER_CREATE_INFO};
    external_info.handleTypes = kHandle;
    VkBufferCreateInfo bci{VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
    bci.pNext = external != External::kNone ? &external_info : nullptr;
    bci.size = size;
    bci.usage = usage;
    vkCreateBuffer(dev_, &bci, nullptr, &b.buffer);
    VkMemoryRequirements req;
    vkGetBufferMemoryRequirements(dev_, b.buffer, &req);
    VkExportMemoryAllocateInfo export_info{VK_STRUCTURE_TYPE_EXPORT_MEMORY_ALLOCATE_INFO};
    export_info.handleTypes = kHandle;
    VkMemoryAllocateInfo mai{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
    mai.pNext = external != External::kNone ? &export_info : nullptr;
    mai.allocationSize = req.size;
    mai.memoryTypeIndex =
        MemoryType(req.memoryTypeBits, VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT);
    vkAllocateMemory(dev_, &mai, nullptr, &b.memory);
    if (external == External::kImported && b.memory != VK_NULL_HANDLE) {
      // The same payload through an fd: exported, then imported with the exporter's size
      // and memory type (VUID-VkMemoryAllocateInfo-allocationSize-01742).
      auto get_fd = Proc<PFN_vkGetMemoryFdKHR>("vkGetMemoryFdKHR");
      VkMemoryGetFdInfoKHR fd_info{VK_STRUCTURE_TYPE_MEMORY_GET_FD_INFO_KHR};
      fd_info.memory = b.memory;
      fd_info.handleType = kHandle;
      int fd = -1;
      VkDeviceMemory imported = VK_NULL_HANDLE;
      if (get_fd != nullptr && get_fd(dev_, &fd_info, &fd) == VK_SUCCESS) {
        VkImportMemoryFdInfoKHR import{VK_STRUCTURE_TYPE_IMPORT_MEMORY_FD_INFO_KHR};
        import.handleType = kHandle;
        import.fd = fd;
        mai.pNext = &import;
        if (vkAllocateMemory(dev_, &mai, nullptr, &imported) != VK_SUCCESS) close(fd);  // an import owns it
      }
      vkFreeMemory(dev_, b.memory, nullptr);
      b.memory = imported;
    }
    if (b.memory == VK_NULL_HANDLE) {
      result_.error = "could not allocate a buffer's memory";
      return b;
    }
    vkBindBufferMemory(dev_, b.buffer, b.memory, 0);
    vkMapMemory(dev_, b.memory, 0, VK_WHOLE_SIZE, 0, &b.mapped);
    return b;
  }

  bool Setup() {
    // Buffers, with contents from the seed and the buffer's index.
    const VkBufferUsageFlags usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_UNIFORM_BUFFER_BIT |
                                     VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT;
    for (size_t i = 0; i < p_.buffers.size(); ++i) {
      // External memory only where this device has it (a case from another device runs
      // with ordinary buffers here).
      const External external = d_.features.external_memory ? p_.buffers[i].external : External::kNone;
      buffers_.push_back(MakeBuffer(p_.buffers[i].size, usage, external));
      if (buffers_.back().mapped == nullptr) return false;
      auto* words = static_cast<uint32_t*>(buffers_.back().mapped);
      uint64_t h = p_.seed * 1000003u + i;
      for (uint32_t w = 0; w < p_.buffers[i].size / 4; ++w) {
        h = h * 6364136223846793005ull + 1442695040888963407ull;
        words[w] = p_.buffers[i].role == Role::kCounter ? w : static_cast<uint32_t>(h >> 33);
      }
    }
    const uint32_t indirect_size = std::max<uint32_t>(16, 4 * static_cast<uint32_t>(p_.indirect.size()));
    indirect_ = MakeBuffer(indirect_size, VK_BUFFER_USAGE_INDIRECT_BUFFER_BIT | VK_BUFFER_USAGE_INDEX_BUFFER_BIT);
    if (!p_.indirect.empty()) std::memcpy(indirect_.mapped, p_.indirect.data(), 4 * p_.indirect.size());
    readback_ = MakeBuffer(4 * kImageSize * kImageSize, VK_BUFFER_USAGE_TRANSFER_DST_BIT);
    MakeDescriptorImages();
    MakeTransferImages();

    // The color image (R32_UINT, GENERAL all along).
    VkImageCreateInfo ici{VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO};
    ici.imageType = VK_IMAGE_TYPE_2D;
    ici.format = VK_FORMAT_R32_UINT;
    ici.extent = {kImageSize, kImageSize, 1};
    ici.mipLevels = 1;
    ici.arrayLayers = 1;
    ici.samples = VK_SAMPLE_COUNT_1_BIT;
    ici.tiling = VK_IMAGE_TILING_OPTIMAL;
    ici.usage = VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT | VK_IMAGE_USAGE_TRANSFER_SRC_BIT | VK_IMAGE_USAGE_TRANSFER_DST_BIT;
    vkCreateImage(dev_, &ici, nullptr, &image_);
    VkMemoryRequirements req;
    vkGetImageMemoryRequirements(dev_, image_, &req);
    VkMemoryAllocateInfo mai{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
    mai.allocationSize = req.size;
    mai.memoryTypeIndex = MemoryType(req.memoryTypeBits, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT);
    vkAllocateMemory(dev_, &mai, nullptr, &image_memory_);
    vkBindImageMemory(dev_, image_, image_memory_, 0);
    VkImageViewCreateInfo vci{VK_STRUCTURE_TYPE_IMAGE_VIEW_CREATE_INFO};
    vci.image = image_;
    vci.viewType = VK_IMAGE_VIEW_TYPE_2D;
    vci.format = VK_FORMAT_R32_UINT;
    vci.subresourceRange = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1};
    vkCreateImageView(dev_, &vci, nullptr, &view_);

    // A classic render pass (synchronization validation of this era does not follow
    // dynamic rendering), the image in GENERAL before, during and after.
    VkAttachmentDescription att{};
    att.format = VK_FORMAT_R32_UINT;
    att.samples = VK_SAMPLE_COUNT_1_BIT;
    att.loadOp = VK_ATTACHMENT_LOAD_OP_LOAD;
    att.storeOp = VK_ATTACHMENT_STORE_OP_STORE;
    att.stencilLoadOp = VK_ATTACHMENT_LOAD_OP_DONT_CARE;
    att.stencilStoreOp = VK_ATTACHMENT_STORE_OP_DONT_CARE;
    att.initialLayout = VK_IMAGE_LAYOUT_GENERAL;
    att.finalLayout = VK_IMAGE_LAYOUT_GENERAL;
    VkAttachmentReference ref{0, VK_IMAGE_LAYOUT_GENERAL};
    VkSubpassDescription sub{};
    sub.pipelineBindPoint = VK_PIPELINE_BIND_POINT_GRAPHICS;
    sub.colorAttachmentCount = 1;
    sub.pColorAttachments = &ref;
    VkSubpassDependency deps[2] = {};
    deps[0] = {VK_SUBPASS_EXTERNAL, 0, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, VK_PIPELINE_STAGE_ALL_GRAPHICS_BIT,
               VK_ACCESS_MEMORY_WRITE_BIT, VK_ACCESS_MEMORY_READ_BIT | VK_ACCESS_MEMORY_WRITE_BIT, 0};
    deps[1] = {0, VK_SUBPASS_EXTERNAL, VK_PIPELINE_STAGE_ALL_GRAPHICS_BIT, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT,
               VK_ACCESS_MEMORY_WRITE_BIT, VK_ACCESS_MEMORY_READ_BIT | VK_ACCESS_MEMORY_WRITE_BIT, 0};
    VkRenderPassCreateInfo rpci{VK_STRUCTURE_TYPE_RENDER_PASS_CREATE_INFO};
    rpci.attachmentCount = 1;
    rpci.pAttachments = &att;
    rpci.subpassCount = 1;
    rpci.pSubpasses = &sub;
    rpci.dependencyCount = 2;
    rpci.pDependencies = deps;
    vkCreateRenderPass(dev_, &rpci, nullptr, &render_pass_);
    VkFramebufferCreateInfo fci{VK_STRUCTURE_TYPE_FRAMEBUFFER_CREATE_INFO};
    fci.renderPass = render_pass_;
    fci.attachmentCount = 1;
    fci.pAttachments = &view_;
    fci.width = fci.height = kImageSize;
    fci.layers = 1;
    vkCreateFramebuffer(dev_, &fci, nullptr, &framebuffer_);

    for (const SetLayout& sl : p_.set_layouts) {
      std::vector<VkDescriptorSetLayoutBinding> bs;
      std::vector<VkDescriptorBindingFlags> flags;
      bool any_flags = false;
      for (const Binding& b : sl.bindings) {
        bs.push_back({b.binding, VkType(b.type), b.count, b.stages, nullptr});
        flags.push_back(b.flags);
        any_flags |= b.flags != 0;
      }
      VkDescriptorSetLayoutBindingFlagsCreateInfo flags_info{
          VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_BINDING_FLAGS_CREATE_INFO};
      flags_info.bindingCount = static_cast<uint32_t>(flags.size());
      flags_info.pBindingFlags = flags.data();
      VkDescriptorSetLayoutCreateInfo ci{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO};
      ci.pNext = any_flags ? &flags_info : nullptr;
      ci.flags = (sl.push ? VK_DESCRIPTOR_SET_LAYOUT_CREATE_PUSH_DESCRIPTOR_BIT_KHR : 0) |
                 (sl.update_after_bind ? VK_DESCRIPTOR_SET_LAYOUT_CREATE_UPDATE_AFTER_BIND_POOL_BIT : 0);
      ci.bindingCount = static_cast<uint32_t>(bs.size());
      ci.pBindings = bs.data();
      VkDescriptorSetLayout l = VK_NULL_HANDLE;
      vkCreateDescriptorSetLayout(dev_, &ci, nullptr, &l);
      set_layouts_.push_back(l);
    }
    for (const PipelineLayout& pl : p_.pipeline_layouts) {
      std::vector<VkDescriptorSetLayout> sets;
      for (uint32_t s : pl.sets) sets.push_back(s < set_layouts_.size() ? set_layouts_[s] : VK_NULL_HANDLE);
      std::vector<VkPushConstantRange> ranges;
      for (const PushRange& r : pl.push) ranges.push_back({r.stages, r.offset, r.size});
      VkPipelineLayoutCreateInfo ci{VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO};
      ci.setLayoutCount = static_cast<uint32_t>(sets.size());
      ci.pSetLayouts = sets.data();
      ci.pushConstantRangeCount = static_cast<uint32_t>(ranges.size());
      ci.pPushConstantRanges = ranges.data();
      VkPipelineLayout l = VK_NULL_HANDLE;
      vkCreatePipelineLayout(dev_, &ci, nullptr, &l);
      pipeline_layouts_.push_back(l);
    }
    for (uint32_t i = 0; i < p_.pipelines.size(); ++i) {
      const Pipeline& pl = p_.pipelines[i];
      pipelines_.push_back(pl.layout < pipeline_layouts_.size() ? MakePipeline(i) : VK_NULL_HANDLE);
      if (!result_.error.empty()) return false;
    }
    for (const Pool& pool : p_.pools) {
      const VkDescriptorPoolSize sizes[] = {{VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 64},
                                            {VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER, 64},
                                            {VK_DESCRIPTOR_TYPE_STORAGE_BUFFER_DYNAMIC, 32},
                                            {VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER_DYNAMIC, 32},
                                            {VK_DESCRIPTOR_TYPE_SAMPLED_IMAGE, 32},
                                            {VK_DESCRIPTOR_TYPE_STORAGE_IMAGE, 32},
                                            {VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER, 32}};
      VkDescriptorPoolCreateInfo ci{VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO};
      ci.flags = (pool.free_bit ? VK_DESCRIPTOR_POOL_CREATE_FREE_DESCRIPTOR_SET_BIT : 0) |
                 (pool.update_after_bind ? VK_DESCRIPTOR_POOL_CREATE_UPDATE_AFTER_BIND_BIT : 0);
      ci.maxSets = pool.max_sets;
      ci.poolSizeCount = static_cast<uint32_t>(std::size(sizes));
      ci.pPoolSizes = sizes;
      VkDescriptorPool dp = VK_NULL_HANDLE;
      vkCreateDescriptorPool(dev_, &ci, nullptr, &dp);
      pools_.push_back(dp);
    }
    slots_.assign(p_.set_slots, Slot{});
    MakeQueryPools();
    for (uint32_t i = 0; i < p_.semaphores; ++i) {
      VkSemaphoreTypeCreateInfo tci{VK_STRUCTURE_TYPE_SEMAPHORE_TYPE_CREATE_INFO};
      tci.semaphoreType = VK_SEMAPHORE_TYPE_TIMELINE;
      VkSemaphoreCreateInfo ci{VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO};
      ci.pNext = &tci;
      VkSemaphore s = VK_NULL_HANDLE;
      vkCreateSemaphore(dev_, &ci, nullptr, &s);
      semaphores_.push_back(s);
      signaled_.push_back(0);
      device_signaled_.push_back(0);
    }
    return true;
  }

  // One pipeline-statistics pool of one query per kBeginQuery of the program (where the
  // device has the feature; elsewhere the queries are skipped), in the order they are named.
  void MakeQueryPools() {
    if (!d_.features.pipeline_statistics) return;
    for (const Step& step : p_.steps) {
      for (const Cmd& c : step.cmds) {
        if (c.kind != CmdKind::kBeginQuery || c.stages == 0 || queries_.count(c.first)) continue;
        VkQueryPoolCreateInfo ci{VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO};
        ci.queryType = VK_QUERY_TYPE_PIPELINE_STATISTICS;
        ci.queryCount = 1;
        ci.pipelineStatistics = c.stages;
        Query q;
        q.statistics = c.stages;
        vkCreateQueryPool(dev_, &ci, nullptr, &q.pool);
        queries_[c.first] = q;
      }
    }
  }

  // ---- image transfers (--image-transfers) ----
  static uint32_t TexelBytes(uint32_t format) {
    for (const TransferFormat& f : kTransferFormats) {
      if (f.format == format) return f.texel_bytes;
    }
    return 4;
  }
  static VkExtent3D MipExtent(const TransferImage& t, uint32_t mip) {
    return {std::max(1u, t.width >> mip), std::max(1u, t.height >> mip), std::max(1u, t.depth >> mip)};
  }
  // One region per mip, all layers, tightly packed from `offset` (upload and read-back).
  static std::vector<VkBufferImageCopy> WholeImage(const TransferImage& t, VkDeviceSize offset) {
    std::vector<VkBufferImageCopy> regions;
    for (uint32_t m = 0; m < t.mips; ++m) {
      const VkExtent3D e = MipExtent(t, m);
      regions.push_back({offset, 0, 0, {VK_IMAGE_ASPECT_COLOR_BIT, m, 0, t.layers}, {0, 0, 0}, e});
      offset += VkDeviceSize{e.width} * e.height * e.depth * t.layers * TexelBytes(t.format);
    }
    return regions;
  }
  static VkDeviceSize ImageBytes(const TransferImage& t) {
    VkDeviceSize bytes = 0;
    for (uint32_t m = 0; m < t.mips; ++m) {
      const VkExtent3D e = MipExtent(t, m);
      bytes += VkDeviceSize{e.width} * e.height * e.depth * t.layers * TexelBytes(t.format);
    }
    return bytes;
  }

  // The images of the image transfer commands, their contents from the seed in one staging
  // buffer (uploaded by InitImage, and the read-back's destination in FinishAndRead).
  void MakeTransferImages() {
    if (p_.transfer_images.empty()) return;
    VkDeviceSize total = 0;
    for (const TransferImage& t : p_.transfer_images) {
      transfer_offsets_.push_back(total);
      total += (ImageBytes(t) + 15) / 16 * 16;
    }
    transfer_staging_ = MakeBuffer(static_cast<uint32_t>(total),
                                   VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT);
    uint64_t h = p_.seed * 9000011u + 17;
    auto* bytes = static_cast<uint8_t*>(transfer_staging_.mapped);
    for (VkDeviceSize i = 0; i < total; ++i) {
      h = h * 6364136223846793005ull + 1442695040888963407ull;
      bytes[i] = static_cast<uint8_t>(h >> 56);
    }
    for (const TransferImage& t : p_.transfer_images) {
      ImageObject o;
      VkImageCreateInfo ici{VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO};
      ici.imageType = static_cast<VkImageType>(t.type);
      ici.format = static_cast<VkFormat>(t.format);
      ici.extent = {t.width, t.height, t.depth};
      ici.mipLevels = t.mips;
      ici.arrayLayers = t.layers;
      ici.samples = VK_SAMPLE_COUNT_1_BIT;
      ici.tiling = VK_IMAGE_TILING_OPTIMAL;
      ici.usage = VK_IMAGE_USAGE_SAMPLED_BIT | VK_IMAGE_USAGE_TRANSFER_SRC_BIT | VK_IMAGE_USAGE_TRANSFER_DST_BIT;
      if (vkCreateImage(dev_, &ici, nullptr, &o.image) == VK_SUCCESS) {
        VkMemoryRequirements req;
        vkGetImageMemoryRequirements(dev_, o.image, &req);
        VkMemoryAllocateInfo mai{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
        mai.allocationSize = req.size;
        mai.memoryTypeIndex = MemoryType(req.memoryTypeBits, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT);
        vkAllocateMemory(dev_, &mai, nullptr, &o.memory);
        vkBindImageMemory(dev_, o.image, o.memory, 0);
      }
      transfer_images_.push_back(o);
    }
  }

  // Moves all of transfer image `i` between TRANSFER_DST_OPTIMAL (its layout between
  // commands) and TRANSFER_SRC_OPTIMAL, ordered after and before other transfers.
  void TransferImageLayout(VkCommandBuffer cb, uint32_t i, bool to_src) {
    VkImageMemoryBarrier ib{VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER};
    ib.srcAccessMask = VK_ACCESS_MEMORY_WRITE_BIT;
    ib.dstAccessMask = VK_ACCESS_MEMORY_READ_BIT | VK_ACCESS_MEMORY_WRITE_BIT;
    ib.oldLayout = to_src ? VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL : VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL;
    ib.newLayout = to_src ? VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL : VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL;
    ib.srcQueueFamilyIndex = ib.dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
    ib.image = transfer_images_[i].image;
    ib.subresourceRange = {VK_IMAGE_ASPECT_COLOR_BIT, 0, VK_REMAINING_MIP_LEVELS, 0, VK_REMAINING_ARRAY_LAYERS};
    vkCmdPipelineBarrier(cb, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, 0, 0, nullptr, 0,
                         nullptr, 1, &ib);
  }

  bool TransferImageOk(uint32_t i) const { return i < transfer_images_.size() && transfer_images_[i].image; }

  // Records one image transfer command (its regions checked against what exists: a cut
  // program may name an image or buffer that is gone), then a full barrier.
  void ImageTransfer(VkCommandBuffer cb, const Cmd& c) {
    const std::vector<uint32_t>& v = c.values;
    constexpr VkImageLayout kDst = VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, kSrc = VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL;
    auto layers = [](uint32_t x) { return x; };
    switch (c.kind) {
      case CmdKind::kBufferToImage:
      case CmdKind::kImageToBuffer: {
        const bool to_image = c.kind == CmdKind::kBufferToImage;
        const uint32_t image = to_image ? c.binding : c.src, buffer = to_image ? c.src : c.binding;
        if (!TransferImageOk(image) || buffer >= buffers_.size() || v.empty() || v.size() % kBufferImageWords != 0) {
          return Skip();
        }
        std::vector<VkBufferImageCopy> regions;
        std::vector<VkBufferImageCopy2> regions2;
        for (size_t k = 0; k < v.size(); k += kBufferImageWords) {
          const uint32_t* w = &v[k];
          const VkBufferImageCopy r{w[0], w[1], w[2], {VK_IMAGE_ASPECT_COLOR_BIT, w[3], w[4], layers(w[5])},
                                    {static_cast<int32_t>(w[6]), static_cast<int32_t>(w[7]), static_cast<int32_t>(w[8])},
                                    {w[9], w[10], w[11]}};
          regions.push_back(r);
          regions2.push_back({VK_STRUCTURE_TYPE_BUFFER_IMAGE_COPY_2, nullptr, r.bufferOffset, r.bufferRowLength,
                              r.bufferImageHeight, r.imageSubresource, r.imageOffset, r.imageExtent});
        }
        const uint32_t n = static_cast<uint32_t>(regions.size());
        if (to_image) {
          if (c.use_template) {
            VkCopyBufferToImageInfo2 info{VK_STRUCTURE_TYPE_COPY_BUFFER_TO_IMAGE_INFO_2, nullptr,
                                          buffers_[buffer].buffer, transfer_images_[image].image, kDst, n,
                                          regions2.data()};
            vkCmdCopyBufferToImage2(cb, &info);
          } else {
            vkCmdCopyBufferToImage(cb, buffers_[buffer].buffer, transfer_images_[image].image, kDst, n, regions.data());
          }
        } else {
          TransferImageLayout(cb, image, true);
          if (c.use_template) {
            VkCopyImageToBufferInfo2 info{VK_STRUCTURE_TYPE_COPY_IMAGE_TO_BUFFER_INFO_2, nullptr,
                                          transfer_images_[image].image, kSrc, buffers_[buffer].buffer, n,
                                          regions2.data()};
            vkCmdCopyImageToBuffer2(cb, &info);
          } else {
            vkCmdCopyImageToBuffer(cb, transfer_images_[image].image, kSrc, buffers_[buffer].buffer, n, regions.data());
          }
          TransferImageLayout(cb, image, false);
        }
        break;
      }
      case CmdKind::kImageToImage: {
        if (!TransferImageOk(c.src) || !TransferImageOk(c.binding) || c.src == c.binding ||
            v.size() != kImageCopyWords) {
          return Skip();
        }
        const VkImageCopy r{{VK_IMAGE_ASPECT_COLOR_BIT, v[0], v[1], v[2]},
                            {static_cast<int32_t>(v[3]), static_cast<int32_t>(v[4]), static_cast<int32_t>(v[5])},
                            {VK_IMAGE_ASPECT_COLOR_BIT, v[6], v[7], v[2]},
                            {static_cast<int32_t>(v[8]), static_cast<int32_t>(v[9]), static_cast<int32_t>(v[10])},
                            {v[11], v[12], v[13]}};
        TransferImageLayout(cb, c.src, true);
        if (c.use_template) {
          const VkImageCopy2 r2{VK_STRUCTURE_TYPE_IMAGE_COPY_2, nullptr, r.srcSubresource, r.srcOffset,
                                r.dstSubresource, r.dstOffset, r.extent};
          VkCopyImageInfo2 info{VK_STRUCTURE_TYPE_COPY_IMAGE_INFO_2, nullptr, transfer_images_[c.src].image, kSrc,
                                transfer_images_[c.binding].image, kDst, 1, &r2};
          vkCmdCopyImage2(cb, &info);
        } else {
          vkCmdCopyImage(cb, transfer_images_[c.src].image, kSrc, transfer_images_[c.binding].image, kDst, 1, &r);
        }
        TransferImageLayout(cb, c.src, false);
        break;
      }
      case CmdKind::kClearImage: {
        if (!TransferImageOk(c.binding) || v.size() < 4 + kClearRangeWords || (v.size() - 4) % kClearRangeWords != 0) {
          return Skip();
        }
        VkClearColorValue color;
        std::memcpy(color.uint32, v.data(), 16);
        std::vector<VkImageSubresourceRange> ranges;
        for (size_t k = 4; k < v.size(); k += kClearRangeWords) {
          ranges.push_back({VK_IMAGE_ASPECT_COLOR_BIT, v[k], v[k + 1], v[k + 2], v[k + 3]});
        }
        vkCmdClearColorImage(cb, transfer_images_[c.binding].image, kDst, &color,
                             static_cast<uint32_t>(ranges.size()), ranges.data());
        break;
      }
      case CmdKind::kBlitImage: {
        if (!TransferImageOk(c.src) || !TransferImageOk(c.binding) || c.src == c.binding || v.size() != kBlitWords) {
          return Skip();
        }
        auto offset = [&](size_t at) {
          return VkOffset3D{static_cast<int32_t>(v[at]), static_cast<int32_t>(v[at + 1]), static_cast<int32_t>(v[at + 2])};
        };
        VkImageBlit r{};
        r.srcSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, v[0], v[1], v[2]};
        r.srcOffsets[0] = offset(3);
        r.srcOffsets[1] = offset(6);
        r.dstSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, v[9], v[10], v[2]};
        r.dstOffsets[0] = offset(11);
        r.dstOffsets[1] = offset(14);
        const VkFilter filter = c.size == 1 ? VK_FILTER_LINEAR : VK_FILTER_NEAREST;
        TransferImageLayout(cb, c.src, true);
        if (c.use_template) {
          VkImageBlit2 r2{VK_STRUCTURE_TYPE_IMAGE_BLIT_2};
          r2.srcSubresource = r.srcSubresource;
          r2.dstSubresource = r.dstSubresource;
          std::memcpy(r2.srcOffsets, r.srcOffsets, sizeof(r.srcOffsets));
          std::memcpy(r2.dstOffsets, r.dstOffsets, sizeof(r.dstOffsets));
          VkBlitImageInfo2 info{VK_STRUCTURE_TYPE_BLIT_IMAGE_INFO_2, nullptr, transfer_images_[c.src].image, kSrc,
                                transfer_images_[c.binding].image, kDst, 1, &r2, filter};
          vkCmdBlitImage2(cb, &info);
        } else {
          vkCmdBlitImage(cb, transfer_images_[c.src].image, kSrc, transfer_images_[c.binding].image, kDst, 1, &r,
                         filter);
        }
        TransferImageLayout(cb, c.src, false);
        break;
      }
      default:
        return Skip();
    }
    FullBarrier(cb);
  }

  // The images descriptors point at (R32_UINT, GENERAL from their first use; contents
  // uploaded by InitImage) and the samplers of combined image samplers.
  void MakeDescriptorImages() {
    if (!p_.images.empty()) {
      image_staging_ = MakeBuffer(kTexBytes * static_cast<uint32_t>(p_.images.size()),
                                  VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT);
    }
    for (size_t i = 0; i < p_.images.size(); ++i) {
      ImageObject o;
      VkImageCreateInfo ici{VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO};
      ici.imageType = VK_IMAGE_TYPE_2D;
      ici.format = VK_FORMAT_R32_UINT;
      ici.extent = {kTexSize, kTexSize, 1};
      ici.mipLevels = 1;
      ici.arrayLayers = 1;
      ici.samples = VK_SAMPLE_COUNT_1_BIT;
      ici.tiling = VK_IMAGE_TILING_OPTIMAL;
      ici.usage = VK_IMAGE_USAGE_SAMPLED_BIT | VK_IMAGE_USAGE_STORAGE_BIT | VK_IMAGE_USAGE_TRANSFER_SRC_BIT |
                  VK_IMAGE_USAGE_TRANSFER_DST_BIT;
      vkCreateImage(dev_, &ici, nullptr, &o.image);
      VkMemoryRequirements req;
      vkGetImageMemoryRequirements(dev_, o.image, &req);
      VkMemoryAllocateInfo mai{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
      mai.allocationSize = req.size;
      mai.memoryTypeIndex = MemoryType(req.memoryTypeBits, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT);
      vkAllocateMemory(dev_, &mai, nullptr, &o.memory);
      vkBindImageMemory(dev_, o.image, o.memory, 0);
      VkImageViewCreateInfo vci{VK_STRUCTURE_TYPE_IMAGE_VIEW_CREATE_INFO};
      vci.image = o.image;
      vci.viewType = VK_IMAGE_VIEW_TYPE_2D;
      vci.format = VK_FORMAT_R32_UINT;
      vci.subresourceRange = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1};
      vkCreateImageView(dev_, &vci, nullptr, &o.view);
      images_.push_back(o);
      auto* words = static_cast<uint32_t*>(image_staging_.mapped) + i * kTexSize * kTexSize;
      uint64_t h = p_.seed * 7000003u + i;
      for (uint32_t w = 0; w < kTexSize * kTexSize; ++w) {
        h = h * 6364136223846793005ull + 1442695040888963407ull;
        words[w] = static_cast<uint32_t>(h >> 33);
      }
    }
    for (uint32_t i = 0; i < p_.samplers; ++i) {
      VkSamplerCreateInfo sci{VK_STRUCTURE_TYPE_SAMPLER_CREATE_INFO};
      sci.magFilter = sci.minFilter = VK_FILTER_NEAREST;
      sci.mipmapMode = VK_SAMPLER_MIPMAP_MODE_NEAREST;
      sci.addressModeU = sci.addressModeV = sci.addressModeW = VK_SAMPLER_ADDRESS_MODE_CLAMP_TO_EDGE;
      VkSampler sampler = VK_NULL_HANDLE;
      vkCreateSampler(dev_, &sci, nullptr, &sampler);
      samplers_.push_back(sampler);
    }
  }

  VkShaderModule CreateModule(const std::vector<uint32_t>& spirv) {
    VkShaderModuleCreateInfo ci{VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO};
    ci.codeSize = spirv.size() * 4;
    ci.pCode = spirv.data();
    VkShaderModule m = VK_NULL_HANDLE;
    vkCreateShaderModule(dev_, &ci, nullptr, &m);
    modules_.push_back(m);
    return m;
  }

  // The module of stage `j` of pipeline `i`: its own, or the one its stages share with
  // others (Stage::module: each stage's GLSL compiled under its entry point's name, the
  // results linked into one module, made once per program).
  VkShaderModule Module(uint32_t i, uint32_t j) {
    const Pipeline& pl = p_.pipelines[i];
    const Stage& st = pl.stages[j];
    std::string error;
    if (st.module == kOwnModule) {
      const std::vector<uint32_t> spirv = CompileGlsl(StageGlsl(p_, pl, st), st.stage, &error);
      if (spirv.empty()) {
        result_.error = error + "\n" + StageGlsl(p_, pl, st);
        return VK_NULL_HANDLE;
      }
      return CreateModule(spirv);
    }
    if (auto it = shared_modules_.find(st.module); it != shared_modules_.end()) return it->second;
    std::vector<std::vector<uint32_t>> parts;
    for (uint32_t a = 0; a < p_.pipelines.size(); ++a) {
      for (uint32_t b = 0; b < p_.pipelines[a].stages.size(); ++b) {
        const Stage& member = p_.pipelines[a].stages[b];
        if (member.module != st.module) continue;
        const std::string glsl = StageGlsl(p_, p_.pipelines[a], member);
        parts.push_back(CompileGlsl(glsl, member.stage, &error, EntryPointName(p_, a, b)));
        if (parts.back().empty()) {
          result_.error = error + "\n" + glsl;
          return VK_NULL_HANDLE;
        }
      }
    }
    const std::vector<uint32_t> linked = LinkModules(parts, &error);
    if (linked.empty()) {
      result_.error = error;
      return VK_NULL_HANDLE;
    }
    return shared_modules_[st.module] = CreateModule(linked);
  }

  VkPipeline MakePipeline(uint32_t index) {
    const Pipeline& pl = p_.pipelines[index];
    VkPipeline out = VK_NULL_HANDLE;
    std::vector<std::string> entries;  // the stages' entry-point names (pName points into them)
    for (uint32_t j = 0; j < pl.stages.size(); ++j) entries.push_back(EntryPointName(p_, index, j));
    if (!pl.graphics) {
      if (pl.stages.empty()) return VK_NULL_HANDLE;
      VkComputePipelineCreateInfo ci{VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO};
      ci.flags = pl.dispatch_base ? VK_PIPELINE_CREATE_DISPATCH_BASE_BIT : 0;
      ci.stage = {VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO};
      ci.stage.stage = VK_SHADER_STAGE_COMPUTE_BIT;
      ci.stage.module = Module(index, 0);
      ci.stage.pName = entries[0].c_str();
      ci.layout = pipeline_layouts_[pl.layout];
      if (ci.stage.module == VK_NULL_HANDLE) return VK_NULL_HANDLE;
      vkCreateComputePipelines(dev_, VK_NULL_HANDLE, 1, &ci, nullptr, &out);
      return out;
    }
    std::vector<VkPipelineShaderStageCreateInfo> stages;
    for (uint32_t j = 0; j < pl.stages.size(); ++j) {
      VkPipelineShaderStageCreateInfo s{VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO};
      s.stage = static_cast<VkShaderStageFlagBits>(pl.stages[j].stage);
      s.module = Module(index, j);
      s.pName = entries[j].c_str();
      if (s.module == VK_NULL_HANDLE) return VK_NULL_HANDLE;
      stages.push_back(s);
    }
    VkPipelineVertexInputStateCreateInfo vi{VK_STRUCTURE_TYPE_PIPELINE_VERTEX_INPUT_STATE_CREATE_INFO};
    VkPipelineInputAssemblyStateCreateInfo ia{VK_STRUCTURE_TYPE_PIPELINE_INPUT_ASSEMBLY_STATE_CREATE_INFO};
    ia.topology = VK_PRIMITIVE_TOPOLOGY_POINT_LIST;
    VkViewport viewport{0, 0, float(kImageSize), float(kImageSize), 0, 1};
    VkRect2D scissor{{0, 0}, {kImageSize, kImageSize}};
    VkPipelineViewportStateCreateInfo vp{VK_STRUCTURE_TYPE_PIPELINE_VIEWPORT_STATE_CREATE_INFO};
    vp.viewportCount = 1;
    vp.pViewports = &viewport;
    vp.scissorCount = 1;
    vp.pScissors = &scissor;
    VkPipelineRasterizationStateCreateInfo rs{VK_STRUCTURE_TYPE_PIPELINE_RASTERIZATION_STATE_CREATE_INFO};
    rs.polygonMode = VK_POLYGON_MODE_FILL;
    rs.cullMode = VK_CULL_MODE_NONE;
    rs.lineWidth = 1;
    VkPipelineMultisampleStateCreateInfo ms{VK_STRUCTURE_TYPE_PIPELINE_MULTISAMPLE_STATE_CREATE_INFO};
    ms.rasterizationSamples = VK_SAMPLE_COUNT_1_BIT;
    VkPipelineColorBlendAttachmentState att{};
    att.colorWriteMask = VK_COLOR_COMPONENT_R_BIT;
    VkPipelineColorBlendStateCreateInfo cb{VK_STRUCTURE_TYPE_PIPELINE_COLOR_BLEND_STATE_CREATE_INFO};
    cb.attachmentCount = 1;
    cb.pAttachments = &att;
    VkGraphicsPipelineCreateInfo ci{VK_STRUCTURE_TYPE_GRAPHICS_PIPELINE_CREATE_INFO};
    ci.renderPass = render_pass_;
    ci.stageCount = static_cast<uint32_t>(stages.size());
    ci.pStages = stages.data();
    ci.pVertexInputState = &vi;
    ci.pInputAssemblyState = &ia;
    ci.pViewportState = &vp;
    ci.pRasterizationState = &rs;
    ci.pMultisampleState = &ms;
    ci.pColorBlendState = &cb;

    ci.layout = pipeline_layouts_[pl.layout];
    // On a device without graphics pipeline libraries (a case from another device) monolithic.
    if (pl.library != LibraryMode::kMonolithic && d_.features.pipeline_library) return MakeLinkedPipeline(pl, ci);
    vkCreateGraphicsPipelines(dev_, VK_NULL_HANDLE, 1, &ci, nullptr, &out);
    return out;
  }

  // A graphics pipeline linked from libraries (Pipeline::library), each library taking its
  // part of the monolithic create info `whole`; the libraries (and the layouts only they
  // use) are destroyed once the pipeline is linked, as the spec allows.
  VkPipeline MakeLinkedPipeline(const Pipeline& pl, const VkGraphicsPipelineCreateInfo& whole) {
    const bool lto = pl.library == LibraryMode::kLinkTimeOptimised || pl.library == LibraryMode::kIndependentSets;
    const VkPipelineCreateFlags library_flags =
        VK_PIPELINE_CREATE_LIBRARY_BIT_KHR | (lto ? VK_PIPELINE_CREATE_RETAIN_LINK_TIME_OPTIMIZATION_INFO_BIT_EXT : 0);
    std::vector<VkPipelineLayout> own_layouts;
    // Independent sets: a shader library's layout holds the sets with a binding its stage
    // may see, VK_NULL_HANDLE for the others (a set seen by neither shader stage stays in
    // the vertex library's: a set number may not be left out of both,
    // VUID-VkGraphicsPipelineCreateInfo-pLibraries-06681).
    auto stage_layout = [&](uint32_t stage) {
      if (pl.library != LibraryMode::kIndependentSets) return whole.layout;
      const PipelineLayout& layout = p_.pipeline_layouts[pl.layout];
      std::vector<VkDescriptorSetLayout> sets;
      for (uint32_t s : layout.sets) {
        uint32_t seen = 0;
        if (s < p_.set_layouts.size()) {
          for (const Binding& b : p_.set_layouts[s].bindings) seen |= b.stages;
        }
        const bool keep = (seen & stage) != 0 || (stage == kVertex && (seen & (kVertex | kFragment)) == 0);
        sets.push_back(keep && s < set_layouts_.size() ? set_layouts_[s] : VK_NULL_HANDLE);
      }
      std::vector<VkPushConstantRange> ranges;
      for (const PushRange& r : layout.push) ranges.push_back({r.stages, r.offset, r.size});
      VkPipelineLayoutCreateInfo ci{VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO};
      ci.flags = VK_PIPELINE_LAYOUT_CREATE_INDEPENDENT_SETS_BIT_EXT;
      ci.setLayoutCount = static_cast<uint32_t>(sets.size());
      ci.pSetLayouts = sets.data();
      ci.pushConstantRangeCount = static_cast<uint32_t>(ranges.size());
      ci.pPushConstantRanges = ranges.data();
      VkPipelineLayout l = VK_NULL_HANDLE;
      vkCreatePipelineLayout(dev_, &ci, nullptr, &l);
      own_layouts.push_back(l);
      return l;
    };
    auto part = [&](VkGraphicsPipelineLibraryFlagsEXT subset, VkPipelineCreateFlags flags, VkPipelineLayout layout,
                    const std::vector<VkPipeline>& libraries) {
      VkGraphicsPipelineLibraryCreateInfoEXT library_info{VK_STRUCTURE_TYPE_GRAPHICS_PIPELINE_LIBRARY_CREATE_INFO_EXT};
      library_info.flags = subset;
      VkPipelineLibraryCreateInfoKHR link{VK_STRUCTURE_TYPE_PIPELINE_LIBRARY_CREATE_INFO_KHR};
      link.libraryCount = static_cast<uint32_t>(libraries.size());
      link.pLibraries = libraries.data();
      library_info.pNext = libraries.empty() ? nullptr : &link;
      VkGraphicsPipelineCreateInfo ci{VK_STRUCTURE_TYPE_GRAPHICS_PIPELINE_CREATE_INFO};
      // A pipeline that only links gives no subset of its own (the flags may not be 0).
      ci.pNext = subset != 0 ? static_cast<const void*>(&library_info) : &link;
      ci.flags = flags;
      ci.layout = layout;
      ci.renderPass = whole.renderPass;
      std::vector<VkPipelineShaderStageCreateInfo> stages;
      auto take_stage = [&](uint32_t stage) {
        for (uint32_t k = 0; k < whole.stageCount; ++k) {
          if (whole.pStages[k].stage == stage) stages.push_back(whole.pStages[k]);
        }
      };
      if (subset & VK_GRAPHICS_PIPELINE_LIBRARY_VERTEX_INPUT_INTERFACE_BIT_EXT) {
        ci.pVertexInputState = whole.pVertexInputState;
        ci.pInputAssemblyState = whole.pInputAssemblyState;
      }
      if (subset & VK_GRAPHICS_PIPELINE_LIBRARY_PRE_RASTERIZATION_SHADERS_BIT_EXT) {
        take_stage(kVertex);
        ci.pViewportState = whole.pViewportState;
        ci.pRasterizationState = whole.pRasterizationState;
      }
      if (subset & VK_GRAPHICS_PIPELINE_LIBRARY_FRAGMENT_SHADER_BIT_EXT) {
        take_stage(kFragment);
        ci.pMultisampleState = whole.pMultisampleState;
      }
      if (subset & VK_GRAPHICS_PIPELINE_LIBRARY_FRAGMENT_OUTPUT_INTERFACE_BIT_EXT) {
        ci.pMultisampleState = whole.pMultisampleState;
        ci.pColorBlendState = whole.pColorBlendState;
      }
      ci.stageCount = static_cast<uint32_t>(stages.size());
      ci.pStages = stages.data();
      // The validation layer of Debian 12 (1.3.239) asks a pipeline linking a fragment
      // shader library for pMultisampleState too (VUID-VkGraphicsPipelineCreateInfo-
      // renderpass-06631); the spec ignores state of subsets the create info does not make.
      if (!libraries.empty()) ci.pMultisampleState = whole.pMultisampleState;
      VkPipeline out = VK_NULL_HANDLE;
      vkCreateGraphicsPipelines(dev_, VK_NULL_HANDLE, 1, &ci, nullptr, &out);
      return out;
    };
    std::vector<VkPipeline> libraries;
    libraries.push_back(part(VK_GRAPHICS_PIPELINE_LIBRARY_VERTEX_INPUT_INTERFACE_BIT_EXT, library_flags,
                             VK_NULL_HANDLE, {}));
    libraries.push_back(
        part(VK_GRAPHICS_PIPELINE_LIBRARY_PRE_RASTERIZATION_SHADERS_BIT_EXT, library_flags, stage_layout(kVertex), {}));
    if (pl.library != LibraryMode::kFragmentInPipeline) {
      libraries.push_back(
          part(VK_GRAPHICS_PIPELINE_LIBRARY_FRAGMENT_SHADER_BIT_EXT, library_flags, stage_layout(kFragment), {}));
    }
    libraries.push_back(part(VK_GRAPHICS_PIPELINE_LIBRARY_FRAGMENT_OUTPUT_INTERFACE_BIT_EXT, library_flags,
                             VK_NULL_HANDLE, {}));
    VkPipeline out = VK_NULL_HANDLE;
    if (std::find(libraries.begin(), libraries.end(), VK_NULL_HANDLE) == libraries.end()) {
      const VkGraphicsPipelineLibraryFlagsEXT own =
          pl.library == LibraryMode::kFragmentInPipeline ? VK_GRAPHICS_PIPELINE_LIBRARY_FRAGMENT_SHADER_BIT_EXT : 0;
      out = part(own, lto ? VK_PIPELINE_CREATE_LINK_TIME_OPTIMIZATION_BIT_EXT : 0, whole.layout, libraries);
    }
    // Libraries go once linked (the spec allows it; the layer must keep what it needs of
    // them), except where that breaks below the layer, natively as well: the validation
    // layer of Debian 12 (1.3.239) reads the libraries' state at each draw of a pipeline that
    // gives a stage of its own beside them and crashes once they are gone; and lavapipe
    // (Mesa 22.3) reads freed library memory at draws of a linked pipeline (a native crash in
    // 113 of seeds 1..300 before they were kept). There they stay until the program's end.
    if (pl.library == LibraryMode::kFragmentInPipeline || IsLavapipe(d_.physical)) {
      kept_libraries_.insert(kept_libraries_.end(), libraries.begin(), libraries.end());
    } else {
      for (VkPipeline l : libraries) vkDestroyPipeline(dev_, l, nullptr);
    }
    for (VkPipelineLayout l : own_layouts) vkDestroyPipelineLayout(dev_, l, nullptr);
    return out;
  }

  // ---- steps ----
  struct Slot {
    VkDescriptorSet set = VK_NULL_HANDLE;
    uint32_t pool = 0, layout = 0;
    uint32_t variable_count = 0;  // a variable-count binding's count, given at allocation
    std::set<std::pair<uint32_t, uint32_t>> written;  // (binding, element) written since allocation
  };

  const Binding* SlotBinding(uint32_t slot, uint32_t binding) const {
    if (slot >= slots_.size() || slots_[slot].set == VK_NULL_HANDLE) return nullptr;
    for (const Binding& b : p_.set_layouts[slots_[slot].layout].bindings) {
      if (b.binding == binding) return &b;
    }
    return nullptr;
  }
  // Descriptors the set has in binding `b` (a variable-count binding: the allocated count).
  uint32_t SlotCount(uint32_t slot, const Binding& b) const {
    return (b.flags & kVariableCount) ? slots_[slot].variable_count : b.count;
  }

  bool DescValid(const Desc& d, DescType t) const {
    if (d.buffer == kNullDesc) {
      return d_.null_descriptor && !IsDynamic(t) &&
             (t != DescType::kCombinedImageSampler || d.offset < samplers_.size());
    }
    if (IsImage(t)) {
      return d.buffer < images_.size() && (t != DescType::kCombinedImageSampler || d.offset < samplers_.size());
    }
    return d.buffer < buffers_.size() && d.offset + std::max(d.range, 1u) <= p_.buffers[d.buffer].size;
  }
  bool DescsValid(const std::vector<Desc>& descs, DescType t) const {
    for (const Desc& d : descs) {
      if (!DescValid(d, t)) return false;
    }
    return true;
  }

  DescInfo Info(const Desc& d, DescType t) const {
    DescInfo info{};
    if (IsImage(t)) {
      info.image.sampler = t == DescType::kCombinedImageSampler ? samplers_[d.offset] : VK_NULL_HANDLE;
      info.image.imageView = d.buffer == kNullDesc ? VK_NULL_HANDLE : images_[d.buffer].view;
      info.image.imageLayout = VK_IMAGE_LAYOUT_GENERAL;
    } else if (d.buffer == kNullDesc) {
      info.buffer = {VK_NULL_HANDLE, 0, VK_WHOLE_SIZE};
    } else {
      info.buffer = {buffers_[d.buffer].buffer, d.offset, d.range == 0 ? VK_WHOLE_SIZE : d.range};
    }
    return info;
  }
  static void PointAt(VkWriteDescriptorSet& w, const DescInfo* info, DescType t) {
    if (IsImage(t)) w.pImageInfo = &info->image;
    else w.pBufferInfo = &info->buffer;
  }

  // A template writing `count` consecutive descriptors per entry, infos packed in order.
  VkDescriptorUpdateTemplate MakeTemplate(const std::vector<VkDescriptorUpdateTemplateEntry>& entries,
                                          VkDescriptorSetLayout set_layout, bool push, VkPipelineBindPoint bp,
                                          VkPipelineLayout layout, uint32_t set) {
    VkDescriptorUpdateTemplateCreateInfo ci{VK_STRUCTURE_TYPE_DESCRIPTOR_UPDATE_TEMPLATE_CREATE_INFO};
    ci.descriptorUpdateEntryCount = static_cast<uint32_t>(entries.size());
    ci.pDescriptorUpdateEntries = entries.data();
    ci.templateType = push ? VK_DESCRIPTOR_UPDATE_TEMPLATE_TYPE_PUSH_DESCRIPTORS_KHR
                           : VK_DESCRIPTOR_UPDATE_TEMPLATE_TYPE_DESCRIPTOR_SET;
    ci.descriptorSetLayout = set_layout;
    ci.pipelineBindPoint = bp;
    ci.pipelineLayout = layout;
    ci.set = set;
    VkDescriptorUpdateTemplate t = VK_NULL_HANDLE;
    vkCreateDescriptorUpdateTemplate(dev_, &ci, nullptr, &t);
    return t;
  }

  void Skip() { ++result_.skipped; }
  bool Refuse() {
    Skip();
    return false;
  }

  void DoStep(size_t index) {
    const Step& s = p_.steps[index];
    switch (s.kind) {
      case StepKind::kAlloc: {
        if (s.slot >= slots_.size() || slots_[s.slot].set != VK_NULL_HANDLE || s.pool >= pools_.size() ||
            s.layout >= set_layouts_.size() || p_.set_layouts[s.layout].push ||
            (p_.set_layouts[s.layout].update_after_bind && !p_.pools[s.pool].update_after_bind))
          return Skip();
        // Past the pool's maxSets an allocation may fail or not, as the implementation likes
        // (lavapipe allocates, the layer may refuse): the generator never goes there, and a
        // reduction that cut a free must not either, or it "reduces" to that difference.
        uint32_t live = 0;
        for (const Slot& slot : slots_) live += slot.set != VK_NULL_HANDLE && slot.pool == s.pool ? 1 : 0;
        if (live >= p_.pools[s.pool].max_sets) return Skip();
        bool variable = false;
        uint32_t variable_count = s.count;
        for (const Binding& b : p_.set_layouts[s.layout].bindings) {
          if (!(b.flags & kVariableCount)) continue;
          variable = true;
          variable_count = std::min(variable_count, b.count);
        }
        VkDescriptorSetVariableDescriptorCountAllocateInfo vi{
            VK_STRUCTURE_TYPE_DESCRIPTOR_SET_VARIABLE_DESCRIPTOR_COUNT_ALLOCATE_INFO};
        vi.descriptorSetCount = 1;
        vi.pDescriptorCounts = &variable_count;
        VkDescriptorSetAllocateInfo ai{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO};
        ai.pNext = variable ? &vi : nullptr;
        ai.descriptorPool = pools_[s.pool];
        ai.descriptorSetCount = 1;
        ai.pSetLayouts = &set_layouts_[s.layout];
        VkDescriptorSet set = VK_NULL_HANDLE;
        if (vkAllocateDescriptorSets(dev_, &ai, &set) != VK_SUCCESS) return Skip();
        slots_[s.slot] = {set, s.pool, s.layout, variable ? variable_count : 0, {}};
        return;
      }
      case StepKind::kFree: {
        if (s.slot >= slots_.size() || slots_[s.slot].set == VK_NULL_HANDLE || !p_.pools[slots_[s.slot].pool].free_bit)
          return Skip();
        vkFreeDescriptorSets(dev_, pools_[slots_[s.slot].pool], 1, &slots_[s.slot].set);
        slots_[s.slot] = {};
        return;
      }
      case StepKind::kResetPool: {
        if (s.pool >= pools_.size()) return Skip();
        vkResetDescriptorPool(dev_, pools_[s.pool], 0);
        for (Slot& slot : slots_) {
          if (slot.set != VK_NULL_HANDLE && slot.pool == s.pool) slot = {};
        }
        return;
      }
      case StepKind::kWrite: {
        const Binding* b = SlotBinding(s.slot, s.binding);
        if (b == nullptr || s.descs.empty() || s.element + s.descs.size() > SlotCount(s.slot, *b) ||
            !DescsValid(s.descs, b->type) || (s.late && !(b->flags & kUpdateAfterBind)))
          return Skip();
        std::vector<DescInfo> infos;
        for (const Desc& d : s.descs) infos.push_back(Info(d, b->type));
        for (uint32_t e = 0; e < s.descs.size(); ++e) slots_[s.slot].written.insert({s.binding, s.element + e});
        if (s.use_template) {
          const VkDescriptorUpdateTemplateEntry entry{s.binding, s.element, static_cast<uint32_t>(infos.size()),
                                                      VkType(b->type), 0, sizeof(DescInfo)};
          VkDescriptorUpdateTemplate t = MakeTemplate({entry}, set_layouts_[slots_[s.slot].layout], false,
                                                      VK_PIPELINE_BIND_POINT_COMPUTE, VK_NULL_HANDLE, 0);
          vkUpdateDescriptorSetWithTemplate(dev_, slots_[s.slot].set, t, infos.data());
          vkDestroyDescriptorUpdateTemplate(dev_, t, nullptr);  // at once: the update is done
          return;
        }
        VkWriteDescriptorSet w{VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET};
        w.dstSet = slots_[s.slot].set;
        w.dstBinding = s.binding;
        w.dstArrayElement = s.element;
        w.descriptorCount = static_cast<uint32_t>(infos.size());
        w.descriptorType = VkType(b->type);
        PointAt(w, infos.data(), b->type);
        vkUpdateDescriptorSets(dev_, 1, &w, 0, nullptr);
        return;
      }
      case StepKind::kCopySet: {
        const Binding* dst = SlotBinding(s.slot, s.binding);
        const Binding* src = SlotBinding(s.src_slot, s.src_binding);
        if (dst == nullptr || src == nullptr || dst->type != src->type || s.count == 0 ||
            s.element + s.count > SlotCount(s.slot, *dst) || s.src_element + s.count > SlotCount(s.src_slot, *src) ||
            (s.late && !(dst->flags & kUpdateAfterBind)))
          return Skip();
        for (uint32_t e = 0; e < s.count; ++e) {
          if (slots_[s.src_slot].written.count({s.src_binding, s.src_element + e}))
            slots_[s.slot].written.insert({s.binding, s.element + e});
        }
        VkCopyDescriptorSet c{VK_STRUCTURE_TYPE_COPY_DESCRIPTOR_SET};
        c.srcSet = slots_[s.src_slot].set;
        c.srcBinding = s.src_binding;
        c.srcArrayElement = s.src_element;
        c.dstSet = slots_[s.slot].set;
        c.dstBinding = s.binding;
        c.dstArrayElement = s.element;
        c.descriptorCount = s.count;
        vkUpdateDescriptorSets(dev_, 0, nullptr, 1, &c);
        return;
      }
      case StepKind::kSubmit: return Submit(index);
      case StepKind::kHostSignal: {
        if (s.signals.empty() || s.signals[0].semaphore >= semaphores_.size() ||
            s.signals[0].value <= signaled_[s.signals[0].semaphore] ||
            s.signals[0].value <= device_signaled_[s.signals[0].semaphore])
          return Skip();
        VkSemaphoreSignalInfo si{VK_STRUCTURE_TYPE_SEMAPHORE_SIGNAL_INFO};
        si.semaphore = semaphores_[s.signals[0].semaphore];
        si.value = s.signals[0].value;
        vkSignalSemaphore(dev_, &si);
        signaled_[s.signals[0].semaphore] = si.value;
        return;
      }
      case StepKind::kWaitIdle: return WaitIdle();
      case StepKind::kCount: return Skip();
    }
  }

  // Notes a lost device (or a timed-out wait); true while the device is usable.
  bool Alive(VkResult r, const char* what) {
    if (!result_.device_lost && (r == VK_ERROR_DEVICE_LOST || r == VK_TIMEOUT)) {
      result_.device_lost = true;
      result_.lost = std::string(what) + (r == VK_TIMEOUT ? " timed out" : " returned VK_ERROR_DEVICE_LOST");
    }
    return !result_.device_lost;
  }

  // Every queue the program uses, each in turn (a queue may wait for another's work).
  bool IdleAll() {
    for (uint32_t q = 0; q < std::max<uint32_t>(1, UsedQueues()); ++q) {
      if (!Alive(vkQueueWaitIdle(QueueAt(q)), "vkQueueWaitIdle")) return false;
    }
    return true;
  }
  uint32_t UsedQueues() const { return std::min<uint32_t>(p_.queues, static_cast<uint32_t>(d_.queues.size())); }
  VkQueue QueueAt(uint32_t q) const { return q < d_.queues.size() ? d_.queues[q] : d_.queue; }

  void WaitIdle() {
    if (!IdleAll()) return;
    if (!Alive(d_.inject_loss ? VK_ERROR_DEVICE_LOST : VK_SUCCESS, "vkQueueWaitIdle")) return;
    // The validation layer of this era keeps a host signal "pending" until a host wait sees
    // it, and then refuses any later host signal of a higher value.
    for (size_t i = 0; i < semaphores_.size(); ++i) {
      if (signaled_[i] == 0) continue;
      VkSemaphoreWaitInfo wi{VK_STRUCTURE_TYPE_SEMAPHORE_WAIT_INFO};
      wi.semaphoreCount = 1;
      wi.pSemaphores = &semaphores_[i];
      wi.pValues = &signaled_[i];
      // The queue is idle and host signals are done: this returns at once unless the
      // device is broken, so a bounded wait turns that into a result instead of a hang.
      if (!Alive(vkWaitSemaphores(dev_, &wi, 30'000'000'000ull), "vkWaitSemaphores")) return;
    }
    // Only after a successful wait: a lost device keeps its submissions "in use" forever.
    for (VkCommandBuffer cb : pending_) vkFreeCommandBuffers(dev_, d_.command_pool, 1, &cb);
    pending_.clear();
  }

  // Whether a wait can be satisfied: a value already signaled (host or an earlier
  // submission), or one a host signal before the next wait-for-idle will reach.
  bool WaitSatisfiable(size_t index, const Wait& w, int depth = 0) const {
    if (w.semaphore >= semaphores_.size()) return false;
    if (w.value <= std::max(signaled_[w.semaphore], device_signaled_[w.semaphore])) return true;
    for (size_t i = index + 1; i < p_.steps.size() && p_.steps[i].kind != StepKind::kWaitIdle; ++i) {
      const Step& s = p_.steps[i];
      if (s.kind == StepKind::kHostSignal && !s.signals.empty() && s.signals[0].semaphore == w.semaphore &&
          s.signals[0].value >= w.value && device_signaled_[w.semaphore] < s.signals[0].value)
        return true;
      // Wait-before-signal across queues: a later submission on another queue signals it,
      // and will itself be submitted (its own waits can be satisfied; the depth bounds a
      // reduced program's chains).
      if (s.kind == StepKind::kSubmit && depth < 8 && s.queue != p_.steps[index].queue && WillSubmit(i, depth + 1)) {
        for (const Wait& sig : s.signals) {
          if (sig.semaphore == w.semaphore && sig.value >= w.value) return true;
        }
      }
    }
    return false;
  }

  // Whether Submit will send step `index` down (rather than skip it), judged before it.
  bool WillSubmit(size_t index, int depth) const {
    const Step& s = p_.steps[index];
    if (s.queue >= std::max<uint32_t>(1, UsedQueues())) return false;  // a queue this device lacks
    for (const Wait& w : s.waits) {
      if (!WaitSatisfiable(index, w, depth)) return false;
    }
    for (const Wait& w : s.signals) {
      if (w.semaphore >= semaphores_.size() || w.value <= device_signaled_[w.semaphore] ||
          w.value <= signaled_[w.semaphore])
        return false;
    }
    return true;
  }

  static void FullBarrier(VkCommandBuffer cb, VkAccessFlags dst_access = VK_ACCESS_MEMORY_READ_BIT |
                                                                      VK_ACCESS_MEMORY_WRITE_BIT) {
    VkMemoryBarrier mb{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
    mb.srcAccessMask = VK_ACCESS_MEMORY_WRITE_BIT;
    mb.dstAccessMask = dst_access;
    vkCmdPipelineBarrier(cb, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, 0, 1, &mb, 0,
                         nullptr, 0, nullptr);
  }

  void Submit(size_t index) {
    const Step& s = p_.steps[index];
    if (!WillSubmit(index, 0)) return Skip();
    VkCommandBufferAllocateInfo ai{VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
    ai.commandPool = d_.command_pool;
    ai.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
    ai.commandBufferCount = 1;
    VkCommandBuffer cb = VK_NULL_HANDLE;
    vkAllocateCommandBuffers(dev_, &ai, &cb);
    VkCommandBufferBeginInfo bi{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
    bi.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
    vkBeginCommandBuffer(cb, &bi);
    FullBarrier(cb);
    Record(cb, s.cmds, 0, s.cmds.size(), Level::kPrimary);
    FullBarrier(cb, VK_ACCESS_MEMORY_READ_BIT | VK_ACCESS_MEMORY_WRITE_BIT | VK_ACCESS_HOST_READ_BIT);
    vkEndCommandBuffer(cb);
    // Update-after-bind: the late writes and copies that follow, after recording, before submitting.
    for (size_t i = index + 1; i < p_.steps.size() && p_.steps[i].late; ++i) {
      DoStep(i);
      done_late_.insert(i);
    }

    std::vector<VkSemaphore> wait_sems, signal_sems;
    std::vector<uint64_t> wait_values, signal_values;
    std::vector<VkPipelineStageFlags> stages;
    for (const Wait& w : s.waits) {
      wait_sems.push_back(semaphores_[w.semaphore]);
      wait_values.push_back(w.value);
      stages.push_back(VK_PIPELINE_STAGE_ALL_COMMANDS_BIT);
    }
    for (const Wait& w : s.signals) {
      signal_sems.push_back(semaphores_[w.semaphore]);
      signal_values.push_back(w.value);
      device_signaled_[w.semaphore] = w.value;
    }
    VkTimelineSemaphoreSubmitInfo ti{VK_STRUCTURE_TYPE_TIMELINE_SEMAPHORE_SUBMIT_INFO};
    ti.waitSemaphoreValueCount = static_cast<uint32_t>(wait_values.size());
    ti.pWaitSemaphoreValues = wait_values.data();
    ti.signalSemaphoreValueCount = static_cast<uint32_t>(signal_values.size());
    ti.pSignalSemaphoreValues = signal_values.data();
    VkSubmitInfo si{VK_STRUCTURE_TYPE_SUBMIT_INFO};
    si.pNext = &ti;
    si.waitSemaphoreCount = static_cast<uint32_t>(wait_sems.size());
    si.pWaitSemaphores = wait_sems.data();
    si.pWaitDstStageMask = stages.data();
    si.commandBufferCount = 1;
    si.pCommandBuffers = &cb;
    si.signalSemaphoreCount = static_cast<uint32_t>(signal_sems.size());
    si.pSignalSemaphores = signal_sems.data();
    pending_.push_back(cb);
    Alive(vkQueueSubmit(QueueAt(s.queue), 1, &si, VK_NULL_HANDLE), "vkQueueSubmit");
  }

  // ---- commands ----
  uint32_t DynamicCount(const std::vector<uint32_t>& slots) const {
    uint32_t n = 0;
    for (uint32_t slot : slots) {
      for (const Binding& b : p_.set_layouts[slots_[slot].layout].bindings) n += IsDynamic(b.type) ? b.count : 0;
    }
    return n;
  }

  // What a command buffer has bound, as far as the spec defines it: the interpreter skips an
  // action whose pipeline statically uses a set or push-constant word that is not validly
  // bound or pushed. The validation layer of this era does not check every draw form (the
  // multi-draw ones), so without this a reduction could cut a bind and keep the draw.
  struct Bound {
    VkPipeline pipeline = VK_NULL_HANDLE;
    uint32_t pipeline_index = 0;
    std::vector<int64_t> set_layout;  // pipeline layout each set number was bound through, -1: none
    std::vector<int64_t> set_slot;    // the slot bound there, -1: a push (or none)
  };
  struct PushState {
    int64_t layout = -1;  // layout of the pushes that defined `bytes`
    uint64_t words = 0;   // pushed 4-byte words (bit per word)
  };

  void NoteBind(Bound& b, uint32_t layout, uint32_t first, uint32_t count, const uint32_t* slots = nullptr) {
    if (b.set_layout.size() < first + count) b.set_layout.resize(first + count, -1);
    b.set_slot.resize(b.set_layout.size(), -1);
    for (uint32_t i = 0; i < b.set_layout.size(); ++i) {
      if (i >= first && i < first + count) b.set_slot[i] = slots != nullptr ? slots[i - first] : -1;
      if (i >= first && i < first + count) b.set_layout[i] = layout;
      else if (b.set_layout[i] >= 0 && !Compatible(p_, static_cast<uint32_t>(b.set_layout[i]), layout, i))
        b.set_layout[i] = -1;
    }
  }

  void NotePush(PushState& ps, const Cmd& c) {
    if (ps.layout < 0 || !SamePush(p_.pipeline_layouts[ps.layout], p_.pipeline_layouts[c.layout])) ps.words = 0;
    ps.layout = c.layout;
    for (uint32_t w = c.first / 4; w < c.first / 4 + c.values.size() && w < 64; ++w) ps.words |= 1ull << w;
  }

  bool ActionReady(const Bound& b, const PushState& ps) const {
    const Pipeline& pl = p_.pipelines[b.pipeline_index];
    const PipelineLayout& layout = p_.pipeline_layouts[pl.layout];
    for (const Stage& st : pl.stages) {
      for (const ShaderOp& op : st.ops) {
        if (op.kind == OpKind::kPush) {
          bool visible = false;
          for (const PushRange& r : layout.push) {
            visible |= (r.stages & st.stage) && op.index >= r.offset && op.index + 4 <= r.offset + r.size;
          }
          if (!visible) continue;
          if (ps.layout < 0 || !SamePush(p_.pipeline_layouts[ps.layout], layout) || op.index / 4 >= 64 ||
              !(ps.words & (1ull << (op.index / 4))))
            return false;
          continue;
        }
        const Binding* binding = FindBinding(p_, layout, op.set, op.binding);
        if (binding == nullptr) continue;
        if (op.set >= b.set_layout.size() || b.set_layout[op.set] < 0 ||
            !Compatible(p_, static_cast<uint32_t>(b.set_layout[op.set]), pl.layout, op.set))
          return false;
        // The validation layer does not check partially bound descriptors nor elements past a
        // variable count: a reduction could cut the write such an action reads.
        const int64_t slot = op.set < b.set_slot.size() ? b.set_slot[op.set] : -1;
        if (slot >= 0 && (binding->flags & (kPartiallyBound | kVariableCount)) &&
            (static_cast<size_t>(slot) >= slots_.size() ||
             !slots_[slot].written.count({op.binding, op.element})))
          return false;
      }
    }
    return true;
  }

  // lavapipe (Mesa 22.3) loses pushed constants across a vkCmdBindPipeline whose layout
  // has another push-constant size (a pipeline without push constants in between, say): the
  // next draw or dispatch of a pipeline whose layout covers them reads stale words where the
  // spec keeps the pushed ones. A native run of such a program is wrong, and a layer that
  // re-sends the pushes after its own pipeline (the transfer kernels' state restore) then
  // looks like it differs. On that driver, after binding a pipeline whose layout is
  // compatible for push constants with the pushes that define the current words, the
  // interpreter sends those pushes again, in order: by the spec a no-op, so every
  // configuration runs the same valid program and the native run gives the spec's answer.
  static bool LosesPushesAcrossBinds(VkPhysicalDevice physical) { return IsLavapipe(physical); }
  static bool IsLavapipe(VkPhysicalDevice physical) {
    if (physical == VK_NULL_HANDLE) return false;
    VkPhysicalDeviceDriverProperties driver{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_DRIVER_PROPERTIES};
    VkPhysicalDeviceProperties2 props{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2};
    props.pNext = &driver;
    vkGetPhysicalDeviceProperties2(physical, &props);
    return driver.driverID == VK_DRIVER_ID_MESA_LLVMPIPE;
  }

  void Repush(VkCommandBuffer cb, const std::vector<const Cmd*>& pushes) {
    for (const Cmd* c : pushes) {
      vkCmdPushConstants(cb, pipeline_layouts_[c->layout], c->stages, c->first,
                         static_cast<uint32_t>(4 * c->values.size()), c->values.data());
    }
  }

  // Where commands are recorded: a render-pass secondary holds only binds, pushes and draws
  // (inside the primary's render pass instance: no transfers, dispatches or barriers).
  enum class Level { kPrimary, kSecondary, kRenderPassSecondary };

  // Records cmds[begin, end) into `cb`.
  void Record(VkCommandBuffer cb, const std::vector<Cmd>& cmds, size_t begin, size_t end, Level level) {
    Bound bound[2];
    PushState push;
    std::vector<const Cmd*> pushes;  // the pushes that define `push` (repush_after_bind_)
    const bool in_pass = level == Level::kRenderPassSecondary;
    Query* active = nullptr;  // the query begun here and not ended yet
    for (size_t at = begin; at < end; ++at) {
      const Cmd& c = cmds[at];
      const VkPipelineBindPoint bp = c.graphics ? VK_PIPELINE_BIND_POINT_GRAPHICS : VK_PIPELINE_BIND_POINT_COMPUTE;
      if (in_pass && (c.kind == CmdKind::kFill || c.kind == CmdKind::kUpdate || c.kind == CmdKind::kCopy ||
                      c.kind == CmdKind::kBufferToImage || c.kind == CmdKind::kImageToBuffer ||
                      c.kind == CmdKind::kImageToImage || c.kind == CmdKind::kClearImage ||
                      c.kind == CmdKind::kBlitImage ||
                      c.kind == CmdKind::kDispatch || c.kind == CmdKind::kDispatchBase ||
                      c.kind == CmdKind::kDispatchIndirect)) {
        Skip();
        continue;
      }
      switch (c.kind) {
        case CmdKind::kBeginSecondary: {
          if (level != Level::kPrimary) {
            Skip();
            break;
          }
          size_t stop = at + 1;
          while (stop < end && cmds[stop].kind != CmdKind::kEndSecondary) ++stop;
          const uint32_t inherited = d_.features.pipeline_statistics ? c.stages : 0;
          // A secondary runs inside a query only with inheritedQueries and the query's
          // statistics inherited (a cut program may have lost its end): the query ends first.
          if (active != nullptr && (!d_.features.inherited_queries || (inherited & active->statistics) != active->statistics)) {
            vkCmdEndQuery(cb, active->pool, 0);
            active = nullptr;
            Skip();
          }
          ExecuteSecondary(cb, cmds, at + 1, stop, c.graphics, inherited);
          // The spec leaves the primary's bound pipelines, sets and push constants undefined.
          bound[0] = bound[1] = Bound{};
          push = PushState{};
          pushes.clear();
          at = stop;  // past its kEndSecondary
          break;
        }
        case CmdKind::kEndSecondary: Skip(); break;  // without a beginning (a cut program)
        case CmdKind::kBeginQuery: {
          auto q = queries_.find(c.first);
          if (level != Level::kPrimary || active != nullptr || q == queries_.end() || q->second.begun) {
            Skip();
            break;
          }
          vkCmdResetQueryPool(cb, q->second.pool, 0, 1);
          vkCmdBeginQuery(cb, q->second.pool, 0, 0);
          q->second.begun = true;
          active = &q->second;
          break;
        }
        case CmdKind::kEndQuery: {
          auto q = queries_.find(c.first);
          if (active == nullptr || q == queries_.end() || active != &q->second) {
            Skip();
            break;
          }
          vkCmdEndQuery(cb, active->pool, 0);
          active = nullptr;
          break;
        }
        case CmdKind::kBindPipeline:
          if (c.pipeline >= pipelines_.size() || pipelines_[c.pipeline] == VK_NULL_HANDLE ||
              p_.pipelines[c.pipeline].graphics != c.graphics) {
            Skip();
            break;
          }
          vkCmdBindPipeline(cb, bp, pipelines_[c.pipeline]);
          if (repush_after_bind_ && push.layout >= 0 &&
              SamePush(p_.pipeline_layouts[push.layout], p_.pipeline_layouts[p_.pipelines[c.pipeline].layout])) {
            Repush(cb, pushes);
          }
          bound[c.graphics].pipeline = pipelines_[c.pipeline];
          bound[c.graphics].pipeline_index = c.pipeline;
          break;
        case CmdKind::kBindSets: {
          std::vector<VkDescriptorSet> sets;
          bool ok = c.layout < pipeline_layouts_.size() &&
                    c.first + c.sets.size() <= p_.pipeline_layouts[c.layout].sets.size();
          for (size_t i = 0; ok && i < c.sets.size(); ++i) {
            const uint32_t slot = c.sets[i];
            ok = slot < slots_.size() && slots_[slot].set != VK_NULL_HANDLE &&
                 SameSetLayout(p_.set_layouts[slots_[slot].layout],
                               p_.set_layouts[p_.pipeline_layouts[c.layout].sets[c.first + i]]);
            if (ok) sets.push_back(slots_[slot].set);
          }
          if (!ok || DynamicCount(c.sets) != c.values.size()) {
            Skip();
            break;
          }
          vkCmdBindDescriptorSets(cb, bp, pipeline_layouts_[c.layout], c.first, static_cast<uint32_t>(sets.size()),
                                  sets.data(), static_cast<uint32_t>(c.values.size()), c.values.data());
          NoteBind(bound[c.graphics], c.layout, c.first, static_cast<uint32_t>(sets.size()), c.sets.data());
          break;
        }
        case CmdKind::kPushConstants:
          if (c.layout >= pipeline_layouts_.size() || c.values.empty()) {
            Skip();
            break;
          }
          vkCmdPushConstants(cb, pipeline_layouts_[c.layout], c.stages, c.first,
                             static_cast<uint32_t>(4 * c.values.size()), c.values.data());
          if (repush_after_bind_) {
            // A push through a layout not compatible with the last one starts the defining set anew.
            if (push.layout < 0 || !SamePush(p_.pipeline_layouts[push.layout], p_.pipeline_layouts[c.layout])) {
              pushes.clear();
            }
            pushes.push_back(&c);
          }
          NotePush(push, c);
          break;
        case CmdKind::kPushDescriptors:
          if (PushDescriptors(cb, bp, c)) NoteBind(bound[c.graphics], c.layout, c.first, 1);
          break;
        case CmdKind::kFill:
          if (c.binding >= buffers_.size()) {
            Skip();
            break;
          }
          vkCmdFillBuffer(cb, buffers_[c.binding].buffer, c.first, c.size == 0 ? VK_WHOLE_SIZE : c.size,
                          c.values.empty() ? 0 : c.values[0]);
          FullBarrier(cb);
          break;
        case CmdKind::kUpdate:
          if (c.binding >= buffers_.size() || c.values.empty()) {
            Skip();
            break;
          }
          vkCmdUpdateBuffer(cb, buffers_[c.binding].buffer, c.first, 4 * c.values.size(), c.values.data());
          FullBarrier(cb);
          break;
        case CmdKind::kBufferToImage:
        case CmdKind::kImageToBuffer:
        case CmdKind::kImageToImage:
        case CmdKind::kClearImage:
        case CmdKind::kBlitImage:
          ImageTransfer(cb, c);
          break;
        case CmdKind::kCopy: {
          if (c.binding >= buffers_.size() || c.src >= buffers_.size()) {
            Skip();
            break;
          }
          const VkBufferCopy region{c.src_offset, c.first, c.size};
          vkCmdCopyBuffer(cb, buffers_[c.src].buffer, buffers_[c.binding].buffer, 1, &region);
          FullBarrier(cb);
          break;
        }
        default:
          // Draws begin a render pass: not in a secondary unless it continues one.
          if (bound[c.graphics].pipeline == VK_NULL_HANDLE || !ActionReady(bound[c.graphics], push) ||
              (in_pass && !c.graphics) || (level == Level::kSecondary && c.graphics)) {
            Skip();
            break;
          }
          Action(cb, c, in_pass);
          if (!in_pass) FullBarrier(cb);
          break;
      }
    }
    if (active != nullptr) vkCmdEndQuery(cb, active->pool, 0);  // a cut program lost its end
  }

  // Records cmds[begin, end) into a secondary command buffer and executes it from `cb`
  // (a render-pass secondary inside a render pass instance of its own), then a full barrier.
  // `statistics`: the pipeline statistics it inherits.
  void ExecuteSecondary(VkCommandBuffer cb, const std::vector<Cmd>& cmds, size_t begin, size_t end, bool render_pass,
                        uint32_t statistics) {
    VkCommandBufferAllocateInfo ai{VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
    ai.commandPool = d_.command_pool;
    ai.level = VK_COMMAND_BUFFER_LEVEL_SECONDARY;
    ai.commandBufferCount = 1;
    VkCommandBuffer secondary = VK_NULL_HANDLE;
    vkAllocateCommandBuffers(dev_, &ai, &secondary);
    VkCommandBufferInheritanceInfo inherit{VK_STRUCTURE_TYPE_COMMAND_BUFFER_INHERITANCE_INFO};
    inherit.pipelineStatistics = statistics;
    VkCommandBufferBeginInfo bi{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
    bi.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
    if (render_pass) {
      inherit.renderPass = render_pass_;
      inherit.subpass = 0;
      inherit.framebuffer = framebuffer_;
      bi.flags |= VK_COMMAND_BUFFER_USAGE_RENDER_PASS_CONTINUE_BIT;
    }
    bi.pInheritanceInfo = &inherit;
    vkBeginCommandBuffer(secondary, &bi);
    Record(secondary, cmds, begin, end, render_pass ? Level::kRenderPassSecondary : Level::kSecondary);
    vkEndCommandBuffer(secondary);
    pending_.push_back(secondary);  // freed after the next wait for idle
    if (render_pass) {
      VkRenderPassBeginInfo ri{VK_STRUCTURE_TYPE_RENDER_PASS_BEGIN_INFO};
      ri.renderPass = render_pass_;
      ri.framebuffer = framebuffer_;
      ri.renderArea = {{0, 0}, {kImageSize, kImageSize}};
      vkCmdBeginRenderPass(cb, &ri, VK_SUBPASS_CONTENTS_SECONDARY_COMMAND_BUFFERS);
      vkCmdExecuteCommands(cb, 1, &secondary);
      vkCmdEndRenderPass(cb);
    } else {
      vkCmdExecuteCommands(cb, 1, &secondary);
    }
    FullBarrier(cb);
  }

  bool PushDescriptors(VkCommandBuffer cb, VkPipelineBindPoint bp, const Cmd& c) {
    if (c.layout >= pipeline_layouts_.size() || c.first >= p_.pipeline_layouts[c.layout].sets.size()) return Refuse();
    const uint32_t set_layout = p_.pipeline_layouts[c.layout].sets[c.first];
    const SetLayout& sl = p_.set_layouts[set_layout];
    if (!sl.push) return Refuse();
    std::vector<VkWriteDescriptorSet> writes;
    std::vector<VkDescriptorUpdateTemplateEntry> entries;
    std::vector<DescInfo> infos;
    size_t at = 0;
    for (size_t i = 0; i + 1 < c.values.size(); i += 2) {
      const uint32_t binding = c.values[i], count = c.values[i + 1];
      const Binding* b = nullptr;
      for (const Binding& x : sl.bindings) {
        if (x.binding == binding) b = &x;
      }
      if (b == nullptr || count == 0 || count > b->count || at + count > c.descs.size()) return Refuse();
      for (size_t k = at; k < at + count; ++k) {
        if (!DescValid(c.descs[k], b->type)) return Refuse();
        infos.push_back(Info(c.descs[k], b->type));
      }
      VkWriteDescriptorSet w{VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET};
      w.dstBinding = binding;
      w.descriptorCount = count;
      w.descriptorType = VkType(b->type);
      w.dstArrayElement = static_cast<uint32_t>(at);  // the info index until fixed below
      writes.push_back(w);
      entries.push_back({binding, 0, count, VkType(b->type), at * sizeof(DescInfo), sizeof(DescInfo)});
      at += count;
    }
    if (writes.empty()) return Refuse();
    for (VkWriteDescriptorSet& w : writes) {
      const DescInfo* first = infos.data() + w.dstArrayElement;
      if (w.descriptorType == VK_DESCRIPTOR_TYPE_SAMPLED_IMAGE || w.descriptorType == VK_DESCRIPTOR_TYPE_STORAGE_IMAGE ||
          w.descriptorType == VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER)
        w.pImageInfo = &first->image;
      else
        w.pBufferInfo = &first->buffer;
      w.dstArrayElement = 0;
    }
    if (c.use_template) {
      VkDescriptorUpdateTemplate t =
          MakeTemplate(entries, set_layouts_[set_layout], true, bp, pipeline_layouts_[c.layout], c.first);
      templates_.push_back(t);  // the command buffer may be in flight: destroyed with the program
      push_template_(cb, t, pipeline_layouts_[c.layout], c.first, infos.data());
      return true;
    }
    push_set_(cb, bp, pipeline_layouts_[c.layout], c.first, static_cast<uint32_t>(writes.size()), writes.data());
    return true;
  }

  // in_pass: recorded inside a render pass instance the caller began (a render-pass secondary).
  void Action(VkCommandBuffer cb, const Cmd& c, bool in_pass) {
    const auto& v = c.values;
    auto need = [&](size_t n) {
      if (v.size() >= n) return true;
      Skip();
      return false;
    };
    switch (c.kind) {
      case CmdKind::kDispatch:
        if (need(3)) vkCmdDispatch(cb, v[0], v[1], v[2]);
        return;
      case CmdKind::kDispatchBase:
        if (need(6)) vkCmdDispatchBase(cb, v[0], v[1], v[2], v[3], v[4], v[5]);
        return;
      case CmdKind::kDispatchIndirect: vkCmdDispatchIndirect(cb, indirect_.buffer, c.first); return;
      default: break;
    }
    // Draws: each in its own rendering instance (storage writes of two draws would need a barrier).
    VkRenderPassBeginInfo ri{VK_STRUCTURE_TYPE_RENDER_PASS_BEGIN_INFO};
    ri.renderPass = render_pass_;
    ri.framebuffer = framebuffer_;
    ri.renderArea = {{0, 0}, {kImageSize, kImageSize}};
    const bool indexed = c.kind == CmdKind::kDrawIndexed || c.kind == CmdKind::kDrawIndexedIndirect ||
                         c.kind == CmdKind::kDrawIndexedIndirectCount || c.kind == CmdKind::kDrawMultiIndexed;
    if (!in_pass) vkCmdBeginRenderPass(cb, &ri, VK_SUBPASS_CONTENTS_INLINE);
    if (indexed) vkCmdBindIndexBuffer(cb, indirect_.buffer, c.src_offset, VK_INDEX_TYPE_UINT32);
    switch (c.kind) {
      case CmdKind::kDraw:
        if (need(4)) vkCmdDraw(cb, v[0], v[1], v[2], v[3]);
        break;
      case CmdKind::kDrawIndexed:
        if (need(5)) vkCmdDrawIndexed(cb, v[0], v[1], v[2], static_cast<int32_t>(v[3]), v[4]);
        break;
      case CmdKind::kDrawIndirect:
        if (need(1)) vkCmdDrawIndirect(cb, indirect_.buffer, c.first, c.size, v[0]);
        break;
      case CmdKind::kDrawIndexedIndirect:
        if (need(1)) vkCmdDrawIndexedIndirect(cb, indirect_.buffer, c.first, c.size, v[0]);
        break;
      case CmdKind::kDrawIndirectCount:
        if (need(1)) vkCmdDrawIndirectCount(cb, indirect_.buffer, c.first, indirect_.buffer, c.src, c.size, v[0]);
        break;
      case CmdKind::kDrawIndexedIndirectCount:
        if (need(1))
          vkCmdDrawIndexedIndirectCount(cb, indirect_.buffer, c.first, indirect_.buffer, c.src, c.size, v[0]);
        break;
      case CmdKind::kDrawMulti: {
        if (!need(2 * size_t(c.size) + 2) || draw_multi_ == nullptr) break;
        std::vector<VkMultiDrawInfoEXT> draws;
        for (uint32_t i = 0; i < c.size; ++i) draws.push_back({v[2 * i], v[2 * i + 1]});
        draw_multi_(cb, c.size, draws.data(), v[2 * c.size], v[2 * c.size + 1], sizeof(VkMultiDrawInfoEXT));
        break;
      }
      case CmdKind::kDrawMultiIndexed: {
        if (!need(3 * size_t(c.size) + 2) || draw_multi_indexed_ == nullptr) break;
        std::vector<VkMultiDrawIndexedInfoEXT> draws;
        for (uint32_t i = 0; i < c.size; ++i) draws.push_back({v[3 * i], v[3 * i + 1], int32_t(v[3 * i + 2])});
        draw_multi_indexed_(cb, c.size, draws.data(), v[3 * c.size], v[3 * c.size + 1],
                            sizeof(VkMultiDrawIndexedInfoEXT), nullptr);
        break;
      }
      default: Skip(); break;
    }
    if (!in_pass) vkCmdEndRenderPass(cb);
  }

  // ---- start and end ----
  VkCommandBuffer OneTime() {
    VkCommandBufferAllocateInfo ai{VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
    ai.commandPool = d_.command_pool;
    ai.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
    ai.commandBufferCount = 1;
    VkCommandBuffer cb = VK_NULL_HANDLE;
    vkAllocateCommandBuffers(dev_, &ai, &cb);
    VkCommandBufferBeginInfo bi{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
    bi.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
    vkBeginCommandBuffer(cb, &bi);
    return cb;
  }
  void SubmitOneTime(VkCommandBuffer cb) {
    vkEndCommandBuffer(cb);
    VkSubmitInfo si{VK_STRUCTURE_TYPE_SUBMIT_INFO};
    si.commandBufferCount = 1;
    si.pCommandBuffers = &cb;
    pending_.push_back(cb);
    Alive(vkQueueSubmit(d_.queue, 1, &si, VK_NULL_HANDLE), "vkQueueSubmit");
  }

  void InitImage() {
    VkCommandBuffer cb = OneTime();
    VkImageMemoryBarrier ib{VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER};
    ib.dstAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT;
    ib.oldLayout = VK_IMAGE_LAYOUT_UNDEFINED;
    ib.newLayout = VK_IMAGE_LAYOUT_GENERAL;
    ib.srcQueueFamilyIndex = ib.dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
    ib.image = image_;
    ib.subresourceRange = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1};
    vkCmdPipelineBarrier(cb, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT, 0, 0, nullptr, 0,
                         nullptr, 1, &ib);
    VkClearColorValue clear{};
    clear.uint32[0] = 0xC1EA4u;
    vkCmdClearColorImage(cb, image_, VK_IMAGE_LAYOUT_GENERAL, &clear, 1, &ib.subresourceRange);
    for (size_t i = 0; i < images_.size(); ++i) {
      ib.image = images_[i].image;
      ib.newLayout = VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL;
      vkCmdPipelineBarrier(cb, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT, 0, 0, nullptr, 0,
                           nullptr, 1, &ib);
      VkBufferImageCopy region{};
      region.bufferOffset = i * kTexBytes;
      region.imageSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1};
      region.imageExtent = {kTexSize, kTexSize, 1};
      vkCmdCopyBufferToImage(cb, image_staging_.buffer, images_[i].image, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, 1,
                             &region);
      // GENERAL from here on: shaders sample and store through it.
      VkImageMemoryBarrier to_general = ib;
      to_general.srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT;
      to_general.dstAccessMask = VK_ACCESS_MEMORY_READ_BIT | VK_ACCESS_MEMORY_WRITE_BIT;
      to_general.oldLayout = VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL;
      to_general.newLayout = VK_IMAGE_LAYOUT_GENERAL;
      vkCmdPipelineBarrier(cb, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, 0, 0, nullptr, 0,
                           nullptr, 1, &to_general);
    }
    // The transfer images: contents from the seed, TRANSFER_DST_OPTIMAL from here on.
    for (size_t i = 0; i < transfer_images_.size(); ++i) {
      if (!transfer_images_[i].image) continue;
      ib.image = transfer_images_[i].image;
      ib.newLayout = VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL;
      ib.subresourceRange = {VK_IMAGE_ASPECT_COLOR_BIT, 0, VK_REMAINING_MIP_LEVELS, 0, VK_REMAINING_ARRAY_LAYERS};
      vkCmdPipelineBarrier(cb, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT, 0, 0, nullptr, 0,
                           nullptr, 1, &ib);
      const std::vector<VkBufferImageCopy> regions = WholeImage(p_.transfer_images[i], transfer_offsets_[i]);
      vkCmdCopyBufferToImage(cb, transfer_staging_.buffer, transfer_images_[i].image,
                             VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, static_cast<uint32_t>(regions.size()), regions.data());
    }
    FullBarrier(cb);
    SubmitOneTime(cb);
    // The program's submissions go to up to three queues, and nothing orders one on queue 1
    // or 2 after this one on queue 0: on a GPU whose queues run side by side (the H100) a
    // draw there could land before the clear and be wiped by it, now and then. The setup is
    // done before the program starts. BINDERY_APIFUZZ_UNORDERED_SETUP=1 leaves the wait out,
    // to show that the "reordered" configuration catches such a gap.
    const char* unordered = std::getenv("BINDERY_APIFUZZ_UNORDERED_SETUP");
    if (unordered == nullptr || std::strcmp(unordered, "1") != 0) Alive(vkQueueWaitIdle(d_.queue), "vkQueueWaitIdle");
  }

  void FinishAndRead() {
    // Wait-before-signal gates that nothing signaled (a cut program) were never submitted.
    WaitIdle();
    VkCommandBuffer cb = OneTime();
    FullBarrier(cb);
    VkImageMemoryBarrier ib{VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER};
    ib.srcAccessMask = VK_ACCESS_MEMORY_WRITE_BIT;
    ib.dstAccessMask = VK_ACCESS_TRANSFER_READ_BIT;
    ib.oldLayout = VK_IMAGE_LAYOUT_GENERAL;
    ib.newLayout = VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL;
    ib.srcQueueFamilyIndex = ib.dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
    ib.image = image_;
    ib.subresourceRange = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1};
    vkCmdPipelineBarrier(cb, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT, 0, 0, nullptr, 0,
                         nullptr, 1, &ib);
    VkBufferImageCopy region{};
    region.imageSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1};
    region.imageExtent = {kImageSize, kImageSize, 1};
    vkCmdCopyImageToBuffer(cb, image_, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, readback_.buffer, 1, &region);
    region.imageExtent = {kTexSize, kTexSize, 1};
    for (size_t i = 0; i < images_.size(); ++i) {
      ib.image = images_[i].image;
      vkCmdPipelineBarrier(cb, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT, 0, 0, nullptr, 0,
                           nullptr, 1, &ib);
      region.bufferOffset = i * kTexBytes;
      vkCmdCopyImageToBuffer(cb, images_[i].image, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, image_staging_.buffer, 1,
                             &region);
    }
    for (size_t i = 0; i < transfer_images_.size(); ++i) {
      if (!transfer_images_[i].image) continue;
      TransferImageLayout(cb, static_cast<uint32_t>(i), true);
      const std::vector<VkBufferImageCopy> regions = WholeImage(p_.transfer_images[i], transfer_offsets_[i]);
      vkCmdCopyImageToBuffer(cb, transfer_images_[i].image, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL,
                             transfer_staging_.buffer, static_cast<uint32_t>(regions.size()), regions.data());
    }
    FullBarrier(cb, VK_ACCESS_HOST_READ_BIT);
    SubmitOneTime(cb);
    WaitIdle();
    static const char* const kRoleNames[] = {"in", "out", "counter"};
    for (size_t i = 0; i < buffers_.size(); ++i) {
      const HostBuffer& b = buffers_[i];
      const auto* bytes = static_cast<const uint8_t*>(b.mapped);
      result_.bytes.insert(result_.bytes.end(), bytes, bytes + b.size);
      const uint32_t role = static_cast<uint32_t>(p_.buffers[i].role);
      result_.regions.push_back(
          {"buffer " + std::to_string(i) + " (" + (role < 3 ? kRoleNames[role] : "?") + ")", b.size});
    }
    const auto* bytes = static_cast<const uint8_t*>(readback_.mapped);
    result_.bytes.insert(result_.bytes.end(), bytes, bytes + readback_.size);
    result_.regions.push_back({"color image", readback_.size});
    if (!images_.empty()) {  // after the color image (programs without images read back as before)
      bytes = static_cast<const uint8_t*>(image_staging_.mapped);
      result_.bytes.insert(result_.bytes.end(), bytes, bytes + image_staging_.size);
      for (size_t i = 0; i < images_.size(); ++i) result_.regions.push_back({"image " + std::to_string(i), kTexBytes});
    }
    if (!transfer_images_.empty()) {  // last (programs without them read back as before)
      bytes = static_cast<const uint8_t*>(transfer_staging_.mapped);
      result_.bytes.insert(result_.bytes.end(), bytes, bytes + transfer_staging_.size);
      for (size_t i = 0; i < transfer_images_.size(); ++i) {
        const uint32_t end = i + 1 < transfer_offsets_.size() ? static_cast<uint32_t>(transfer_offsets_[i + 1])
                                                              : transfer_staging_.size;
        result_.regions.push_back(
            {"transfer image " + std::to_string(i), end - static_cast<uint32_t>(transfer_offsets_[i])});
      }
    }
    ReadQueries();
  }

  // Each query's statistics and availability, last (programs without queries read back as
  // before): zeros for a query never begun (its submission was skipped, or a cut removed it).
  // Not waited for: every submission is done, and a query recorded but never submitted would
  // never become available.
  void ReadQueries() {
    for (const auto& [name, q] : queries_) {
      std::vector<uint64_t> values(static_cast<size_t>(__builtin_popcount(q.statistics)) + 1, 0);
      if (q.begun) {
        vkGetQueryPoolResults(dev_, q.pool, 0, 1, values.size() * sizeof(uint64_t), values.data(),
                              values.size() * sizeof(uint64_t), VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WITH_AVAILABILITY_BIT);
      }
      const auto* bytes = reinterpret_cast<const uint8_t*>(values.data());
      result_.bytes.insert(result_.bytes.end(), bytes, bytes + values.size() * sizeof(uint64_t));
      result_.regions.push_back({"query " + std::to_string(name), values.size() * sizeof(uint64_t)});
    }
  }

  void DestroyBuffer(HostBuffer& b) {
    if (b.buffer) vkDestroyBuffer(dev_, b.buffer, nullptr);
    if (b.memory) vkFreeMemory(dev_, b.memory, nullptr);
    b = {};
  }

  void Destroy() {
    // A lost device: everything is leaked on purpose (its command buffers never leave the
    // pending state, so freeing them or what they use is invalid); the caller destroys the
    // whole device, which releases it all.
    if (result_.device_lost || !IdleAll()) return;
    for (VkCommandBuffer cb : pending_) vkFreeCommandBuffers(dev_, d_.command_pool, 1, &cb);
    for (auto t : templates_) vkDestroyDescriptorUpdateTemplate(dev_, t, nullptr);
    for (auto& [name, q] : queries_) vkDestroyQueryPool(dev_, q.pool, nullptr);
    for (auto s : semaphores_) vkDestroySemaphore(dev_, s, nullptr);
    for (auto pool : pools_) vkDestroyDescriptorPool(dev_, pool, nullptr);
    for (auto pl : pipelines_) vkDestroyPipeline(dev_, pl, nullptr);
    for (auto pl : kept_libraries_) vkDestroyPipeline(dev_, pl, nullptr);
    for (auto m : modules_) vkDestroyShaderModule(dev_, m, nullptr);
    for (auto l : pipeline_layouts_) vkDestroyPipelineLayout(dev_, l, nullptr);
    for (auto l : set_layouts_) vkDestroyDescriptorSetLayout(dev_, l, nullptr);
    if (framebuffer_) vkDestroyFramebuffer(dev_, framebuffer_, nullptr);
    if (render_pass_) vkDestroyRenderPass(dev_, render_pass_, nullptr);
    if (view_) vkDestroyImageView(dev_, view_, nullptr);
    if (image_) vkDestroyImage(dev_, image_, nullptr);
    if (image_memory_) vkFreeMemory(dev_, image_memory_, nullptr);
    for (VkSampler sampler : samplers_) vkDestroySampler(dev_, sampler, nullptr);
    for (ImageObject& o : images_) {
      vkDestroyImageView(dev_, o.view, nullptr);
      vkDestroyImage(dev_, o.image, nullptr);
      vkFreeMemory(dev_, o.memory, nullptr);
    }
    for (ImageObject& o : transfer_images_) {
      if (o.image) vkDestroyImage(dev_, o.image, nullptr);
      if (o.memory) vkFreeMemory(dev_, o.memory, nullptr);
    }
    DestroyBuffer(transfer_staging_);
    DestroyBuffer(image_staging_);
    for (HostBuffer& b : buffers_) DestroyBuffer(b);
    DestroyBuffer(indirect_);
    DestroyBuffer(readback_);
  }

  const Device& d_;
  const Program& p_;
  VkDevice dev_;
  const bool repush_after_bind_;
  RunResult result_;
  PFN_vkCmdPushDescriptorSetKHR push_set_ = nullptr;
  PFN_vkCmdPushDescriptorSetWithTemplateKHR push_template_ = nullptr;
  PFN_vkCmdDrawMultiEXT draw_multi_ = nullptr;
  PFN_vkCmdDrawMultiIndexedEXT draw_multi_indexed_ = nullptr;
  std::vector<HostBuffer> buffers_;
  HostBuffer indirect_, readback_, image_staging_;
  std::vector<ImageObject> images_;
  std::vector<ImageObject> transfer_images_;  // Program::transfer_images
  std::vector<VkDeviceSize> transfer_offsets_;  // each one's bytes in transfer_staging_
  HostBuffer transfer_staging_;
  std::vector<VkSampler> samplers_;
  VkImage image_ = VK_NULL_HANDLE;
  VkDeviceMemory image_memory_ = VK_NULL_HANDLE;
  VkImageView view_ = VK_NULL_HANDLE;
  VkRenderPass render_pass_ = VK_NULL_HANDLE;
  VkFramebuffer framebuffer_ = VK_NULL_HANDLE;
  std::vector<VkDescriptorSetLayout> set_layouts_;
  std::set<size_t> done_late_;  // late steps already made by their submission
  std::vector<VkPipelineLayout> pipeline_layouts_;
  std::vector<VkShaderModule> modules_;
  std::map<uint32_t, VkShaderModule> shared_modules_;  // by Stage::module (also in modules_)
  std::vector<VkPipeline> kept_libraries_;  // libraries that outlive their linking (MakeLinkedPipeline)
  std::vector<VkPipeline> pipelines_;
  std::vector<VkDescriptorPool> pools_;
  std::vector<Slot> slots_;
  std::vector<VkSemaphore> semaphores_;
  std::vector<uint64_t> signaled_;  // host signals
  std::vector<uint64_t> device_signaled_;  // highest submitted signal
  std::vector<VkDescriptorUpdateTemplate> templates_;
  std::vector<VkCommandBuffer> pending_;
  struct Query {
    VkQueryPool pool = VK_NULL_HANDLE;
    uint32_t statistics = 0;
    bool begun = false;  // recorded (then submitted: a skipped submission records nothing)
  };
  std::map<uint32_t, Query> queries_;  // by the name kBeginQuery gives it
};

}  // namespace

RunResult Execute(const Device& d, const Program& p) { return Interpreter(d, p).Run(); }

}  // namespace bindery::apifuzz
