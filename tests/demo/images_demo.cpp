// scripts/demo's image-transfer proof: a plain Vulkan program (it knows nothing about
// Bindery; it enables validation itself, synchronization validation on) that uploads an
// R8G8B8A8 texture from a buffer, copies part of it into a second image at an offset,
// clears a layer of a third, and reads every image back into host memory. It prints a digest
// of all the bytes read back and a RESULT line. Run once without Bindery and once with it
// forced (transfers=force: the copies and the clear run as compute kernels on lavapipe), the
// digests must be equal, and the layer's summary counts the image kernels.
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <vector>

#include "support/vk_harness.h"

namespace {

using bindery::test::HarnessOptions;
using bindery::test::HostBuffer;
using bindery::test::VkHarness;

constexpr uint32_t kSize = 256;
constexpr VkDeviceSize kBytes = VkDeviceSize{kSize} * kSize * 4;

struct Image {
  VkImage image = VK_NULL_HANDLE;
  VkDeviceMemory memory = VK_NULL_HANDLE;
};

bool MakeImage(VkHarness& h, uint32_t layers, Image* out) {
  VkImageCreateInfo ii{VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO};
  ii.imageType = VK_IMAGE_TYPE_2D;
  ii.format = VK_FORMAT_R8G8B8A8_UNORM;
  ii.extent = {kSize, kSize, 1};
  ii.mipLevels = 1;
  ii.arrayLayers = layers;
  ii.samples = VK_SAMPLE_COUNT_1_BIT;
  ii.tiling = VK_IMAGE_TILING_OPTIMAL;
  ii.usage = VK_IMAGE_USAGE_TRANSFER_SRC_BIT | VK_IMAGE_USAGE_TRANSFER_DST_BIT | VK_IMAGE_USAGE_SAMPLED_BIT;
  if (vkCreateImage(h.device(), &ii, nullptr, &out->image) != VK_SUCCESS) return false;
  VkMemoryRequirements req;
  vkGetImageMemoryRequirements(h.device(), out->image, &req);
  VkPhysicalDeviceMemoryProperties props;
  vkGetPhysicalDeviceMemoryProperties(h.physical_device(), &props);
  uint32_t type = 0;
  while (type < props.memoryTypeCount && (req.memoryTypeBits & (1u << type)) == 0) ++type;
  VkMemoryAllocateInfo mai{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
  mai.allocationSize = req.size;
  mai.memoryTypeIndex = type;
  return vkAllocateMemory(h.device(), &mai, nullptr, &out->memory) == VK_SUCCESS &&
         vkBindImageMemory(h.device(), out->image, out->memory, 0) == VK_SUCCESS;
}

void ToLayout(VkCommandBuffer cb, VkImage image, uint32_t layers, VkImageLayout from, VkImageLayout to) {
  VkImageMemoryBarrier b{VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER};
  b.srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT;
  b.dstAccessMask = VK_ACCESS_TRANSFER_READ_BIT | VK_ACCESS_TRANSFER_WRITE_BIT;
  b.oldLayout = from;
  b.newLayout = to;
  b.srcQueueFamilyIndex = b.dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
  b.image = image;
  b.subresourceRange = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, layers};
  vkCmdPipelineBarrier(cb, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT, 0, 0, nullptr, 0, nullptr,
                       1, &b);
}

uint64_t Fnv1a(const uint8_t* p, size_t n, uint64_t h = 0xcbf29ce484222325ull) {
  for (size_t i = 0; i < n; ++i) h = (h ^ p[i]) * 0x100000001b3ull;
  return h;
}

}  // namespace

int main() {
  HarnessOptions options;
  options.bindery = false;  // the program does not ask for Bindery; VK_INSTANCE_LAYERS may add it
  VkHarness h(options);
  if (!h.ok()) {
    std::printf("RESULT: FAIL (%s)\n", h.error().c_str());
    return 1;
  }
  Image texture, copy, cleared;
  HostBuffer upload = h.CreateHostBuffer(kBytes, VK_BUFFER_USAGE_TRANSFER_SRC_BIT);
  HostBuffer readback = h.CreateHostBuffer(kBytes * 4, VK_BUFFER_USAGE_TRANSFER_DST_BIT);
  if (!MakeImage(h, 1, &texture) || !MakeImage(h, 1, &copy) || !MakeImage(h, 2, &cleared) ||
      upload.buffer == VK_NULL_HANDLE || readback.buffer == VK_NULL_HANDLE) {
    std::printf("RESULT: FAIL (could not make the images and buffers)\n");
    return 1;
  }
  uint32_t state = 12345;
  for (VkDeviceSize i = 0; i < kBytes; ++i) {
    state = state * 1664525u + 1013904223u;
    static_cast<uint8_t*>(upload.mapped)[i] = static_cast<uint8_t>(state >> 24);
  }
  std::memset(readback.mapped, 0, kBytes * 4);

  constexpr VkImageLayout kDst = VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, kSrc = VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL;
  VkCommandBuffer cb = h.BeginCommands();
  ToLayout(cb, texture.image, 1, VK_IMAGE_LAYOUT_UNDEFINED, kDst);
  ToLayout(cb, copy.image, 1, VK_IMAGE_LAYOUT_UNDEFINED, kDst);
  ToLayout(cb, cleared.image, 2, VK_IMAGE_LAYOUT_UNDEFINED, kDst);
  // The upload, a grey background for the copy, and a clear of both layers, then of layer 1.
  const VkBufferImageCopy whole{0, 0, 0, {VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1}, {0, 0, 0}, {kSize, kSize, 1}};
  vkCmdCopyBufferToImage(cb, upload.buffer, texture.image, kDst, 1, &whole);
  VkClearColorValue grey{}, blue{};
  grey.float32[0] = grey.float32[1] = grey.float32[2] = 0.25f;
  grey.float32[3] = 1.0f;
  blue.float32[2] = 1.0f;
  blue.float32[3] = 0.75f;
  const VkImageSubresourceRange one{VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1};
  const VkImageSubresourceRange both{VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 2};
  const VkImageSubresourceRange second{VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 1, 1};
  vkCmdClearColorImage(cb, copy.image, kDst, &grey, 1, &one);
  vkCmdClearColorImage(cb, cleared.image, kDst, &grey, 1, &both);
  ToLayout(cb, texture.image, 1, kDst, kSrc);
  ToLayout(cb, copy.image, 1, kDst, kDst);
  ToLayout(cb, cleared.image, 2, kDst, kDst);
  vkCmdClearColorImage(cb, cleared.image, kDst, &blue, 1, &second);
  // A 200 x 120 part of the texture into the copy at (40, 100).
  const VkImageCopy part{{VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1}, {16, 8, 0}, {VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1},
                         {40, 100, 0}, {200, 120, 1}};
  vkCmdCopyImage(cb, texture.image, kSrc, copy.image, kDst, 1, &part);
  ToLayout(cb, copy.image, 1, kDst, kSrc);
  ToLayout(cb, cleared.image, 2, kDst, kSrc);
  VkBufferImageCopy back = whole;
  vkCmdCopyImageToBuffer(cb, texture.image, kSrc, readback.buffer, 1, &back);
  back.bufferOffset = kBytes;
  vkCmdCopyImageToBuffer(cb, copy.image, kSrc, readback.buffer, 1, &back);
  back.bufferOffset = 2 * kBytes;
  back.imageSubresource.layerCount = 2;
  vkCmdCopyImageToBuffer(cb, cleared.image, kSrc, readback.buffer, 1, &back);
  VkMemoryBarrier to_host{VK_STRUCTURE_TYPE_MEMORY_BARRIER, nullptr, VK_ACCESS_TRANSFER_WRITE_BIT,
                          VK_ACCESS_HOST_READ_BIT};
  vkCmdPipelineBarrier(cb, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_HOST_BIT, 0, 1, &to_host, 0, nullptr, 0,
                       nullptr);
  if (h.SubmitAndWait(cb) != VK_SUCCESS) {
    std::printf("RESULT: FAIL (submission)\n");
    return 1;
  }
  const auto* bytes = static_cast<const uint8_t*>(readback.mapped);
  // The program's own check of what it can know on the CPU: the texture came back as uploaded.
  const bool texture_ok = std::memcmp(bytes, upload.mapped, kBytes) == 0;
  std::printf("image copy and clear: 3 images (%u x %u R8G8B8A8, 4 layers in all) read back, %llu bytes\n", kSize,
              kSize, static_cast<unsigned long long>(kBytes * 4));
  std::printf("image bytes digest: %016llx\n", static_cast<unsigned long long>(Fnv1a(bytes, kBytes * 4)));
  vkDestroyImage(h.device(), texture.image, nullptr);
  vkDestroyImage(h.device(), copy.image, nullptr);
  vkDestroyImage(h.device(), cleared.image, nullptr);
  vkFreeMemory(h.device(), texture.memory, nullptr);
  vkFreeMemory(h.device(), copy.memory, nullptr);
  vkFreeMemory(h.device(), cleared.memory, nullptr);
  h.Destroy(upload);
  h.Destroy(readback);
  h.DestroyDevice();
  const bool silent = h.ValidationProblems().empty();
  if (!silent) std::printf("%s", VkHarness::Format(h.ValidationProblems()).c_str());
  std::printf("RESULT: %s\n", texture_ok && silent ? "PASS" : "FAIL");
  return texture_ok && silent ? 0 : 1;
}
