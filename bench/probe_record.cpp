// record/* and stream/* workloads of bindery_probe.
#include <time.h>

#include <chrono>
#include <type_traits>
#include <cstring>

#include "four_buffers_spv.h"
#include "probe_workloads.h"
#include "stream_op_spv.h"

namespace bindery::bench {
namespace {

constexpr uint32_t kCommands = kRecordCommands;
constexpr uint32_t kPrebuiltSets = 16;

double WallNs() {
  return static_cast<double>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
          .count());
}

VkDescriptorSet AllocateSet(ProbeDevice& d, const ProbeKernel& k) { return AllocateProbeSet(d, k); }

struct StreamArgs {
  uint32_t n;
  float scale;
};

}  // namespace

std::vector<ProbeResult> RunRecordProbes(ProbeDevice& d) {
  std::vector<ProbeResult> out;
  const ProbeFns& fn = d.fn();
  ProbeKernel four = d.CreateKernel(four_buffers_spv, sizeof(four_buffers_spv), 4, 0, kCommands + kPrebuiltSets);
  ProbeKernel pushed = d.CreateKernel(stream_op_spv, sizeof(stream_op_spv), 4, sizeof(StreamArgs), 1);
  DeviceBuffer buffers[4];
  for (DeviceBuffer& b : buffers) b = d.CreateBuffer(64 * 1024);
  if (four.pool == VK_NULL_HANDLE || pushed.pool == VK_NULL_HANDLE || buffers[3].buffer == VK_NULL_HANDLE) {
    return out;
  }
  // Pre-built sets live in their own pool: the alloc workload resets four.pool.
  ProbeKernel prebuilt_pool = d.CreateKernel(four_buffers_spv, sizeof(four_buffers_spv), 4, 0, kPrebuiltSets);
  VkDescriptorSet prebuilt[kPrebuiltSets] = {};
  for (VkDescriptorSet& set : prebuilt) {
    VkDescriptorSetAllocateInfo alloc{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO};
    alloc.descriptorPool = prebuilt_pool.pool;
    alloc.descriptorSetCount = 1;
    alloc.pSetLayouts = &four.kernel.set_layout;
    if (fn.AllocateDescriptorSets(d.device(), &alloc, &set) != VK_SUCCESS) return out;
    WriteStorageSet(d, set, buffers, 4, 0, VK_WHOLE_SIZE);
  }
  const StreamArgs args{64, 0.5f};
  // `measure` runs only for rows bindery_probe --rows selects.
  auto add = [&](const char* row, auto&& measure) {
    if (!RowWanted(row)) return;
    const double ns = measure();
    if (ns >= 0) out.push_back({row, "ns/cmd", ns});
  };

  // kCommands push-constant updates, each followed by a dispatch or alone (the push's own
  // cost); `with_dispatch` is a compile-time choice so the timed loop has no extra branch.
  auto pushes = [&](auto with_dispatch) {
    return [&](VkCommandBuffer cb) {
      fn.CmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_COMPUTE, pushed.kernel.pipeline);
      StreamArgs a = args;
      for (uint32_t i = 0; i < kCommands; ++i) {
        a.n = i;
        fn.CmdPushConstants(cb, pushed.kernel.layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof(a), &a);
        if constexpr (decltype(with_dispatch)::value) fn.CmdDispatch(cb, 1, 1, 1);
      }
      return true;
    };
  };
  add("record/push constants 8 B (no dispatch)", [&] { return PerRecordedCommandNs(d, pushes(std::false_type{})); });
  add("record/push constants 8 B + dispatch", [&] { return PerRecordedCommandNs(d, pushes(std::true_type{})); });
  add("record/dispatch only", [&] { return PerRecordedCommandNs(d, [&](VkCommandBuffer cb) {
        fn.CmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_COMPUTE, four.kernel.pipeline);
        for (uint32_t i = 0; i < kCommands; ++i) fn.CmdDispatch(cb, 1, 1, 1);
        return true;
      }); });
  // The push rows' pipeline dispatched with its push constants set once before: that
  // pipeline's dispatch floor, so that `push constants 8 B + dispatch` minus this row minus
  // the push alone is what a push costs the dispatch after it (a root is such a push).
  add("record/push-constant kernel: dispatches after one push", [&] { return PerRecordedCommandNs(d, [&](VkCommandBuffer cb) {
        fn.CmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_COMPUTE, pushed.kernel.pipeline);
        fn.CmdPushConstants(cb, pushed.kernel.layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof(args), &args);
        for (uint32_t i = 0; i < kCommands; ++i) fn.CmdDispatch(cb, 1, 1, 1);
        return true;
      }); });
  add("record/bind pre-built set + dispatch", [&] { return PerRecordedCommandNs(d, [&](VkCommandBuffer cb) {
        fn.CmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_COMPUTE, four.kernel.pipeline);
        for (uint32_t i = 0; i < kCommands; ++i) {
          fn.CmdBindDescriptorSets(cb, VK_PIPELINE_BIND_POINT_COMPUTE, four.kernel.layout, 0, 1,
                                   &prebuilt[i % kPrebuiltSets], 0, nullptr);
          fn.CmdDispatch(cb, 1, 1, 1);
        }
        return true;
      }); });
  add("record/alloc+update 4 SSBOs+bind+dispatch", [&] { return PerRecordedCommandNs(d, [&](VkCommandBuffer cb) {
        if (fn.ResetDescriptorPool(d.device(), four.pool, 0) != VK_SUCCESS) return false;
        fn.CmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_COMPUTE, four.kernel.pipeline);
        for (uint32_t i = 0; i < kCommands; ++i) {
          const VkDescriptorSet set = AllocateSet(d, four);
          if (set == VK_NULL_HANDLE) return false;
          WriteStorageSet(d, set, buffers, 4, 0, VK_WHOLE_SIZE);
          fn.CmdBindDescriptorSets(cb, VK_PIPELINE_BIND_POINT_COMPUTE, four.kernel.layout, 0, 1, &set, 0, nullptr);
          fn.CmdDispatch(cb, 1, 1, 1);
        }
        return true;
      }); });
  d.Destroy(prebuilt_pool);
  d.Destroy(four);
  d.Destroy(pushed);
  for (DeviceBuffer& b : buffers) d.Destroy(b);
  return out;
}

std::vector<ProbeResult> RunStreamProbes(ProbeDevice& d) {
  // Per submit, as an inference runtime records one step: 256 small dispatches, each with
  // its own descriptor set (allocated, written with 256-byte windows of four buffers,
  // bound), push constants and a compute barrier after it; four 4 KiB copies and a fill.
  constexpr uint32_t kDispatches = 256;
  constexpr VkDeviceSize kWindow = 256;
  std::vector<ProbeResult> out;
  const ProbeFns& fn = d.fn();
  ProbeKernel op = d.CreateKernel(stream_op_spv, sizeof(stream_op_spv), 4, sizeof(StreamArgs), kDispatches);
  DeviceBuffer buffers[4];
  for (DeviceBuffer& b : buffers) b = d.CreateBuffer(kDispatches * kWindow);
  DeviceBuffer scratch = d.CreateBuffer(64 * 1024);
  if (op.pool == VK_NULL_HANDLE || buffers[3].buffer == VK_NULL_HANDLE || scratch.buffer == VK_NULL_HANDLE) return out;
  const VkDeviceSize align = d.limits().minStorageBufferOffsetAlignment;
  const VkDeviceSize window = (kWindow + align - 1) / align * align;
  if (window * kDispatches > buffers[0].size) return out;

  auto record = [&](VkCommandBuffer cb) {
    if (fn.ResetDescriptorPool(d.device(), op.pool, 0) != VK_SUCCESS) return false;
    VkMemoryBarrier barrier{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
    barrier.srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT;
    barrier.dstAccessMask = VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_READ_BIT |
                            VK_ACCESS_TRANSFER_WRITE_BIT;
    constexpr VkPipelineStageFlags kStages = VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT;
    fn.CmdFillBuffer(cb, scratch.buffer, 0, 4096, 0);
    fn.CmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_COMPUTE, op.kernel.pipeline);
    for (uint32_t i = 0; i < kDispatches; ++i) {
      if (i % 64 == 63) {  // a copy between layers of the model
        const VkBufferCopy copy{0, 4096 * (i / 64 % 8 + 1), 4096};
        fn.CmdCopyBuffer(cb, scratch.buffer, scratch.buffer, 1, &copy);
        fn.CmdPipelineBarrier(cb, kStages, kStages, 0, 1, &barrier, 0, nullptr, 0, nullptr);
      }
      const VkDescriptorSet set = AllocateSet(d, op);
      if (set == VK_NULL_HANDLE) return false;
      WriteStorageSet(d, set, buffers, 4, window * i, kWindow);
      fn.CmdBindDescriptorSets(cb, VK_PIPELINE_BIND_POINT_COMPUTE, op.kernel.layout, 0, 1, &set, 0, nullptr);
      const StreamArgs a{64, 0.5f + static_cast<float>(i)};
      fn.CmdPushConstants(cb, op.kernel.layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof(a), &a);
      fn.CmdDispatch(cb, 1, 1, 1);
      fn.CmdPipelineBarrier(cb, kStages, kStages, 0, 1, &barrier, 0, nullptr, 0, nullptr);
    }
    return true;
  };
  for (int i = 0; i < 5; ++i) {
    if (!d.Record(record) || !d.SubmitAndWait()) return out;
  }
  std::vector<double> record_us, total_us;
  for (int i = 0; i < 11; ++i) {
    const double t0 = WallNs();
    const double c0 = ThreadNs();
    if (!d.Record(record)) return out;
    const double c1 = ThreadNs();
    if (!d.SubmitAndWait()) return out;
    total_us.push_back((WallNs() - t0) / 1000);
    record_us.push_back((c1 - c0) / 1000);
  }
  out.push_back({"stream/256 dispatches: record (CPU)", "us/submit", Median(record_us)});
  out.push_back({"stream/256 dispatches: record + submit + wait (wall)", "us/submit", Median(total_us)});
  d.Destroy(op);
  for (DeviceBuffer& b : buffers) d.Destroy(b);
  d.Destroy(scratch);
  return out;
}

}  // namespace bindery::bench
