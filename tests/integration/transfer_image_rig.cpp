#include "integration/transfer_image_rig.h"

#include <algorithm>
#include <cstring>
#include <sstream>

namespace bindery::test::transfer {

uint32_t TexelBytes(VkFormat format) {
  switch (format) {
    case VK_FORMAT_R8_UNORM:
    case VK_FORMAT_R8_UINT:
    case VK_FORMAT_R8_SNORM:
    case VK_FORMAT_R8_SRGB:
    case VK_FORMAT_R4G4_UNORM_PACK8:
      return 1;
    case VK_FORMAT_R8G8_UNORM:
    case VK_FORMAT_R16_SFLOAT:
    case VK_FORMAT_R16_UNORM:
    case VK_FORMAT_R16_UINT:
    case VK_FORMAT_R16_SINT:
    case VK_FORMAT_R5G6B5_UNORM_PACK16:
    case VK_FORMAT_B4G4R4A4_UNORM_PACK16:
    case VK_FORMAT_A1R5G5B5_UNORM_PACK16:
    case VK_FORMAT_D16_UNORM:
      return 2;
    case VK_FORMAT_R8G8B8_UNORM:
      return 3;
    case VK_FORMAT_R8G8B8A8_UNORM:
    case VK_FORMAT_R8G8B8A8_SRGB:
    case VK_FORMAT_R8G8B8A8_SNORM:
    case VK_FORMAT_R8G8B8A8_UINT:
    case VK_FORMAT_R8G8B8A8_SINT:
    case VK_FORMAT_B8G8R8A8_UNORM:
    case VK_FORMAT_B8G8R8A8_SRGB:
    case VK_FORMAT_A2B10G10R10_UNORM_PACK32:
    case VK_FORMAT_A2B10G10R10_UINT_PACK32:
    case VK_FORMAT_B10G11R11_UFLOAT_PACK32:
    case VK_FORMAT_E5B9G9R9_UFLOAT_PACK32:
    case VK_FORMAT_R16G16_SFLOAT:
    case VK_FORMAT_R16G16_UINT:
    case VK_FORMAT_R16G16_UNORM:
    case VK_FORMAT_R32_SFLOAT:
    case VK_FORMAT_R32_UINT:
    case VK_FORMAT_R32_SINT:
    case VK_FORMAT_D32_SFLOAT:
      return 4;
    case VK_FORMAT_R16G16B16A16_SFLOAT:
    case VK_FORMAT_R16G16B16A16_UNORM:
    case VK_FORMAT_R16G16B16A16_SNORM:
    case VK_FORMAT_R16G16B16A16_UINT:
    case VK_FORMAT_R32G32_SFLOAT:
    case VK_FORMAT_R32G32_UINT:
    case VK_FORMAT_BC1_RGBA_UNORM_BLOCK:
    case VK_FORMAT_BC4_UNORM_BLOCK:
      return 8;
    case VK_FORMAT_R32G32B32A32_SFLOAT:
    case VK_FORMAT_R32G32B32A32_UINT:
    case VK_FORMAT_R32G32B32A32_SINT:
    case VK_FORMAT_BC7_SRGB_BLOCK:
    case VK_FORMAT_BC3_UNORM_BLOCK:
      return 16;
    default:
      return 0;
  }
}

namespace {
// Texels per block edge of the compressed formats the tests use (1 for the others).
uint32_t BlockEdge(VkFormat format) {
  switch (format) {
    case VK_FORMAT_BC1_RGBA_UNORM_BLOCK:
    case VK_FORMAT_BC4_UNORM_BLOCK:
    case VK_FORMAT_BC7_SRGB_BLOCK:
    case VK_FORMAT_BC3_UNORM_BLOCK:
      return 4;
    default:
      return 1;
  }
}
}  // namespace

VkExtent3D TestImage::MipExtent(uint32_t mip) const {
  return {std::max(1u, info.extent.width >> mip), std::max(1u, info.extent.height >> mip),
          std::max(1u, info.extent.depth >> mip)};
}

uint64_t TestImage::MipOffset(uint32_t mip) const {
  uint64_t offset = 0;
  const uint32_t b = BlockEdge(info.format);
  for (uint32_t m = 0; m < mip; ++m) {
    const VkExtent3D e = MipExtent(m);
    offset += uint64_t{(e.width + b - 1) / b} * ((e.height + b - 1) / b) * e.depth * info.arrayLayers * texel_bytes;
  }
  return offset;
}

VkImageCreateInfo ImageInfo(VkFormat format, VkImageType type, VkExtent3D extent, uint32_t mips, uint32_t layers,
                            VkImageUsageFlags usage) {
  VkImageCreateInfo info{VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO};
  info.imageType = type;
  info.format = format;
  info.extent = extent;
  info.mipLevels = mips;
  info.arrayLayers = layers;
  info.samples = VK_SAMPLE_COUNT_1_BIT;
  info.tiling = VK_IMAGE_TILING_OPTIMAL;
  info.usage = usage;
  info.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
  info.initialLayout = VK_IMAGE_LAYOUT_UNDEFINED;
  return info;
}

bool ImageSupported(VkHarness& h, const VkImageCreateInfo& info) {
  VkImageFormatProperties p{};
  if (vkGetPhysicalDeviceImageFormatProperties(h.physical_device(), info.format, info.imageType, info.tiling,
                                               info.usage, info.flags, &p) != VK_SUCCESS) {
    return false;
  }
  return info.extent.width <= p.maxExtent.width && info.extent.height <= p.maxExtent.height &&
         info.extent.depth <= p.maxExtent.depth && info.mipLevels <= p.maxMipLevels &&
         info.arrayLayers <= p.maxArrayLayers;
}

ImageRun::ImageRun(Rig& rig) : rig_(rig) {}

ImageRun::~ImageRun() {
  VkDevice device = rig_.h().device();
  vkDeviceWaitIdle(device);
  for (auto& destroy : on_destroy_) destroy();
  for (TestImage& image : images_) {
    vkDestroyImage(device, image.image, nullptr);
    vkFreeMemory(device, image.memory, nullptr);
  }
  for (HostBuffer& b : buffers_) rig_.h().Destroy(b);
  for (auto& [b, size] : downloads_) rig_.h().Destroy(b);
}

TestImage ImageRun::Image(const VkImageCreateInfo& info) {
  VkDevice device = rig_.h().device();
  TestImage image;
  image.info = info;
  image.texel_bytes = TexelBytes(info.format);
  if (vkCreateImage(device, &info, nullptr, &image.image) != VK_SUCCESS) {
    ADD_FAILURE() << "vkCreateImage failed (format " << info.format << ")";
    return image;
  }
  VkMemoryRequirements req;
  vkGetImageMemoryRequirements(device, image.image, &req);
  VkPhysicalDeviceMemoryProperties props;
  vkGetPhysicalDeviceMemoryProperties(rig_.h().physical_device(), &props);
  uint32_t type = UINT32_MAX;
  for (uint32_t i = 0; i < props.memoryTypeCount && type == UINT32_MAX; ++i) {
    if ((req.memoryTypeBits & (1u << i)) != 0 &&
        (props.memoryTypes[i].propertyFlags & VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT) != 0) {
      type = i;
    }
  }
  for (uint32_t i = 0; i < props.memoryTypeCount && type == UINT32_MAX; ++i) {
    if ((req.memoryTypeBits & (1u << i)) != 0) type = i;
  }
  VkMemoryAllocateInfo mai{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
  mai.allocationSize = req.size;
  mai.memoryTypeIndex = type;
  EXPECT_EQ(vkAllocateMemory(device, &mai, nullptr, &image.memory), VK_SUCCESS);
  EXPECT_EQ(vkBindImageMemory(device, image.image, image.memory, 0), VK_SUCCESS);
  image.bytes = image.MipOffset(info.mipLevels);
  images_.push_back(image);
  return image;
}

HostBuffer ImageRun::Buffer(uint64_t size) {
  HostBuffer b = rig_.h().CreateHostBuffer(size, VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT);
  EXPECT_NE(b.buffer, VK_NULL_HANDLE);
  buffers_.push_back(b);
  return b;
}

HostBuffer ImageRun::Exportable(uint64_t size) {
  HostBuffer b = rig_.h().CreateHostBuffer(size, VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT,
                                           VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT);
  EXPECT_NE(b.buffer, VK_NULL_HANDLE) << "an exportable buffer of " << size << " bytes";
  return b;
}

void TransferBarrier(VkCommandBuffer cb) {
  VkMemoryBarrier barrier{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
  barrier.srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT | VK_ACCESS_TRANSFER_READ_BIT;
  barrier.dstAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT | VK_ACCESS_TRANSFER_READ_BIT;
  vkCmdPipelineBarrier(cb, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT, 0, 1, &barrier, 0, nullptr,
                       0, nullptr);
}

namespace {

void Layout(VkCommandBuffer cb, const TestImage& image, VkImageLayout from, VkImageLayout to) {
  if (from == to) return TransferBarrier(cb);
  VkImageMemoryBarrier b{VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER};
  b.srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT | VK_ACCESS_TRANSFER_READ_BIT;
  b.dstAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT | VK_ACCESS_TRANSFER_READ_BIT;
  b.oldLayout = from;
  b.newLayout = to;
  b.srcQueueFamilyIndex = b.dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
  b.image = image.image;
  b.subresourceRange = {VK_IMAGE_ASPECT_COLOR_BIT, 0, VK_REMAINING_MIP_LEVELS, 0, VK_REMAINING_ARRAY_LAYERS};
  vkCmdPipelineBarrier(cb, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT, 0, 0, nullptr, 0, nullptr,
                       1, &b);
}

// One region per mip: all layers (or slices), tightly packed from `offset`.
std::vector<VkBufferImageCopy> WholeImage(const TestImage& image) {
  std::vector<VkBufferImageCopy> regions;
  const bool is3d = image.info.imageType == VK_IMAGE_TYPE_3D;
  for (uint32_t m = 0; m < image.info.mipLevels; ++m) {
    VkBufferImageCopy r{};
    r.bufferOffset = image.MipOffset(m);
    r.imageSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, m, 0, is3d ? 1 : image.info.arrayLayers};
    r.imageExtent = image.MipExtent(m);
    regions.push_back(r);
  }
  return regions;
}

}  // namespace

void ImageRun::Upload(VkCommandBuffer cb, const TestImage& image, const std::vector<uint8_t>& bytes,
                      VkImageLayout layout) {
  HostBuffer staging = Exportable(image.bytes);
  ++staging_commands_;
  buffers_.push_back(staging);
  std::memcpy(staging.mapped, bytes.data(), std::min<uint64_t>(bytes.size(), image.bytes));
  Layout(cb, image, VK_IMAGE_LAYOUT_UNDEFINED, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL);
  const std::vector<VkBufferImageCopy> regions = WholeImage(image);
  vkCmdCopyBufferToImage(cb, staging.buffer, image.image, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL,
                         static_cast<uint32_t>(regions.size()), regions.data());
  Layout(cb, image, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, layout);
}

void ImageRun::Download(VkCommandBuffer cb, const TestImage& image, VkImageLayout layout) {
  HostBuffer staging = Exportable(image.bytes);
  ++staging_commands_;
  std::memset(staging.mapped, 0xEE, image.bytes);
  Layout(cb, image, layout, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL);
  const std::vector<VkBufferImageCopy> regions = WholeImage(image);
  vkCmdCopyImageToBuffer(cb, image.image, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, staging.buffer,
                         static_cast<uint32_t>(regions.size()), regions.data());
  Rig::TransferHostReadBarrier(cb);
  downloads_.emplace_back(staging, image.bytes);
}

void ImageRun::Keep(const HostBuffer& buffer) {
  HostBuffer alias = buffer;
  alias.buffer = VK_NULL_HANDLE;  // owned by buffers_: the download list only reads it
  alias.memory = VK_NULL_HANDLE;
  downloads_.emplace_back(alias, buffer.size);
}

std::vector<uint8_t> ImageRun::ReadBack(uint32_t index) const {
  const auto& [b, size] = downloads_[index];
  const auto* p = static_cast<const uint8_t*>(b.mapped);
  return std::vector<uint8_t>(p, p + size);
}

ImageRunResult RunImageProgram(const Config& config, const std::function<bool(ImageRun&, VkCommandBuffer)>& program,
                               const RigOptions& options) {
  ImageRunResult result;
  Rig rig(config, options);
  if (!rig.ok()) {
    result.error = rig.error();
    return result;
  }
  {
    ImageRun run(rig);
    VkCommandBuffer cb = rig.h().BeginCommands();
    if (!program(run, cb)) {
      result.error = "skipped";
      vkEndCommandBuffer(cb);
      return result;
    }
    const VkResult submitted = rig.h().SubmitAndWait(cb);
    if (submitted != VK_SUCCESS) {
      result.error = "submission failed: " + std::to_string(submitted);
      return result;
    }
    for (uint32_t i = 0; i < run.downloads(); ++i) result.downloads.push_back(run.ReadBack(i));
    result.staging = run.staging_commands();
  }
  rig.Finish();
  // The validation layer calls GENERAL "not optimal" for every native transfer command on
  // an optimal image in it (a performance note about a valid call). The tests use GENERAL on
  // purpose; every other message counts.
  std::vector<Message> problems;
  for (const Message& m : rig.h().ValidationProblems()) {
    const bool general_note = m.id == "UNASSIGNED-CoreValidation-DrawState-InvalidImageLayout" &&
                              m.text.find("For optimal performance") != std::string::npos &&
                              m.text.find("instead of GENERAL") != std::string::npos;
    if (!general_note) problems.push_back(m);
  }
  result.validation = VkHarness::Format(problems);
  result.summary = rig.h().BinderySummary();
  return result;
}

::testing::AssertionResult SameDownloads(const ImageRunResult& native, const ImageRunResult& forced,
                                         const std::vector<std::string>& names) {
  if (native.downloads.size() != forced.downloads.size()) {
    return ::testing::AssertionFailure() << native.downloads.size() << " downloads natively, "
                                         << forced.downloads.size() << " forced";
  }
  for (size_t i = 0; i < native.downloads.size(); ++i) {
    const auto& a = native.downloads[i];
    const auto& b = forced.downloads[i];
    for (size_t j = 0; j < a.size(); ++j) {
      if (a[j] != b[j]) {
        std::ostringstream os;
        os << (i < names.size() ? names[i] : "download " + std::to_string(i)) << ": byte " << j << " of " << a.size()
           << " is 0x" << std::hex << int(b[j]) << " forced, 0x" << int(a[j]) << " natively";
        return ::testing::AssertionFailure() << os.str();
      }
    }
  }
  return ::testing::AssertionSuccess();
}

}  // namespace bindery::test::transfer
