// A small Vulkan compute program that knows nothing about Bindery: it runs a dispatch,
// then (if the device advertises VK_BINDERY_transfer_any_alignment) fills, updates and
// copies at odd byte offsets, and checks every byte on the CPU. scripts/demo runs it
// with the layer enabled through VK_INSTANCE_LAYERS and prints the layer's summary.
#include <cstdio>
#include <cstring>
#include <vector>

#include <vulkan/vk_bindery.h>
#include <vulkan/vulkan.h>

#include "scale_add_comp.h"

#define CHECK(x)                                                             \
  do {                                                                       \
    VkResult r_ = (x);                                                       \
    if (r_ != VK_SUCCESS) {                                                  \
      std::fprintf(stderr, "demo: %s failed: %d\n", #x, static_cast<int>(r_)); \
      return 1;                                                              \
    }                                                                        \
  } while (0)

namespace {

struct Buffer {
  VkBuffer buffer;
  VkDeviceMemory memory;
  uint8_t* data;
};

uint32_t HostMemoryType(VkPhysicalDevice pd, uint32_t bits) {
  VkPhysicalDeviceMemoryProperties props;
  vkGetPhysicalDeviceMemoryProperties(pd, &props);
  const VkMemoryPropertyFlags want = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
  for (uint32_t i = 0; i < props.memoryTypeCount; ++i) {
    if ((bits & (1u << i)) && (props.memoryTypes[i].propertyFlags & want) == want) return i;
  }
  return 0;
}

bool MakeBuffer(VkDevice device, VkPhysicalDevice pd, VkDeviceSize size, Buffer* out) {
  VkBufferCreateInfo bci{VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
  bci.size = size;
  bci.usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT;
  if (vkCreateBuffer(device, &bci, nullptr, &out->buffer) != VK_SUCCESS) return false;
  VkMemoryRequirements req;
  vkGetBufferMemoryRequirements(device, out->buffer, &req);
  VkMemoryAllocateInfo mai{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
  mai.allocationSize = req.size;
  mai.memoryTypeIndex = HostMemoryType(pd, req.memoryTypeBits);
  if (vkAllocateMemory(device, &mai, nullptr, &out->memory) != VK_SUCCESS) return false;
  vkBindBufferMemory(device, out->buffer, out->memory, 0);
  void* p = nullptr;
  vkMapMemory(device, out->memory, 0, VK_WHOLE_SIZE, 0, &p);
  out->data = static_cast<uint8_t*>(p);
  return true;
}

void Barrier(VkCommandBuffer cb, VkPipelineStageFlags src, VkAccessFlags src_access, VkPipelineStageFlags dst,
             VkAccessFlags dst_access) {
  VkMemoryBarrier b{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
  b.srcAccessMask = src_access;
  b.dstAccessMask = dst_access;
  vkCmdPipelineBarrier(cb, src, dst, 0, 1, &b, 0, nullptr, 0, nullptr);
}

}  // namespace

int main() {
  VkApplicationInfo app{VK_STRUCTURE_TYPE_APPLICATION_INFO};
  app.pApplicationName = "bindery-demo";
  app.apiVersion = VK_API_VERSION_1_2;
  VkInstanceCreateInfo ici{VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO};
  ici.pApplicationInfo = &app;
  VkInstance instance;
  CHECK(vkCreateInstance(&ici, nullptr, &instance));
  uint32_t count = 1;
  VkPhysicalDevice pd;
  vkEnumeratePhysicalDevices(instance, &count, &pd);
  VkPhysicalDeviceProperties props;
  vkGetPhysicalDeviceProperties(pd, &props);

  uint32_t ext_count = 0;
  vkEnumerateDeviceExtensionProperties(pd, nullptr, &ext_count, nullptr);
  std::vector<VkExtensionProperties> exts(ext_count);
  vkEnumerateDeviceExtensionProperties(pd, nullptr, &ext_count, exts.data());
  bool any_alignment = false;
  for (const auto& e : exts) {
    any_alignment |= std::strcmp(e.extensionName, VK_BINDERY_TRANSFER_ANY_ALIGNMENT_EXTENSION_NAME) == 0;
  }
  std::printf("demo: device %s; %s %s\n", props.deviceName, VK_BINDERY_TRANSFER_ANY_ALIGNMENT_EXTENSION_NAME,
              any_alignment ? "advertised (Bindery is loaded)" : "not advertised (no Bindery)");

  const float priority = 1.0f;
  VkDeviceQueueCreateInfo qci{VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO};
  qci.queueCount = 1;
  qci.pQueuePriorities = &priority;
  VkDeviceCreateInfo dci{VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO};
  dci.queueCreateInfoCount = 1;
  dci.pQueueCreateInfos = &qci;
  VkDevice device;
  CHECK(vkCreateDevice(pd, &dci, nullptr, &device));
  VkQueue queue;
  vkGetDeviceQueue(device, 0, 0, &queue);

  constexpr uint32_t kCount = 1024;
  Buffer in{}, out{}, scratch{};
  if (!MakeBuffer(device, pd, kCount * 4, &in) || !MakeBuffer(device, pd, kCount * 4, &out) ||
      !MakeBuffer(device, pd, 4096, &scratch)) {
    std::fprintf(stderr, "demo: buffer creation failed\n");
    return 1;
  }
  for (uint32_t i = 0; i < kCount; ++i) reinterpret_cast<uint32_t*>(in.data)[i] = i;
  std::memset(scratch.data, 0xEE, 4096);

  VkShaderModuleCreateInfo smci{VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO};
  smci.codeSize = sizeof(scale_add_comp);
  smci.pCode = scale_add_comp;
  VkShaderModule module;
  CHECK(vkCreateShaderModule(device, &smci, nullptr, &module));
  VkDescriptorSetLayoutBinding bindings[2] = {
      {0, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1, VK_SHADER_STAGE_COMPUTE_BIT, nullptr},
      {1, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1, VK_SHADER_STAGE_COMPUTE_BIT, nullptr}};
  VkDescriptorSetLayoutCreateInfo dslci{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO};
  dslci.bindingCount = 2;
  dslci.pBindings = bindings;
  VkDescriptorSetLayout set_layout;
  CHECK(vkCreateDescriptorSetLayout(device, &dslci, nullptr, &set_layout));
  VkPushConstantRange range{VK_SHADER_STAGE_COMPUTE_BIT, 0, 12};
  VkPipelineLayoutCreateInfo plci{VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO};
  plci.setLayoutCount = 1;
  plci.pSetLayouts = &set_layout;
  plci.pushConstantRangeCount = 1;
  plci.pPushConstantRanges = &range;
  VkPipelineLayout layout;
  CHECK(vkCreatePipelineLayout(device, &plci, nullptr, &layout));
  VkComputePipelineCreateInfo cpci{VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO};
  cpci.stage = {VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO, nullptr, 0, VK_SHADER_STAGE_COMPUTE_BIT, module,
                "main", nullptr};
  cpci.layout = layout;
  VkPipeline pipeline;
  CHECK(vkCreateComputePipelines(device, VK_NULL_HANDLE, 1, &cpci, nullptr, &pipeline));
  VkDescriptorPoolSize pool_size{VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 2};
  VkDescriptorPoolCreateInfo dpci{VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO};
  dpci.maxSets = 1;
  dpci.poolSizeCount = 1;
  dpci.pPoolSizes = &pool_size;
  VkDescriptorPool dpool;
  CHECK(vkCreateDescriptorPool(device, &dpci, nullptr, &dpool));
  VkDescriptorSetAllocateInfo dsai{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO, nullptr, dpool, 1, &set_layout};
  VkDescriptorSet set;
  CHECK(vkAllocateDescriptorSets(device, &dsai, &set));
  VkDescriptorBufferInfo infos[2] = {{in.buffer, 0, VK_WHOLE_SIZE}, {out.buffer, 0, VK_WHOLE_SIZE}};
  VkWriteDescriptorSet writes[2] = {
      {VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET, nullptr, set, 0, 0, 1, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, nullptr,
       &infos[0], nullptr},
      {VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET, nullptr, set, 1, 0, 1, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, nullptr,
       &infos[1], nullptr}};
  vkUpdateDescriptorSets(device, 2, writes, 0, nullptr);

  VkCommandPoolCreateInfo pci{VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
  VkCommandPool pool;
  CHECK(vkCreateCommandPool(device, &pci, nullptr, &pool));
  VkCommandBufferAllocateInfo cbai{VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO, nullptr, pool,
                                   VK_COMMAND_BUFFER_LEVEL_PRIMARY, 1};
  VkCommandBuffer cb;
  CHECK(vkAllocateCommandBuffers(device, &cbai, &cb));
  VkCommandBufferBeginInfo begin{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
  CHECK(vkBeginCommandBuffer(cb, &begin));
  vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_COMPUTE, pipeline);
  vkCmdBindDescriptorSets(cb, VK_PIPELINE_BIND_POINT_COMPUTE, layout, 0, 1, &set, 0, nullptr);
  const uint32_t params[3] = {7, 0x55, kCount};
  vkCmdPushConstants(cb, layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof(params), params);
  vkCmdDispatch(cb, kCount / 64, 1, 1);
  const uint8_t update[7] = {1, 2, 3, 4, 5, 6, 7};
  if (any_alignment) {
    // Calls the Vulkan spec forbids without the extension: odd offsets and sizes.
    vkCmdFillBuffer(cb, scratch.buffer, 1, 13, 0x44332211);
    vkCmdUpdateBuffer(cb, scratch.buffer, 101, sizeof(update), update);
    const VkBufferCopy region{3, 203, 37};
    vkCmdCopyBuffer(cb, in.buffer, scratch.buffer, 1, &region);
  }
  Barrier(cb, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT,
          VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT, VK_PIPELINE_STAGE_HOST_BIT,
          VK_ACCESS_HOST_READ_BIT);
  CHECK(vkEndCommandBuffer(cb));
  VkSubmitInfo si{VK_STRUCTURE_TYPE_SUBMIT_INFO};
  si.commandBufferCount = 1;
  si.pCommandBuffers = &cb;
  CHECK(vkQueueSubmit(queue, 1, &si, VK_NULL_HANDLE));
  CHECK(vkQueueWaitIdle(queue));

  int errors = 0;
  for (uint32_t i = 0; i < kCount; ++i) {
    errors += reinterpret_cast<uint32_t*>(out.data)[i] != i * 7 + (i ^ 0x55);
  }
  std::printf("demo: compute dispatch of %u elements: %s\n", kCount, errors == 0 ? "correct" : "WRONG");
  if (any_alignment) {
    int transfer_errors = 0;
    for (int i = 0; i < 4096; ++i) {
      uint8_t expect = 0xEE;
      if (i >= 1 && i < 14) expect = static_cast<uint8_t>(0x44332211u >> (8 * ((i - 1) % 4)));
      if (i >= 101 && i < 108) expect = update[i - 101];
      if (i >= 203 && i < 240) expect = in.data[3 + (i - 203)];
      transfer_errors += scratch.data[i] != expect;
    }
    std::printf("demo: fill(offset 1, 13 bytes), update(offset 101, 7 bytes), copy(src 3 -> dst 203, 37 bytes): %s\n",
                transfer_errors == 0 ? "every byte correct, neighbours untouched" : "WRONG");
    errors += transfer_errors;
  }
  std::fflush(stdout);
  vkDestroyCommandPool(device, pool, nullptr);
  vkDestroyDescriptorPool(device, dpool, nullptr);
  vkDestroyPipeline(device, pipeline, nullptr);
  vkDestroyPipelineLayout(device, layout, nullptr);
  vkDestroyDescriptorSetLayout(device, set_layout, nullptr);
  vkDestroyShaderModule(device, module, nullptr);
  for (Buffer* b : {&in, &out, &scratch}) {
    vkDestroyBuffer(device, b->buffer, nullptr);
    vkFreeMemory(device, b->memory, nullptr);
  }
  vkDestroyDevice(device, nullptr);
  vkDestroyInstance(instance, nullptr);
  return errors == 0 ? 0 : 1;
}
