#include "bindings_device.h"

#include <algorithm>
#include <cmath>

#include "axpy_pointers_spv.h"
#include "axpy_spv.h"
#include "tiny_spv.h"

namespace bindery::bench {
namespace {

constexpr uint32_t kMaxGroups = 32768;  // the axpy dispatch; its loop strides over the rest
constexpr uint64_t kGpuBufferBytes = 256ull << 20;
constexpr uint64_t kCpuBufferBytes = 16ull << 20;  // lavapipe: a run stays short
constexpr uint64_t kFenceTimeoutNs = 120ull * 1000 * 1000 * 1000;
// axpy.comp's `a` (3.0 + 2^-22 as float bits); patched per cold pipeline.
constexpr uint32_t kAxpyMagic = 0x40400001u;

// The pointer kernel's buffers need the feature natively (Bindery enables it itself).
// axpy_pointers.comp's push constants.
struct PointerArgs {
  VkDeviceAddress x, y, z;
  uint32_t n;
  uint32_t pad;
};

// Index of the OpConstant word holding `value`, or 0.
size_t FindConstantWord(const std::vector<uint32_t>& words, uint32_t value) {
  constexpr uint32_t kOpConstant = 43;
  for (size_t i = 5; i < words.size();) {
    const uint32_t count = words[i] >> 16;
    if (count == 0) return 0;
    if ((words[i] & 0xffffu) == kOpConstant && count == 4 && i + 3 < words.size() && words[i + 3] == value) {
      return i + 3;
    }
    i += count;
  }
  return 0;
}

}  // namespace

BindingsDevice::BindingsDevice(bool forced)
    : env_("BINDERY_INDIRECT_BINDINGS", forced ? "force" : nullptr),
      ubo_env_("BINDERY_BINDINGS_UBO", nullptr),
      bda_(BdaFeatures()),
      harness_(BindingsHarnessOptions(forced, &bda_)) {}

BindingsDevice::~BindingsDevice() {
  const VkDevice d = harness_.device();
  if (d == VK_NULL_HANDLE) return;
  vkDeviceWaitIdle(d);
  if (fence_ != VK_NULL_HANDLE) vkDestroyFence(d, fence_, nullptr);
  if (queries_ != VK_NULL_HANDLE) vkDestroyQueryPool(d, queries_, nullptr);
  if (axpy_.module != VK_NULL_HANDLE) harness_.Destroy(axpy_);
  if (tiny_.module != VK_NULL_HANDLE) harness_.Destroy(tiny_);
  if (pointers_.module != VK_NULL_HANDLE) harness_.Destroy(pointers_);
  for (DeviceBuffer& b : buffers_) DestroyDeviceBuffer(d, b);
  for (DeviceBuffer& b : pointer_buffers_) DestroyDeviceBuffer(d, b);
}

std::string BindingsDevice::Init() {
  if (!harness_.ok()) return harness_.error();
  const VkDevice d = harness_.device();
  VkPhysicalDeviceProperties props;
  vkGetPhysicalDeviceProperties(harness_.physical_device(), &props);
  description_ = props.deviceName;
  timestamp_period_ns_ = props.limits.timestampPeriod;
  buffer_bytes_ = props.deviceType == VK_PHYSICAL_DEVICE_TYPE_CPU ? kCpuBufferBytes : kGpuBufferBytes;
  buffer_bytes_ = std::min<uint64_t>(buffer_bytes_, props.limits.maxStorageBufferRange & ~uint64_t{15});
  std::string error;
  for (DeviceBuffer& b : buffers_) {
    b = CreateDeviceBuffer(harness_.physical_device(), d, buffer_bytes_,
                           VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT, &error);
    if (b.buffer == VK_NULL_HANDLE) return "storage buffer: " + error;
  }
  {
    // Buffers of their own for the pointer kernel, with addresses (device_buffer.cpp's
    // knob), so that the descriptor kernels' buffers stay as an application makes them.
    EnvOverride address("BINDERY_BENCH_APP_ADDRESS", "both");
    for (DeviceBuffer& b : pointer_buffers_) {
      b = CreateDeviceBuffer(harness_.physical_device(), d, buffer_bytes_,
                             VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT, &error);
      if (b.buffer == VK_NULL_HANDLE) return "addressable storage buffer: " + error;
    }
  }
  axpy_ = harness_.CreateKernel(axpy_spv, sizeof(axpy_spv), 3);
  tiny_ = harness_.CreateKernel(tiny_spv, sizeof(tiny_spv), 3);
  pointers_ = harness_.CreateKernel(axpy_pointers_spv, sizeof(axpy_pointers_spv), 0, sizeof(PointerArgs));
  if (axpy_.pipeline == VK_NULL_HANDLE || tiny_.pipeline == VK_NULL_HANDLE || pointers_.pipeline == VK_NULL_HANDLE) {
    return "kernel creation failed";
  }
  const std::vector<VkBuffer> handles = {buffers_[0].buffer, buffers_[1].buffer, buffers_[2].buffer};
  set_ = harness_.AllocateStorageSet(axpy_, handles);
  tiny_set_ = harness_.AllocateStorageSet(tiny_, handles);
  if (set_ == VK_NULL_HANDLE || tiny_set_ == VK_NULL_HANDLE) return "descriptor set allocation failed";
  axpy_words_.assign(axpy_spv, axpy_spv + sizeof(axpy_spv) / 4);
  magic_word_ = FindConstantWord(axpy_words_, kAxpyMagic);
  if (magic_word_ == 0) return "axpy.comp: the constant to patch was not found";

  VkQueryPoolCreateInfo qpci{VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO};
  qpci.queryType = VK_QUERY_TYPE_TIMESTAMP;
  qpci.queryCount = 2;
  VkFenceCreateInfo fci{VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
  if (vkCreateQueryPool(d, &qpci, nullptr, &queries_) != VK_SUCCESS ||
      vkCreateFence(d, &fci, nullptr, &fence_) != VK_SUCCESS) {
    return "query pool / fence creation failed";
  }
  // x = 1.0, y = 2.0, z = 0 (float bits).
  VkCommandBuffer cb = harness_.BeginCommands();
  const uint32_t fills[3] = {0x3f800000u, 0x40000000u, 0u};
  for (int i = 0; i < 3; ++i) {
    vkCmdFillBuffer(cb, buffers_[i].buffer, 0, VK_WHOLE_SIZE, fills[i]);
    vkCmdFillBuffer(cb, pointer_buffers_[i].buffer, 0, VK_WHOLE_SIZE, fills[i]);
  }
  if (harness_.SubmitAndWait(cb) != VK_SUCCESS) return "buffer fill failed";
  const std::string recorded = Record();
  if (!recorded.empty()) return recorded;

  // One bandwidth run each, checked where the result can be read (z = 3.0000002 * 1 + 2).
  double seconds = 0;
  if (!Bandwidth(false, &seconds) || !Bandwidth(true, &seconds)) return "a bandwidth kernel failed";
  for (const DeviceBuffer* z : {&buffers_[2], &pointer_buffers_[2]}) {
    if ((z->memory_flags & VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT) == 0) continue;
    void* p = nullptr;
    if (vkMapMemory(d, z->memory, 0, VK_WHOLE_SIZE, 0, &p) != VK_SUCCESS) return "vkMapMemory failed";
    const float* v = static_cast<const float*>(p);
    const float first = v[0], last = v[buffer_bytes_ / 4 - 1];
    vkUnmapMemory(d, z->memory);
    if (std::fabs(first - 5.0f) > 1e-5f || std::fabs(last - 5.0f) > 1e-5f) {
      return "a bandwidth kernel computed z[0] = " + std::to_string(first) + ", z[last] = " + std::to_string(last) +
             " (expected 5)";
    }
  }
  return {};
}

// The three measured command buffers, recorded once. Empty on success.
std::string BindingsDevice::Record() {
  const VkDevice d = harness_.device();
  VkCommandBufferAllocateInfo cbai{VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
  cbai.commandPool = harness_.command_pool();
  cbai.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
  cbai.commandBufferCount = 1;
  if (vkAllocateCommandBuffers(d, &cbai, &axpy_cb_) != VK_SUCCESS ||
      vkAllocateCommandBuffers(d, &cbai, &tiny_cb_) != VK_SUCCESS ||
      vkAllocateCommandBuffers(d, &cbai, &pointers_cb_) != VK_SUCCESS) {
    return "command buffer allocation failed";
  }
  VkCommandBufferBeginInfo begin{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
  const uint64_t vec4s = buffer_bytes_ / 16;
  const uint32_t groups = static_cast<uint32_t>(std::min<uint64_t>(kMaxGroups, (vec4s + 255) / 256));
  vkBeginCommandBuffer(axpy_cb_, &begin);
  vkCmdResetQueryPool(axpy_cb_, queries_, 0, 2);
  vkCmdBindPipeline(axpy_cb_, VK_PIPELINE_BIND_POINT_COMPUTE, axpy_.pipeline);
  vkCmdBindDescriptorSets(axpy_cb_, VK_PIPELINE_BIND_POINT_COMPUTE, axpy_.layout, 0, 1, &set_, 0, nullptr);
  vkCmdWriteTimestamp(axpy_cb_, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, queries_, 0);
  vkCmdDispatch(axpy_cb_, groups, 1, 1);
  vkCmdWriteTimestamp(axpy_cb_, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, queries_, 1);
  if (vkEndCommandBuffer(axpy_cb_) != VK_SUCCESS) return "recording the bandwidth kernel failed";

  PointerArgs args{};
  VkDeviceAddress* addresses[3] = {&args.x, &args.y, &args.z};
  for (int i = 0; i < 3; ++i) {
    VkBufferDeviceAddressInfo info{VK_STRUCTURE_TYPE_BUFFER_DEVICE_ADDRESS_INFO};
    info.buffer = pointer_buffers_[i].buffer;
    *addresses[i] = vkGetBufferDeviceAddress(d, &info);
  }
  args.n = static_cast<uint32_t>(vec4s);
  vkBeginCommandBuffer(pointers_cb_, &begin);
  vkCmdResetQueryPool(pointers_cb_, queries_, 0, 2);
  vkCmdBindPipeline(pointers_cb_, VK_PIPELINE_BIND_POINT_COMPUTE, pointers_.pipeline);
  vkCmdPushConstants(pointers_cb_, pointers_.layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof(args), &args);
  vkCmdWriteTimestamp(pointers_cb_, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, queries_, 0);
  vkCmdDispatch(pointers_cb_, groups, 1, 1);
  vkCmdWriteTimestamp(pointers_cb_, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, queries_, 1);
  if (vkEndCommandBuffer(pointers_cb_) != VK_SUCCESS) return "recording the pointer kernel failed";

  vkBeginCommandBuffer(tiny_cb_, &begin);
  vkCmdBindPipeline(tiny_cb_, VK_PIPELINE_BIND_POINT_COMPUTE, tiny_.pipeline);
  vkCmdBindDescriptorSets(tiny_cb_, VK_PIPELINE_BIND_POINT_COMPUTE, tiny_.layout, 0, 1, &tiny_set_, 0, nullptr);
  for (uint32_t i = 0; i < kTinyDispatches; ++i) vkCmdDispatch(tiny_cb_, 1, 1, 1);
  if (vkEndCommandBuffer(tiny_cb_) != VK_SUCCESS) return "recording the tiny dispatches failed";
  return {};
}

bool BindingsDevice::Bandwidth(bool pointers, double* seconds) {
  if (!SubmitWait(pointers ? pointers_cb_ : axpy_cb_)) return false;
  uint64_t t[2];
  if (vkGetQueryPoolResults(harness_.device(), queries_, 0, 2, sizeof(t), t, sizeof(uint64_t),
                            VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT) != VK_SUCCESS) {
    return false;
  }
  *seconds = static_cast<double>(t[1] - t[0]) * timestamp_period_ns_ * 1e-9;
  return t[1] > t[0];
}

bool BindingsDevice::Tiny() { return SubmitWait(tiny_cb_); }

bool BindingsDevice::CreateCold() {
  axpy_words_[magic_word_] = kAxpyMagic + 1 + (cold_counter_++ % 0x3ffff0u);
  VkShaderModuleCreateInfo smci{VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO};
  smci.codeSize = axpy_words_.size() * 4;
  smci.pCode = axpy_words_.data();
  VkShaderModule module = VK_NULL_HANDLE;
  if (vkCreateShaderModule(harness_.device(), &smci, nullptr, &module) != VK_SUCCESS) return false;
  const bool ok = CreatePipeline(module);
  vkDestroyShaderModule(harness_.device(), module, nullptr);
  return ok;
}

bool BindingsDevice::CreateCached() { return CreatePipeline(axpy_.module); }

bool BindingsDevice::SubmitWait(VkCommandBuffer cb) {
  const VkDevice d = harness_.device();
  VkSubmitInfo submit{VK_STRUCTURE_TYPE_SUBMIT_INFO};
  submit.commandBufferCount = 1;
  submit.pCommandBuffers = &cb;
  if (vkQueueSubmit(harness_.queue(), 1, &submit, fence_) != VK_SUCCESS) return false;
  const bool ok = vkWaitForFences(d, 1, &fence_, VK_TRUE, kFenceTimeoutNs) == VK_SUCCESS;
  vkResetFences(d, 1, &fence_);
  return ok;
}

bool BindingsDevice::CreatePipeline(VkShaderModule module) {
  VkComputePipelineCreateInfo cpci{VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO};
  cpci.stage = {VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO};
  cpci.stage.stage = VK_SHADER_STAGE_COMPUTE_BIT;
  cpci.stage.module = module;
  cpci.stage.pName = "main";
  cpci.layout = axpy_.layout;
  VkPipeline pipeline = VK_NULL_HANDLE;
  if (vkCreateComputePipelines(harness_.device(), VK_NULL_HANDLE, 1, &cpci, nullptr, &pipeline) != VK_SUCCESS) {
    return false;
  }
  vkDestroyPipeline(harness_.device(), pipeline, nullptr);
  return true;
}

}  // namespace bindery::bench
