// kernel/add rows without descriptors: the 4096-float add written by hand with buffer pointers
// in push constants, and hand-made variants of the module Bindery's rewrite emits for
// add.comp, each run natively (no descriptor sets: the layer leaves them alone). They tell
// which shape of the rewritten code costs the driver's compiler a dispatch's GPU time: the
// rewrite's own output against the same module with each element reached through a typed
// access chain, with the addresses loaded where they are used, and so on
// (bench/shaders/add_variants/). Every row checks its result (c = a + b for every element)
// and is left out, with a message on stderr, when it is wrong.
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "add_pointers_integer_spv.h"
#include "add_pointers_root_layout_spv.h"
#include "add_pointers_spv.h"
#include "add_rewritten_chain32_spv.h"
#include "add_rewritten_chain64_late_spv.h"
#include "add_rewritten_blockint_spv.h"
#include "add_rewritten_chain64_spv.h"
#include "add_rewritten_late_spv.h"
#include "add_rewritten_ptrchain64_spv.h"
#include "add_rewritten_spv.h"
#include "probe_add_variants.h"
#include "support/vk_objects.h"

namespace bindery::bench {
namespace {

constexpr int kSamples = 9;

// Where a variant reads its three addresses and n from push constants.
enum class PushShape {
  kPointers,  // add_pointers.comp: { a, b, c addresses; uint n }
  kRecords,   // the rewrite's root: { uint n; pad; {address, size} x 3 at 8, 24, 40 }
};

struct PointerArgs {
  VkDeviceAddress a, b, c;
  uint32_t n, pad;
};
struct RecordArgs {
  uint32_t n, pad;
  struct {
    VkDeviceAddress address;
    uint64_t size;
  } records[3];
};
static_assert(sizeof(RecordArgs) == 56, "the rewrite's root for add.comp is 56 bytes");

struct AddVariant {
  const char* row;
  const uint32_t* spirv;
  size_t bytes;
  PushShape shape;
  uint32_t push_range;
  // The layout's push range and every push name all graphics stages and compute, as the
  // layer's root does (kRootStages), and the layout has no set: the layer's forced layout.
  bool every_stage = false;
  // With every_stage and PushShape::kRecords: the layer's own layout for add.comp, two
  // ranges (compute over [0, 256), every graphics stage over [8, 256)); the root [8, 56)
  // pushed naming every stage, then n [0, 4) naming compute, as the forced bind and the
  // application's push go down.
  bool layer_ranges = false;
};

// A pipeline of `v` in a layout without sets whose `v.push_range` bytes of push constants
// are for every graphics stage and compute (the shape of the layer's converted layouts).
struct EveryStagePipeline {
  VkDevice device = VK_NULL_HANDLE;
  VkPipelineLayout layout = VK_NULL_HANDLE;
  VkPipeline pipeline = VK_NULL_HANDLE;
  // Nothing when `d` is null (a variant in the harness's usual layout).
  EveryStagePipeline(VkDevice d, const AddVariant& v) : device(d) {
    if (d == VK_NULL_HANDLE) return;
    if (v.layer_ranges) {
      const VkPushConstantRange ranges[2] = {{VK_SHADER_STAGE_COMPUTE_BIT, 0, v.push_range},
                                             {VK_SHADER_STAGE_ALL_GRAPHICS, 8, v.push_range - 8}};
      VkPipelineLayoutCreateInfo info{VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO};
      info.pushConstantRangeCount = 2;
      info.pPushConstantRanges = ranges;
      if (vkCreatePipelineLayout(d, &info, nullptr, &layout) != VK_SUCCESS) layout = VK_NULL_HANDLE;
    } else {
      layout = test::CreatePipelineLayout(d, {}, v.push_range, kEveryStage);
    }
    if (layout != VK_NULL_HANDLE) pipeline = test::CreateComputePipeline(d, layout, v.spirv, v.bytes);
  }
  ~EveryStagePipeline() {
    if (pipeline != VK_NULL_HANDLE) vkDestroyPipeline(device, pipeline, nullptr);
    if (layout != VK_NULL_HANDLE) vkDestroyPipelineLayout(device, layout, nullptr);
  }
  EveryStagePipeline(const EveryStagePipeline&) = delete;
  EveryStagePipeline& operator=(const EveryStagePipeline&) = delete;
  static constexpr VkShaderStageFlags kEveryStage = VK_SHADER_STAGE_ALL_GRAPHICS | VK_SHADER_STAGE_COMPUTE_BIT;
};

// Fills a (i) and b (i / 2) through a host buffer, c with -1; after the kernel, whether
// c[i] == a[i] + b[i] for all i (exact in floats for these sizes).
class AddData {
 public:
  AddData(ProbeDevice& d, uint32_t n) : d_(d), n_(n) {
    host_ = d.CreateHostBuffer(uint64_t{n} * 4 * 3,
                               VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT);
    for (int i = 0; i < 3; ++i) buffers_[i] = d.CreateBuffer(uint64_t{n} * 4, VK_BUFFER_USAGE_SHADER_DEVICE_ADDRESS_BIT);
  }
  ~AddData() {
    for (DeviceBuffer& b : buffers_) {
      if (b.buffer != VK_NULL_HANDLE) d_.Destroy(b);
    }
    if (host_.buffer != VK_NULL_HANDLE) d_.Destroy(host_);
  }
  AddData(const AddData&) = delete;
  AddData& operator=(const AddData&) = delete;

  bool ok() const {
    bool ok = host_.mapped != nullptr;
    for (const DeviceBuffer& b : buffers_) ok = ok && b.buffer != VK_NULL_HANDLE;
    return ok;
  }
  VkDeviceAddress Address(int i) const {
    VkBufferDeviceAddressInfo info{VK_STRUCTURE_TYPE_BUFFER_DEVICE_ADDRESS_INFO};
    info.buffer = buffers_[i].buffer;
    return vkGetBufferDeviceAddress(d_.device(), &info);
  }
  uint64_t Bytes() const { return uint64_t{n_} * 4; }

  bool Upload() {
    float* f = static_cast<float*>(host_.mapped);
    for (uint32_t i = 0; i < n_; ++i) {
      f[i] = static_cast<float>(i);
      f[n_ + i] = static_cast<float>(i) * 0.5f;
      f[2 * n_ + i] = -1.0f;
    }
    return d_.Record([&](VkCommandBuffer cb) {
      for (uint32_t i = 0; i < 3; ++i) {
        const VkBufferCopy copy{Bytes() * i, 0, Bytes()};
        d_.fn().CmdCopyBuffer(cb, host_.buffer, buffers_[i].buffer, 1, &copy);
      }
      return true;
    }) && d_.SubmitAndWait();
  }

  // Reads c back; true when every element is a + b.
  bool Check(std::string* what) {
    float* f = static_cast<float*>(host_.mapped);
    for (uint32_t i = 0; i < n_; ++i) f[2 * n_ + i] = -2.0f;
    const bool read = d_.Record([&](VkCommandBuffer cb) {
      const VkBufferCopy copy{0, Bytes() * 2, Bytes()};
      d_.fn().CmdCopyBuffer(cb, buffers_[2].buffer, host_.buffer, 1, &copy);
      return true;
    }) && d_.SubmitAndWait();
    if (!read) {
      *what = "reading the result back failed";
      return false;
    }
    for (uint32_t i = 0; i < n_; ++i) {
      const float want = static_cast<float>(i) * 1.5f;
      if (f[2 * n_ + i] != want) {
        *what = "c[" + std::to_string(i) + "] = " + std::to_string(f[2 * n_ + i]) + ", want " + std::to_string(want);
        return false;
      }
    }
    return true;
  }

 private:
  ProbeDevice& d_;
  uint32_t n_;
  test::HostBuffer host_;
  DeviceBuffer buffers_[3];
};

// GPU ns of one dispatch of `v` over n floats, after checking its result; < 0 on failure.
double VariantNs(ProbeDevice& d, const AddVariant& v, uint32_t n) {
  AddData data(d, n);
  if (!data.ok() || !data.Upload()) return -1;
  PointerArgs pointers{data.Address(0), data.Address(1), data.Address(2), n, 0};
  RecordArgs records{n, 0, {{data.Address(0), data.Bytes()}, {data.Address(1), data.Bytes()}, {data.Address(2), data.Bytes()}}};
  const void* push = v.shape == PushShape::kPointers ? static_cast<const void*>(&pointers) : &records;
  const uint32_t push_bytes = v.shape == PushShape::kPointers ? sizeof(pointers) : sizeof(records);

  ProbeKernel k = v.every_stage ? ProbeKernel{} : d.CreateKernel(v.spirv, v.bytes, 0, v.push_range, 0);
  EveryStagePipeline every(v.every_stage ? d.device() : VK_NULL_HANDLE, v);
  const VkPipeline pipeline = v.every_stage ? every.pipeline : k.kernel.pipeline;
  const VkPipelineLayout layout = v.every_stage ? every.layout : k.kernel.layout;
  const VkShaderStageFlags stages =
      v.every_stage ? EveryStagePipeline::kEveryStage
                                            : VkShaderStageFlags{VK_SHADER_STAGE_COMPUTE_BIT};
  if (pipeline == VK_NULL_HANDLE) {
    std::fprintf(stderr, "bindery_probe: %s: pipeline creation failed\n", v.row);
    d.Destroy(k);
    return -1;
  }
  const ProbeFns& fn = d.fn();
  auto body = [&](VkCommandBuffer cb) {
    fn.CmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_COMPUTE, pipeline);
    if (v.layer_ranges) {
      fn.CmdPushConstants(cb, layout, EveryStagePipeline::kEveryStage, 8, push_bytes - 8,
                          static_cast<const uint8_t*>(push) + 8);
      fn.CmdPushConstants(cb, layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, 4, push);
    } else {
      fn.CmdPushConstants(cb, layout, stages, 0, push_bytes, push);
    }
    fn.CmdDispatch(cb, n / 256, 1, 1);
    return true;
  };
  // One checked run first: a variant that computes the wrong thing measures nothing.
  std::string wrong;
  double ns = d.GpuNs(body) >= 0 && data.Check(&wrong) ? MedianGpuNs(d, body, 1, kSamples) : -1;
  if (!wrong.empty()) std::fprintf(stderr, "bindery_probe: %s: wrong result: %s\n", v.row, wrong.c_str());
  if (!v.every_stage) d.Destroy(k);
  return ns;
}

}  // namespace

void RunAddVariantProbes(ProbeDevice& d, uint32_t n, std::vector<ProbeResult>& out) {
  // The hand-written pointer add with a 32-byte push range and with the whole 256 bytes (the
  // layer's layouts cover [begin, maxPushConstantsSize) for every stage); then the rewrite's
  // module and its variants, fed the root the layer would push.
  const AddVariant variants[] = {
      {"kernel/add 4096 floats, pointers by hand (GPU)", add_pointers_spv, sizeof(add_pointers_spv),
       PushShape::kPointers, 32},
      {"kernel/add 4096 floats, pointers by hand, 256-byte push range (GPU)", add_pointers_spv,
       sizeof(add_pointers_spv), PushShape::kPointers, 256},
      {"kernel/add 4096 floats, pointers by hand, integer addressing (GPU)", add_pointers_integer_spv,
       sizeof(add_pointers_integer_spv), PushShape::kPointers, 32},
      {"kernel/add 4096 floats, pointers by hand, the root's push layout (GPU)", add_pointers_root_layout_spv,
       sizeof(add_pointers_root_layout_spv), PushShape::kRecords, 56},
      {"kernel/add 4096 floats, rewritten module as emitted (GPU)", add_rewritten_spv, sizeof(add_rewritten_spv),
       PushShape::kRecords, 56},
      {"kernel/add 4096 floats, rewritten, addresses loaded at use (GPU)", add_rewritten_late_spv,
       sizeof(add_rewritten_late_spv), PushShape::kRecords, 56},
      {"kernel/add 4096 floats, rewritten, typed chain 64-bit index (GPU)", add_rewritten_chain64_spv,
       sizeof(add_rewritten_chain64_spv), PushShape::kRecords, 56},
      {"kernel/add 4096 floats, rewritten, typed chain 64-bit index, loaded at use (GPU)",
       add_rewritten_chain64_late_spv, sizeof(add_rewritten_chain64_late_spv), PushShape::kRecords, 56},
      {"kernel/add 4096 floats, rewritten, typed chain 32-bit index (GPU)", add_rewritten_chain32_spv,
       sizeof(add_rewritten_chain32_spv), PushShape::kRecords, 56},
      {"kernel/add 4096 floats, rewritten, ptr chain 64-bit index (GPU)", add_rewritten_ptrchain64_spv,
       sizeof(add_rewritten_ptrchain64_spv), PushShape::kRecords, 56},
      {"kernel/add 4096 floats, rewritten, block pointer moved in 64-bit, typed chain (GPU)",
       add_rewritten_blockint_spv, sizeof(add_rewritten_blockint_spv), PushShape::kRecords, 56},
      // The layer's layout shape: no sets, 256 bytes of push constants for every stage.
      {"kernel/add 4096 floats, pointers by hand, pushed to every stage (GPU)", add_pointers_spv,
       sizeof(add_pointers_spv), PushShape::kPointers, 256, true},
      {"kernel/add 4096 floats, rewritten module as emitted, pushed to every stage (GPU)", add_rewritten_spv,
       sizeof(add_rewritten_spv), PushShape::kRecords, 256, true},
      {"kernel/add 4096 floats, rewritten module as emitted, the layer's ranges and pushes (GPU)", add_rewritten_spv,
       sizeof(add_rewritten_spv), PushShape::kRecords, 256, true, true},
      {"kernel/add 4096 floats, rewritten, block pointer moved, pushed to every stage (GPU)",
       add_rewritten_blockint_spv, sizeof(add_rewritten_blockint_spv), PushShape::kRecords, 256, true},
  };
  for (const AddVariant& v : variants) {
    if (!RowWanted(v.row)) continue;
    const double ns = VariantNs(d, v, n);
    if (ns >= 0) out.push_back({v.row, "us", ns / 1000});
  }
}

}  // namespace bindery::bench
