// bytes/* workloads of bindery_probe: which native transfer command can write a few single
// bytes cheaply on this driver. An unaligned fill or update needs its partial words written
// byte by byte, and with a barrier after every write nothing amortises that command's fixed
// cost, so each row is 1000 x (command + TRANSFER -> TRANSFER barrier) in GPU time, each
// write to its own 128-byte slot of a device-local buffer. The candidates:
//   - vkCmdCopyImageToBuffer from a 256 x 1 R8_UINT "byte palette" image (texel v holds v):
//     one 1-texel region per byte (a 1-byte texel may land at any buffer offset on queues
//     with graphics or compute);
//   - vkCmdCopyBuffer of a few bytes from device-local or host-visible memory (today's edge
//     path copies from host-visible staging);
//   - the aligned 4-byte fill and update as the reference;
//   - a bare one-workgroup dispatch (the floor of any kernel path, before its barriers
//     and state restore);
//   - the whole sequence a palette path would record for a 63-byte write at +1 (three
//     palette texels, then the native 60-byte middle).
// Every row runs the same native commands in every configuration (none is a layer polyfill).
#include <cstring>

#include "probe_workloads.h"
#include "stream_op_spv.h"

namespace bindery::bench {
namespace {

constexpr uint32_t kWrites = 1000;
constexpr VkDeviceSize kSlot = 128;
constexpr int kSamples = 9;
constexpr uint32_t kPaletteWidth = 256;

// A device-local image with its memory; empty on failure.
struct ProbeImage {
  VkImage image = VK_NULL_HANDLE;
  VkDeviceMemory memory = VK_NULL_HANDLE;
};

uint32_t DeviceLocalType(VkPhysicalDevice pd, uint32_t type_bits) {
  VkPhysicalDeviceMemoryProperties props;
  vkGetPhysicalDeviceMemoryProperties(pd, &props);
  uint32_t any = UINT32_MAX;
  for (uint32_t i = 0; i < props.memoryTypeCount; ++i) {
    if ((type_bits & (1u << i)) == 0) continue;
    const VkMemoryPropertyFlags f = props.memoryTypes[i].propertyFlags;
    if ((f & (VK_MEMORY_PROPERTY_PROTECTED_BIT | VK_MEMORY_PROPERTY_LAZILY_ALLOCATED_BIT)) != 0) continue;
    if ((f & VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT) != 0) return i;
    if (any == UINT32_MAX) any = i;
  }
  return any;
}

ProbeImage CreatePaletteImage(const ProbeDevice& d) {
  ProbeImage out;
  VkImageCreateInfo ici{VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO};
  ici.imageType = VK_IMAGE_TYPE_2D;
  ici.format = VK_FORMAT_R8_UINT;
  ici.extent = {kPaletteWidth, 1, 1};
  ici.mipLevels = 1;
  ici.arrayLayers = 1;
  ici.samples = VK_SAMPLE_COUNT_1_BIT;
  ici.tiling = VK_IMAGE_TILING_OPTIMAL;
  ici.usage = VK_IMAGE_USAGE_TRANSFER_SRC_BIT | VK_IMAGE_USAGE_TRANSFER_DST_BIT;
  ici.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
  ici.initialLayout = VK_IMAGE_LAYOUT_UNDEFINED;
  if (vkCreateImage(d.device(), &ici, nullptr, &out.image) != VK_SUCCESS) return {};
  VkMemoryRequirements req;
  vkGetImageMemoryRequirements(d.device(), out.image, &req);
  VkMemoryAllocateInfo mai{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
  mai.allocationSize = req.size;
  mai.memoryTypeIndex = DeviceLocalType(d.physical_device(), req.memoryTypeBits);
  if (mai.memoryTypeIndex == UINT32_MAX || vkAllocateMemory(d.device(), &mai, nullptr, &out.memory) != VK_SUCCESS ||
      vkBindImageMemory(d.device(), out.image, out.memory, 0) != VK_SUCCESS) {
    if (out.memory != VK_NULL_HANDLE) vkFreeMemory(d.device(), out.memory, nullptr);
    vkDestroyImage(d.device(), out.image, nullptr);
    return {};
  }
  return out;
}

void DestroyImage(const ProbeDevice& d, ProbeImage& image) {
  if (image.image != VK_NULL_HANDLE) vkDestroyImage(d.device(), image.image, nullptr);
  if (image.memory != VK_NULL_HANDLE) vkFreeMemory(d.device(), image.memory, nullptr);
  image = {};
}

VkImageMemoryBarrier LayoutBarrier(VkImage image, VkImageLayout from, VkImageLayout to, VkAccessFlags src,
                                   VkAccessFlags dst) {
  VkImageMemoryBarrier b{VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER};
  b.srcAccessMask = src;
  b.dstAccessMask = dst;
  b.oldLayout = from;
  b.newLayout = to;
  b.srcQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
  b.dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
  b.image = image;
  b.subresourceRange = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1};
  return b;
}

// Uploads texel v = v and leaves the image in `layout`. False on failure.
bool FillPalette(ProbeDevice& d, VkImage image, VkImageLayout layout, PFN_vkCmdCopyBufferToImage copy) {
  test::HostBuffer upload = d.CreateHostBuffer(kPaletteWidth, VK_BUFFER_USAGE_TRANSFER_SRC_BIT);
  if (upload.buffer == VK_NULL_HANDLE) return false;
  auto* bytes = static_cast<uint8_t*>(upload.mapped);
  for (uint32_t v = 0; v < kPaletteWidth; ++v) bytes[v] = static_cast<uint8_t>(v);
  const ProbeFns& fn = d.fn();
  const bool ok = d.Record([&](VkCommandBuffer cb) {
    VkImageMemoryBarrier to_dst = LayoutBarrier(image, VK_IMAGE_LAYOUT_UNDEFINED, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL,
                                                0, VK_ACCESS_TRANSFER_WRITE_BIT);
    fn.CmdPipelineBarrier(cb, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT, 0, 0, nullptr, 0,
                          nullptr, 1, &to_dst);
    VkBufferImageCopy region{};
    region.imageSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1};
    region.imageExtent = {kPaletteWidth, 1, 1};
    copy(cb, upload.buffer, image, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, 1, &region);
    VkImageMemoryBarrier to_src = LayoutBarrier(image, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, layout,
                                                VK_ACCESS_TRANSFER_WRITE_BIT, VK_ACCESS_TRANSFER_READ_BIT);
    fn.CmdPipelineBarrier(cb, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT, 0, 0, nullptr, 0,
                          nullptr, 1, &to_src);
    return true;
  }) && d.SubmitAndWait();
  d.Destroy(upload);
  return ok;
}

// One region per byte: texel `values[k]` to byte `offset + k`.
uint32_t PaletteRegions(VkDeviceSize offset, const uint8_t* values, uint32_t count, VkBufferImageCopy* regions) {
  for (uint32_t k = 0; k < count; ++k) {
    regions[k] = {};
    regions[k].bufferOffset = offset + k;
    regions[k].imageSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1};
    regions[k].imageOffset = {static_cast<int32_t>(values[k]), 0, 0};
    regions[k].imageExtent = {1, 1, 1};
  }
  return count;
}

}  // namespace

std::vector<ProbeResult> RunByteWriteProbes(ProbeDevice& d) {
  std::vector<ProbeResult> out;
  const ProbeFns& fn = d.fn();
  PFN_vkCmdCopyImageToBuffer copy_image_to_buffer = nullptr;
  PFN_vkCmdCopyBufferToImage copy_buffer_to_image = nullptr;
  if (!LoadDeviceFn(d.device(), "vkCmdCopyImageToBuffer", &copy_image_to_buffer) ||
      !LoadDeviceFn(d.device(), "vkCmdCopyBufferToImage", &copy_buffer_to_image)) {
    return out;
  }
  DeviceBuffer dst = d.CreateBuffer(kWrites * kSlot + 256);
  DeviceBuffer local_src = d.CreateBuffer(256);
  test::HostBuffer host_src = d.CreateHostBuffer(256, VK_BUFFER_USAGE_TRANSFER_SRC_BIT);
  ProbeImage palette = CreatePaletteImage(d);
  ProbeImage palette_general = CreatePaletteImage(d);
  const bool ready = dst.buffer != VK_NULL_HANDLE && local_src.buffer != VK_NULL_HANDLE &&
                     host_src.buffer != VK_NULL_HANDLE && palette.image != VK_NULL_HANDLE &&
                     palette_general.image != VK_NULL_HANDLE &&
                     FillPalette(d, palette.image, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, copy_buffer_to_image) &&
                     FillPalette(d, palette_general.image, VK_IMAGE_LAYOUT_GENERAL, copy_buffer_to_image);
  if (ready) {
    std::memset(host_src.mapped, 0x5a, 256);
    auto add = [&](const char* row, double value) {
      if (value >= 0) out.push_back({row, "ns/cmd", value / kWrites});
    };
    // `write(cb, slot_offset)` once per slot, each followed by a barrier unless `barriers` is false.
    auto ordered = [&](auto write, bool barriers = true) {
      return [&fn, write, barriers](VkCommandBuffer cb) {
        VkMemoryBarrier barrier{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
        barrier.srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT;
        barrier.dstAccessMask = VK_ACCESS_TRANSFER_READ_BIT | VK_ACCESS_TRANSFER_WRITE_BIT;
        for (uint32_t i = 0; i < kWrites; ++i) {
          write(cb, i * kSlot);
          if (barriers) {
            fn.CmdPipelineBarrier(cb, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT, 0, 1, &barrier, 0,
                                  nullptr, 0, nullptr);
          }
        }
        return true;
      };
    };
    auto measure = [&](const char* row, auto write, bool barriers = true) {
      add(row, MedianGpuNs(d, ordered(write, barriers), 1, kSamples));
    };
    const uint32_t word = 0x01020304u;
    const uint8_t edge[3] = {0x02, 0x03, 0x04};  // bytes 1..3 of the pattern 0x01020304 (little-endian: 04 03 02 01)
    const VkBuffer out_buffer = dst.buffer;
    auto palette_copy = [&, out_buffer](VkImage image, VkImageLayout layout, VkDeviceSize at, uint32_t count) {
      return [=](VkCommandBuffer cb, VkDeviceSize slot) {
        VkBufferImageCopy regions[4];
        const uint32_t n = PaletteRegions(slot + at, edge, count, regions);
        copy_image_to_buffer(cb, image, layout, out_buffer, n, regions);
      };
    };
    auto buffer_copy = [&, out_buffer](VkBuffer src, VkDeviceSize at, VkDeviceSize size, uint32_t regions_of_1) {
      return [=, &fn](VkCommandBuffer cb, VkDeviceSize slot) {
        VkBufferCopy regions[4];
        if (regions_of_1 == 0) {
          regions[0] = {0, slot + at, size};
          fn.CmdCopyBuffer(cb, src, out_buffer, 1, regions);
          return;
        }
        for (uint32_t k = 0; k < regions_of_1; ++k) regions[k] = {k * 7, slot + at + k, 1};
        fn.CmdCopyBuffer(cb, src, out_buffer, regions_of_1, regions);
      };
    };
    const VkImageLayout src_optimal = VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL;
    measure("bytes/update 4 B aligned + barrier x1000 (GPU)", [&, out_buffer](VkCommandBuffer cb, VkDeviceSize slot) {
      fn.CmdUpdateBuffer(cb, out_buffer, slot, 4, &word);
    });
    measure("bytes/fill 4 B aligned + barrier x1000 (GPU)", [&, out_buffer](VkCommandBuffer cb, VkDeviceSize slot) {
      fn.CmdFillBuffer(cb, out_buffer, slot, 4, word);
    });
    measure("bytes/fill 64 B aligned + barrier x1000 (GPU)", [&, out_buffer](VkCommandBuffer cb, VkDeviceSize slot) {
      fn.CmdFillBuffer(cb, out_buffer, slot, 64, word);
    });
    measure("bytes/palette image->buffer 1 texel at +1 + barrier x1000 (GPU)",
            palette_copy(palette.image, src_optimal, 1, 1));
    measure("bytes/palette image->buffer 3 texels (3 regions) at +1 + barrier x1000 (GPU)",
            palette_copy(palette.image, src_optimal, 1, 3));
    measure("bytes/palette image->buffer 1 texel at +0 + barrier x1000 (GPU)",
            palette_copy(palette.image, src_optimal, 0, 1));
    measure("bytes/palette (GENERAL layout) 3 texels at +1 + barrier x1000 (GPU)",
            palette_copy(palette_general.image, VK_IMAGE_LAYOUT_GENERAL, 1, 3));
    measure("bytes/palette image->buffer 3 texels at +1 x1000, no barriers (GPU)",
            palette_copy(palette.image, src_optimal, 1, 3), false);
    measure("bytes/copy buffer 3 B at +1 from device-local + barrier x1000 (GPU)",
            buffer_copy(local_src.buffer, 1, 3, 0));
    measure("bytes/copy buffer 3 regions of 1 B from device-local + barrier x1000 (GPU)",
            buffer_copy(local_src.buffer, 1, 1, 3));
    measure("bytes/copy buffer 4 B aligned from device-local + barrier x1000 (GPU)",
            buffer_copy(local_src.buffer, 0, 4, 0));
    measure("bytes/copy buffer 3 B at +1 from host-visible + barrier x1000 (GPU)",
            buffer_copy(host_src.buffer, 1, 3, 0));
    measure("bytes/copy buffer 3 B at +1 from device-local x1000, no barriers (GPU)",
            buffer_copy(local_src.buffer, 1, 3, 0), false);
    // The palette path's whole sequence for a 63-byte write at +1: its 3 edge bytes, then
    // the native middle (60 bytes at +4), then the application's barrier.
    auto edge_copy = palette_copy(palette.image, src_optimal, 1, 3);
    measure("bytes/palette 3 texels + fill 60 B at +4 + barrier x1000 (GPU)",
            [&, edge_copy, out_buffer](VkCommandBuffer cb, VkDeviceSize slot) {
              edge_copy(cb, slot);
              fn.CmdFillBuffer(cb, out_buffer, slot + 4, 60, word);
            });
    uint8_t payload[60];
    for (uint32_t i = 0; i < sizeof(payload); ++i) payload[i] = static_cast<uint8_t>(i * 5 + 3);
    measure("bytes/palette 3 texels + update 60 B at +4 + barrier x1000 (GPU)",
            [&, edge_copy, out_buffer](VkCommandBuffer cb, VkDeviceSize slot) {
              edge_copy(cb, slot);
              fn.CmdUpdateBuffer(cb, out_buffer, slot + 4, sizeof(payload), payload);
            });
  }
  if (ready) {
    // The floor of a kernel per write: one workgroup, pipeline and set bound once, a
    // COMPUTE -> COMPUTE barrier after each dispatch.
    ProbeKernel op = d.CreateKernel(stream_op_spv, sizeof(stream_op_spv), 4, 2 * sizeof(uint32_t), 1);
    const VkDescriptorSet set = op.kernel.pipeline != VK_NULL_HANDLE ? AllocateProbeSet(d, op) : VK_NULL_HANDLE;
    if (set != VK_NULL_HANDLE) {
      const DeviceBuffer buffers[4] = {local_src, local_src, local_src, dst};
      WriteStorageSet(d, set, buffers, 4, 0, 256);
      const double ns = MedianGpuNs(d, [&](VkCommandBuffer cb) {
        const uint32_t args[2] = {1, 0x3f800000u};  // n = 1, scale = 1.0f
        fn.CmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_COMPUTE, op.kernel.pipeline);
        fn.CmdBindDescriptorSets(cb, VK_PIPELINE_BIND_POINT_COMPUTE, op.kernel.layout, 0, 1, &set, 0, nullptr);
        fn.CmdPushConstants(cb, op.kernel.layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof(args), args);
        VkMemoryBarrier barrier{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
        barrier.srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT;
        barrier.dstAccessMask = VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT;
        for (uint32_t i = 0; i < kWrites; ++i) {
          fn.CmdDispatch(cb, 1, 1, 1);
          fn.CmdPipelineBarrier(cb, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, 0, 1,
                                &barrier, 0, nullptr, 0, nullptr);
        }
        return true;
      }, 1, kSamples);
      if (ns >= 0) out.push_back({"bytes/dispatch 1 workgroup + barrier x1000 (GPU)", "ns/cmd", ns / kWrites});
    }
    d.Destroy(op);
  }
  DestroyImage(d, palette);
  DestroyImage(d, palette_general);
  if (host_src.buffer != VK_NULL_HANDLE) d.Destroy(host_src);
  d.Destroy(local_src);
  d.Destroy(dst);
  return out;
}

}  // namespace bindery::bench
