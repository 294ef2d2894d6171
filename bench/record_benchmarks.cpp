#include "record_benchmarks.h"

#include <cstdint>
#include <iterator>

#include <benchmark/benchmark.h>

namespace bindery::bench {
namespace {

constexpr uint32_t kN = kDispatchesPerIteration;

// Records the body of one command buffer (between begin and end). False on failure.
using RecordFn = bool (*)(const BenchDevice& d, VkCommandBuffer cb);

// a. Per dispatch: allocate a set, write its four storage buffers, bind it, dispatch.
bool RecordAllocUpdateBind(const BenchDevice& d, VkCommandBuffer cb) {
  const DeviceFns& fn = d.fn();
  const test::ComputeKernel& k = d.four_buffers();
  if (fn.ResetDescriptorPool(d.device(), d.set_pool(), 0) != VK_SUCCESS) return false;
  fn.CmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_COMPUTE, k.pipeline);

  VkDescriptorSetAllocateInfo alloc{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO};
  alloc.descriptorPool = d.set_pool();
  alloc.descriptorSetCount = 1;
  alloc.pSetLayouts = &k.set_layout;
  VkDescriptorBufferInfo infos[4];
  VkWriteDescriptorSet writes[4];
  for (uint32_t i = 0; i < 4; ++i) {
    infos[i] = {d.buffer(static_cast<int>(i)).buffer, 0, VK_WHOLE_SIZE};
    writes[i] = {VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET};
    writes[i].dstBinding = i;
    writes[i].descriptorCount = 1;
    writes[i].descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
    writes[i].pBufferInfo = &infos[i];
  }
  for (uint32_t n = 0; n < kN; ++n) {
    VkDescriptorSet set = VK_NULL_HANDLE;
    if (fn.AllocateDescriptorSets(d.device(), &alloc, &set) != VK_SUCCESS) return false;
    for (VkWriteDescriptorSet& w : writes) w.dstSet = set;
    fn.UpdateDescriptorSets(d.device(), 4, writes, 0, nullptr);
    fn.CmdBindDescriptorSets(cb, VK_PIPELINE_BIND_POINT_COMPUTE, k.layout, 0, 1, &set, 0, nullptr);
    fn.CmdDispatch(cb, 16, 1, 1);
  }
  return true;
}

// b. Per dispatch: bind one of the sets written at setup (in turn), dispatch.
bool RecordBindPrebuilt(const BenchDevice& d, VkCommandBuffer cb) {
  const DeviceFns& fn = d.fn();
  const test::ComputeKernel& k = d.four_buffers();
  fn.CmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_COMPUTE, k.pipeline);
  for (uint32_t n = 0; n < kN; ++n) {
    const VkDescriptorSet set = d.prebuilt_set(n % kPrebuiltSets);
    fn.CmdBindDescriptorSets(cb, VK_PIPELINE_BIND_POINT_COMPUTE, k.layout, 0, 1, &set, 0, nullptr);
    fn.CmdDispatch(cb, 16, 1, 1);
  }
  return true;
}

// c. Bind the pipeline once, then only dispatches: the layer's pure pass-through cost.
bool RecordDispatchOnly(const BenchDevice& d, VkCommandBuffer cb) {
  const DeviceFns& fn = d.fn();
  fn.CmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_COMPUTE, d.four_buffers().pipeline);
  for (uint32_t n = 0; n < kN; ++n) fn.CmdDispatch(cb, 16, 1, 1);
  return true;
}

// d. Per dispatch: 32 bytes of push constants (four buffer addresses), dispatch.
bool RecordPushAddresses(const BenchDevice& d, VkCommandBuffer cb) {
  const DeviceFns& fn = d.fn();
  const test::ComputeKernel& k = d.push_addresses();
  fn.CmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_COMPUTE, k.pipeline);
  // Never submitted, so the addresses need not be real; they change per dispatch as
  // they would when walking through a buffer.
  uint64_t addresses[4] = {0x100000, 0x200000, 0x300000, 0x400000};
  for (uint32_t n = 0; n < kN; ++n) {
    for (uint64_t& a : addresses) a += 256;
    fn.CmdPushConstants(cb, k.layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof(addresses), addresses);
    fn.CmdDispatch(cb, 16, 1, 1);
  }
  return true;
}

struct Workload {
  const char* name;
  RecordFn record;
};

constexpr Workload kWorkloads[] = {
    {"record/alloc+update 4 SSBOs+bind+dispatch", &RecordAllocUpdateBind},
    {"record/bind + dispatch of pre-built sets", &RecordBindPrebuilt},
    {"record/dispatch only", &RecordDispatchOnly},
    {"record/push constants 4 addresses + dispatch", &RecordPushAddresses},
};

// One benchmark iteration: reset the pool, begin, record, end. Null on success.
const char* RecordOnce(const BenchDevice& d, RecordFn record) {
  const DeviceFns& fn = d.fn();
  const VkCommandBuffer cb = d.command_buffer();
  VkCommandBufferBeginInfo begin{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
  begin.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
  fn.ResetCommandPool(d.device(), d.command_pool(), 0);
  fn.BeginCommandBuffer(cb, &begin);
  const bool recorded = record(d, cb);
  const VkResult end = fn.EndCommandBuffer(cb);
  if (!recorded) return "recording failed (descriptor allocation?)";
  return end == VK_SUCCESS ? nullptr : "vkEndCommandBuffer failed";
}

void RunRecordBenchmark(benchmark::State& state, BenchDevice* d, RecordFn record) {
  for (auto _ : state) {
    if (const char* error = RecordOnce(*d, record)) {
      state.SkipWithError(error);
      break;
    }
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations()) * kN);
  // Seconds per dispatch (shown as e.g. "52.1n"), from CPU time like the final table.
  state.counters["t/dispatch"] =
      benchmark::Counter(kN, benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
}

}  // namespace

std::vector<std::string> WorkloadNames() {
  std::vector<std::string> names;
  for (const Workload& w : kWorkloads) names.emplace_back(w.name);
  return names;
}

bool WarmUp(BenchDevice& device) {
  for (const Workload& w : kWorkloads) {
    for (int i = 0; i < 20; ++i) {
      if (RecordOnce(device, w.record) != nullptr) return false;
    }
  }
  return true;
}

std::vector<Registration> RegisterRecordBenchmarks(BenchDevice& no_layer, BenchDevice& bindery, int rounds) {
  std::vector<Registration> out;
  for (int round = 0; round < rounds; ++round) {
    for (size_t w = 0; w < std::size(kWorkloads); ++w) {
      for (int v = 0; v < 2; ++v) {
        // Round 0 runs no-layer first, round 1 bindery first, and so on.
        const bool on = (v == 1) != (round % 2 == 1);
        BenchDevice* device = on ? &bindery : &no_layer;
        std::string name = std::string(kWorkloads[w].name) + (on ? "/bindery" : "/no-layer");
        if (rounds > 1) name += "/round:" + std::to_string(round + 1);
        benchmark::RegisterBenchmark(name.c_str(), &RunRecordBenchmark, device, kWorkloads[w].record)
            ->Unit(benchmark::kMicrosecond);
        out.push_back({name, w, on});
      }
    }
  }
  return out;
}

}  // namespace bindery::bench
