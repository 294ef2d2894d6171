// What the native twins of a converting layout's pipelines need of it
// (pipelines/native_twin.h), made with the layout (descriptor_layout_hooks.cpp).
#pragma once

#include <memory>
#include <vector>

#include "bindings/descriptors/shadows.h"
#include "bindings/model/set_layout_shadow.h"

namespace bindery::bindings {

// What a twin needs of its pipeline's layout: made once per converting layout
// (PipelineLayoutShadow::twin_layout) and shared by the twins of all its pipelines, so a
// pipeline created from the rewrite cache copies nothing of its layout. It outlives the
// application's layout, which may be destroyed once its pipelines exist.
struct TwinLayout {
  PipelineLayoutShadow layout;  // its root and native ranges; `full` made on first need
  std::vector<std::shared_ptr<const SetLayoutShadow>> sets;  // the layout's sets, by number
};
std::shared_ptr<TwinLayout> MakeTwinLayout(const PipelineLayoutShadow& layout);

}  // namespace bindery::bindings
