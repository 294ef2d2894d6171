// PointerPass: the Aligned operand of accesses through converted descriptors, from the
// descriptor base alignment and the block layout (spirv/access_alignment.h).
#include "spirv/access_alignment.h"
#include "spirv/pointer_pass.h"

namespace bindery::spirv {

uint32_t PointerPass::DescriptorAccessAlignment(uint32_t pointer) const {
  if (options_.descriptor_base_alignment == 0) return 0;
  AccessAlignmentQuery q;
  q.types = &types_;
  q.local_def = [this](uint32_t id) { return LocalDef(id); };
  q.is_converted_variable = [this](uint32_t id) { return ConvertedOf(id) >= 0; };
  q.base_alignment = options_.descriptor_base_alignment;
  return KnownAccessAlignment(q, pointer);
}

}  // namespace bindery::spirv
