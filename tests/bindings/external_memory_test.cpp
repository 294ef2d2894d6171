// External memory never loses work (docs/indirect-bindings.md, "Buffers" and "When it falls
// back"; issue 30 part 4). A storage buffer on external memory is made addressable where the
// driver allows its handle types that usage (lavapipe does for OPAQUE_FD), memory imported
// for it takes the device-address flag, and its memory needs stay the application's:
//
// - a graphics pipeline created before the application's first external buffer draws with
//   it (before, it had no twin and its draws were skipped with an error);
// - under auto, a layout beyond the driver's limits (no native form, so no twin) reads an
//   external buffer (before, the dispatch was skipped);
// - memory exported and imported again (vkGetMemoryFdKHR, VkImportMemoryFdInfoKHR) backs
//   an addressable buffer.
//
// On a driver that allows no address on external memory (tests/no_address_layer below the
// layer), a command no pipeline can run is refused where a call can say so:
// vkEndCommandBuffer returns an error, instead of the work being dropped unseen.
//
// Forced (or auto) vs off: byte-identical where both run; validation below the layer
// silent in every run.
#include <gtest/gtest.h>

#include <unistd.h>

#include <cstring>
#include <memory>
#include <string>

#include "bind_point_rig.h"
#include "bp_mark_frag.h"
#include "integration/test_env.h"
#include "many_buffers_comp.h"
#include "support/vk_objects.h"
#include "twin_copy_comp.h"

namespace bindery::test {
namespace {

constexpr uint32_t kWords = 256;
constexpr VkDeviceSize kBytes = kWords * 4;
constexpr VkExternalMemoryHandleTypeFlagBits kHandle = VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT;
const char* const kNoAddressLayer = "VK_LAYER_bindery_test_no_address";

// Why the device cannot export and import OPAQUE_FD storage buffers ("" when it can).
std::string ExternalUnsupported() {
  HarnessOptions probe_options;
  probe_options.bindery = false;
  probe_options.validation = false;
  VkHarness probe(probe_options);
  if (!probe.ok()) return probe.error();
  VkPhysicalDeviceExternalBufferInfo info{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_EXTERNAL_BUFFER_INFO};
  info.usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT;
  info.handleType = kHandle;
  VkExternalBufferProperties props{VK_STRUCTURE_TYPE_EXTERNAL_BUFFER_PROPERTIES};
  vkGetPhysicalDeviceExternalBufferProperties(probe.physical_device(), &info, &props);
  constexpr VkExternalMemoryFeatureFlags kBoth =
      VK_EXTERNAL_MEMORY_FEATURE_EXPORTABLE_BIT | VK_EXTERNAL_MEMORY_FEATURE_IMPORTABLE_BIT;
  if ((props.externalMemoryProperties.externalMemoryFeatures & kBoth) != kBoth) {
    return "the device cannot export and import OPAQUE_FD storage buffers";
  }
  return "";
}

bool Warned(const std::vector<Message>& messages, const char* needle) {
  for (const Message& m : messages) {
    if (m.text.find(needle) != std::string::npos) return true;
  }
  return false;
}

// Ends `cb`; submits it and waits only when that succeeded (a command buffer whose
// vkEndCommandBuffer failed must not be submitted); frees it.
VkResult EndSubmitAndWait(VkHarness& h, VkCommandBuffer cb, VkResult* end) {
  *end = vkEndCommandBuffer(cb);
  VkResult r = *end;
  if (r == VK_SUCCESS) {
    VkSubmitInfo si{VK_STRUCTURE_TYPE_SUBMIT_INFO};
    si.commandBufferCount = 1;
    si.pCommandBuffers = &cb;
    r = vkQueueSubmit(h.queue(), 1, &si, VK_NULL_HANDLE);
    if (r == VK_SUCCESS) r = vkQueueWaitIdle(h.queue());
  }
  vkFreeCommandBuffers(h.device(), h.command_pool(), 1, &cb);
  return r;
}

// ---- graphics: a pipeline created before the first external buffer ----

struct DrawRun {
  BindPointRun run;
  VkResult end = VK_SUCCESS;  // what vkEndCommandBuffer returned
};

// bp_mark.frag (the fragment at (0, 0) marks word 0 of set 0's storage buffer) made before
// the external buffer exists, then a draw with the external buffer in set 0.
DrawRun DrawIntoExternalBuffer(const char* mode, bool no_address_driver) {
  RigOptions options;
  options.graphics = true;
  if (no_address_driver) options.layers_between = {kNoAddressLayer};
  BindPointRig rig(mode, options);
  DrawRun out;
  if (!rig.ok()) {
    out.run.skip = rig.h().error();
    return out;
  }
  const VkDescriptorSetLayout set_layout =
      rig.SetLayout({{0, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1, VK_SHADER_STAGE_FRAGMENT_BIT, nullptr}});
  const VkPipelineLayout layout = rig.Layout({set_layout});
  const VkPipeline pipeline = rig.Graphics(bp_mark_frag, sizeof(bp_mark_frag), layout);
  const VkBuffer external = rig.ExternalBuffer();  // after the pipeline
  if (external == VK_NULL_HANDLE) {
    out.run.skip = "no external buffer";
    return out;
  }
  const VkDescriptorSet set = rig.Set(set_layout, {0}, {VK_DESCRIPTOR_TYPE_STORAGE_BUFFER}, {external});
  VkCommandBuffer cb = rig.h().BeginCommands();
  vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_GRAPHICS, pipeline);
  vkCmdBindDescriptorSets(cb, VK_PIPELINE_BIND_POINT_GRAPHICS, layout, 0, 1, &set, 0, nullptr);
  rig.BeginPass(cb);
  vkCmdDraw(cb, 3, 1, 0, 0);
  vkCmdEndRenderPass(cb);
  BindPointRig::Barrier(cb);
  const VkResult r = EndSubmitAndWait(rig.h(), cb, &out.end);
  if (out.end == VK_SUCCESS) {
    EXPECT_EQ(r, VK_SUCCESS);
  }
  out.run = rig.Finish();
  return out;
}

TEST(ExternalMemory, AGraphicsPipelineMadeBeforeTheFirstExternalBufferDrawsWithIt) {
  const std::string why = ExternalUnsupported();
  if (!why.empty()) GTEST_SKIP() << why;
  const DrawRun off = DrawIntoExternalBuffer("off", false);
  ASSERT_EQ(off.run.skip, "");
  const DrawRun forced = DrawIntoExternalBuffer("force", false);
  ASSERT_EQ(forced.run.skip, "");
  EXPECT_EQ(off.run.validation, "");
  EXPECT_EQ(forced.run.validation, "");
  EXPECT_EQ(forced.end, VK_SUCCESS);
  ASSERT_EQ(off.run.buffers.size(), 1u);
  uint32_t mark = 0;
  std::memcpy(&mark, off.run.buffers[0].data(), 4);
  EXPECT_EQ(mark, 0xF00Du);
  EXPECT_EQ(off.run.buffers, forced.run.buffers);
  // Rewritten and addressed: no twin needed, nothing said about a buffer without an address.
  EXPECT_EQ(SummaryCounter(forced.run.summary, "pipelines rewritten"), 1u) << forced.run.summary;
  EXPECT_FALSE(Warned(forced.run.bindery, "has no device address"));
}

// On a driver whose external memory takes no address, the draw has no pipeline that can
// run it (a graphics pipeline rewritten before the first such buffer has no twin): it is
// refused at vkEndCommandBuffer, with an error logged, never dropped unseen.
TEST(ExternalMemoryWithoutAddresses, ADrawNoPipelineCanRunFailsEndCommandBuffer) {
  const std::string why = ExternalUnsupported();
  if (!why.empty()) GTEST_SKIP() << why;
  const DrawRun off = DrawIntoExternalBuffer("off", true);
  ASSERT_EQ(off.run.skip, "");
  const DrawRun forced = DrawIntoExternalBuffer("force", true);
  ASSERT_EQ(forced.run.skip, "");
  EXPECT_EQ(off.run.validation, "");
  EXPECT_EQ(forced.run.validation, "");
  EXPECT_EQ(off.end, VK_SUCCESS);
  EXPECT_EQ(forced.end, VK_ERROR_OUT_OF_DEVICE_MEMORY);
  EXPECT_TRUE(Warned(forced.run.bindery, "has no device address"));
  EXPECT_TRUE(Warned(forced.run.bindery, "vkEndCommandBuffer returns"));
}

// ---- compute: a layout beyond the driver's limits naming an external buffer ----

struct SumRun : ModeRunResult {
  bool skip = false;
  VkResult end = VK_SUCCESS;
  uint32_t sum = 0;
  uint32_t expected = 0;
  std::vector<Message> bindery;
};

// many_buffers.comp: 40 storage buffers in one stage and set (beyond lavapipe's 32), the
// eighth of them on exportable external memory.
SumRun SumOverFortyBuffers(const char* mode, bool no_address_driver) {
  HarnessOptions options;
  if (no_address_driver) options.layers_between = {kNoAddressLayer};
  return RunWithBindings<SumRun>(mode, options, [&](VkHarness& h, SumRun& run) {
    VkDevice d = h.device();
    std::vector<HostBuffer> buffers;
    for (uint32_t i = 0; i < 40; ++i) {
      buffers.push_back(h.CreateHostBuffer(16, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT, i == 7 ? kHandle : 0));
      if (buffers.back().buffer == VK_NULL_HANDLE) {
        run.error = "buffer creation failed";
        return;
      }
      static_cast<uint32_t*>(buffers.back().mapped)[0] = 3 * i + 1;
      run.expected += (3 * i + 1) * (i + 1);
    }
    HostBuffer out = h.CreateHostBuffer(16, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT);
    std::memset(out.mapped, 0, 16);
    ObjectBag bag(d);
    const VkDescriptorSetLayout set_layout =
        bag.Keep(CreateSetLayout(d, {{0, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 40, VK_SHADER_STAGE_COMPUTE_BIT, nullptr},
                                     {1, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1, VK_SHADER_STAGE_COMPUTE_BIT, nullptr}}));
    const VkPipelineLayout layout = bag.Keep(CreatePipelineLayout(d, {set_layout}));
    const VkPipeline pipeline = bag.Keep(CreateComputePipeline(d, layout, many_buffers_comp, sizeof(many_buffers_comp)));
    const VkDescriptorPool pool = bag.Keep(CreateDescriptorPool(d, 1, {{VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 41}}));
    const VkDescriptorSet set = pool != VK_NULL_HANDLE ? AllocateSet(d, pool, set_layout) : VK_NULL_HANDLE;
    if (pipeline == VK_NULL_HANDLE || set == VK_NULL_HANDLE) run.error = "pipeline or set creation failed";
    if (run.error.empty()) {
      std::vector<VkDescriptorBufferInfo> infos;
      for (const HostBuffer& b : buffers) infos.push_back({b.buffer, 0, VK_WHOLE_SIZE});
      const VkDescriptorBufferInfo out_info{out.buffer, 0, VK_WHOLE_SIZE};
      const VkWriteDescriptorSet w[2] = {BufferWrite(set, 0, 0, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, infos.data(), 40),
                                         BufferWrite(set, 1, 0, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, &out_info)};
      vkUpdateDescriptorSets(d, 2, w, 0, nullptr);
      VkCommandBuffer cb = h.BeginCommands();
      RecordDispatch(cb, pipeline, layout, {set});
      BarrierToHost(cb);
      const VkResult r = EndSubmitAndWait(h, cb, &run.end);
      if (run.end == VK_SUCCESS && r != VK_SUCCESS) run.error = "submit failed";
      run.sum = static_cast<const uint32_t*>(out.mapped)[0];
    }
    bag.DestroyAll();
    for (HostBuffer& b : buffers) h.Destroy(b);
    h.Destroy(out);
    run.bindery = h.BinderyMessages();
  });
}

// Skips where 41 storage buffers per stage are within the driver's limits (the layout
// would not go beyond them).
bool WithinDriverLimits() { return DriverLimits().maxPerStageDescriptorStorageBuffers >= 41; }

TEST(ExternalMemory, ALayoutBeyondTheDriversLimitsReadsAnExternalBuffer) {
  const std::string why = ExternalUnsupported();
  if (!why.empty()) GTEST_SKIP() << why;
  if (WithinDriverLimits()) GTEST_SKIP() << "41 storage buffers per stage are within the driver's limits";
  // auto: only this layout converts (it goes beyond the driver's limits); natively it is
  // invalid, so the sum the shader computes is the reference.
  const SumRun run = SumOverFortyBuffers("auto", false);
  ASSERT_TRUE(run.error.empty()) << run.error;
  EXPECT_TRUE(run.validation.empty()) << run.validation;
  EXPECT_EQ(run.end, VK_SUCCESS);
  EXPECT_EQ(run.sum, run.expected);
  EXPECT_FALSE(Warned(run.bindery, "has no device address"));
  EXPECT_EQ(SummaryCounter(run.summary, "pipelines rewritten"), 1u) << run.summary;
}

TEST(ExternalMemoryWithoutAddresses, ADispatchOfALayoutBeyondTheLimitsFailsEndCommandBuffer) {
  const std::string why = ExternalUnsupported();
  if (!why.empty()) GTEST_SKIP() << why;
  if (WithinDriverLimits()) GTEST_SKIP() << "41 storage buffers per stage are within the driver's limits";
  const SumRun run = SumOverFortyBuffers("auto", true);
  ASSERT_TRUE(run.error.empty()) << run.error;
  EXPECT_TRUE(run.validation.empty()) << run.validation;
  EXPECT_EQ(run.end, VK_ERROR_OUT_OF_DEVICE_MEMORY);
  EXPECT_TRUE(Warned(run.bindery, "vkEndCommandBuffer returns"));
}

// ---- memory exported and imported again ----

struct ImportRun : ModeRunResult {
  std::vector<uint32_t> dst;
  std::vector<Message> bindery;
};

// A buffer on exported OPAQUE_FD memory, its memory exported as an fd and imported into a
// second buffer; twin_copy.comp reads the imported buffer (filled through the first).
ImportRun CopyFromImportedMemory(const char* mode) {
  HarnessOptions options;
  options.device_extensions = {VK_KHR_EXTERNAL_MEMORY_FD_EXTENSION_NAME};
  return RunWithBindings<ImportRun>(mode, options, [&](VkHarness& h, ImportRun& run) {
    VkDevice d = h.device();
    HostBuffer exported = h.CreateHostBuffer(kBytes, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT, kHandle);
    HostBuffer dst = h.CreateHostBuffer(kBytes, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT);
    if (exported.buffer == VK_NULL_HANDLE || dst.buffer == VK_NULL_HANDLE) {
      run.error = "buffer creation failed";
      return;
    }
    for (uint32_t i = 0; i < kWords; ++i) static_cast<uint32_t*>(exported.mapped)[i] = 7 * i + 5;
    std::memset(dst.mapped, 0, kBytes);
    auto get_fd = reinterpret_cast<PFN_vkGetMemoryFdKHR>(vkGetDeviceProcAddr(d, "vkGetMemoryFdKHR"));
    VkMemoryGetFdInfoKHR fd_info{VK_STRUCTURE_TYPE_MEMORY_GET_FD_INFO_KHR};
    fd_info.memory = exported.memory;
    fd_info.handleType = kHandle;
    int fd = -1;
    if (get_fd == nullptr || get_fd(d, &fd_info, &fd) != VK_SUCCESS) {
      run.error = "vkGetMemoryFdKHR failed";
      return;
    }
    VkExternalMemoryBufferCreateInfo external{VK_STRUCTURE_TYPE_EXTERNAL_MEMORY_BUFFER_CREATE_INFO};
    external.handleTypes = kHandle;
    VkBufferCreateInfo bci{VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO, &external};
    bci.size = kBytes;
    bci.usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT;
    VkBuffer imported = VK_NULL_HANDLE;
    VkDeviceMemory memory = VK_NULL_HANDLE;
    VkMemoryRequirements req{};
    if (vkCreateBuffer(d, &bci, nullptr, &imported) == VK_SUCCESS) vkGetBufferMemoryRequirements(d, imported, &req);
    // The payload's own allocation size and memory type (VUID-VkMemoryAllocateInfo-allocationSize-01742).
    VkMemoryRequirements exported_req{};
    vkGetBufferMemoryRequirements(d, exported.buffer, &exported_req);
    VkPhysicalDeviceMemoryProperties mem_props;
    vkGetPhysicalDeviceMemoryProperties(h.physical_device(), &mem_props);
    uint32_t type = UINT32_MAX;
    const VkMemoryPropertyFlags host = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
    for (uint32_t i = 0; i < mem_props.memoryTypeCount && type == UINT32_MAX; ++i) {
      if ((exported_req.memoryTypeBits & (1u << i)) != 0 && (mem_props.memoryTypes[i].propertyFlags & host) == host) {
        type = i;
      }
    }
    VkImportMemoryFdInfoKHR import{VK_STRUCTURE_TYPE_IMPORT_MEMORY_FD_INFO_KHR};
    import.handleType = kHandle;
    import.fd = fd;
    VkMemoryAllocateInfo mai{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO, &import};
    mai.allocationSize = exported_req.size;
    mai.memoryTypeIndex = type;
    if (imported == VK_NULL_HANDLE || type == UINT32_MAX || (req.memoryTypeBits & (1u << type)) == 0 ||
        vkAllocateMemory(d, &mai, nullptr, &memory) != VK_SUCCESS) {
      close(fd);  // (an import that succeeded owns it)
      run.error = "import failed";
    } else if (vkBindBufferMemory(d, imported, memory, 0) != VK_SUCCESS) {
      run.error = "bind failed";
    }
    ComputeKernel k = h.CreateKernel(twin_copy_comp, sizeof(twin_copy_comp), 2);
    if (run.error.empty()) {
      VkDescriptorSet set = h.AllocateStorageSet(k, {imported, dst.buffer});
      VkCommandBuffer cb = h.BeginCommands();
      vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_COMPUTE, k.pipeline);
      vkCmdBindDescriptorSets(cb, VK_PIPELINE_BIND_POINT_COMPUTE, k.layout, 0, 1, &set, 0, nullptr);
      vkCmdDispatch(cb, kWords / 64, 1, 1);
      BarrierToHost(cb);
      if (h.SubmitAndWait(cb) != VK_SUCCESS) run.error = "submit failed";
      const uint32_t* p = static_cast<const uint32_t*>(dst.mapped);
      run.dst.assign(p, p + kWords);
    }
    h.Destroy(k);
    if (imported != VK_NULL_HANDLE) vkDestroyBuffer(d, imported, nullptr);
    if (memory != VK_NULL_HANDLE) vkFreeMemory(d, memory, nullptr);
    h.Destroy(exported);
    h.Destroy(dst);
    run.bindery = h.BinderyMessages();
  });
}

TEST(ExternalMemory, ImportedMemoryBacksAnAddressableBuffer) {
  const std::string why = ExternalUnsupported();
  if (!why.empty()) GTEST_SKIP() << why;
  const ImportRun off = CopyFromImportedMemory("off");
  if (off.error.find("EXTENSION_NOT_PRESENT") != std::string::npos) GTEST_SKIP() << "no VK_KHR_external_memory_fd";
  const ImportRun forced = CopyFromImportedMemory("force");
  ASSERT_BOTH_RAN_SILENTLY(off, forced);
  ASSERT_EQ(off.dst.size(), kWords);
  for (uint32_t i = 0; i < kWords; ++i) ASSERT_EQ(off.dst[i], (7 * i + 5) * 2 + 1) << i;
  EXPECT_EQ(off.dst, forced.dst);
  EXPECT_FALSE(Warned(forced.bindery, "has no device address"));
  EXPECT_EQ(SummaryCounter(forced.summary, "pipelines rewritten"), 1u) << forced.summary;
}

}  // namespace
}  // namespace bindery::test
