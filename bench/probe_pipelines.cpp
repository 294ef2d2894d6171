// pipeline/* workloads of bindery_probe: CPU time of vkCreateComputePipelines +
// vkDestroyPipeline for a pipeline made again and again from one module and one layout
// (4 storage buffers, 8 bytes of push constants). Under BINDERY_INDIRECT_BINDINGS=force the
// first creation rewrites the module; every later one is served from the rewrite cache (the
// driver is handed the same rewritten module each time, which its own caches recognise), so
// forced minus native is what the layer adds to a cached pipeline creation.
#include <string>

#include "four_buffers_spv.h"
#include "probe_workloads.h"

namespace bindery::bench {
namespace {

constexpr int kWarmUp = 50;       // creations before sampling (the first rewrites)
constexpr int kPerSample = 200;   // creations per sample
constexpr int kSamples = 15;

}  // namespace

std::vector<ProbeResult> RunPipelineProbes(ProbeDevice& d) {
  std::vector<ProbeResult> out;
  ProbeKernel k = d.CreateKernel(four_buffers_spv, sizeof(four_buffers_spv), 4, 8, 1);
  if (k.kernel.pipeline == VK_NULL_HANDLE) return out;
  auto vkCreate = reinterpret_cast<PFN_vkCreateComputePipelines>(
      vkGetDeviceProcAddr(d.device(), "vkCreateComputePipelines"));
  auto vkDestroy = reinterpret_cast<PFN_vkDestroyPipeline>(vkGetDeviceProcAddr(d.device(), "vkDestroyPipeline"));
  VkComputePipelineCreateInfo info{VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO};
  info.stage = {VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO};
  info.stage.stage = VK_SHADER_STAGE_COMPUTE_BIT;
  info.stage.module = k.kernel.module;
  info.stage.pName = "main";
  info.layout = k.kernel.layout;
  info.basePipelineIndex = -1;
  auto once = [&]() {
    VkPipeline pipeline = VK_NULL_HANDLE;
    if (vkCreate(d.device(), VK_NULL_HANDLE, 1, &info, nullptr, &pipeline) != VK_SUCCESS) return false;
    vkDestroy(d.device(), pipeline, nullptr);
    return true;
  };
  bool ok = true;
  for (int i = 0; i < kWarmUp && ok; ++i) ok = once();
  std::vector<double> us;
  for (int s = 0; s < kSamples && ok; ++s) {
    const double t0 = ThreadNs();
    for (int i = 0; i < kPerSample && ok; ++i) ok = once();
    us.push_back((ThreadNs() - t0) / kPerSample / 1000.0);
  }
  d.Destroy(k);
  if (ok) out.push_back({"pipeline/create + destroy compute pipeline, same module (rewrite cache) (CPU)", "us", Median(us)});
  return out;
}

}  // namespace bindery::bench
