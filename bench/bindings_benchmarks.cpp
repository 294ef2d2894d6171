#include "bindings_benchmarks.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <regex>
#include <sstream>
#include <unistd.h>

#include <benchmark/benchmark.h>
#include <vulkan/vulkan.h>

#include "axpy_pointers_spv.h"
#include "axpy_spv.h"
#include "device_buffer.h"
#include "four_buffers_spv.h"
#include "support/vk_harness.h"
#include "table_reporter.h"
#include "tiny_spv.h"

namespace bindery::bench {
namespace {

constexpr uint32_t kTinyDispatches = 10000;
constexpr int kTinyIterations = 15;  // submissions per run; the fastest counts
constexpr uint32_t kMaxGroups = 32768;  // the axpy dispatch; its loop strides over the rest
constexpr uint64_t kGpuBufferBytes = 256ull << 20;
constexpr uint64_t kCpuBufferBytes = 16ull << 20;  // lavapipe: a run stays short
constexpr uint64_t kFenceTimeoutNs = 120ull * 1000 * 1000 * 1000;
// axpy.comp's `a` (3.0 + 2^-22 as float bits); patched per cold pipeline.
constexpr uint32_t kAxpyMagic = 0x40400001u;
constexpr uint32_t kMemorySets = 1024;  // the memory row's pool: this many sets of 4 storage buffers

// Sets an environment variable while alive (the layer and the drivers read their settings
// when the instance and device are created); restores the old value.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const char* value) : name_(name) {
    if (const char* old = std::getenv(name)) {
      had_ = true;
      old_ = old;
    }
    if (value != nullptr) {
      setenv(name, value, 1);
    } else {
      unsetenv(name);
    }
  }
  ~ScopedEnv() {
    if (had_) {
      setenv(name_, old_.c_str(), 1);
    } else {
      unsetenv(name_);
    }
  }
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;

 private:
  const char* name_;
  bool had_ = false;
  std::string old_;
};

// Driver shader disk caches off on both sides (Mesa, NVIDIA): pipeline creation must
// compile, the same way in both columns.
struct NoDriverCaches {
  ScopedEnv mesa{"MESA_SHADER_CACHE_DISABLE", "true"};
  ScopedEnv nvidia{"__GL_SHADER_DISK_CACHE", "0"};
};

test::HarnessOptions Options(bool forced, const void* device_pnext = nullptr) {
  test::HarnessOptions o;
  o.bindery = forced;
  o.validation = false;  // never measure the validation layer
  o.device_pnext = device_pnext;
  return o;
}

// The pointer kernel's buffers need the feature natively (Bindery enables it itself).
VkPhysicalDeviceBufferDeviceAddressFeatures BdaFeatures() {
  VkPhysicalDeviceBufferDeviceAddressFeatures f{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_BUFFER_DEVICE_ADDRESS_FEATURES};
  f.bufferDeviceAddress = VK_TRUE;
  return f;
}

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

// One device (native or forced) with everything the workloads need, made up front.
class BindingsDevice {
 public:
  explicit BindingsDevice(bool forced)
      : forced_(forced),
        env_("BINDERY_INDIRECT_BINDINGS", forced ? "force" : nullptr),
        ubo_env_("BINDERY_BINDINGS_UBO", nullptr),
        bda_(BdaFeatures()),
        harness_(Options(forced, &bda_)) {}

  ~BindingsDevice() {
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

  // Empty on success.
  std::string Init() {
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
      ScopedEnv address("BINDERY_BENCH_APP_ADDRESS", "both");
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
    set_ = harness_.AllocateStorageSet(axpy_, handles);  // both kernels have the same set layout shape
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

    // The two measured command buffers, recorded once.
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
    vkBeginCommandBuffer(axpy_cb_, &begin);
    vkCmdResetQueryPool(axpy_cb_, queries_, 0, 2);
    vkCmdBindPipeline(axpy_cb_, VK_PIPELINE_BIND_POINT_COMPUTE, axpy_.pipeline);
    vkCmdBindDescriptorSets(axpy_cb_, VK_PIPELINE_BIND_POINT_COMPUTE, axpy_.layout, 0, 1, &set_, 0, nullptr);
    vkCmdWriteTimestamp(axpy_cb_, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, queries_, 0);
    const uint64_t vec4s = buffer_bytes_ / 16;
    const uint32_t groups = static_cast<uint32_t>(std::min<uint64_t>(kMaxGroups, (vec4s + 255) / 256));
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

    // One bandwidth run, checked where the result can be read (z = 3.0000002 * 1 + 2).
    double seconds = 0;
    if (!Bandwidth(false, &seconds) || !Bandwidth(true, &seconds)) return "the bandwidth kernel failed";
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

  const std::string& description() const { return description_; }
  uint64_t buffer_bytes() const { return buffer_bytes_; }

  // GPU seconds of one axpy pass (timestamps): descriptors, or the hand-written pointers.
  bool Bandwidth(bool pointers, double* seconds) {
    if (!SubmitWait(pointers ? pointers_cb_ : axpy_cb_)) return false;
    uint64_t t[2];
    if (vkGetQueryPoolResults(harness_.device(), queries_, 0, 2, sizeof(t), t, sizeof(uint64_t),
                              VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT) != VK_SUCCESS) {
      return false;
    }
    *seconds = static_cast<double>(t[1] - t[0]) * timestamp_period_ns_ * 1e-9;
    return t[1] > t[0];
  }

  bool Tiny() { return SubmitWait(tiny_cb_); }

  // A module never seen before (patched constant) and a pipeline from it.
  bool CreateCold() {
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

  // The same module again (its rewrite is cached on the forced side).
  bool CreateCached() { return CreatePipeline(axpy_.module); }

 private:
  bool SubmitWait(VkCommandBuffer cb) {
    const VkDevice d = harness_.device();
    VkSubmitInfo submit{VK_STRUCTURE_TYPE_SUBMIT_INFO};
    submit.commandBufferCount = 1;
    submit.pCommandBuffers = &cb;
    if (vkQueueSubmit(harness_.queue(), 1, &submit, fence_) != VK_SUCCESS) return false;
    const bool ok = vkWaitForFences(d, 1, &fence_, VK_TRUE, kFenceTimeoutNs) == VK_SUCCESS;
    vkResetFences(d, 1, &fence_);
    return ok;
  }

  bool CreatePipeline(VkShaderModule module) {
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

  bool forced_;
  ScopedEnv env_;      // before harness_: the instance reads it
  ScopedEnv ubo_env_;  // storage buffers only, whatever the caller's environment says
  VkPhysicalDeviceBufferDeviceAddressFeatures bda_;  // before harness_: it points here
  NoDriverCaches no_caches_;
  test::VkHarness harness_;
  std::string description_;
  double timestamp_period_ns_ = 1;
  uint64_t buffer_bytes_ = 0;
  DeviceBuffer buffers_[3];
  DeviceBuffer pointer_buffers_[3];
  test::ComputeKernel axpy_, tiny_, pointers_;
  VkDescriptorSet set_ = VK_NULL_HANDLE, tiny_set_ = VK_NULL_HANDLE;
  VkQueryPool queries_ = VK_NULL_HANDLE;
  VkFence fence_ = VK_NULL_HANDLE;
  VkCommandBuffer axpy_cb_ = VK_NULL_HANDLE, tiny_cb_ = VK_NULL_HANDLE, pointers_cb_ = VK_NULL_HANDLE;
  std::vector<uint32_t> axpy_words_;
  size_t magic_word_ = 0;
  uint32_t cold_counter_ = 0;
};

namespace {

enum Workload : size_t { kBandwidth, kPointers, kTiny, kCold, kCached, kWorkloadCount };

struct WorkloadInfo {
  const char* name;
  const char* unit;
  bool higher_is_better;
  const char* target;
};

const WorkloadInfo kWorkloads[kWorkloadCount] = {
    {"bindings/axpy z=a*x+y, 3 storage buffers", "GB/s", true, ">= 0.9x lavapipe, >= 0.98x H100"},
    // Not converted (no descriptors): its native column against the row above is the
    // driver's pointer-vs-descriptor cost, the floor of what the rewrite can reach.
    {"bindings/same axpy by hand through buffer_reference pointers", "GB/s", true, "(diagnosis)"},
    {"bindings/10^4 one-workgroup dispatches, submitted", "us/dispatch", false, "<= 1.0x"},
    {"bindings/create compute pipeline, new module (cold rewrite)", "ms/pipeline", false, "<= 1.15x"},
    {"bindings/create compute pipeline, same module (rewrite cache)", "ms/pipeline", false, "<= 1.02x"},
};

void RunBindingsBenchmark(benchmark::State& state, BindingsSuite* suite, size_t workload, bool forced, int round) {
  std::string error;
  BindingsDevice* d = suite->Device(forced, &error);
  if (d == nullptr) {
    state.SkipWithError(error.c_str());
    return;
  }
  std::vector<double> gbps;
  double best_tiny_us = 1e300;  // the fastest submission: other processes' load only slows a run down
  const auto start = std::chrono::steady_clock::now();
  for (auto _ : state) {
    bool ok = true;
    switch (workload) {
      case kBandwidth:
      case kPointers: {
        double s = 0;
        ok = d->Bandwidth(workload == kPointers, &s);
        if (ok) gbps.push_back(3.0 * static_cast<double>(d->buffer_bytes()) / s * 1e-9);
        break;
      }
      case kTiny: {
        const auto t0 = std::chrono::steady_clock::now();
        ok = d->Tiny();
        best_tiny_us = std::min(
            best_tiny_us, std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count());
        break;
      }
      case kCold:
        ok = d->CreateCold();
        break;
      default:
        ok = d->CreateCached();
        break;
    }
    if (!ok) {
      state.SkipWithError("a submission or pipeline creation failed");
      return;
    }
  }
  const double us = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start).count();
  const double n = static_cast<double>(state.iterations());
  double value = 0;
  if (workload == kBandwidth || workload == kPointers) {
    value = Median(gbps);  // GPU time, the median pass
  } else if (workload == kTiny) {
    value = best_tiny_us / kTinyDispatches;
  } else {
    value = us / n / 1000.0;
  }
  state.counters[kWorkloads[workload].unit] = benchmark::Counter(value);
  suite->Record(workload, forced, round, value);
}

}  // namespace

BindingsSuite::BindingsSuite(int rounds) : rounds_(rounds) {
  results_.resize(kWorkloadCount);
  for (auto& w : results_) {
    w.resize(2);
    for (auto& side : w) side.assign(static_cast<size_t>(rounds), -1.0);
  }
}

BindingsSuite::~BindingsSuite() = default;

void BindingsSuite::Register() {
  for (int round = 0; round < rounds_; ++round) {
    for (size_t w = 0; w < kWorkloadCount; ++w) {
      for (int v = 0; v < 2; ++v) {
        const bool forced = (v == 1) != (round % 2 == 1);
        std::string name = std::string(kWorkloads[w].name) + (forced ? "/forced" : "/native");
        if (rounds_ > 1) name += "/round:" + std::to_string(round + 1);
        benchmark::internal::Benchmark* b =
            benchmark::RegisterBenchmark(name.c_str(), &RunBindingsBenchmark, this, w, forced, round);
        b->Unit(benchmark::kMillisecond)->UseRealTime();
        if (w == kTiny) b->Iterations(kTinyIterations);
      }
    }
  }
}

BindingsDevice* BindingsSuite::Device(bool forced, std::string* error) {
  if (!started_) {
    started_ = true;
    for (int i = 0; i < 2; ++i) {
      auto d = std::make_unique<BindingsDevice>(i == 1);
      std::string e = d->Init();
      if (e.empty()) {
        devices_[i] = std::move(d);
      } else {
        create_error_[i] = std::string(i == 1 ? "forced" : "native") + " bindings device: " + e;
      }
    }
    if (devices_[0] != nullptr) description_ = devices_[0]->description();
  }
  if (devices_[forced] == nullptr) *error = create_error_[forced];
  return devices_[forced].get();
}

void BindingsSuite::Record(size_t workload, bool forced, int round, double value) {
  results_[workload][forced][static_cast<size_t>(round)] = value;
}

unsigned long long BindingsSuite::bandwidth_bytes() const {
  return devices_[0] != nullptr ? devices_[0]->buffer_bytes() : 0;
}

std::vector<BindingsRow> BindingsSuite::Rows() const {
  std::vector<BindingsRow> rows;
  for (size_t w = 0; w < kWorkloadCount; ++w) {
    BindingsRow row;
    row.workload = kWorkloads[w].name;
    row.unit = kWorkloads[w].unit;
    row.higher_is_better = kWorkloads[w].higher_is_better;
    row.target = kWorkloads[w].target;
    row.samples = static_cast<size_t>(rounds_);
    bool complete = true;
    for (int side = 0; side < 2; ++side) {
      std::vector<double> v;
      for (double x : results_[w][side]) {
        if (x >= 0) v.push_back(x);
      }
      if (v.empty()) {
        complete = false;
        break;
      }
      row.samples = std::min(row.samples, v.size());
      (side == 1 ? row.forced : row.native) = Median(v);
    }
    if (complete) rows.push_back(row);
  }
  for (BindingsRow& r : rows) {
    if (r.unit == std::string("GB/s")) r.workload += " (" + std::to_string(bandwidth_bytes() >> 20) + " MiB each)";
  }
  return rows;
}

namespace {

// A forced device that makes one pool of kMemorySets sets of four storage buffers and
// allocates them all; the layer's summary (written to a log file of our own when the
// device is destroyed) says how many argument-block bytes it allocated.
BindingsMemory MeasureMemory() {
  BindingsMemory m;
  m.sets = kMemorySets;
  m.descriptors = 4 * kMemorySets;
  char path[] = "/tmp/bindery-bench-memory.XXXXXX";
  const int fd = mkstemp(path);
  if (fd < 0) {
    m.error = "mkstemp failed";
    return m;
  }
  close(fd);
  {
    ScopedEnv forced("BINDERY_INDIRECT_BINDINGS", "force");
    ScopedEnv ubo("BINDERY_BINDINGS_UBO", nullptr);
    ScopedEnv level("BINDERY_LOG_LEVEL", "info");
    ScopedEnv file("BINDERY_LOG_FILE", path);
    test::VkHarness h(Options(true));
    if (!h.ok()) {
      m.error = h.error();
      unlink(path);
      return m;
    }
    test::ComputeKernel k = h.CreateKernel(four_buffers_spv, sizeof(four_buffers_spv), 4);
    VkDescriptorPoolSize size{VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, m.descriptors};
    VkDescriptorPoolCreateInfo dpci{VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO};
    dpci.maxSets = kMemorySets;
    dpci.poolSizeCount = 1;
    dpci.pPoolSizes = &size;
    VkDescriptorPool pool = VK_NULL_HANDLE;
    if (k.set_layout == VK_NULL_HANDLE || vkCreateDescriptorPool(h.device(), &dpci, nullptr, &pool) != VK_SUCCESS) {
      m.error = "pool creation failed";
    } else {
      std::vector<VkDescriptorSetLayout> layouts(kMemorySets, k.set_layout);
      std::vector<VkDescriptorSet> sets(kMemorySets);
      VkDescriptorSetAllocateInfo alloc{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO};
      alloc.descriptorPool = pool;
      alloc.descriptorSetCount = kMemorySets;
      alloc.pSetLayouts = layouts.data();
      if (vkAllocateDescriptorSets(h.device(), &alloc, sets.data()) != VK_SUCCESS) m.error = "set allocation failed";
      vkDestroyDescriptorPool(h.device(), pool, nullptr);
    }
    if (k.module != VK_NULL_HANDLE) h.Destroy(k);
  }  // the device is destroyed here: the summary is written
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  unlink(path);
  std::smatch match;
  const std::string log = text.str();
  if (std::regex_search(log, match, std::regex("argument-block bytes ([0-9]+)"))) {
    m.block_bytes = std::stoull(match[1].str());
    m.measured = m.error.empty();
  } else if (m.error.empty()) {
    m.error = "no 'argument-block bytes' in the layer's summary";
  }
  return m;
}

std::vector<std::vector<std::string>> Cells(const std::vector<BindingsRow>& rows) {
  std::vector<std::vector<std::string>> cells;
  cells.push_back({"workload", "unit", "native", "bindery forced", "ratio (forced/native)", "target"});
  for (const BindingsRow& r : rows) {
    const int decimals = r.native >= 100 ? 1 : r.native >= 1 ? 2 : 3;
    cells.push_back({r.workload, r.unit, Fixed(r.native, decimals), Fixed(r.forced, decimals),
                     Fixed(r.forced / r.native, 3) + "x", r.target});
  }
  return cells;
}

std::string MemoryLine(const BindingsMemory& m) {
  if (!m.measured) return "argument-block memory: not measured (" + m.error + ")";
  return "argument-block memory (a pool of " + std::to_string(m.sets) + " sets x 4 storage buffers, the layer's " +
         "counter): " + std::to_string(m.block_bytes) + " bytes = " +
         Fixed(static_cast<double>(m.block_bytes) / m.descriptors, 1) + " bytes per descriptor, " +
         Fixed(static_cast<double>(m.block_bytes) / m.sets, 1) + " bytes per set";
}

}  // namespace

BindingsMemory BindingsSuite::Finish() {
  for (auto& d : devices_) d.reset();
  return MeasureMemory();
}

std::string FormatBindingsTable(const std::vector<BindingsRow>& rows, const BindingsMemory& memory) {
  const auto cells = Cells(rows);
  std::vector<size_t> width(cells.front().size(), 0);
  for (const auto& row : cells) {
    for (size_t c = 0; c < row.size(); ++c) width[c] = std::max(width[c], row[c].size());
  }
  std::string out;
  for (size_t r = 0; r < cells.size(); ++r) {
    for (size_t c = 0; c < cells[r].size(); ++c) {
      const std::string& s = cells[r][c];
      const std::string pad(width[c] - s.size(), ' ');
      out += c == 0 ? s + pad : "  " + (c >= 2 && c <= 4 ? pad + s : s + pad);
    }
    out += "\n";
    if (r == 0) out += std::string(out.size() - 1, '-') + "\n";
  }
  return out + MemoryLine(memory) + "\n";
}

std::string FormatBindingsMarkdown(const std::vector<BindingsRow>& rows, const BindingsMemory& memory,
                                   const std::string& device, const std::string& date, const std::string& note) {
  const auto cells = Cells(rows);
  std::string out = "### Indirect bindings on " + device + " (" + date + ")\n\n" + note + "\n\n";
  for (size_t r = 0; r < cells.size(); ++r) {
    out += "|";
    for (const std::string& c : cells[r]) out += " " + c + " |";
    out += "\n";
    if (r == 0) out += "|---|---|---:|---:|---:|---|\n";
  }
  return out + "\n" + MemoryLine(memory) + "\n";
}

}  // namespace bindery::bench
