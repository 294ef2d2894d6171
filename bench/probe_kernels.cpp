// kernel/* workloads of bindery_probe: GPU time (timestamps around one dispatch) of an
// inference runtime's kernels — quantized (q4_0, q8_0) and f16 matrix-vector products of
// 4096 columns x 14336 rows, read as uvec4 blocks from read-only storage buffers with
// subgroup + shared-memory reductions, and an element-wise add of 4096 floats. On a CPU
// device (lavapipe) the matrices have 512 rows, so a run stays short. The device enables
// shaderInt64 (probe_device.h), so rewritten kernels use 64-bit addresses and indices.
#include <string>

#include "add_spv.h"
#include "matvec_f16_spv.h"
#include "matvec_q4_0_spv.h"
#include "matvec_q8_0_spv.h"
#include "probe_add_variants.h"
#include "probe_workloads.h"

namespace bindery::bench {
namespace {

constexpr uint32_t kCols = 4096;
constexpr int kSamples = 9;

struct Shape {
  uint32_t cols;
  uint32_t rows;
};

// GPU ns of one dispatch of `k` over `buffers` (binding i = buffers[i], whole), median of
// kSamples after a warm-up; < 0 on failure.
double DispatchNs(ProbeDevice& d, ProbeKernel& k, const DeviceBuffer* buffers, const void* push, uint32_t push_bytes,
                  uint32_t groups) {
  const ProbeFns& fn = d.fn();
  const VkDescriptorSet set = AllocateProbeSet(d, k);
  if (set == VK_NULL_HANDLE) return -1;
  WriteStorageSet(d, set, buffers, k.bindings, 0, VK_WHOLE_SIZE);
  auto body = [&](VkCommandBuffer cb) {
    fn.CmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_COMPUTE, k.kernel.pipeline);
    fn.CmdBindDescriptorSets(cb, VK_PIPELINE_BIND_POINT_COMPUTE, k.kernel.layout, 0, 1, &set, 0, nullptr);
    fn.CmdPushConstants(cb, k.kernel.layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, push_bytes, push);
    fn.CmdDispatch(cb, groups, 1, 1);
    return true;
  };
  return MedianGpuNs(d, body, 2, kSamples);
}

// Fills every buffer once with a pattern that decodes to finite numbers (halves of 1.0,
// small nibbles and bytes), so no kernel runs on NaNs.
bool Initialise(ProbeDevice& d, const DeviceBuffer* buffers, uint32_t count) {
  return d.Record([&](VkCommandBuffer cb) {
    for (uint32_t i = 0; i < count; ++i) d.fn().CmdFillBuffer(cb, buffers[i].buffer, 0, VK_WHOLE_SIZE, 0x3c003c00u);
    return true;
  }) && d.SubmitAndWait();
}

}  // namespace

std::vector<ProbeResult> RunKernelProbes(ProbeDevice& d) {
  std::vector<ProbeResult> out;
  const Shape shape{kCols, d.is_cpu() ? 512u : 14336u};
  const std::string dims = std::to_string(shape.cols) + "x" + std::to_string(shape.rows);
  const uint64_t blocks = uint64_t{shape.cols} / 32 * shape.rows;

  struct Matvec {
    const char* name;
    const uint32_t* spirv;
    size_t bytes;
    uint64_t weight_bytes;
    uint64_t scale_bytes;
  };
  const Matvec kernels[] = {
      {"q4_0", matvec_q4_0_spv, sizeof(matvec_q4_0_spv), blocks * 16, blocks * 2 + 4},
      {"q8_0", matvec_q8_0_spv, sizeof(matvec_q8_0_spv), blocks * 32, blocks * 2 + 4},
      {"f16", matvec_f16_spv, sizeof(matvec_f16_spv), uint64_t{shape.cols} * shape.rows * 2, 16},
  };
  for (const Matvec& m : kernels) {
    ProbeKernel k = d.CreateKernel(m.spirv, m.bytes, 4, sizeof(Shape), 1);
    DeviceBuffer buffers[4] = {d.CreateBuffer(m.weight_bytes), d.CreateBuffer(uint64_t{shape.cols} * 4),
                               d.CreateBuffer(uint64_t{shape.rows} * 4), d.CreateBuffer(m.scale_bytes)};
    bool ok = k.pool != VK_NULL_HANDLE && Initialise(d, buffers, 4);
    for (const DeviceBuffer& b : buffers) ok = ok && b.buffer != VK_NULL_HANDLE;
    const double ns = ok ? DispatchNs(d, k, buffers, &shape, sizeof(shape), shape.rows) : -1;
    if (ns >= 0) out.push_back({"kernel/matvec " + std::string(m.name) + " " + dims + " (GPU)", "us", ns / 1000});
    for (DeviceBuffer& b : buffers) d.Destroy(b);
    d.Destroy(k);
  }

  constexpr uint32_t kAddN = 4096;
  ProbeKernel add = d.CreateKernel(add_spv, sizeof(add_spv), 3, sizeof(uint32_t), 1);
  DeviceBuffer buffers[3] = {d.CreateBuffer(kAddN * 4), d.CreateBuffer(kAddN * 4), d.CreateBuffer(kAddN * 4)};
  bool ok = add.pool != VK_NULL_HANDLE && Initialise(d, buffers, 3);
  for (const DeviceBuffer& b : buffers) ok = ok && b.buffer != VK_NULL_HANDLE;
  const double ns = ok ? DispatchNs(d, add, buffers, &kAddN, sizeof(kAddN), kAddN / 256) : -1;
  if (ns >= 0) out.push_back({"kernel/add 4096 floats (GPU)", "us", ns / 1000});
  for (DeviceBuffer& b : buffers) d.Destroy(b);
  d.Destroy(add);

  // The same add without descriptors (the layer leaves these alone): written by hand with
  // buffer pointers, and the rewrite's module with its variants.
  RunAddVariantProbes(d, kAddN, out);
  return out;
}

}  // namespace bindery::bench
