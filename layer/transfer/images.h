// Images as the image transfer kernels see them (docs/transfers.md, "Images"): what each was
// created with, whether a kernel can read it (a sampled raw view) or write it (a storage raw
// view), and the views made so far.
//
// Kernels reach an image's bits through views of a raw unsigned-integer format of the same
// texel size (R8/R16/R32/R32G32/R32G32B32A32_UINT). Such a view needs the image created with
// MUTABLE_FORMAT (unless its format is the raw one), SAMPLED usage to be read and STORAGE
// usage to be written. At vkCreateImage the layer adds what is missing — only to images it
// may extend (ExtendImage below says which) and only where the policy could ever run an
// image kernel on them; everything else keeps the application's create info untouched.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

#include <vulkan/vulkan.h>

#include "core/handle_map.h"
#include "transfer/image_formats.h"

namespace bindery::transfer {

class DeviceTransfers;

// A view the kernels use: which usage (SAMPLED to read, STORAGE to write), which mip level
// and which layers (exactly those of the region, so every subresource the view holds is in
// the layout the layer put it in), and whether it has the raw format (copies, clears) or
// the image's own (blits: the sampler decodes, the store encodes).
struct ImageViewKey {
  VkImageUsageFlags usage;
  uint32_t mip;
  uint32_t base_layer;
  uint32_t layer_count;
  bool own_format = false;
  bool operator==(const ImageViewKey& o) const {
    return usage == o.usage && mip == o.mip && base_layer == o.base_layer && layer_count == o.layer_count &&
           own_format == o.own_format;
  }
};

struct ImageInfo {
  VkFormat format = VK_FORMAT_UNDEFINED;
  VkFormat raw_format = VK_FORMAT_UNDEFINED;  // UNDEFINED: no raw view (native paths only)
  FormatInfo described;
  VkImageType type = VK_IMAGE_TYPE_2D;
  VkExtent3D extent{};
  uint32_t mip_levels = 1;
  uint32_t array_layers = 1;
  VkSampleCountFlagBits samples = VK_SAMPLE_COUNT_1_BIT;
  VkImageCreateFlags flags = 0;  // as created (with the layer's)
  VkImageUsageFlags usage = 0;   // as created (with the layer's)
  bool kernel_reads = false;   // a sampled raw view can be made
  bool kernel_writes = false;  // a storage raw view can be made
  bool resolve_reads = false;  // multisampled, with a sampled view of its own format (resolves)
  bool extended = false;       // the layer added flags or usage
  const char* why_not = nullptr;  // why kernels cannot reach it (a literal), when they cannot

  std::mutex views_mutex;
  std::vector<std::pair<ImageViewKey, VkImageView>> views;
};

// What the layer changes in one VkImageCreateInfo (ExtendImage), and the storage the
// changed create info points into.
struct ImageExtension {
  bool changed = false;
  VkImageCreateInfo info{};
  VkImageFormatListCreateInfo list{};
  std::vector<VkFormat> formats;
  const char* why_not = nullptr;  // why it was left alone (when it was and kernels need it)
};

// Decides what to add to an image's create info so kernels can reach it, and checks the
// result with vkGetPhysicalDeviceImageFormatProperties2. `out.info` is the create info to
// send down (the application's when nothing changes). Also used for
// vkGetDeviceImageMemoryRequirements, so the requirements an application asks for without an
// image are those of the image the layer would create.
void ExtendImage(DeviceTransfers& t, const VkImageCreateInfo& app, ImageExtension& out);

// The tracked images of a device.
class ImageTracker {
 public:
  ShardedHandleMap<VkImage, ImageInfo> images;

  // Records an image created with `created` (the create info sent down).
  void Add(VkImage image, const VkImageCreateInfo& created, bool extended, const char* why_not);
  // Destroys the image's views and forgets it.
  void Remove(DeviceTransfers& t, VkImage image);
  // The view for `key`, made on first use; VK_NULL_HANDLE if it cannot be made (the caller
  // goes native). At most kMaxViewsPerImage per image.
  VkImageView View(DeviceTransfers& t, VkImage image, ImageInfo& info, const ImageViewKey& key);
  // Destroys every view (device destruction).
  void Clear(DeviceTransfers& t);

  static constexpr std::size_t kMaxViewsPerImage = 256;

  // vkGetPhysicalDeviceImageFormatProperties2 answers, by the parameters asked (cold path).
  struct FormatQuery {
    VkFormat format;
    VkImageType type;
    VkImageUsageFlags usage;
    VkImageCreateFlags flags;
    VkFormat listed;  // the raw format added to a format list (UNDEFINED: no list)
    bool supported;
    VkImageFormatProperties properties;
  };
  std::mutex queries_mutex;
  std::vector<FormatQuery> queries;
};

}  // namespace bindery::transfer
