// Graphics pipeline libraries (VK_EXT_graphics_pipeline_library) on a device where layouts
// convert: every pipeline of a library chain — a library (VK_PIPELINE_CREATE_LIBRARY_BIT_KHR)
// or a pipeline linking libraries (VkPipelineLibraryCreateInfoKHR) — whose layout converts
// is created natively with the full layout (every binding a descriptor), and a linked
// pipeline that can be bound runs as a pipeline that fell back: its bound sets are
// materialised as full native sets at its draws (record/fallback_binds.cpp). docs/indirect-bindings.md
// ("Graphics pipeline libraries") says why the chain is not rewritten instead: the
// libraries of one pipeline are made apart (independent sets give each only its own
// sets), so no library can learn the root or set numbering of the pipeline it will be
// linked into, nor whether another library of it will need to fall back; and the spec
// lets the application destroy a library's modules once it exists, so the layer could not
// make a library again later. A chain that runs natively with the full layouts is the
// one form every library of it can agree on without knowing the others.
#pragma once

#include <cstdint>
#include <vector>

#include <vulkan/vulkan.h>

#include "bindings/pipelines/pipeline_shadows.h"

namespace bindery::bindings {

class PipelineStore;

// What a pipeline of a library chain made on a converting device leaves for the
// pipelines linked from it (PipelineStore::pipeline_libraries).
struct PipelineLibrary {
  // The layout it was made with natively (`full`), its sets and ranges, and the bindings
  // its shaders and its own libraries' statically use: what a pipeline linked from it
  // without a layout of its own (the spec allows it without link-time optimisation)
  // runs with.
  FallbackPipeline native;
  bool converts = false;  // its layout, or a library of it, converts some binding
};

// One create info of a library chain, from its preparation to the driver's answer.
struct LibraryChainMember {
  uint32_t index = 0;      // in the creation call
  bool library = false;    // VK_PIPELINE_CREATE_LIBRARY_BIT_KHR: cannot be bound
  PipelineLibrary native;  // what it runs with
  const char* entry = "";  // for the log: its first stage's entry point, if any
};

// Is this create info part of a library chain (a library, or a pipeline linking some)?
bool InLibraryChain(const VkGraphicsPipelineCreateInfo& info);

// Before creation: `info` (the create info sent down) gets the full native layout where
// `layout` (its layout's shadow, nullptr when unknown) converts, and `member` what the
// pipeline runs with. False, logged, when the full layout cannot be made (a layout beyond
// the driver's own limits has no native form): then the creation fails.
bool PrepareLibraryChainMember(PipelineStore& b, VkGraphicsPipelineCreateInfo& info,
                               PipelineLayoutShadow* layout, uint32_t index, LibraryChainMember* member);

// After the driver's answer: each library is kept for the pipelines linked from it, and
// each linked pipeline whose bindings convert runs natively (a fallback pipeline, counted
// with its reason). Pipelines the driver did not create are skipped.
void RegisterLibraryChain(PipelineStore& b, const std::vector<LibraryChainMember>& members,
                          const VkPipeline* pipelines);

}  // namespace bindery::bindings
