// A compute program that asks for more than the driver offers: one shader reading 40
// storage buffers from one set and stage (lavapipe allows 32 per stage) and adding them
// up. It knows nothing about Bindery and enables validation itself (synchronization
// validation on), as a debug build would. scripts/demo runs it twice: without Bindery
// validation reports the layout beyond the driver's limits; under Bindery with the
// default indirect_bindings=auto the layout converts (the buffers become address records
// the rewritten shader loads), the sum is right and validation below the layer is silent.
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "demo_report.h"
#include "many_buffers_comp.h"
#include "support/vk_harness.h"
#include "support/vk_objects.h"

namespace {

constexpr const char* kTag = "demo-limits";
constexpr uint32_t kBuffers = 40;  // binding 0 of many_buffers.comp; binding 1 is the sum

bool Fail(std::string* why, const char* what) {
  *why = what;
  return false;
}

// Runs the shader once; returns false (and says why) where a call fails.
bool RunSum(bindery::test::VkHarness& h, const std::vector<VkBuffer>& inputs, VkBuffer sum, std::string* why,
            size_t* printed) {
  using namespace bindery::test;
  VkDevice d = h.device();
  ObjectBag bag(d);
  const VkDescriptorSetLayout set_layout =
      bag.Keep(CreateSetLayout(d, {{0, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, kBuffers, VK_SHADER_STAGE_COMPUTE_BIT, nullptr},
                                   {1, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1, VK_SHADER_STAGE_COMPUTE_BIT, nullptr}}));
  std::printf("%s: vkCreateDescriptorSetLayout (40 + 1 storage buffers): %s\n", kTag, set_layout ? "created" : "failed");
  bindery::demo::PrintNewValidation(kTag, h, printed);
  if (set_layout == VK_NULL_HANDLE) return Fail(why, "set layout refused");
  const VkPipelineLayout layout = bag.Keep(CreatePipelineLayout(d, {set_layout}));
  std::printf("%s: vkCreatePipelineLayout: %s\n", kTag, layout ? "created" : "failed");
  bindery::demo::PrintNewValidation(kTag, h, printed);
  if (layout == VK_NULL_HANDLE) return Fail(why, "pipeline layout refused");
  const VkPipeline pipeline = bag.Keep(CreateComputePipeline(d, layout, many_buffers_comp, sizeof(many_buffers_comp)));
  std::printf("%s: vkCreateComputePipelines: %s\n", kTag, pipeline ? "created" : "failed");
  bindery::demo::PrintNewValidation(kTag, h, printed);
  if (pipeline == VK_NULL_HANDLE) return Fail(why, "pipeline refused");
  const VkDescriptorPool pool = bag.Keep(CreateDescriptorPool(d, 1, {{VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, kBuffers + 1}}));
  const VkDescriptorSet set = AllocateSet(d, pool, set_layout);
  if (set == VK_NULL_HANDLE) return Fail(why, "descriptor set allocation refused");
  std::vector<VkDescriptorBufferInfo> infos;
  for (VkBuffer buffer : inputs) infos.push_back({buffer, 0, VK_WHOLE_SIZE});
  const VkDescriptorBufferInfo sum_info{sum, 0, VK_WHOLE_SIZE};
  const VkWriteDescriptorSet w[2] = {BufferWrite(set, 0, 0, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, infos.data(), kBuffers),
                                     BufferWrite(set, 1, 0, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, &sum_info)};
  vkUpdateDescriptorSets(d, 2, w, 0, nullptr);
  std::printf("%s: recording and submitting the dispatch\n", kTag);
  VkCommandBuffer cb = h.BeginCommands();
  vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_COMPUTE, pipeline);
  vkCmdBindDescriptorSets(cb, VK_PIPELINE_BIND_POINT_COMPUTE, layout, 0, 1, &set, 0, nullptr);
  vkCmdDispatch(cb, 1, 1, 1);
  BarrierToHost(cb);
  const VkResult r = h.SubmitAndWait(cb);
  std::printf("%s: dispatch submitted and waited: %d\n", kTag, r);
  if (r != VK_SUCCESS) return Fail(why, "submission failed");
  return true;
}

}  // namespace

int main() {
  std::setvbuf(stdout, nullptr, _IOLBF, 0);  // every line out before a crash in the driver
  bindery::test::HarnessOptions options;
  options.bindery = false;  // the program does not ask for Bindery; VK_INSTANCE_LAYERS may add it
  bindery::test::VkHarness h(options);
  if (!h.ok()) return bindery::demo::Verdict(kTag, false, h.error());
  VkPhysicalDeviceProperties props;
  vkGetPhysicalDeviceProperties(h.physical_device(), &props);
  std::printf("%s: %s reports maxPerStageDescriptorStorageBuffers %u, maxDescriptorSetStorageBuffers %u; "
              "the shader needs %u in one stage and set\n",
              kTag, props.deviceName, props.limits.maxPerStageDescriptorStorageBuffers,
              props.limits.maxDescriptorSetStorageBuffers, kBuffers + 1);

  std::vector<bindery::test::HostBuffer> inputs;
  std::vector<VkBuffer> handles;
  uint32_t expected = 0;
  for (uint32_t i = 0; i < kBuffers; ++i) {
    inputs.push_back(h.CreateHostBuffer(16, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT));
    static_cast<uint32_t*>(inputs.back().mapped)[0] = 3 * i + 1;
    handles.push_back(inputs.back().buffer);
    expected += (3 * i + 1) * (i + 1);
  }
  bindery::test::HostBuffer sum = h.CreateHostBuffer(16, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT);
  std::memset(sum.mapped, 0, 16);
  std::string why;
  size_t printed = 0;
  const bool ran = RunSum(h, handles, sum.buffer, &why, &printed);
  const uint32_t got = static_cast<const uint32_t*>(sum.mapped)[0];
  if (ran) std::printf("%s: sum of the 40 buffers: %u (expected %u)\n", kTag, got, expected);
  for (bindery::test::HostBuffer& b : inputs) h.Destroy(b);
  h.Destroy(sum);
  h.DestroyDevice();
  const size_t problems = bindery::demo::ReportValidation(kTag, h, &printed);
  if (!ran) return bindery::demo::Verdict(kTag, false, why);
  if (problems != 0) return bindery::demo::Verdict(kTag, false, "the program is invalid on this device");
  if (got != expected) return bindery::demo::Verdict(kTag, false, "wrong sum");
  return bindery::demo::Verdict(kTag, true, "40 storage buffers in one stage, sum correct, validation silent");
}
