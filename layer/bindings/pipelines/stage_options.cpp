#include "bindings/pipelines/stage_options.h"

#include <algorithm>
#include <cstring>
#include <mutex>

#include "bindings/pipelines/pipeline_store.h"

namespace bindery::bindings {
namespace {

spirv::TargetEnv TargetFor(uint32_t api_version, uint32_t spirv_version) {
  if (api_version >= VK_API_VERSION_1_3) return spirv::TargetEnv::kVulkan1_3;
  if (api_version >= VK_API_VERSION_1_2) return spirv::TargetEnv::kVulkan1_2;
  if (api_version >= VK_API_VERSION_1_1) {
    return spirv_version >= 0x00010400 ? spirv::TargetEnv::kVulkan1_1Spirv1_4 : spirv::TargetEnv::kVulkan1_1;
  }
  return spirv::TargetEnv::kVulkan1_0;
}

// Fills `o` (reused: its vectors keep their capacity, so a pipeline whose rewrite is
// cached allocates nothing here).
// `entry`: the stage's entry point where its module has several (else nullptr: the
// module's one), of execution model `model`.
void OptionsFor(const PipelineStore& b, const RootLayout& root, uint32_t root_shift, uint32_t spirv_version,
                bool bounds_checks, const char* entry, uint32_t model, spirv::RewriteOptions& o) {
  std::size_t used_sets = 0;
  if (entry != nullptr) {
    o.entry_point = entry;
  } else {
    o.entry_point.clear();
  }
  o.execution_model = model;
  o.target = TargetFor(b.plan.api_version, spirv_version);
  o.shader_int64 = b.plan.shader_int64;
  o.float16 = b.plan.shader_float16;
  o.int16 = b.plan.shader_int16;
  o.int8 = b.plan.shader_int8;
  o.bounds_checks = bounds_checks;
  o.restrict_pointers = b.plan.restrict_pointers;
  o.convert_uniform_buffers = b.plan.convert_uniform_buffers;
  o.broadcast_descriptor_index_models = b.plan.broadcast_descriptor_index_models;
  o.lane_zero_descriptor_index_models = b.plan.lane_zero_descriptor_index_models;
  // Descriptor addresses are multiples of the offset alignments (spirv/access_alignment.h).
  const VkPhysicalDeviceLimits& limits = b.device.properties.limits;
  VkDeviceSize base_alignment = limits.minStorageBufferOffsetAlignment;
  if (o.convert_uniform_buffers) base_alignment = std::min(base_alignment, limits.minUniformBufferOffsetAlignment);
  o.descriptor_base_alignment = static_cast<uint32_t>(std::min<VkDeviceSize>(base_alignment, 256));
  o.root_placement = !root.in_buffer        ? spirv::RootPlacement::kPushConstants
                     : root.address_in_push ? spirv::RootPlacement::kPushAddress
                                            : spirv::RootPlacement::kStorageBuffer;
  o.root_buffer_set = root.in_buffer && !root.address_in_push ? root.buffer_set : 0;
  // A root in the ring has one copy: only its address (in push constants) has one per bind point.
  o.root_address_offset = root.address_in_push ? root.address_offset + root_shift : 0;
  if (root.in_buffer) root_shift = 0;
  for (uint32_t i = 0; i < root.sets.size(); ++i) {
    const SetRoot& r = root.sets[i];
    if (r.root_offset == kNoOffset) continue;
    if (used_sets == o.sets.size()) o.sets.emplace_back();
    spirv::SetLayout& s = o.sets[used_sets++];
    s.set = i;
    s.root_offset = r.root_offset + root_shift;
    s.records_in_root = r.records_in_root;
    s.root_records = r.partial() ? r.root_records : 0;
    s.bindings.clear();
    for (const ConvertedBinding& c : r.layout->converted) {
      spirv::BindingLayout bl;
      bl.binding = c.binding;
      bl.array_size = c.count;
      bl.first_record = c.first_record;
      bl.dynamic_offsets_root_offset =
          c.first_dynamic == kNoOffset ? spirv::kNoRootOffset : r.dynamic_offset + root_shift + 4 * c.first_dynamic;
      s.bindings.push_back(bl);
    }
  }
  // Sets past the used ones are dropped; the used ones keep their bindings' storage.
  o.sets.resize(used_sets);
}

// The SPIR-V execution model of a pipeline stage (spirv::kAnyExecutionModel where one
// stage bit stands for two models: task and mesh of NV and EXT).
uint32_t ExecutionModelOf(VkShaderStageFlagBits stage) {
  switch (stage) {
    case VK_SHADER_STAGE_VERTEX_BIT: return 0;
    case VK_SHADER_STAGE_TESSELLATION_CONTROL_BIT: return 1;
    case VK_SHADER_STAGE_TESSELLATION_EVALUATION_BIT: return 2;
    case VK_SHADER_STAGE_GEOMETRY_BIT: return 3;
    case VK_SHADER_STAGE_FRAGMENT_BIT: return 4;
    case VK_SHADER_STAGE_COMPUTE_BIT: return 5;
    default: return spirv::kAnyExecutionModel;
  }
}

}  // namespace

StageVariant VariantOf(const PipelineLayoutShadow& layout, const VkPipelineShaderStageCreateInfo& stage,
                       const spirv::ModuleInfo& info, const std::vector<uint32_t>& words, bool bounds_checks) {
  StageVariant v;
  v.spirv_version = words.size() > 1 ? words[1] : 0;
  v.bounds_checks = bounds_checks;
  // A compute stage reads the compute bind point's copy of the root, the others the
  // graphics one's (RootPushSpace).
  v.root_shift = layout.RootShift(stage.stage == VK_SHADER_STAGE_COMPUTE_BIT ? 1 : 0);
  // A module with several entry points is rewritten for the one the stage names: each
  // may have its own push-constant block, which the root must join
  // (spirv::RewriteOptions::entry_point). A module of one keeps its rewrite for all.
  v.entry = info.entry_points.size() > 1 ? stage.pName : nullptr;
  v.model = v.entry != nullptr ? ExecutionModelOf(stage.stage) : spirv::kAnyExecutionModel;
  return v;
}

void StageRewriteOptions(const PipelineStore& b, const PipelineLayoutShadow& layout, const StageVariant& v,
                         spirv::RewriteOptions& options) {
  OptionsFor(b, layout.root, v.root_shift, v.spirv_version, v.bounds_checks, v.entry, v.model, options);
}

void StageRewriteKey(const PipelineStore& b, const PipelineLayoutShadow& layout, const StageVariant& v,
                     std::string* key) {
  std::call_once(layout.rewrite_key_once, [&] {
    spirv::RewriteOptions plain;
    StageRewriteOptions(b, layout, StageVariant{}, plain);
    AppendOptionsKey(plain, &layout.rewrite_key);
  });
  const std::size_t entry_size = v.entry != nullptr ? std::strlen(v.entry) : 0;
  const uint32_t fields[] = {v.root_shift, v.spirv_version, v.bounds_checks ? 1u : 0u, v.model,
                             v.entry != nullptr ? 1u : 0u, static_cast<uint32_t>(entry_size)};
  // One resize, then copies (a caller reusing *key allocates nothing).
  const std::size_t start = key->size();
  key->resize(start + layout.rewrite_key.size() + sizeof(fields) + entry_size);
  char* at = key->data() + start;
  std::memcpy(at, layout.rewrite_key.data(), layout.rewrite_key.size());
  at += layout.rewrite_key.size();
  std::memcpy(at, fields, sizeof(fields));
  if (entry_size != 0) std::memcpy(at + sizeof(fields), v.entry, entry_size);
}

}  // namespace bindery::bindings
