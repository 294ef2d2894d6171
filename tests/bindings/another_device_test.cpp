// One device's entry points called with another device's handles, where a capability is on
// for the first device and has no state on the second. Entry points are per device, but
// drivers tolerate such calls and the conformance suite's multi-device cases make them; the
// layer must pass them to the second device's next layer as if it were not there (its hooks
// dereferenced the missing state and crashed). Here the two devices come from two instances
// whose settings differ; within one instance the same happens where one device cannot have
// the capability (indirect bindings need bufferDeviceAddress). Every hooked function the
// work below reaches is taken from the first device; the results are the native ones and
// validation on both devices stays silent. The same for the chassis's tracking stage,
// which a device where no capability tracks anything does not have.
#include <gtest/gtest.h>

#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "integration/test_env.h"
#include "support/vk_objects.h"
#include "twin_copy_comp.h"

namespace bindery::test {
namespace {

constexpr uint32_t kWords = 64;

struct TwoDevices {
  std::unique_ptr<VkHarness> on;   // `setting` forced
  std::unique_ptr<VkHarness> off;  // `setting` off
};

TwoDevices Make(const char* setting) {
  HarnessOptions options;
  options.optional_device_extensions = {VK_KHR_PUSH_DESCRIPTOR_EXTENSION_NAME};
  TwoDevices t;
  {
    ScopedEnv env(setting, "force");
    t.on = std::make_unique<VkHarness>(options);
  }
  {
    ScopedEnv env(setting, "off");
    t.off = std::make_unique<VkHarness>(options);
  }
  return t;
}

// Both harnesses started; a failure says which did not, and why.
::testing::AssertionResult BothMade(const TwoDevices& t) {
  if (!t.on->ok()) return ::testing::AssertionFailure() << "forced: " << t.on->error();
  if (!t.off->ok()) return ::testing::AssertionFailure() << "off: " << t.off->error();
  return ::testing::AssertionSuccess();
}

// The first device's entry point `name`.
template <typename Fn>
Fn On(const VkHarness& h, const char* name) {
  return reinterpret_cast<Fn>(vkGetDeviceProcAddr(h.device(), name));
}
#define BINDERY_ON(h, name) On<PFN_##name>(h, #name)

TEST(AnotherDevicesEntryPoints, IndirectBindingsPassCallsToADeviceWithoutThem) {
  TwoDevices t = Make("BINDERY_INDIRECT_BINDINGS");
  ASSERT_TRUE(BothMade(t));
  const VkHarness& on = *t.on;
  VkHarness& h = *t.off;
  const VkDevice d = h.device();

  const std::vector<VkDescriptorSetLayoutBinding> bindings = {
      {0, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1, VK_SHADER_STAGE_COMPUTE_BIT, nullptr},
      {1, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1, VK_SHADER_STAGE_COMPUTE_BIT, nullptr}};
  VkDescriptorSetLayoutCreateInfo slci{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO};
  slci.bindingCount = 2;
  slci.pBindings = bindings.data();
  VkDescriptorSetLayoutSupport support{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_SUPPORT};
  BINDERY_ON(on, vkGetDescriptorSetLayoutSupport)(d, &slci, &support);
  EXPECT_EQ(support.supported, VK_TRUE);
  VkDescriptorSetLayout set_layout = VK_NULL_HANDLE;
  ASSERT_EQ(BINDERY_ON(on, vkCreateDescriptorSetLayout)(d, &slci, nullptr, &set_layout), VK_SUCCESS);
  const VkPushConstantRange range{VK_SHADER_STAGE_COMPUTE_BIT, 0, 4};
  VkPipelineLayoutCreateInfo plci{VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO};
  plci.setLayoutCount = 1;
  plci.pSetLayouts = &set_layout;
  plci.pushConstantRangeCount = 1;
  plci.pPushConstantRanges = &range;
  VkPipelineLayout layout = VK_NULL_HANDLE;
  ASSERT_EQ(BINDERY_ON(on, vkCreatePipelineLayout)(d, &plci, nullptr, &layout), VK_SUCCESS);

  const VkDescriptorPoolSize size{VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 2};
  VkDescriptorPoolCreateInfo dpci{VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO};
  dpci.flags = VK_DESCRIPTOR_POOL_CREATE_FREE_DESCRIPTOR_SET_BIT;
  dpci.maxSets = 1;
  dpci.poolSizeCount = 1;
  dpci.pPoolSizes = &size;
  VkDescriptorPool pool = VK_NULL_HANDLE;
  ASSERT_EQ(BINDERY_ON(on, vkCreateDescriptorPool)(d, &dpci, nullptr, &pool), VK_SUCCESS);
  VkDescriptorSetAllocateInfo dsai{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO};
  dsai.descriptorPool = pool;
  dsai.descriptorSetCount = 1;
  dsai.pSetLayouts = &set_layout;
  VkDescriptorSet set = VK_NULL_HANDLE;
  ASSERT_EQ(BINDERY_ON(on, vkAllocateDescriptorSets)(d, &dsai, &set), VK_SUCCESS);

  VkBufferCreateInfo bci{VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
  bci.size = 256;
  bci.usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT;
  VkBuffer unused = VK_NULL_HANDLE;
  ASSERT_EQ(BINDERY_ON(on, vkCreateBuffer)(d, &bci, nullptr, &unused), VK_SUCCESS);
  BINDERY_ON(on, vkDestroyBuffer)(d, unused, nullptr);
  HostBuffer src = h.CreateHostBuffer(kWords * 4, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT);
  HostBuffer dst = h.CreateHostBuffer(kWords * 4, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT);
  HostBuffer pushed = h.CreateHostBuffer(kWords * 4, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT);
  for (uint32_t i = 0; i < kWords; ++i) static_cast<uint32_t*>(src.mapped)[i] = 5 * i + 2;
  std::memset(dst.mapped, 0, kWords * 4);
  std::memset(pushed.mapped, 0, kWords * 4);

  // Binding 0 by a write, binding 1 by a template.
  const VkDescriptorBufferInfo infos[2] = {{src.buffer, 0, VK_WHOLE_SIZE}, {dst.buffer, 0, VK_WHOLE_SIZE}};
  VkWriteDescriptorSet w{VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET};
  w.dstSet = set;
  w.descriptorCount = 1;
  w.descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
  w.pBufferInfo = &infos[0];
  BINDERY_ON(on, vkUpdateDescriptorSets)(d, 1, &w, 0, nullptr);
  const VkDescriptorUpdateTemplateEntry entry{1, 0, 1, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 0,
                                              sizeof(VkDescriptorBufferInfo)};
  VkDescriptorUpdateTemplateCreateInfo tci = SetTemplateInfo(&entry, 1, set_layout);
  VkDescriptorUpdateTemplate update_template = VK_NULL_HANDLE;
  ASSERT_EQ(BINDERY_ON(on, vkCreateDescriptorUpdateTemplate)(d, &tci, nullptr, &update_template), VK_SUCCESS);
  BINDERY_ON(on, vkUpdateDescriptorSetWithTemplate)(d, set, update_template, &infos[1]);
  if (auto name_object = BINDERY_ON(on, vkSetDebugUtilsObjectNameEXT)) {
    VkDebugUtilsObjectNameInfoEXT name{VK_STRUCTURE_TYPE_DEBUG_UTILS_OBJECT_NAME_INFO_EXT};
    name.objectType = VK_OBJECT_TYPE_DESCRIPTOR_SET;
    name.objectHandle = reinterpret_cast<uint64_t>(set);
    name.pObjectName = "the set";
    EXPECT_EQ(name_object(d, &name), VK_SUCCESS);
  }
  BINDERY_ON(on, vkDestroyPrivateDataSlot)(d, VK_NULL_HANDLE, nullptr);

  const VkShaderModuleCreateInfo smci = ShaderModuleInfo(twin_copy_comp, sizeof(twin_copy_comp));
  VkShaderModule module = VK_NULL_HANDLE;
  ASSERT_EQ(BINDERY_ON(on, vkCreateShaderModule)(d, &smci, nullptr, &module), VK_SUCCESS);
  VkComputePipelineCreateInfo cpci = ComputePipelineInfo(module, layout);
  VkPipeline pipeline = VK_NULL_HANDLE;
  ASSERT_EQ(BINDERY_ON(on, vkCreateComputePipelines)(d, VK_NULL_HANDLE, 1, &cpci, nullptr, &pipeline), VK_SUCCESS);

  // Push descriptors, where both devices have them: the same shader into `pushed`.
  const bool push = on.device_extension_enabled(VK_KHR_PUSH_DESCRIPTOR_EXTENSION_NAME) &&
                    h.device_extension_enabled(VK_KHR_PUSH_DESCRIPTOR_EXTENSION_NAME);
  VkDescriptorSetLayout push_set_layout = VK_NULL_HANDLE;
  VkPipelineLayout push_layout = VK_NULL_HANDLE;
  VkPipeline push_pipeline = VK_NULL_HANDLE;
  if (push) {
    slci.flags = VK_DESCRIPTOR_SET_LAYOUT_CREATE_PUSH_DESCRIPTOR_BIT_KHR;
    ASSERT_EQ(BINDERY_ON(on, vkCreateDescriptorSetLayout)(d, &slci, nullptr, &push_set_layout), VK_SUCCESS);
    plci.pSetLayouts = &push_set_layout;
    ASSERT_EQ(BINDERY_ON(on, vkCreatePipelineLayout)(d, &plci, nullptr, &push_layout), VK_SUCCESS);
    cpci.layout = push_layout;
    ASSERT_EQ(BINDERY_ON(on, vkCreateComputePipelines)(d, VK_NULL_HANDLE, 1, &cpci, nullptr, &push_pipeline),
              VK_SUCCESS);
  }

  const uint32_t word = 0;
  VkCommandBuffer cb = h.BeginCommands();
  BINDERY_ON(on, vkCmdBindPipeline)(cb, VK_PIPELINE_BIND_POINT_COMPUTE, pipeline);
  BINDERY_ON(on, vkCmdBindDescriptorSets)(cb, VK_PIPELINE_BIND_POINT_COMPUTE, layout, 0, 1, &set, 0, nullptr);
  BINDERY_ON(on, vkCmdPushConstants)(cb, layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, 4, &word);
  BINDERY_ON(on, vkCmdDispatch)(cb, kWords / 64, 1, 1);
  if (push) {
    const VkDescriptorBufferInfo push_infos[2] = {{src.buffer, 0, VK_WHOLE_SIZE}, {pushed.buffer, 0, VK_WHOLE_SIZE}};
    VkWriteDescriptorSet pw{VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET};
    pw.descriptorCount = 2;
    pw.descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
    pw.pBufferInfo = push_infos;
    BINDERY_ON(on, vkCmdBindPipeline)(cb, VK_PIPELINE_BIND_POINT_COMPUTE, push_pipeline);
    BINDERY_ON(on, vkCmdPushDescriptorSetKHR)(cb, VK_PIPELINE_BIND_POINT_COMPUTE, push_layout, 0, 1, &pw);
    BINDERY_ON(on, vkCmdDispatch)(cb, kWords / 64, 1, 1);
  }
  ASSERT_EQ(h.SubmitAndWait(cb), VK_SUCCESS);
  for (uint32_t i = 0; i < kWords; ++i) {
    ASSERT_EQ(static_cast<const uint32_t*>(dst.mapped)[i], 10 * i + 5) << "word " << i;
    if (push) {
      ASSERT_EQ(static_cast<const uint32_t*>(pushed.mapped)[i], 10 * i + 5) << "pushed word " << i;
    }
  }

  EXPECT_EQ(BINDERY_ON(on, vkFreeDescriptorSets)(d, pool, 1, &set), VK_SUCCESS);
  EXPECT_EQ(BINDERY_ON(on, vkResetDescriptorPool)(d, pool, 0), VK_SUCCESS);
  BINDERY_ON(on, vkDestroyDescriptorPool)(d, pool, nullptr);
  BINDERY_ON(on, vkDestroyDescriptorUpdateTemplate)(d, update_template, nullptr);
  BINDERY_ON(on, vkDestroyPipeline)(d, pipeline, nullptr);
  BINDERY_ON(on, vkDestroyPipeline)(d, push_pipeline, nullptr);
  BINDERY_ON(on, vkDestroyShaderModule)(d, module, nullptr);
  BINDERY_ON(on, vkDestroyPipelineLayout)(d, layout, nullptr);
  BINDERY_ON(on, vkDestroyPipelineLayout)(d, push_layout, nullptr);
  BINDERY_ON(on, vkDestroyDescriptorSetLayout)(d, set_layout, nullptr);
  BINDERY_ON(on, vkDestroyDescriptorSetLayout)(d, push_set_layout, nullptr);
  h.Destroy(src);
  h.Destroy(dst);
  h.Destroy(pushed);
  EXPECT_VALIDATION_SILENT(h);
  EXPECT_VALIDATION_SILENT(on);
}

TEST(AnotherDevicesEntryPoints, TransfersPassCallsToADeviceWithoutThem) {
  TwoDevices t = Make("BINDERY_TRANSFERS");
  ASSERT_TRUE(BothMade(t));
  const VkHarness& on = *t.on;
  VkHarness& h = *t.off;
  constexpr VkDeviceSize kBytes = 1024;
  const VkBufferUsageFlags usage = VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT;
  HostBuffer a = h.CreateHostBuffer(kBytes, usage);
  HostBuffer b = h.CreateHostBuffer(kBytes, usage);
  HostBuffer c = h.CreateHostBuffer(kBytes, usage);
  std::memset(b.mapped, 0, kBytes);
  std::memset(c.mapped, 0, kBytes);
  uint32_t words[4] = {11, 22, 33, 44};

  VkCommandBuffer cb = h.BeginCommands();
  BINDERY_ON(on, vkCmdFillBuffer)(cb, a.buffer, 0, kBytes, 0x01020304u);
  VkMemoryBarrier barrier{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
  barrier.srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT;
  barrier.dstAccessMask = VK_ACCESS_TRANSFER_READ_BIT | VK_ACCESS_TRANSFER_WRITE_BIT;
  BINDERY_ON(on, vkCmdPipelineBarrier)(cb, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT, 0, 1,
                                       &barrier, 0, nullptr, 0, nullptr);
  BINDERY_ON(on, vkCmdUpdateBuffer)(cb, a.buffer, 16, sizeof(words), words);
  BINDERY_ON(on, vkCmdPipelineBarrier)(cb, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT, 0, 1,
                                       &barrier, 0, nullptr, 0, nullptr);
  const VkBufferCopy region{0, 0, kBytes};
  BINDERY_ON(on, vkCmdCopyBuffer)(cb, a.buffer, b.buffer, 1, &region);
  const VkBufferCopy2 region2{VK_STRUCTURE_TYPE_BUFFER_COPY_2, nullptr, 0, 0, kBytes};
  VkCopyBufferInfo2 copy2{VK_STRUCTURE_TYPE_COPY_BUFFER_INFO_2};
  copy2.srcBuffer = a.buffer;
  copy2.dstBuffer = c.buffer;
  copy2.regionCount = 1;
  copy2.pRegions = &region2;
  BINDERY_ON(on, vkCmdCopyBuffer2)(cb, &copy2);
  ASSERT_EQ(BINDERY_ON(on, vkEndCommandBuffer)(cb), VK_SUCCESS);
  ASSERT_EQ(SubmitAndWaitIdle(h.queue(), {cb}), VK_SUCCESS);
  vkFreeCommandBuffers(h.device(), h.command_pool(), 1, &cb);
  for (const HostBuffer* out : {&b, &c}) {
    const auto* got = static_cast<const uint32_t*>(out->mapped);
    for (uint32_t i = 0; i < kBytes / 4; ++i) {
      const uint32_t want = i >= 4 && i < 8 ? words[i - 4] : 0x01020304u;
      ASSERT_EQ(got[i], want) << "word " << i;
    }
  }
  h.Destroy(a);
  h.Destroy(b);
  h.Destroy(c);
  EXPECT_VALIDATION_SILENT(h);
  EXPECT_VALIDATION_SILENT(on);
}

// The tracking stage below the capabilities (buffers, memory, command pools and buffers):
// the second device has every capability off, so nothing tracks there.
TEST(AnotherDevicesEntryPoints, TheTrackingStagePassesCallsToADeviceWithoutTracking) {
  std::unique_ptr<VkHarness> owned_on, owned_off;
  {
    ScopedEnv env("BINDERY_INDIRECT_BINDINGS", "force");
    owned_on = std::make_unique<VkHarness>();
  }
  {
    ScopedEnv bindings("BINDERY_INDIRECT_BINDINGS", "off");
    ScopedEnv transfers("BINDERY_TRANSFERS", "off");
    ScopedEnv timeline("BINDERY_TIMELINE", "off");
    owned_off = std::make_unique<VkHarness>();
  }
  ASSERT_TRUE(owned_on->ok()) << owned_on->error();
  ASSERT_TRUE(owned_off->ok()) << owned_off->error();
  const VkHarness& on = *owned_on;
  VkHarness& h = *owned_off;
  const VkDevice d = h.device();

  VkBufferCreateInfo bci{VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
  bci.size = 4096;
  bci.usage = VK_BUFFER_USAGE_TRANSFER_DST_BIT | VK_BUFFER_USAGE_STORAGE_BUFFER_BIT;
  VkBuffer buffer = VK_NULL_HANDLE;
  ASSERT_EQ(BINDERY_ON(on, vkCreateBuffer)(d, &bci, nullptr, &buffer), VK_SUCCESS);
  VkMemoryRequirements req{};
  vkGetBufferMemoryRequirements(d, buffer, &req);
  VkPhysicalDeviceMemoryProperties props;
  vkGetPhysicalDeviceMemoryProperties(h.physical_device(), &props);
  uint32_t type = 0;
  while (type < props.memoryTypeCount && (req.memoryTypeBits & (1u << type)) == 0) ++type;
  ASSERT_LT(type, props.memoryTypeCount);
  VkMemoryAllocateInfo mai{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
  mai.allocationSize = req.size;
  mai.memoryTypeIndex = type;
  VkDeviceMemory memory = VK_NULL_HANDLE;
  ASSERT_EQ(BINDERY_ON(on, vkAllocateMemory)(d, &mai, nullptr, &memory), VK_SUCCESS);
  ASSERT_EQ(BINDERY_ON(on, vkBindBufferMemory)(d, buffer, memory, 0), VK_SUCCESS);

  VkCommandPoolCreateInfo cpci{VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
  cpci.flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT;
  cpci.queueFamilyIndex = h.queue_family();
  VkCommandPool pool = VK_NULL_HANDLE;
  ASSERT_EQ(BINDERY_ON(on, vkCreateCommandPool)(d, &cpci, nullptr, &pool), VK_SUCCESS);
  VkCommandBufferAllocateInfo cbai{VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
  cbai.commandPool = pool;
  cbai.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
  cbai.commandBufferCount = 1;
  VkCommandBuffer cb = VK_NULL_HANDLE;
  ASSERT_EQ(BINDERY_ON(on, vkAllocateCommandBuffers)(d, &cbai, &cb), VK_SUCCESS);
  VkCommandBufferBeginInfo begin{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
  ASSERT_EQ(BINDERY_ON(on, vkBeginCommandBuffer)(cb, &begin), VK_SUCCESS);
  vkCmdFillBuffer(cb, buffer, 0, VK_WHOLE_SIZE, 7);
  ASSERT_EQ(BINDERY_ON(on, vkEndCommandBuffer)(cb), VK_SUCCESS);
  ASSERT_EQ(SubmitAndWaitIdle(h.queue(), {cb}), VK_SUCCESS);
  EXPECT_EQ(BINDERY_ON(on, vkResetCommandBuffer)(cb, 0), VK_SUCCESS);
  EXPECT_EQ(BINDERY_ON(on, vkResetCommandPool)(d, pool, 0), VK_SUCCESS);
  BINDERY_ON(on, vkFreeCommandBuffers)(d, pool, 1, &cb);
  BINDERY_ON(on, vkDestroyCommandPool)(d, pool, nullptr);
  BINDERY_ON(on, vkDestroyBuffer)(d, buffer, nullptr);
  BINDERY_ON(on, vkFreeMemory)(d, memory, nullptr);
  EXPECT_VALIDATION_SILENT(h);
  EXPECT_VALIDATION_SILENT(on);
}

}  // namespace
}  // namespace bindery::test
