// fill64/* workloads of bindery_probe: where the GPU time of the layer's 64 MiB unaligned
// fill goes beyond the driver's aligned 64 MiB fill. The layer records (on NVIDIA) a
// TRANSFER -> COMPUTE barrier, one edge dispatch, the native middle fill (64 MiB - 512
// bytes at a 256-byte aligned offset), a COMPUTE -> TRANSFER barrier; each piece and each
// other order is rebuilt here by hand from native commands, so one run says which piece
// costs the difference:
//   - the middle alone (is a 64 MiB - 512 fill at +256 as fast as the aligned one?), and
//     the aligned fill as two commands (what one more command costs);
//   - the barrier bracket around the aligned fill, and each barrier alone;
//   - a one-workgroup dispatch alone, before and after the fill without barriers (does the
//     driver run a dispatch beside a fill?), and inside the bracket in both orders;
//   - the fill before the bracket (the dispatch ordered by its own barriers);
//   - an event instead of the leading barrier (the dispatch waits only for the transfers
//     recorded before the event, not for the fill between);
//   - the edges as a copy of two 255-byte regions from device-local memory, no kernel;
//   - a kernel reaching memory through pointers (as the layer's does) instead of descriptors.
// Hand-made rows run without the layer only (they are native commands; the layer passes
// them through); with the layer the row `fill 64 MiB at +1, size - 2` is the polyfill
// under the configuration's settings (bindery.fill_edges picks its order), with its bytes
// checked after the timing runs.
#include <cstdint>
#include <cstring>
#include <vector>

#include "probe_workloads.h"  // before the embedded shaders: they need <cstdint>
#include "add_pointers_spv.h"
#include "stream_op_spv.h"

namespace bindery::bench {
namespace {

constexpr int kSamples = 9;
constexpr VkDeviceSize kBig = 64ull << 20;
// The dispatch writes here, past every byte a fill touches, so no row has a hazard the
// real layer would order with a barrier.
constexpr VkDeviceSize kDispatchTarget = kBig + 256;
constexpr VkDeviceSize kBufferBytes = kBig + 512;
constexpr uint32_t kPattern = 0x01020304u;
constexpr uint32_t kCanary = 0xAAAAAAAAu;

VkMemoryBarrier MemoryBarrier(VkAccessFlags src, VkAccessFlags dst) {
  VkMemoryBarrier b{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
  b.srcAccessMask = src;
  b.dstAccessMask = dst;
  return b;
}

// Reads bytes [at, at + size) of `buffer` through a host-visible buffer; empty on failure.
std::vector<uint8_t> ReadBack(ProbeDevice& d, VkBuffer buffer, VkDeviceSize at, VkDeviceSize size) {
  test::HostBuffer host = d.CreateHostBuffer(size, VK_BUFFER_USAGE_TRANSFER_DST_BIT);
  if (host.buffer == VK_NULL_HANDLE) return {};
  const ProbeFns& fn = d.fn();
  std::vector<uint8_t> out;
  const bool ok = d.Record([&](VkCommandBuffer cb) {
    const VkMemoryBarrier before = MemoryBarrier(VK_ACCESS_TRANSFER_WRITE_BIT | VK_ACCESS_SHADER_WRITE_BIT,
                                                 VK_ACCESS_TRANSFER_READ_BIT);
    fn.CmdPipelineBarrier(cb, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT, 0, 1, &before, 0,
                          nullptr, 0, nullptr);
    const VkBufferCopy region{at, 0, size};
    fn.CmdCopyBuffer(cb, buffer, host.buffer, 1, &region);
    const VkMemoryBarrier after = MemoryBarrier(VK_ACCESS_TRANSFER_WRITE_BIT, VK_ACCESS_HOST_READ_BIT);
    fn.CmdPipelineBarrier(cb, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_HOST_BIT, 0, 1, &after, 0, nullptr, 0,
                          nullptr);
    return true;
  }) && d.SubmitAndWait();
  if (ok) {
    const auto* bytes = static_cast<const uint8_t*>(host.mapped);
    out.assign(bytes, bytes + size);
  }
  d.Destroy(host);
  return out;
}

// After a canary fill and the layer's fill of `kBig - 2` bytes at +1: the canary at bytes
// 0 and kBig - 1, the pattern (begun at offset 1) between. Checks both edges' 4 KiB and
// 4 KiB in the middle. False if any byte differs or the read failed.
bool UnalignedFillBytesRight(ProbeDevice& d, VkBuffer buffer) {
  const VkDeviceSize windows[3] = {0, kBig / 2, kBig - 4096};
  for (VkDeviceSize at : windows) {
    const std::vector<uint8_t> got = ReadBack(d, buffer, at, 4096);
    if (got.size() != 4096) return false;
    for (VkDeviceSize i = 0; i < 4096; ++i) {
      const VkDeviceSize byte = at + i;
      const uint8_t want = byte == 0 || byte == kBig - 1
                               ? static_cast<uint8_t>(kCanary)
                               : static_cast<uint8_t>(kPattern >> (8 * ((byte - 1) % 4)));
      if (got[i] != want) return false;
    }
  }
  return true;
}

}  // namespace

std::vector<ProbeResult> RunFill64Probes(ProbeDevice& d) {
  std::vector<ProbeResult> out;
  const ProbeFns& fn = d.fn();
  DeviceBuffer big = d.CreateBuffer(kBufferBytes);
  DeviceBuffer inputs = d.CreateBuffer(1024);
  if (big.buffer == VK_NULL_HANDLE || inputs.buffer == VK_NULL_HANDLE) {
    d.Destroy(big);
    d.Destroy(inputs);
    return out;
  }
  auto add = [&](const char* row, double ns) {
    if (ns >= 0) out.push_back({row, "us", ns / 1000});
  };
  auto measure = [&](const char* row, auto body) {
    add(row, MedianGpuNs(d, [&](VkCommandBuffer cb) {
          body(cb);
          return true;
        }, 1, kSamples));
  };
  auto fill = [&](VkCommandBuffer cb) { fn.CmdFillBuffer(cb, big.buffer, 0, kBig, kPattern); };
  measure("fill64/fill 64 MiB aligned (GPU)", fill);

  if (d.bindery()) {
    // The polyfill under this configuration's settings, then its bytes.
    add("fill64/fill 64 MiB at +1, size - 2 (GPU)", MedianGpuNs(d, [&](VkCommandBuffer cb) {
          fn.CmdFillBuffer(cb, big.buffer, 1, kBig - 2, kPattern);
          return true;
        }, 1, kSamples));
    const bool filled = d.Record([&](VkCommandBuffer cb) {
      fn.CmdFillBuffer(cb, big.buffer, 0, kBig, kCanary);
      const VkMemoryBarrier order = MemoryBarrier(VK_ACCESS_TRANSFER_WRITE_BIT, VK_ACCESS_TRANSFER_WRITE_BIT);
      fn.CmdPipelineBarrier(cb, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT, 0, 1, &order, 0,
                            nullptr, 0, nullptr);
      fn.CmdFillBuffer(cb, big.buffer, 1, kBig - 2, kPattern);
      return true;
    }) && d.SubmitAndWait();
    // 1 when every checked byte is right: a wrong polyfill must not pass for a fast one.
    out.push_back({"fill64/fill 64 MiB at +1: bytes right (1 = yes)", "flag",
                   filled && UnalignedFillBytesRight(d, big.buffer) ? 1.0 : 0.0});
    d.Destroy(big);
    d.Destroy(inputs);
    return out;
  }

  // The pieces, by hand (no layer).
  ProbeKernel op = d.CreateKernel(stream_op_spv, sizeof(stream_op_spv), 4, 2 * sizeof(uint32_t), 1);
  const VkDescriptorSet set = op.kernel.pipeline != VK_NULL_HANDLE ? AllocateProbeSet(d, op) : VK_NULL_HANDLE;
  PFN_vkCmdSetEvent set_event = nullptr;
  PFN_vkCmdWaitEvents wait_events = nullptr;
  VkEvent event = VK_NULL_HANDLE;
  if (LoadDeviceFn(d.device(), "vkCmdSetEvent", &set_event) &&
      LoadDeviceFn(d.device(), "vkCmdWaitEvents", &wait_events)) {
    VkEventCreateInfo eci{VK_STRUCTURE_TYPE_EVENT_CREATE_INFO};
    if (vkCreateEvent(d.device(), &eci, nullptr, &event) != VK_SUCCESS) event = VK_NULL_HANDLE;
  }
  const DeviceBuffer reads[3] = {inputs, inputs, inputs};
  if (set != VK_NULL_HANDLE) {
    WriteStorageSet(d, set, reads, 3, 0, 256);
    VkDescriptorBufferInfo target{big.buffer, kDispatchTarget, 256};
    VkWriteDescriptorSet write{VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET};
    write.dstSet = set;
    write.dstBinding = 3;
    write.descriptorCount = 1;
    write.descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
    write.pBufferInfo = &target;
    fn.UpdateDescriptorSets(d.device(), 1, &write, 0, nullptr);
  }
  // A one-workgroup dispatch with its pipeline, set and pushes bound (as the layer binds
  // its edge kernel's pipeline before each such dispatch).
  auto dispatch = [&](VkCommandBuffer cb) {
    const uint32_t args[2] = {64, 0x3f800000u};  // n = 64, scale = 1.0f
    fn.CmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_COMPUTE, op.kernel.pipeline);
    fn.CmdBindDescriptorSets(cb, VK_PIPELINE_BIND_POINT_COMPUTE, op.kernel.layout, 0, 1, &set, 0, nullptr);
    fn.CmdPushConstants(cb, op.kernel.layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof(args), args);
    fn.CmdDispatch(cb, 1, 1, 1);
  };
  auto pre = [&](VkCommandBuffer cb) {  // the layer's leading barrier
    const VkMemoryBarrier b =
        MemoryBarrier(VK_ACCESS_TRANSFER_WRITE_BIT, VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT);
    fn.CmdPipelineBarrier(cb, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, 0, 1, &b, 0,
                          nullptr, 0, nullptr);
  };
  auto post = [&](VkCommandBuffer cb) {  // the layer's trailing barrier
    const VkMemoryBarrier b =
        MemoryBarrier(VK_ACCESS_SHADER_WRITE_BIT, VK_ACCESS_TRANSFER_READ_BIT | VK_ACCESS_TRANSFER_WRITE_BIT);
    fn.CmdPipelineBarrier(cb, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT, 0, 1, &b, 0,
                          nullptr, 0, nullptr);
  };
  measure("fill64/fill 64 MiB - 512 at +256 (GPU)",
          [&](VkCommandBuffer cb) { fn.CmdFillBuffer(cb, big.buffer, 256, kBig - 512, kPattern); });
  // What a second command costs the queue, with nothing but fills.
  measure("fill64/two fills of 32 MiB (GPU)", [&](VkCommandBuffer cb) {
    fn.CmdFillBuffer(cb, big.buffer, 0, kBig / 2, kPattern);
    fn.CmdFillBuffer(cb, big.buffer, kBig / 2, kBig / 2, kPattern);
  });
  measure("fill64/barrier T->C, fill 64 MiB, barrier C->T (GPU)", [&](VkCommandBuffer cb) {
    pre(cb);
    fill(cb);
    post(cb);
  });
  measure("fill64/barrier T->C, fill 64 MiB (GPU)", [&](VkCommandBuffer cb) {
    pre(cb);
    fill(cb);
  });
  measure("fill64/fill 64 MiB, barrier C->T (GPU)", [&](VkCommandBuffer cb) {
    fill(cb);
    post(cb);
  });
  if (set != VK_NULL_HANDLE) {
    measure("fill64/dispatch alone (GPU)", dispatch);
    measure("fill64/barrier T->C, dispatch, barrier C->T (GPU)", [&](VkCommandBuffer cb) {
      pre(cb);
      dispatch(cb);
      post(cb);
    });
    measure("fill64/dispatch, fill 64 MiB, no barriers (GPU)", [&](VkCommandBuffer cb) {
      dispatch(cb);
      fill(cb);
    });
    measure("fill64/fill 64 MiB, dispatch, no barriers (GPU)", [&](VkCommandBuffer cb) {
      fill(cb);
      dispatch(cb);
    });
    measure("fill64/barrier T->C, dispatch, fill 64 MiB, barrier C->T (GPU; today's order)", [&](VkCommandBuffer cb) {
      pre(cb);
      dispatch(cb);
      fill(cb);
      post(cb);
    });
    measure("fill64/barrier T->C, fill 64 MiB, dispatch, barrier C->T (GPU)", [&](VkCommandBuffer cb) {
      pre(cb);
      fill(cb);
      dispatch(cb);
      post(cb);
    });
    measure("fill64/fill 64 MiB, barrier T->C, dispatch, barrier C->T (GPU)", [&](VkCommandBuffer cb) {
      fill(cb);
      pre(cb);
      dispatch(cb);
      post(cb);
    });
    measure("fill64/barrier T->C, dispatch, middle fill at +256, barrier C->T (GPU)", [&](VkCommandBuffer cb) {
      pre(cb);
      dispatch(cb);
      fn.CmdFillBuffer(cb, big.buffer, 256, kBig - 512, kPattern);
      post(cb);
    });
    if (event != VK_NULL_HANDLE) {
      // The event is signalled when the transfers before it are done; the dispatch waits
      // for that alone, so the fill recorded between runs beside it.
      measure("fill64/set event, fill 64 MiB, wait event T->C, dispatch, barrier C->T (GPU)", [&](VkCommandBuffer cb) {
        vkResetEvent(d.device(), event);  // the previous run is complete (waited for)
        set_event(cb, event, VK_PIPELINE_STAGE_TRANSFER_BIT);
        fill(cb);
        const VkMemoryBarrier b =
            MemoryBarrier(VK_ACCESS_TRANSFER_WRITE_BIT, VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT);
        wait_events(cb, 1, &event, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, 1, &b, 0,
                    nullptr, 0, nullptr);
        dispatch(cb);
        post(cb);
      });
    }
  }
  // The same with a kernel that reaches memory through buffer_reference pointers (as the
  // layer's edge kernel does), one workgroup: does a pointer kernel cost more beside the fill?
  ProbeKernel pointers = d.CreateKernel(add_pointers_spv, sizeof(add_pointers_spv), 0, 32, 0);
  DeviceBuffer pointed = d.CreateBuffer(1024, VK_BUFFER_USAGE_SHADER_DEVICE_ADDRESS_BIT);
  VkDeviceAddress pointed_address = 0;
  if (pointers.kernel.pipeline != VK_NULL_HANDLE && pointed.buffer != VK_NULL_HANDLE) {
    VkBufferDeviceAddressInfo info{VK_STRUCTURE_TYPE_BUFFER_DEVICE_ADDRESS_INFO};
    info.buffer = pointed.buffer;
    pointed_address = vkGetBufferDeviceAddress(d.device(), &info);
  }
  if (pointed_address != 0) {
    struct {
      VkDeviceAddress a, b, c;
      uint32_t n, pad;
    } args{pointed_address, pointed_address, pointed_address + 512, 64, 0};
    auto pointer_dispatch = [&](VkCommandBuffer cb) {
      fn.CmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_COMPUTE, pointers.kernel.pipeline);
      fn.CmdPushConstants(cb, pointers.kernel.layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof(args), &args);
      fn.CmdDispatch(cb, 1, 1, 1);
    };
    measure("fill64/pointer dispatch alone (GPU)", pointer_dispatch);
    measure("fill64/barrier T->C, pointer dispatch, fill 64 MiB, barrier C->T (GPU)", [&](VkCommandBuffer cb) {
      pre(cb);
      pointer_dispatch(cb);
      fill(cb);
      post(cb);
    });
    measure("fill64/barrier T->C, fill 64 MiB, pointer dispatch, barrier C->T (GPU)", [&](VkCommandBuffer cb) {
      pre(cb);
      fill(cb);
      pointer_dispatch(cb);
      post(cb);
    });
  }
  d.Destroy(pointers);
  d.Destroy(pointed);
  // The edges as a native copy of two 255-byte regions (what the layer did before its
  // edge kernel), from device-local memory, before the fill.
  measure("fill64/copy 2 regions of 255 B, fill 64 MiB - 512 at +256 (GPU)", [&](VkCommandBuffer cb) {
    const VkBufferCopy regions[2] = {{0, 1, 255}, {256, kBig - 256, 255}};
    fn.CmdCopyBuffer(cb, inputs.buffer, big.buffer, 2, regions);
    fn.CmdFillBuffer(cb, big.buffer, 256, kBig - 512, kPattern);
  });
  if (event != VK_NULL_HANDLE) vkDestroyEvent(d.device(), event, nullptr);
  d.Destroy(op);
  d.Destroy(big);
  d.Destroy(inputs);
  return out;
}

}  // namespace bindery::bench
