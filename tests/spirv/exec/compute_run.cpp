#include "compute_run.h"

#include <algorithm>
#include <cstring>
#include <fstream>
#include <map>

#include "support/vk_objects.h"

namespace bindery::spirv_exec {

std::vector<uint32_t> LoadSpirv(const std::string& path, std::string& error) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    error = "cannot open " + path + " (was the corpus built?)";
    return {};
  }
  std::vector<char> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (bytes.empty() || bytes.size() % 4 != 0) {
    error = path + ": not a SPIR-V binary";
    return {};
  }
  std::vector<uint32_t> words(bytes.size() / 4);
  std::memcpy(words.data(), bytes.data(), bytes.size());
  return words;
}

namespace {

// Bytes after each buffer that no descriptor or record covers: a shader that writes past
// its buffer (through a raw pointer nothing bounds) hits these instead of the driver's heap,
// and the run reports it.
constexpr uint32_t kGuardBytes = 4096;
constexpr uint8_t kGuardFill = 0xa5;

bool InLayout(const spirv::RewriteOptions* layout, uint32_t set, uint32_t binding) {
  if (!layout) return false;
  for (const spirv::SetLayout& s : layout->sets) {
    if (s.set != set) continue;
    for (const spirv::BindingLayout& b : s.bindings) {
      if (b.binding == binding) return true;
    }
  }
  return false;
}

VkDescriptorType DescriptorType(const BufferSpec& spec) {
  if (spec.dynamic) return spec.uniform ? VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER_DYNAMIC : VK_DESCRIPTOR_TYPE_STORAGE_BUFFER_DYNAMIC;
  return spec.uniform ? VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER : VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
}

// Where the rewritten module reads the dynamic offset of `spec` (kNoRootOffset: none).
uint32_t DynamicOffsetAt(const spirv::RewriteOptions* layout, const BufferSpec& spec) {
  if (!layout || !spec.dynamic) return spirv::kNoRootOffset;
  for (const spirv::SetLayout& s : layout->sets) {
    if (s.set != spec.set) continue;
    for (const spirv::BindingLayout& b : s.bindings) {
      if (b.binding == spec.binding && b.dynamic_offsets_root_offset != spirv::kNoRootOffset)
        return b.dynamic_offsets_root_offset + 4 * spec.index;
    }
  }
  return spirv::kNoRootOffset;
}

// The buffers of one run, destroyed on every path out (the other objects are in an ObjectBag).
struct RunBuffers {
  ExecDevice& device;
  std::vector<DeviceBuffer> buffers;
  std::vector<DeviceBuffer> blocks;
  explicit RunBuffers(ExecDevice& d) : device(d) {}
  ~RunBuffers() {
    for (DeviceBuffer& b : buffers) device.Destroy(b);
    for (DeviceBuffer& b : blocks) device.Destroy(b);
  }
};

}  // namespace

RunOutput RunCompute(ExecDevice& device, const CorpusEntry& entry, const std::vector<uint32_t>& module,
                     const std::string& entry_point, const spirv::RewriteOptions* layout,
                     uint32_t push_constant_end) {
  RunOutput out;
  RunBuffers o(device);
  VkDevice dev = device.device();
  test::ObjectBag bag(dev);

  // Buffers with their initial contents (the same bytes for every run).
  for (const BufferSpec& spec : entry.buffers) {
    DeviceBuffer b = device.CreateBuffer(spec.size + kGuardBytes);
    if (b.buffer == VK_NULL_HANDLE) {
      out.error = "buffer creation failed";
      return out;
    }
    std::vector<uint8_t> init(spec.size);
    FillPattern(spec.fill, init);
    std::memcpy(b.mapped, init.data(), init.size());
    std::memset(static_cast<uint8_t*>(b.mapped) + spec.size, kGuardFill, kGuardBytes);
    o.buffers.push_back(b);
  }

  for (const auto& ad : entry.addresses) {
    std::memcpy(static_cast<uint8_t*>(o.buffers[ad.dst].mapped) + ad.offset, &o.buffers[ad.src].address, 8);
  }

  // Descriptor bindings: every buffer the layout does not take.
  test::SetBindings sets;
  for (const BufferSpec& spec : entry.buffers) {
    if (InLayout(layout, spec.set, spec.binding)) continue;
    test::BindingSlot& d = sets[spec.set][spec.binding];
    d.type = DescriptorType(spec);
    d.count = std::max(d.count, spec.index + 1);
  }
  const uint32_t set_count = sets.empty() ? 0 : sets.rbegin()->first + 1;
  const std::vector<VkDescriptorSetLayout> set_layouts = test::CreateSetLayouts(dev, sets, bag);
  if (set_layouts.size() != set_count) {
    out.error = "vkCreateDescriptorSetLayout failed";
    return out;
  }

  // Push constants: the shader's own bytes, then (rewritten) one root per converted set.
  uint32_t push_size = entry.push_size;
  if (layout) push_size = std::max(push_size, push_constant_end);
  push_size = (push_size + 3) & ~3u;
  std::vector<uint8_t> push(entry.push_size);
  FillPattern(entry.push_fill, push);
  for (const auto& [offset, value] : entry.push_words) {
    if (offset + 4 > push.size()) {
      out.error = "@pushword at " + std::to_string(offset) + " beyond @push " + std::to_string(push.size());
      return out;
    }
    std::memcpy(&push[offset], &value, 4);
  }
  push.resize(push_size, 0);
  for (const auto& [offset, buf] : entry.push_addresses) std::memcpy(&push[offset], &o.buffers[buf].address, 8);
  // Dynamic offsets of converted dynamic buffers travel in push constants.
  for (const BufferSpec& spec : entry.buffers) {
    const uint32_t at = DynamicOffsetAt(layout, spec);
    if (at == spirv::kNoRootOffset) continue;
    if (at + 4 > push.size()) {
      out.error = "dynamic offset at " + std::to_string(at) + " beyond push_constant_end " +
                  std::to_string(push_constant_end);
      return out;
    }
    std::memcpy(&push[at], &spec.dynamic_offset, 4);
  }

  if (layout) {
    for (const auto& [offset, value] : entry.rewritten_push_words) {
      if (offset + 4 > push.size()) {
        out.error = "push word at " + std::to_string(offset) + " beyond the push constants";
        return out;
      }
      std::memcpy(&push[offset], &value, 4);
    }
  }

  // Argument blocks: one 16-byte record {address, size} per descriptor.
  if (layout) {
    for (const spirv::SetLayout& s : layout->sets) {
      uint32_t records = 1;
      for (const spirv::BindingLayout& b : s.bindings) records = std::max(records, b.first_record + b.array_size);
      // The set's records at `base` (push constants or an argument block), as the layer writes them.
      auto write_records = [&](uint8_t* base) {
        std::memset(base, 0, 16ull * records);
        for (const spirv::BindingLayout& b : s.bindings) {
          for (size_t i = 0; i < entry.buffers.size(); ++i) {
            const BufferSpec& spec = entry.buffers[i];
            if (spec.set != s.set || spec.binding != b.binding || spec.index >= b.array_size) continue;
            const uint64_t record[2] = {o.buffers[i].address + static_cast<uint64_t>(spec.record_bias),
                                        spec.record_size ? spec.record_size : spec.size};
            std::memcpy(base + 16ull * (b.first_record + spec.index), record, 16);
          }
        }
      };
      if (s.records_in_root && s.root_records == 0) {
        // The records themselves in push constants, as the layer's bind copies them there.
        if (s.root_offset + 16ull * records > push.size()) {
          out.error = "root records at " + std::to_string(s.root_offset) + " beyond push_constant_end " +
                      std::to_string(push_constant_end);
          return out;
        }
        write_records(&push[s.root_offset]);
        continue;
      }
      // A prefix of the records in push constants, the block's address after them, the
      // block with every record (the layer's bind copies the prefix from the set's records).
      const uint32_t prefix = s.records_in_root ? s.root_records : 0;
      const uint32_t address_at = s.root_offset + 16 * prefix;
      DeviceBuffer block = device.CreateBuffer(16ull * records);
      if (block.buffer == VK_NULL_HANDLE) {
        out.error = "argument block creation failed";
        return out;
      }
      write_records(static_cast<uint8_t*>(block.mapped));
      if (address_at + 8 > push.size()) {
        out.error = "root offset " + std::to_string(address_at) + " beyond push_constant_end " +
                    std::to_string(push_constant_end);
        return out;
      }
      if (prefix != 0) std::memcpy(&push[s.root_offset], block.mapped, 16ull * prefix);
      // uint64 and uvec2 {low, high} are the same bytes (little-endian).
      std::memcpy(&push[address_at], &block.address, 8);
      o.blocks.push_back(block);
    }
  }

  const VkPipelineLayout pipeline_layout = bag.Keep(test::CreatePipelineLayout(dev, set_layouts, push_size));
  if (pipeline_layout == VK_NULL_HANDLE) {
    out.error = "vkCreatePipelineLayout failed";
    return out;
  }
  const VkShaderModule shader = bag.Keep(test::CreateShaderModule(dev, module.data(), module.size() * 4));
  if (shader == VK_NULL_HANDLE) {
    out.error = "vkCreateShaderModule failed";
    return out;
  }
  VkPipeline pipeline = VK_NULL_HANDLE;
  const VkResult pr =
      test::CreateComputePipeline(dev, pipeline_layout, shader, entry_point.c_str(), entry.spec, &pipeline);
  bag.Keep(pipeline);
  if (pr != VK_SUCCESS) {
    out.error = "vkCreateComputePipelines failed";
    return out;
  }

  // Descriptor sets for what stayed descriptors.
  std::vector<VkDescriptorSet> descriptor_sets(set_count, VK_NULL_HANDLE);
  if (!sets.empty()) {
    const VkDescriptorPool pool = bag.Keep(test::CreateDescriptorPool(dev, set_count, test::CountDescriptors(sets)));
    if (pool == VK_NULL_HANDLE) {
      out.error = "vkCreateDescriptorPool failed";
      return out;
    }
    std::vector<VkDescriptorBufferInfo> infos(entry.buffers.size());
    std::vector<VkWriteDescriptorSet> writes;
    for (const auto& [s, bindings] : sets) {
      descriptor_sets[s] = test::AllocateSet(dev, pool, set_layouts[s]);
      if (descriptor_sets[s] == VK_NULL_HANDLE) {
        out.error = "vkAllocateDescriptorSets failed";
        return out;
      }
    }
    for (size_t i = 0; i < entry.buffers.size(); ++i) {
      const BufferSpec& spec = entry.buffers[i];
      if (InLayout(layout, spec.set, spec.binding)) continue;
      // A dynamic descriptor's range starts at the dynamic offset given at bind time.
      infos[i] = {o.buffers[i].buffer, 0, spec.size - spec.dynamic_offset};
      writes.push_back(
          test::BufferWrite(descriptor_sets[spec.set], spec.binding, spec.index, DescriptorType(spec), &infos[i]));
    }
    vkUpdateDescriptorSets(dev, static_cast<uint32_t>(writes.size()), writes.data(), 0, nullptr);
  }

  test::VkHarness& h = device.harness();
  VkCommandBuffer cb = h.BeginCommands();
  vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_COMPUTE, pipeline);
  for (uint32_t s = 0; s < set_count; ++s) {
    if (descriptor_sets[s] == VK_NULL_HANDLE) continue;
    // Dynamic offsets in binding order, then array element order.
    std::vector<std::pair<std::pair<uint32_t, uint32_t>, uint32_t>> dynamic;
    for (const BufferSpec& spec : entry.buffers) {
      if (spec.set == s && spec.dynamic && !InLayout(layout, spec.set, spec.binding))
        dynamic.push_back({{spec.binding, spec.index}, spec.dynamic_offset});
    }
    std::sort(dynamic.begin(), dynamic.end());
    std::vector<uint32_t> offsets;
    for (const auto& d : dynamic) offsets.push_back(d.second);
    vkCmdBindDescriptorSets(cb, VK_PIPELINE_BIND_POINT_COMPUTE, pipeline_layout, s, 1, &descriptor_sets[s],
                            static_cast<uint32_t>(offsets.size()), offsets.data());
  }
  if (push_size) vkCmdPushConstants(cb, pipeline_layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, push_size, push.data());
  vkCmdDispatch(cb, entry.dispatch[0], entry.dispatch[1], entry.dispatch[2]);
  test::BarrierToHost(cb);  // the shader's writes, visible to the host reads below
  if (h.SubmitAndWait(cb) != VK_SUCCESS) {
    out.error = "submit failed";
    return out;
  }
  for (size_t i = 0; i < entry.buffers.size(); ++i) {
    const uint8_t* p = static_cast<const uint8_t*>(o.buffers[i].mapped);
    out.buffers.emplace_back(p, p + entry.buffers[i].size);
    for (uint32_t g = 0; g < kGuardBytes; ++g) {
      if (p[entry.buffers[i].size + g] == kGuardFill) continue;
      out.error = "buffer " + std::to_string(i) + " was written " + std::to_string(g) +
                  " bytes past its end (" + (layout ? "rewritten" : "native") + " run): the shader or the rewrite " +
                  "accesses out of bounds";
      break;
    }
  }
  return out;
}

}  // namespace bindery::spirv_exec
