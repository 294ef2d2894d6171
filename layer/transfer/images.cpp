#include "transfer/images.h"

#include <algorithm>

#include "chassis/state.h"
#include "transfer/transfer_device.h"

namespace bindery::transfer {
namespace {

// Flags an image may carry and still be extended: anything else (sparse, protected,
// aliased, disjoint planes, subsampled, ...) keeps the image as the application made it.
constexpr VkImageCreateFlags kExtendableFlags = VK_IMAGE_CREATE_MUTABLE_FORMAT_BIT |
                                                VK_IMAGE_CREATE_CUBE_COMPATIBLE_BIT |
                                                VK_IMAGE_CREATE_2D_ARRAY_COMPATIBLE_BIT |
                                                VK_IMAGE_CREATE_EXTENDED_USAGE_BIT |
                                                VK_IMAGE_CREATE_BLOCK_TEXEL_VIEW_COMPATIBLE_BIT;

// Usage bits an extended image may have: transfers, sampling, storage, attachments. Others
// (video, shading-rate, fragment-density, attachment feedback...) keep it unextended.
constexpr VkImageUsageFlags kExtendableUsage =
    VK_IMAGE_USAGE_TRANSFER_SRC_BIT | VK_IMAGE_USAGE_TRANSFER_DST_BIT | VK_IMAGE_USAGE_SAMPLED_BIT |
    VK_IMAGE_USAGE_STORAGE_BIT | VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT | VK_IMAGE_USAGE_INPUT_ATTACHMENT_BIT;

uint64_t ImageBytes(const VkImageCreateInfo& info, uint32_t texel_bytes) {
  return uint64_t{info.extent.width} * info.extent.height * info.extent.depth * info.arrayLayers * texel_bytes;
}

const VkImageFormatListCreateInfo* FormatList(const void* chain) {
  for (auto* s = static_cast<const VkBaseInStructure*>(chain); s != nullptr; s = s->pNext) {
    if (s->sType == VK_STRUCTURE_TYPE_IMAGE_FORMAT_LIST_CREATE_INFO) {
      return reinterpret_cast<const VkImageFormatListCreateInfo*>(s);
    }
  }
  return nullptr;
}

// Whether every struct of the chain is one the extension knows what to do with: only a
// format list. External memory, swapchain images, DRM modifiers, compression control,
// video profiles... keep the image as the application made it.
bool OnlyFormatList(const void* chain) {
  for (auto* s = static_cast<const VkBaseInStructure*>(chain); s != nullptr; s = s->pNext) {
    if (s->sType != VK_STRUCTURE_TYPE_IMAGE_FORMAT_LIST_CREATE_INFO) return false;
  }
  return true;
}

bool Listed(const VkImageFormatListCreateInfo* list, VkFormat format) {
  if (list == nullptr || list->viewFormatCount == 0) return true;  // no list: any compatible format
  for (uint32_t i = 0; i < list->viewFormatCount; ++i) {
    if (list->pViewFormats[i] == format) return true;
  }
  return false;
}

// vkGetPhysicalDeviceImageFormatProperties2 (core or KHR) for the parameters, remembered.
bool Supported(DeviceTransfers& t, const VkImageCreateInfo& info, const VkImageFormatListCreateInfo* list,
               VkFormat listed, VkImageFormatProperties& properties) {
  ImageTracker& tracker = t.images;
  {
    std::lock_guard<std::mutex> lock(tracker.queries_mutex);
    for (const ImageTracker::FormatQuery& q : tracker.queries) {
      if (q.format == info.format && q.type == info.imageType && q.usage == info.usage && q.flags == info.flags &&
          q.listed == listed) {
        properties = q.properties;
        return q.supported;
      }
    }
  }
  const InstanceState& instance = *t.device.instance;
  PFN_vkGetPhysicalDeviceImageFormatProperties2 query =
      instance.api_version >= VK_API_VERSION_1_1 ? instance.dispatch.GetPhysicalDeviceImageFormatProperties2
                                                 : instance.dispatch.GetPhysicalDeviceImageFormatProperties2KHR;
  bool supported = false;
  properties = {};
  if (query != nullptr) {
    VkPhysicalDeviceImageFormatInfo2 asked{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_IMAGE_FORMAT_INFO_2};
    asked.pNext = list;
    asked.format = info.format;
    asked.type = info.imageType;
    asked.tiling = info.tiling;
    asked.usage = info.usage;
    asked.flags = info.flags;
    VkImageFormatProperties2 answer{VK_STRUCTURE_TYPE_IMAGE_FORMAT_PROPERTIES_2};
    supported = query(t.device.physical_device, &asked, &answer) == VK_SUCCESS;
    properties = answer.imageFormatProperties;
  }
  std::lock_guard<std::mutex> lock(tracker.queries_mutex);
  tracker.queries.push_back({info.format, info.imageType, info.usage, info.flags, listed, supported, properties});
  return supported;
}

bool Fits(const VkImageCreateInfo& info, const VkImageFormatProperties& p) {
  return info.extent.width <= p.maxExtent.width && info.extent.height <= p.maxExtent.height &&
         info.extent.depth <= p.maxExtent.depth && info.mipLevels <= p.maxMipLevels &&
         info.arrayLayers <= p.maxArrayLayers && (p.sampleCounts & info.samples) != 0;
}

// A multisampled image is read only by the resolve kernel, through a sampled view of its
// own format (no raw view, no storage: a storage view of a multisampled image would need
// shaderStorageImageMultisample). So a resolve source gets SAMPLED usage and nothing else,
// only where a resolve of its class may run as a kernel, the usage is measured not to slow
// rendering into it on this driver (Policy::multisampled_sampled_measured), its format
// samples, and the driver supports the image with it at its sample count.
void ExtendMultisampled(DeviceTransfers& t, const VkImageCreateInfo& app, ImageExtension& out) {
  if ((app.usage & VK_IMAGE_USAGE_TRANSFER_SRC_BIT) == 0 || (app.usage & VK_IMAGE_USAGE_SAMPLED_BIT) != 0) return;
  if (!t.policy.ResolveProven(EncodingOf(app.format), app.samples)) return;  // no kernel would read it
  if (!t.policy.ExtendsMultisampled(EncodingOf(app.format), app.samples)) {
    out.why_not = "multisampled: the SAMPLED usage's cost to rendering is not measured on this driver";
    return;
  }
  if ((t.OptimalFeatures(app.format) & VK_FORMAT_FEATURE_SAMPLED_IMAGE_BIT) == 0) {
    out.why_not = "multisampled format without sampling";
    return;
  }
  out.info.usage |= VK_IMAGE_USAGE_SAMPLED_BIT;
  VkImageFormatProperties properties{};
  if (!Supported(t, out.info, FormatList(app.pNext), VK_FORMAT_UNDEFINED, properties) || !Fits(out.info, properties)) {
    out.info = app;
    out.why_not = "the driver does not support sampling this multisampled image";
    return;
  }
  out.changed = true;
}

}  // namespace

void ExtendImage(DeviceTransfers& t, const VkImageCreateInfo& app, ImageExtension& out) {
  out.changed = false;
  out.info = app;
  out.why_not = nullptr;
  if (!t.ImageKernelsPossible()) return;
  const FormatInfo format = DescribeFormat(app.format);
  const VkFormat raw = RawFormatOf(app.format);
  if ((app.usage & (VK_IMAGE_USAGE_TRANSFER_SRC_BIT | VK_IMAGE_USAGE_TRANSFER_DST_BIT)) == 0) return;
  if (raw == VK_FORMAT_UNDEFINED) return;  // no kernel ever reaches it: nothing to say
  if (ImageBytes(app, format.texel_bytes) < t.policy.image_extend_min) return;
  if (app.tiling != VK_IMAGE_TILING_OPTIMAL) {
    out.why_not = "linear or DRM-modifier tiling";
  } else if (app.samples != VK_SAMPLE_COUNT_1_BIT && !t.policy.UsesResolveKernels()) {
    out.why_not = "multisampled";
  } else if ((app.flags & ~kExtendableFlags) != 0) {
    out.why_not = "sparse, protected, aliased or otherwise flagged image";
  } else if ((app.usage & ~kExtendableUsage) != 0) {
    out.why_not = "usage the layer does not extend (video, shading rate, ...)";
  } else if (!OnlyFormatList(app.pNext)) {
    out.why_not = "external, swapchain, DRM-modifier or other extended image create info";
  }
  if (out.why_not != nullptr) return;
  if (app.samples != VK_SAMPLE_COUNT_1_BIT) return ExtendMultisampled(t, app, out);
  const int size_class = static_cast<int>(format.texel_bytes);
  const bool can_read = t.raw_sampled(size_class), can_write = t.raw_storage(size_class);
  VkImageUsageFlags usage = app.usage;
  if ((app.usage & VK_IMAGE_USAGE_TRANSFER_SRC_BIT) != 0 && can_read) usage |= VK_IMAGE_USAGE_SAMPLED_BIT;
  if ((app.usage & VK_IMAGE_USAGE_TRANSFER_DST_BIT) != 0 && can_write) usage |= VK_IMAGE_USAGE_STORAGE_BIT;
  VkImageCreateFlags flags = app.flags;
  if (app.format != raw) flags |= VK_IMAGE_CREATE_MUTABLE_FORMAT_BIT;
  // A compressed image is reached through views of its blocks' size (one block per texel),
  // which only block-texel view compatibility allows; its format has no storage (and the
  // views take only the usage the kernels need).
  if (format.kind == FormatKind::kCompressed) {
    flags |= VK_IMAGE_CREATE_BLOCK_TEXEL_VIEW_COMPATIBLE_BIT | VK_IMAGE_CREATE_EXTENDED_USAGE_BIT;
  }
  const VkImageFormatListCreateInfo* list = FormatList(app.pNext);
  const bool list_needs_raw = list != nullptr && list->viewFormatCount != 0 && !Listed(list, raw) && app.format != raw;
  if (usage == app.usage && flags == app.flags && !list_needs_raw) return;  // already reachable (or never)

  out.info.usage = usage;
  out.info.flags = flags;
  if (list_needs_raw) {
    // The raw format joins a copy of the application's list (a view format outside the
    // list is invalid); the chain holds nothing else (OnlyFormatList).
    out.formats.assign(list->pViewFormats, list->pViewFormats + list->viewFormatCount);
    out.formats.push_back(raw);
    out.list = *list;
    out.list.pNext = nullptr;
    out.list.viewFormatCount = static_cast<uint32_t>(out.formats.size());
    out.list.pViewFormats = out.formats.data();
    out.info.pNext = &out.list;
  }
  const VkImageFormatListCreateInfo* asked_list = list_needs_raw ? &out.list : list;
  const VkFormat listed = list_needs_raw ? raw : VK_FORMAT_UNDEFINED;
  VkImageFormatProperties properties{};
  bool ok = Supported(t, out.info, asked_list, listed, properties) && Fits(out.info, properties);
  if (!ok && (flags & VK_IMAGE_CREATE_MUTABLE_FORMAT_BIT) != 0) {
    // The format itself lacks the usage (an sRGB format has no storage): the usage then
    // needs only be supported by some format a view may take (the raw one).
    out.info.flags |= VK_IMAGE_CREATE_EXTENDED_USAGE_BIT;
    ok = Supported(t, out.info, asked_list, listed, properties) && Fits(out.info, properties);
  }
  if (!ok) {
    out.info = app;
    out.why_not = "the driver does not support the usage and flags kernels need for this format and size";
    return;
  }
  out.changed = true;
}

void ImageTracker::Add(VkImage image, const VkImageCreateInfo& created, bool extended, const char* why_not) {
  auto info = std::make_unique<ImageInfo>();
  info->format = created.format;
  info->described = DescribeFormat(created.format);
  info->type = created.imageType;
  info->extent = created.extent;
  info->mip_levels = created.mipLevels;
  info->array_layers = created.arrayLayers;
  info->samples = created.samples;
  info->flags = created.flags;
  info->usage = created.usage;
  info->extended = extended;
  info->why_not = why_not;
  const VkFormat raw = RawFormatOf(created.format);
  const bool blocks_ok = info->described.kind != FormatKind::kCompressed ||
                         (created.flags & VK_IMAGE_CREATE_BLOCK_TEXEL_VIEW_COMPATIBLE_BIT) != 0;
  const bool viewable =
      raw != VK_FORMAT_UNDEFINED && created.samples == VK_SAMPLE_COUNT_1_BIT && blocks_ok &&
      (created.flags & (VK_IMAGE_CREATE_SPARSE_BINDING_BIT | VK_IMAGE_CREATE_PROTECTED_BIT)) == 0 &&
      (created.format == raw ||
       ((created.flags & VK_IMAGE_CREATE_MUTABLE_FORMAT_BIT) != 0 && Listed(FormatList(created.pNext), raw)));
  if (viewable) {
    info->raw_format = raw;
    info->kernel_reads = (created.usage & VK_IMAGE_USAGE_SAMPLED_BIT) != 0;
    info->kernel_writes = (created.usage & VK_IMAGE_USAGE_STORAGE_BIT) != 0;
  }
  info->resolve_reads = created.samples != VK_SAMPLE_COUNT_1_BIT && created.imageType == VK_IMAGE_TYPE_2D &&
                        (created.usage & VK_IMAGE_USAGE_SAMPLED_BIT) != 0 &&
                        (created.flags & (VK_IMAGE_CREATE_SPARSE_BINDING_BIT | VK_IMAGE_CREATE_PROTECTED_BIT)) == 0;
  images.Insert(image, std::move(info));
}

void ImageTracker::Remove(DeviceTransfers& t, VkImage image) {
  std::unique_ptr<ImageInfo> info = images.Erase(image);
  if (info == nullptr) return;
  for (auto& [key, view] : info->views) t.next.DestroyImageView(t.device.handle, view, nullptr);
}

void ImageTracker::Clear(DeviceTransfers& t) {
  images.ForEach([&](VkImage, ImageInfo& info) {
    for (auto& [key, view] : info.views) t.next.DestroyImageView(t.device.handle, view, nullptr);
    info.views.clear();
  });
}

VkImageView ImageTracker::View(DeviceTransfers& t, VkImage image, ImageInfo& info, const ImageViewKey& key) {
  std::lock_guard<std::mutex> lock(info.views_mutex);
  for (const auto& [k, view] : info.views) {
    if (k == key) return view;
  }
  if (info.views.size() >= kMaxViewsPerImage) return VK_NULL_HANDLE;
  // Only the usage the kernel needs: the raw format then needs only that feature, whatever
  // else the image is used for.
  VkImageViewUsageCreateInfo usage{VK_STRUCTURE_TYPE_IMAGE_VIEW_USAGE_CREATE_INFO};
  usage.usage = key.usage;
  VkImageViewCreateInfo create{VK_STRUCTURE_TYPE_IMAGE_VIEW_CREATE_INFO};
  create.pNext = &usage;
  create.image = image;
  create.viewType = info.type == VK_IMAGE_TYPE_1D   ? VK_IMAGE_VIEW_TYPE_1D_ARRAY
                    : info.type == VK_IMAGE_TYPE_3D ? VK_IMAGE_VIEW_TYPE_3D
                                                    : VK_IMAGE_VIEW_TYPE_2D_ARRAY;
  create.format = key.own_format ? info.format : info.raw_format;
  create.subresourceRange = {VK_IMAGE_ASPECT_COLOR_BIT, key.mip, 1, key.base_layer, key.layer_count};
  VkImageView view = VK_NULL_HANDLE;
  if (t.next.CreateImageView(t.device.handle, &create, nullptr, &view) != VK_SUCCESS) return VK_NULL_HANDLE;
  info.views.emplace_back(key, view);
  return view;
}

}  // namespace bindery::transfer
