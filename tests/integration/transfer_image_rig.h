// Shared by the image transfer tests (transfer_image_*_test.cpp): images made as an
// application makes them, their bytes put in and read back by native commands the layer
// never runs as kernels (from and into buffers with exportable memory, which the layer never
// gives a device address), and one program run with the layer off and with it forced, so
// a test compares what the two runs read back, byte for byte.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "integration/transfer_model.h"

namespace bindery::test::transfer {

struct TestImage {
  VkImage image = VK_NULL_HANDLE;
  VkDeviceMemory memory = VK_NULL_HANDLE;
  VkImageCreateInfo info{};
  uint32_t texel_bytes = 0;
  // Bytes of every subresource, tightly packed, mip by mip (each mip: its layers or slices).
  uint64_t bytes = 0;
  uint64_t MipOffset(uint32_t mip) const;
  VkExtent3D MipExtent(uint32_t mip) const;
};

// Texel bytes of the colour formats the tests use (0 for others).
uint32_t TexelBytes(VkFormat format);

// Whether the device can make an optimal image of this format, type and usage at this size.
bool ImageSupported(VkHarness& h, const VkImageCreateInfo& info);

// What the tests make by default: TRANSFER_SRC | TRANSFER_DST | SAMPLED, optimal tiling.
VkImageCreateInfo ImageInfo(VkFormat format, VkImageType type, VkExtent3D extent, uint32_t mips, uint32_t layers,
                            VkImageUsageFlags usage = VK_IMAGE_USAGE_TRANSFER_SRC_BIT | VK_IMAGE_USAGE_TRANSFER_DST_BIT |
                                                      VK_IMAGE_USAGE_SAMPLED_BIT);

class ImageRun {
 public:
  explicit ImageRun(Rig& rig);
  ~ImageRun();
  VkHarness& h() { return rig_.h(); }

  // An image with memory bound (device-local where there is such memory); `pnext` goes in
  // its create info.
  TestImage Image(const VkImageCreateInfo& info);
  // A buffer of `size` bytes the layer can address (the kind the commands under test use).
  HostBuffer Buffer(uint64_t size);
  // Records: the whole image (all mips and layers) from `bytes`, one vkCmdCopyBufferToImage,
  // then a layout change to `layout` (TRANSFER -> TRANSFER dependency). Its staging buffer is
  // exportable, which the layer addresses as any other (external memory, issue 30): with
  // transfers forced, the copy runs as an image kernel wherever the image allows one
  // (ImageRunResult::staging counts the calls).
  void Upload(VkCommandBuffer cb, const TestImage& image, const std::vector<uint8_t>& bytes, VkImageLayout layout);
  // Records: a layout change from `layout` (TRANSFER -> TRANSFER), one vkCmdCopyImageToBuffer
  // of the whole image into a buffer (an image kernel as Upload's may be), a TRANSFER -> HOST barrier. ReadBack() returns the bytes after the
  // submission.
  void Download(VkCommandBuffer cb, const TestImage& image, VkImageLayout layout);
  // Keeps `buffer`'s bytes as the next download (read after the submission; the program
  // records the barrier that makes them visible to the host).
  void Keep(const HostBuffer& buffer);
  std::vector<uint8_t> ReadBack(uint32_t index) const;  // of the index-th Download or Keep
  // Runs `destroy` when the run ends (after the device is idle, before its images go).
  void OnDestroy(std::function<void()> destroy) { on_destroy_.push_back(std::move(destroy)); }
  uint32_t downloads() const { return static_cast<uint32_t>(downloads_.size()); }
  uint32_t staging_commands() const { return staging_commands_; }  // Upload and Download calls

 private:
  HostBuffer Exportable(uint64_t size);
  Rig& rig_;
  std::vector<TestImage> images_;
  std::vector<HostBuffer> buffers_;
  std::vector<std::pair<HostBuffer, uint64_t>> downloads_;
  uint32_t staging_commands_ = 0;
  std::vector<std::function<void()>> on_destroy_;
};

// A transfer -> transfer execution and memory dependency (between an upload and the command
// under test, and between it and the download).
void TransferBarrier(VkCommandBuffer cb);

// One program run under a configuration: the bytes of every Download, the summary, and
// what validation said.
struct ImageRunResult {
  std::string error;
  std::string validation;
  std::string summary;
  std::vector<std::vector<uint8_t>> downloads;
  // The program's ImageRun::Upload and Download calls: each is one image command, which
  // the layer may run as a kernel as well (tests add it to the `image kernels` they expect).
  uint64_t staging = 0;
  uint64_t Counter(const std::string& name) const { return SummaryCounter(summary, name); }
};

// Runs `program(run, cb)` in one command buffer under `config` (extra settings in `env`) and
// returns what it read back. A program returning false skips (the run's error says so).
ImageRunResult RunImageProgram(const Config& config, const std::function<bool(ImageRun&, VkCommandBuffer)>& program,
                               const RigOptions& options = {});

// Compares two runs' downloads byte for byte; `names[i]` names the i-th download.
::testing::AssertionResult SameDownloads(const ImageRunResult& native, const ImageRunResult& forced,
                                         const std::vector<std::string>& names);

}  // namespace bindery::test::transfer
