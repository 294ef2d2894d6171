// The record store's lookups behind the command buffer's memory of its last layout and
// template (record_store.h): out of line, so that a hit costs the hook no call.
#include "bindings/record/record_store.h"

namespace bindery::bindings {

const PipelineLayoutShadow* LayoutShadowLookup(RecordStore& b, BindingsCommandData* data, VkPipelineLayout layout,
                                               uint64_t generation) {
  const PipelineLayoutShadow* pl = Lookups().pipeline_layouts.Find(&b, b.pipeline_layouts, layout);
  if (data != nullptr && pl != nullptr) {
    data->last_layout = layout;
    data->last_layout_shadow = pl;
    data->last_layout_generation = generation;
  }
  return pl;
}

const TemplateShadow* TemplateShadowLookup(RecordStore& b, BindingsCommandData* data,
                                           VkDescriptorUpdateTemplate handle, uint64_t generation) {
  const TemplateShadow* t = b.templates.Find(handle);
  if (data != nullptr && t != nullptr) {
    data->last_template = handle;
    data->last_template_shadow = t;
    data->last_template_generation = generation;
  }
  return t;
}

}  // namespace bindery::bindings
