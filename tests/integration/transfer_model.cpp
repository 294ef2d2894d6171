#include "integration/transfer_model.h"

#include "integration/spy_access.h"
#include "support/vk_objects.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <random>
#include <regex>
#include <sstream>

namespace bindery::test::transfer {

void WriteCanary(void* dst, uint64_t size) {
  auto* p = static_cast<uint8_t*>(dst);
  for (uint64_t i = 0; i < size; ++i) p[i] = CanaryByte(i);
}

std::vector<uint8_t> RandomBytes(uint64_t size, uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<uint8_t> out(size);
  for (uint64_t i = 0; i < size; ++i) out[i] = static_cast<uint8_t>(rng() >> 24);
  return out;
}

ByteModel::ByteModel(uint64_t size) : bytes_(size) { WriteCanary(bytes_.data(), size); }

ByteModel CanaryModel(const HostBuffer& dst, uint64_t size) {
  WriteCanary(dst.mapped, size);
  return ByteModel(size);
}

std::vector<uint8_t> RandomContent(const HostBuffer& src, uint64_t size, uint32_t seed) {
  std::vector<uint8_t> bytes = RandomBytes(size, seed);
  std::memcpy(src.mapped, bytes.data(), size);
  return bytes;
}

void ByteModel::Fill(uint64_t offset, uint64_t size, uint32_t data) {
  if (size == VK_WHOLE_SIZE) size = bytes_.size() - offset;
  for (uint64_t i = 0; i < size; ++i) bytes_[offset + i] = static_cast<uint8_t>(data >> (8 * (i % 4)));
}

void ByteModel::Update(uint64_t offset, const void* data, uint64_t size) {
  if (size) std::memcpy(bytes_.data() + offset, data, size);
}

void ByteModel::Copy(const uint8_t* src, uint64_t src_offset, uint64_t dst_offset, uint64_t size) {
  if (size) std::memcpy(bytes_.data() + dst_offset, src + src_offset, size);
}

::testing::AssertionResult SameBytes(const void* got_ptr, const void* want_ptr, uint64_t size,
                                     const std::function<std::string(uint64_t)>& where) {
  const auto* got = static_cast<const uint8_t*>(got_ptr);
  const auto* want = static_cast<const uint8_t*>(want_ptr);
  if (std::memcmp(got, want, size) == 0) return ::testing::AssertionSuccess();
  uint64_t mismatches = 0;
  std::ostringstream out;
  char line[160];
  for (uint64_t i = 0; i < size; ++i) {
    if (got[i] == want[i]) continue;
    if (++mismatches <= 12) {
      std::snprintf(line, sizeof(line), "  byte %llu: got 0x%02x, want 0x%02x%s", static_cast<unsigned long long>(i),
                    got[i], want[i], CanaryByte(i) == want[i] ? " (canary: outside every range)" : "");
      out << line;
      if (where) out << "  [" << where(i) << "]";
      out << "\n";
    }
  }
  return ::testing::AssertionFailure() << mismatches << " of " << size << " bytes differ from the model:\n"
                                       << out.str();
}

Summary ParseSummary(const std::vector<Message>& messages) {
  Summary s;
  for (const Message& m : messages) {
    if (m.id != "BINDERY-summary") continue;
    s.found = true;
    s.text = m.text;
    std::smatch match;
    // The counters the transfers capability registers (layer/transfer/transfer_capability.cpp).
    static const std::regex detailed(
        R"(transfers polyfilled (\d+), passed through (\d+), transfer kernels (\d+), edge copies (\d+))");
    if (std::regex_search(m.text, match, detailed)) {
      s.detailed = true;
      s.polyfilled = std::stoull(match[1]);
      s.passed_through = std::stoull(match[2]);
      s.kernels = std::stoull(match[3]);
      s.edge_copies = std::stoull(match[4]);
    }
  }
  return s;
}

std::vector<Family> TransferFamilies() {
  VkHarness probe({.bindery = false, .validation = false});
  std::vector<Family> out;
  if (!probe.ok()) return out;
  uint32_t count = 0;
  vkGetPhysicalDeviceQueueFamilyProperties(probe.physical_device(), &count, nullptr);
  std::vector<VkQueueFamilyProperties> props(count);
  vkGetPhysicalDeviceQueueFamilyProperties(probe.physical_device(), &count, props.data());
  auto add_first = [&](const char* kind, auto matches) {
    for (uint32_t i = 0; i < count; ++i) {
      if (props[i].queueCount > 0 && matches(props[i].queueFlags)) {
        out.push_back({i, kind, props[i].queueFlags});
        return;
      }
    }
  };
  add_first("graphics", [](VkQueueFlags f) { return (f & VK_QUEUE_GRAPHICS_BIT) != 0; });
  add_first("compute", [](VkQueueFlags f) { return (f & VK_QUEUE_COMPUTE_BIT) && !(f & VK_QUEUE_GRAPHICS_BIT); });
  add_first("transfer", [](VkQueueFlags f) {
    return (f & VK_QUEUE_TRANSFER_BIT) && !(f & (VK_QUEUE_GRAPHICS_BIT | VK_QUEUE_COMPUTE_BIT));
  });
  return out;
}

Rig::Rig(const Config& config, uint32_t queue_family, std::vector<const char*> device_extensions)
    : Rig(config, RigOptions{queue_family, std::move(device_extensions)}) {}

Rig::Rig(const Config& config, const RigOptions& rig_options) : config_(config) {
  env_.push_back(std::make_unique<ScopedEnv>("BINDERY_TRANSFERS", config.transfers));
  env_.push_back(std::make_unique<ScopedEnv>("BINDERY_TRANSFER_STRATEGY", config.strategy));
  env_.push_back(std::make_unique<ScopedEnv>("BINDERY_LOG_LEVEL", "info"));
  for (const auto& [name, value] : rig_options.env) {
    env_.push_back(std::make_unique<ScopedEnv>(name.c_str(), value));
  }
  HarnessOptions options;
  options.bindery = config.bindery;
  options.validation = rig_options.validation;
  options.layers_between = rig_options.layers_between;
  options.layers_below = rig_options.layers_below;
  options.device_group = rig_options.device_group;
  options.device_pnext = rig_options.device_pnext;
  options.api_version = rig_options.api_version;
  options.queue_family = rig_options.queue_family;
  options.device_extensions = rig_options.device_extensions;
  harness_ = std::make_unique<VkHarness>(options);
  if (harness_->ok()) {
    uint32_t count = 0;
    vkGetPhysicalDeviceQueueFamilyProperties(harness_->physical_device(), &count, nullptr);
    std::vector<VkQueueFamilyProperties> props(count);
    vkGetPhysicalDeviceQueueFamilyProperties(harness_->physical_device(), &count, props.data());
    compute_queue_ = (props[harness_->queue_family()].queueFlags & VK_QUEUE_COMPUTE_BIT) != 0;
  }
}

Rig::~Rig() {
  if (harness_->device() == VK_NULL_HANDLE) return;
  vkDeviceWaitIdle(harness_->device());
  for (auto& b : buffers_) harness_->Destroy(*b);
}

HostBuffer Rig::Buffer(uint64_t size, VkBufferUsageFlags extra_usage) {
  HostBuffer b = harness_->CreateHostBuffer(
      size, VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT | extra_usage);
  EXPECT_NE(b.buffer, VK_NULL_HANDLE) << "buffer of " << size << " bytes";
  buffers_.push_back(std::make_unique<HostBuffer>(b));
  return b;
}

CopyBuffers Rig::Copy(uint64_t size, uint32_t seed) {
  HostBuffer src = Buffer(size), dst = Buffer(size);
  std::vector<uint8_t> source = RandomContent(src, size, seed);
  return CopyBuffers{src, dst, std::move(source), CanaryModel(dst, size)};
}

CanaryBuffer Rig::Canary(uint64_t size) {
  HostBuffer dst = Buffer(size);
  return CanaryBuffer{dst, CanaryModel(dst, size)};
}

RigOptions WithSpy() {
  RigOptions options;
  options.layers_between = {kSpyLayerName};
  return options;
}

VkCommandBuffer Rig::Allocate(VkCommandBufferLevel level) {
  VkCommandBufferAllocateInfo cbai{VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
  cbai.commandPool = harness_->command_pool();
  cbai.level = level;
  cbai.commandBufferCount = 1;
  VkCommandBuffer cb = VK_NULL_HANDLE;
  EXPECT_EQ(vkAllocateCommandBuffers(harness_->device(), &cbai, &cb), VK_SUCCESS);
  return cb;
}

VkResult Rig::Submit(VkCommandBuffer cb, bool end) {
  if (end) {
    VkResult r = vkEndCommandBuffer(cb);
    if (r != VK_SUCCESS) return r;
  }
  VkSubmitInfo si{VK_STRUCTURE_TYPE_SUBMIT_INFO};
  si.commandBufferCount = 1;
  si.pCommandBuffers = &cb;
  VkResult r = vkQueueSubmit(harness_->queue(), 1, &si, VK_NULL_HANDLE);
  if (r == VK_SUCCESS) r = vkQueueWaitIdle(harness_->queue());
  return r;
}

void Rig::HostReadBarrier(VkCommandBuffer cb) {
  VkMemoryBarrier barrier{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
  barrier.srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT | (compute_queue_ ? VK_ACCESS_SHADER_WRITE_BIT : 0);
  barrier.dstAccessMask = VK_ACCESS_HOST_READ_BIT;
  const VkPipelineStageFlags src =
      VK_PIPELINE_STAGE_TRANSFER_BIT | (compute_queue_ ? VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT : 0);
  vkCmdPipelineBarrier(cb, src, VK_PIPELINE_STAGE_HOST_BIT, 0, 1, &barrier, 0, nullptr, 0, nullptr);
}

void Rig::TransferHostReadBarrier(VkCommandBuffer cb) {
  BarrierToHost(cb, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT);
}

void TransferToTransferBarrier(VkCommandBuffer cb) {
  RecordMemoryBarrier(cb, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT,
                      VK_ACCESS_TRANSFER_WRITE_BIT | VK_ACCESS_TRANSFER_READ_BIT);
}

void CopyBuffer2(VkCommandBuffer cb, VkBuffer src, VkBuffer dst, const VkBufferCopy& region) {
  VkBufferCopy2 region2{VK_STRUCTURE_TYPE_BUFFER_COPY_2};
  region2.srcOffset = region.srcOffset;
  region2.dstOffset = region.dstOffset;
  region2.size = region.size;
  VkCopyBufferInfo2 info{VK_STRUCTURE_TYPE_COPY_BUFFER_INFO_2};
  info.srcBuffer = src;
  info.dstBuffer = dst;
  info.regionCount = 1;
  info.pRegions = &region2;
  vkCmdCopyBuffer2(cb, &info);
}

Summary Rig::Finish() {
  if (harness_->device() != VK_NULL_HANDLE) {
    vkDeviceWaitIdle(harness_->device());
    for (auto& b : buffers_) harness_->Destroy(*b);
  }
  buffers_.clear();
  harness_->DestroyDevice();
  return ParseSummary(harness_->BinderyMessages());
}

void ExpectStrategyRan(const Config& config, const Summary& summary, bool compute_queue, bool unaligned_recorded,
                       bool edges_expected) {
  if (!config.bindery) return;
  ASSERT_TRUE(summary.found) << "no BINDERY-summary message at device destruction";
  std::printf("[ transfer ] %s: %s\n", config.name, summary.text.c_str());
  if (std::string(config.transfers) == "off") {
    EXPECT_EQ(summary.polyfilled, 0u) << summary.text;
    return;
  }
  // Calls only the layer makes valid must have been polyfilled (native copies of any
  // alignment may go straight to the driver, uncounted).
  if (unaligned_recorded) {
    EXPECT_GT(summary.polyfilled, 0u) << summary.text;
  }
  if (std::string(config.transfers) != "force") return;
  EXPECT_TRUE(summary.detailed) << "the summary does not list the transfer counters: "
                                << summary.text;
  if (std::string(config.strategy) == "native") {
    EXPECT_EQ(summary.kernels, 0u) << "kernels under the native strategy: " << summary.text;
    if (edges_expected) {
      EXPECT_GT(summary.edge_copies, 0u) << summary.text;
    }
  } else if (std::string(config.strategy) == "compute") {
    if (compute_queue) {
      EXPECT_GT(summary.kernels, 0u) << "the compute strategy ran no kernel: " << summary.text;
    } else {
      EXPECT_EQ(summary.kernels, 0u) << "a kernel on a queue without compute: " << summary.text;
    }
  }
}

Summary FillTwoAtOffsets1And3(Rig& rig, uint64_t big, uint64_t region) {
  const uint64_t bytes = 2 * region;
  auto [dst, model] = rig.Canary(bytes);
  VkCommandBuffer cb = rig.h().BeginCommands();
  vkCmdFillBuffer(cb, dst.buffer, 1, big, 0x44332211u);
  model.Fill(1, big, 0x44332211u);
  vkCmdFillBuffer(cb, dst.buffer, region + 3, big, 0x5AC35AC3u);
  model.Fill(region + 3, big, 0x5AC35AC3u);
  rig.HostReadBarrier(cb);
  EXPECT_EQ(rig.h().SubmitAndWait(cb), VK_SUCCESS);
  EXPECT_TRUE(SameBytes(dst.mapped, model.data(), bytes));
  const Summary summary = rig.Finish();
  EXPECT_VALIDATION_SILENT(rig.h());
  return summary;
}

}  // namespace bindery::test::transfer
