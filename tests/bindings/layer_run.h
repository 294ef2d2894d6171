// Runs one corpus compute shader (tests/spirv/corpus) through the whole layer, as an
// application would: real set layouts, a pool, sets written with vkUpdateDescriptorSets,
// a pipeline layout with the shader's push constants, bind, dispatch, read back. The
// same run with indirect_bindings off and forced must give identical buffers.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "corpus_entry.h"
#include "support/vk_harness.h"

namespace bindery::test {

struct LayerRunOptions {
  // Bind every storage buffer as STORAGE_BUFFER_DYNAMIC with a non-zero dynamic offset
  // (the buffer is allocated larger and the data placed at that offset).
  bool dynamic = false;
  // Descriptor ranges: VK_WHOLE_SIZE (true) or the explicit size.
  bool whole_size = true;
  // Write the sets with vkUpdateDescriptorSetWithTemplate (one template per set).
  bool use_template = false;
};

struct LayerRunOutput {
  std::string error;
  std::vector<std::vector<uint8_t>> buffers;  // in @buffer order
};

LayerRunOutput RunThroughLayer(VkHarness& h, const spirv_exec::CorpusEntry& entry, const std::vector<uint32_t>& module,
                               const std::string& entry_point, const LayerRunOptions& options);

}  // namespace bindery::test
