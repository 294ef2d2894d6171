// ggml/* workloads of bindery_probe: GPU time of one dispatch of ggml's own kernels — the
// SPIR-V its build generates (tests/spirv/corpus/ggml_*.spvasm: the variants the H100 runs),
// set up as ggml sets them up — so that the rows say what the rewrite costs a real runtime's
// shaders, which the bench's own kernels (kernel/*) did not (issue 32: ggml's perf mode read
// 0.84-0.90x forced where kernel/* read 1.00x).
//
// As ggml does (ggml-vulkan.cpp, d99724f): the device enables every feature it reports
// (robustBufferAccess included, so the layer bounds-checks where the pipeline's robustness
// asks it) and VK_EXT_pipeline_robustness where offered; one descriptor set layout of 12
// storage buffers for every pipeline; a pipeline layout per kernel with its own push-constant
// range; robustness disabled per pipeline for the quantized matrix-vector kernels (not for
// f16 nor the add); the tensors in one buffer, bound as ranges; the matrix-vector product's
// two fusion inputs bound to its output. Shapes: test-backend-ops' MUL_MAT m=4096 k=14336 n=1
// (4096 rows of 14336) and ADD ne=[4096,1,1,1] nr=[1,512,1,1] (a 4096 x 512 tensor plus a
// broadcast row); on a CPU device 256 rows of 2048 and 4096 x 16. Each result is checked
// against the value the fill pattern gives (rows left out with a message when wrong).
// PROBE_GGML_ROBUSTNESS=off makes the device without robustBufferAccess (no bounds checks
// anywhere): what the checks cost the f16 and add kernels.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "ggml_add_f32_spv.h"
#include "ggml_mul_mat_vec_f16_spv.h"
#include "ggml_mul_mat_vec_q4_0_spv.h"
#include "ggml_mul_mat_vec_q8_0_spv.h"
#include "probe_workloads.h"

namespace bindery::bench {
namespace {

constexpr uint32_t kGgmlBindings = 12;  // ggml's MAX_PARAMETER_COUNT
constexpr int kSamples = 9;
constexpr uint32_t kFill = 0x3c003c00u;  // bytes 00 3c 00 3c: halves of 1.0, floats of ~0.0078

// The features ggml's device is made with: all the device reports.
struct GgmlFeatures {
  VkPhysicalDeviceFeatures2 f2{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2};
  VkPhysicalDeviceVulkan11Features v11{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_1_FEATURES};
  VkPhysicalDeviceVulkan12Features v12{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES};
  VkPhysicalDevicePipelineRobustnessFeaturesEXT robustness{
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PIPELINE_ROBUSTNESS_FEATURES_EXT};
  bool robustness_extension = false;
  uint32_t subgroup_size = 32;
  std::string error;
  void Chain() {
    f2.pNext = &v11;
    v11.pNext = &v12;
    v12.pNext = robustness_extension ? &robustness : nullptr;
    robustness.pNext = nullptr;
  }
};

// Asks the device (through the layer when `bindery`, as ggml would) what it reports.
void QueryAsGgml(bool bindery, GgmlFeatures* out) {
  test::VkHarness h(BenchHarnessOptions(bindery));
  if (!h.ok()) {
    out->error = h.error();
    return;
  }
  uint32_t n = 0;
  vkEnumerateDeviceExtensionProperties(h.physical_device(), nullptr, &n, nullptr);
  std::vector<VkExtensionProperties> extensions(n);
  vkEnumerateDeviceExtensionProperties(h.physical_device(), nullptr, &n, extensions.data());
  for (const VkExtensionProperties& e : extensions) {
    if (std::strcmp(e.extensionName, VK_EXT_PIPELINE_ROBUSTNESS_EXTENSION_NAME) == 0) out->robustness_extension = true;
  }
  out->Chain();
  vkGetPhysicalDeviceFeatures2(h.physical_device(), &out->f2);
  // PROBE_GGML_ROBUSTNESS=off: without robustBufferAccess (and pipeline robustness), to price
  // the bounds checks the layer adds where ggml's device asks for robustness.
  if (const char* r = std::getenv("PROBE_GGML_ROBUSTNESS"); r != nullptr && std::strcmp(r, "off") == 0) {
    out->f2.features.robustBufferAccess = VK_FALSE;
    out->robustness_extension = false;
    out->robustness.pipelineRobustness = VK_FALSE;
  }
  VkPhysicalDeviceSubgroupProperties subgroup{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_PROPERTIES};
  VkPhysicalDeviceProperties2 props{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2};
  props.pNext = &subgroup;
  vkGetPhysicalDeviceProperties2(h.physical_device(), &props);
  out->subgroup_size = subgroup.subgroupSize != 0 ? subgroup.subgroupSize : 32;
}

// One of ggml's kernels: its pipeline and how it is dispatched and checked.
struct GgmlKernel {
  const char* row;
  const uint32_t* spirv;
  size_t bytes;
  uint32_t push_bytes;
  std::vector<uint32_t> spec;  // specialization constants 0, 1, ...
  bool disable_robustness;     // ggml's per-pipeline VkPipelineRobustnessCreateInfoEXT
  std::vector<uint32_t> push;  // the push-constant words
  uint32_t groups[3];
  VkDeviceSize a_bytes, b_bytes, d_bytes;  // the tensors (src0, src1, dst) in one buffer
  double expected;                         // every output element, from the fill pattern
};

VkDeviceSize Align(VkDeviceSize v, VkDeviceSize a) { return (v + a - 1) / a * a; }

struct GgmlObjects {
  explicit GgmlObjects(VkDevice d) : device(d) {}
  ~GgmlObjects() {
    vkDeviceWaitIdle(device);
    if (pipeline != VK_NULL_HANDLE) vkDestroyPipeline(device, pipeline, nullptr);
    if (layout != VK_NULL_HANDLE) vkDestroyPipelineLayout(device, layout, nullptr);
    if (module != VK_NULL_HANDLE) vkDestroyShaderModule(device, module, nullptr);
  }
  VkDevice device;
  VkShaderModule module = VK_NULL_HANDLE;
  VkPipelineLayout layout = VK_NULL_HANDLE;
  VkPipeline pipeline = VK_NULL_HANDLE;
};

// The kernel's pipeline as ggml_vk_create_pipeline makes it; false on failure.
bool CreatePipeline(ProbeDevice& d, const GgmlFeatures& features, VkDescriptorSetLayout set_layout,
                    const GgmlKernel& k, GgmlObjects& o) {
  VkShaderModuleCreateInfo smci{VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO};
  smci.codeSize = k.bytes;
  smci.pCode = k.spirv;
  if (vkCreateShaderModule(d.device(), &smci, nullptr, &o.module) != VK_SUCCESS) return false;
  const VkPushConstantRange range{VK_SHADER_STAGE_COMPUTE_BIT, 0, k.push_bytes};
  VkPipelineLayoutCreateInfo plci{VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO};
  plci.setLayoutCount = 1;
  plci.pSetLayouts = &set_layout;
  plci.pushConstantRangeCount = 1;
  plci.pPushConstantRanges = &range;
  if (vkCreatePipelineLayout(d.device(), &plci, nullptr, &o.layout) != VK_SUCCESS) return false;
  std::vector<VkSpecializationMapEntry> entries;
  for (uint32_t i = 0; i < k.spec.size(); ++i) entries.push_back({i, 4 * i, 4});
  VkSpecializationInfo spec{static_cast<uint32_t>(entries.size()), entries.data(), 4 * k.spec.size(), k.spec.data()};
  VkComputePipelineCreateInfo cpci{VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO};
  cpci.stage = {VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO};
  cpci.stage.stage = VK_SHADER_STAGE_COMPUTE_BIT;
  cpci.stage.module = o.module;
  cpci.stage.pName = "main";
  cpci.stage.pSpecializationInfo = &spec;
  cpci.layout = o.layout;
  VkPipelineRobustnessCreateInfoEXT robustness{VK_STRUCTURE_TYPE_PIPELINE_ROBUSTNESS_CREATE_INFO_EXT};
  robustness.storageBuffers = VK_PIPELINE_ROBUSTNESS_BUFFER_BEHAVIOR_DISABLED_EXT;
  robustness.uniformBuffers = VK_PIPELINE_ROBUSTNESS_BUFFER_BEHAVIOR_DISABLED_EXT;
  robustness.vertexInputs = VK_PIPELINE_ROBUSTNESS_BUFFER_BEHAVIOR_DEVICE_DEFAULT_EXT;
  robustness.images = VK_PIPELINE_ROBUSTNESS_IMAGE_BEHAVIOR_DEVICE_DEFAULT_EXT;
  if (k.disable_robustness && features.robustness.pipelineRobustness) cpci.pNext = &robustness;
  return vkCreateComputePipelines(d.device(), VK_NULL_HANDLE, 1, &cpci, nullptr, &o.pipeline) == VK_SUCCESS;
}

// Median GPU ns of one dispatch of `k`, and whether its output matched; < 0 on failure.
double RunKernel(ProbeDevice& d, const GgmlFeatures& features, VkDescriptorSetLayout set_layout,
                 VkDescriptorPool pool, const GgmlKernel& k, bool* right) {
  *right = false;
  GgmlObjects o(d.device());
  if (!CreatePipeline(d, features, set_layout, k, o)) return -1;
  const VkDeviceSize align = std::max<VkDeviceSize>(d.limits().minStorageBufferOffsetAlignment, 256);
  const VkDeviceSize b_at = Align(k.a_bytes, align), d_at = Align(b_at + k.b_bytes, align);
  DeviceBuffer tensors = d.CreateBuffer(d_at + k.d_bytes);
  test::HostBuffer readback = d.CreateHostBuffer(k.d_bytes, VK_BUFFER_USAGE_TRANSFER_DST_BIT);
  struct Cleanup {
    ProbeDevice& d;
    DeviceBuffer& t;
    test::HostBuffer& r;
    ~Cleanup() {
      vkDeviceWaitIdle(d.device());
      d.Destroy(t);
      d.Destroy(r);
    }
  } cleanup{d, tensors, readback};
  if (tensors.buffer == VK_NULL_HANDLE || readback.buffer == VK_NULL_HANDLE) return -1;
  if (vkResetDescriptorPool(d.device(), pool, 0) != VK_SUCCESS) return -1;
  VkDescriptorSetAllocateInfo alloc{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO};
  alloc.descriptorPool = pool;
  alloc.descriptorSetCount = 1;
  alloc.pSetLayouts = &set_layout;
  VkDescriptorSet set = VK_NULL_HANDLE;
  if (vkAllocateDescriptorSets(d.device(), &alloc, &set) != VK_SUCCESS) return -1;
  // src0, src1, dst, then (the matrix-vector kernels' fusion inputs) dst again, as ggml binds.
  const VkDescriptorBufferInfo infos[5] = {{tensors.buffer, 0, k.a_bytes},
                                           {tensors.buffer, b_at, k.b_bytes},
                                           {tensors.buffer, d_at, k.d_bytes},
                                           {tensors.buffer, d_at, k.d_bytes},
                                           {tensors.buffer, d_at, k.d_bytes}};
  VkWriteDescriptorSet writes[5];
  for (uint32_t i = 0; i < 5; ++i) {
    writes[i] = {VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET};
    writes[i].dstSet = set;
    writes[i].dstBinding = i;
    writes[i].descriptorCount = 1;
    writes[i].descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
    writes[i].pBufferInfo = &infos[i];
  }
  vkUpdateDescriptorSets(d.device(), 5, writes, 0, nullptr);
  const ProbeFns& fn = d.fn();
  auto dispatch = [&](VkCommandBuffer cb) {
    fn.CmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_COMPUTE, o.pipeline);
    fn.CmdBindDescriptorSets(cb, VK_PIPELINE_BIND_POINT_COMPUTE, o.layout, 0, 1, &set, 0, nullptr);
    fn.CmdPushConstants(cb, o.layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, k.push_bytes, k.push.data());
    fn.CmdDispatch(cb, k.groups[0], k.groups[1], k.groups[2]);
    return true;
  };
  // The fill, one dispatch, the output read back: checked before anything is timed.
  const bool ran = d.Record([&](VkCommandBuffer cb) {
    fn.CmdFillBuffer(cb, tensors.buffer, 0, VK_WHOLE_SIZE, kFill);
    VkMemoryBarrier barrier{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
    barrier.srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT;
    barrier.dstAccessMask = VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT;
    vkCmdPipelineBarrier(cb, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, 0, 1, &barrier, 0,
                         nullptr, 0, nullptr);
    dispatch(cb);
    barrier.srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT;
    barrier.dstAccessMask = VK_ACCESS_TRANSFER_READ_BIT;
    vkCmdPipelineBarrier(cb, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT, 0, 1, &barrier, 0,
                         nullptr, 0, nullptr);
    const VkBufferCopy region{d_at, 0, k.d_bytes};
    vkCmdCopyBuffer(cb, tensors.buffer, readback.buffer, 1, &region);
    barrier.srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT;
    barrier.dstAccessMask = VK_ACCESS_HOST_READ_BIT;
    vkCmdPipelineBarrier(cb, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_HOST_BIT, 0, 1, &barrier, 0, nullptr, 0,
                         nullptr);
    return true;
  });
  if (!ran || !d.SubmitAndWait()) return -1;
  const float* out = static_cast<const float*>(readback.mapped);
  *right = true;
  for (VkDeviceSize i = 0; i < k.d_bytes / 4 && *right; ++i) {
    *right = std::fabs(out[i] - k.expected) <= 1e-3 * std::fabs(k.expected) + 1e-6;
    if (!*right) {
      std::fprintf(stderr, "bindery_probe: %s: element %llu is %g, expected %g\n", k.row,
                   static_cast<unsigned long long>(i), out[i], k.expected);
    }
  }
  return MedianGpuNs(d, dispatch, 2, kSamples);
}

}  // namespace

std::vector<ProbeResult> RunGgmlProbes(bool layer, std::string* description) {
  std::vector<ProbeResult> out;
  auto features = std::make_unique<GgmlFeatures>();
  QueryAsGgml(layer, features.get());
  if (!features->error.empty()) {
    std::fprintf(stderr, "bindery_probe: ggml device: %s\n", features->error.c_str());
    return out;
  }
  features->Chain();
  test::HarnessOptions options = BenchHarnessOptions(layer, &features->f2);
  if (features->robustness_extension) options.device_extensions.push_back(VK_EXT_PIPELINE_ROBUSTNESS_EXTENSION_NAME);
  ProbeDevice d(layer, options);
  if (!d.error().empty()) {
    std::fprintf(stderr, "bindery_probe: ggml device: %s\n", d.error().c_str());
    return out;
  }
  *description = d.Description();

  // ggml's one set layout and a pool for its sets.
  std::vector<VkDescriptorSetLayoutBinding> bindings;
  for (uint32_t i = 0; i < kGgmlBindings; ++i) {
    bindings.push_back({i, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1, VK_SHADER_STAGE_COMPUTE_BIT, nullptr});
  }
  VkDescriptorSetLayoutCreateInfo dslci{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO};
  dslci.bindingCount = kGgmlBindings;
  dslci.pBindings = bindings.data();
  VkDescriptorSetLayout set_layout = VK_NULL_HANDLE;
  if (vkCreateDescriptorSetLayout(d.device(), &dslci, nullptr, &set_layout) != VK_SUCCESS) return out;
  const VkDescriptorPoolSize size{VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, kGgmlBindings * 4};
  VkDescriptorPoolCreateInfo dpci{VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO};
  dpci.maxSets = 4;
  dpci.poolSizeCount = 1;
  dpci.pPoolSizes = &size;
  VkDescriptorPool pool = VK_NULL_HANDLE;
  if (vkCreateDescriptorPool(d.device(), &dpci, nullptr, &pool) != VK_SUCCESS) {
    vkDestroyDescriptorSetLayout(d.device(), set_layout, nullptr);
    return out;
  }

  // test-backend-ops' shapes (a CPU device: smaller). The matrix-vector kernels run ggml's
  // choice for NVIDIA at this size (ggml_vk_get_dequantize_mul_mat_vec: m <= 8192, k >= 1024):
  // workgroups of 4 subgroups, subgroup + shared-memory reduction; rows per workgroup: 2 for
  // q4_0 and f16, 1 for q8_0.
  const uint32_t m = d.is_cpu() ? 256 : 4096, k = d.is_cpu() ? 2048 : 14336;
  const uint32_t wg = 4 * features->subgroup_size;
  const double b = [] {
    float f;
    std::memcpy(&f, &kFill, 4);
    return static_cast<double>(f);
  }();
  const std::string dims = std::to_string(m) + "x" + std::to_string(k);
  auto matvec_push = [&] { return std::vector<uint32_t>{k, k, k, m, k * m, k, m, 0, 0, 1, 1, 1, 1}; };
  // Per 32-value block (d = 1.0 from the fill): q4_0's 16 bytes alternate 0x00 and 0x3c,
  // whose nibbles minus 8 sum to 8 x (-16) + 8 x (-1) = -136; q8_0's 32 bytes alternate 0 and 60.
  const std::vector<GgmlKernel> kernels = {
      {"q4_0", ggml_mul_mat_vec_q4_0_spv, sizeof(ggml_mul_mat_vec_q4_0_spv), 52, {wg, 2, 1}, true, matvec_push(),
       {m / 2, 1, 1}, uint64_t{m} * k / 32 * 18, uint64_t{k} * 4, uint64_t{m} * 4, b * (k / 32) * -136.0},
      {"q8_0", ggml_mul_mat_vec_q8_0_spv, sizeof(ggml_mul_mat_vec_q8_0_spv), 52, {wg, 1, 1}, true, matvec_push(),
       {m, 1, 1}, uint64_t{m} * k / 32 * 34, uint64_t{k} * 4, uint64_t{m} * 4, b * (k / 32) * 960.0},
      {"f16", ggml_mul_mat_vec_f16_spv, sizeof(ggml_mul_mat_vec_f16_spv), 52, {wg, 2, 1}, false, matvec_push(),
       {m / 2, 1, 1}, uint64_t{m} * k * 2, uint64_t{k} * 4, uint64_t{m} * 4, b * k},
  };
  for (const GgmlKernel& kernel : kernels) {
    const std::string row = "ggml/mul_mat_vec " + std::string(kernel.row) + " " + dims + " (GPU)";
    if (!RowWanted(row)) continue;
    bool right = false;
    const double ns = RunKernel(d, *features, set_layout, pool, kernel, &right);
    if (ns >= 0 && right) out.push_back({row, "us", ns / 1000});
  }

  // ADD(type=f32, ne=[4096,1,1,1], nr=[1,512,1,1]): dst[i0, i1] = src0[i0, i1] + src1[i0]
  // (spec norepeat = false: src1 broadcast), 512 elements per workgroup of 256, dispatched as
  // ggml does beyond 262144 elements: 1 x 512 x n / 262144 workgroups.
  const uint32_t cols = 4096, rows = d.is_cpu() ? 16 : 512, n = cols * rows;
  const std::vector<uint32_t> add_push = {n,    cols, rows, 1, 1, 1, cols, n, n,    // src0: ne, nb (elements)
                                          cols, 1,    1,    1, 1, cols, cols, cols,  // src1
                                          cols, rows, 1,    1, 1, cols, n,    n,     // dst
                                          0,    0,    0,    0};                      // misalign, params
  const GgmlKernel add{"add", ggml_add_f32_spv, sizeof(ggml_add_f32_spv), 116, {0}, false, add_push,
                       {1, n >= 262144 ? 512u : n / 512, n >= 262144 ? n / 262144 : 1}, uint64_t{n} * 4,
                       uint64_t{cols} * 4, uint64_t{n} * 4, 2 * b};
  const std::string add_row = "ggml/add " + std::to_string(cols) + "x" + std::to_string(rows) + " broadcast (GPU)";
  if (RowWanted(add_row)) {
    bool right = false;
    const double ns = RunKernel(d, *features, set_layout, pool, add, &right);
    if (ns >= 0 && right) out.push_back({add_row, "us", ns / 1000});
  }
  vkDestroyDescriptorPool(d.device(), pool, nullptr);
  vkDestroyDescriptorSetLayout(d.device(), set_layout, nullptr);
  return out;
}

}  // namespace bindery::bench
