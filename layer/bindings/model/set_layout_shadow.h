// What a descriptor set layout becomes under indirect bindings: which bindings turn into
// argument-block records (storage buffers, dynamic or not; uniform buffers when the
// setting says so) and where their records lie, and what stays a native descriptor (the
// smaller native layout created underneath). Pure planning: no Vulkan calls, unit-tested.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include <vulkan/vulkan.h>

namespace bindery::bindings {

inline constexpr uint32_t kNoOffset = 0xffffffffu;
// One record per buffer descriptor: { uint64 address; uint64 size; } (spirv/rewrite.h).
inline constexpr uint32_t kRecordBytes = 16;
// Most records of a set whose records may travel in the root (SetLayoutShadow::records_fit_root).
inline constexpr uint32_t kMaxRecordsInRoot = 4;
// Most records of a larger set that may travel in the root as a prefix, its block's address
// after them (SetLayoutShadow::records_prefix_fit_root; root_layout.h).
inline constexpr uint32_t kMaxRootPrefixRecords = 8;

bool IsConvertedType(VkDescriptorType type, bool convert_uniform_buffers);
// Layouts created with these flags never convert: descriptor-buffer layouts (the
// application lays the descriptors out itself, from the driver's layout size and binding
// offsets) and host-only-pool layouts (EXT / VALVE mutable descriptors: their sets are
// never bound, only copied from, and live in host-only pools).
bool LayoutFlagsAllowConversion(VkDescriptorSetLayoutCreateFlags flags);
bool IsDynamicType(VkDescriptorType type);

struct ConvertedBinding {
  uint32_t binding = 0;
  VkDescriptorType type = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
  uint32_t count = 0;         // descriptors (the maximum, for a variable-count binding)
  uint32_t first_record = 0;  // in the set's block
  bool variable = false;      // VARIABLE_DESCRIPTOR_COUNT: the set's count decides
  // Dynamic bindings: index of its first offset among the set's converted dynamic offsets
  // (which travel in the root); kNoOffset otherwise.
  uint32_t first_dynamic = kNoOffset;
};

// Dynamic descriptors of a layout in the order vkCmdBindDescriptorSets consumes their
// offsets (binding number, then element): runs that are converted (root) or native
// (passed down).
struct DynamicRun {
  bool converted = false;
  uint32_t count = 0;
};

struct SetLayoutShadow {
  VkDescriptorSetLayout native = VK_NULL_HANDLE;  // the handle the application holds
  std::vector<ConvertedBinding> converted;        // ascending binding numbers
  uint32_t record_count = 0;                      // with variable bindings at their maximum
  uint32_t converted_dynamic = 0;                 // dynamic offsets that go to the root
  uint32_t native_dynamic = 0;                    // dynamic offsets that are passed down
  std::vector<DynamicRun> dynamic_runs;
  // The application's layout as it asked for it (for the full native layout a pipeline
  // that falls back uses; immutable samplers copied).
  VkDescriptorSetLayoutCreateFlags create_flags = 0;
  std::vector<VkDescriptorSetLayoutBinding> app_bindings;
  std::vector<VkDescriptorBindingFlags> app_flags;  // empty: none given
  std::vector<std::vector<VkSampler>> immutable_samplers;
  uint32_t total_dynamic = 0;     // dynamic descriptors of the whole layout
  // The full native layout for fallbacks (created on first need; guarded by the device's
  // fallback mutex); the native layout itself when nothing is converted.
  mutable VkDescriptorSetLayout full = VK_NULL_HANDLE;
  bool has_native = false;        // the native layout still has bindings with descriptors
  bool push_descriptor = false;   // a push-descriptor layout (converted records live per command buffer)
  // Its sets' records may travel in the root itself (root_layout.h): few records, a fixed
  // count, and contents fixed once a set is bound (no update-after-bind, no update while
  // pending, no push descriptors), so a copy taken at bind time is what the GPU must read.
  bool records_fit_root = false;
  // The same without the count limit: a prefix of its records may travel in the root,
  // followed by its block's address for the rest (root_layout.h). An application that keeps
  // one large set layout for every pipeline (ggml: 12 storage buffers, of which a kernel
  // reads its first 3 to 5) then reads the buffers it uses straight from push constants.
  bool records_prefix_fit_root = false;
  bool converts() const { return !converted.empty(); }

  const ConvertedBinding* Find(uint32_t binding) const {
    // Dense binding numbers (the usual layout) find theirs by index; others search.
    if (binding < converted.size() && converted[binding].binding == binding) return &converted[binding];
    return FindSorted(binding);
  }
  const ConvertedBinding* FindSorted(uint32_t binding) const;
  // Records of a set allocated with `variable_count` descriptors in its variable binding.
  uint32_t RecordsFor(uint32_t variable_count) const;
};

// Are the two layouts identically defined (the spec's test for compatible set layouts:
// the same flags, bindings, types, counts, stages, binding flags and immutable samplers),
// whatever their handles?
bool SameDefinition(const SetLayoutShadow& a, const SetLayoutShadow& b);

// Plans `info`'s shadow (binding flags from its VkDescriptorSetLayoutBindingFlagsCreateInfo,
// nullptr when absent). Fills `native_bindings` / `native_flags` with what stays native
// (native_flags stays empty when `flags` is nullptr). With `convert_buffers` false
// nothing converts (the policy left the layout native) and the shadow only describes it.
SetLayoutShadow PlanSetLayout(const VkDescriptorSetLayoutCreateInfo& info, const VkDescriptorBindingFlags* flags,
                              bool convert_uniform_buffers, std::vector<VkDescriptorSetLayoutBinding>& native_bindings,
                              std::vector<VkDescriptorBindingFlags>& native_flags, bool convert_buffers = true);

}  // namespace bindery::bindings
