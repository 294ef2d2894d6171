// SPIRV-Tools' validator on a rewritten module, as the driver will see it: with the
// application's specialization applied (spec constants set to its values, frozen and
// folded), for the device's target environment. Used by the `bindings_validate` setting
// at pipeline creation, by tests and by the fuzzer. A separate library from the rewrite
// (which needs only the SPIR-V headers): it links SPIRV-Tools and its optimizer.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "spirv/rewrite.h"

namespace bindery::spirv {

// One specialization constant's value: its SpecId and its bytes as words (the low bytes
// first; a value narrower than a word padded with zeros).
struct SpecValue {
  uint32_t id = 0;
  std::vector<uint32_t> words;
};

// The values of a VkSpecializationInfo: map entries (id, offset, size) over `data`.
// Entries that reach past `data_size` are skipped (the application's bug, not ours).
struct SpecMapEntry {
  uint32_t id;
  uint32_t offset;
  std::size_t size;
};
std::vector<SpecValue> SpecValuesOf(const SpecMapEntry* entries, uint32_t count, const void* data, std::size_t data_size);

// `words` specialized with `values` (set as defaults, then frozen and folded); "" in
// `error` or why it could not be done. `words` must be valid: the optimizer's passes
// assume it (ValidateSpecialized checks first).
std::vector<uint32_t> Specialize(const std::vector<uint32_t>& words, TargetEnv target,
                                 const std::vector<SpecValue>& values, std::string* error);

// "" when `words`, specialized with `values`, passes spirv-val for `target`; else the
// validator's message (the first one, with the instruction it names).
std::string ValidateSpecialized(const std::vector<uint32_t>& words, TargetEnv target,
                                const std::vector<SpecValue>& values);

// The verdict on a rewrite: the rewritten module is judged only when the original passes
// the same validation (a module the application got wrong, or that needs a layout
// relaxation the validator is not told of, is not the rewrite's fault).
struct RewriteVerdict {
  bool rewrite_invalid = false;  // the original passes, the rewrite does not
  bool original_invalid = false; // the original fails already (the rewrite is not judged)
  std::string message;           // the validator's message on whichever failed
};
RewriteVerdict JudgeRewrite(const std::vector<uint32_t>& original, const std::vector<uint32_t>& rewritten,
                            TargetEnv target, const std::vector<SpecValue>& values);

}  // namespace bindery::spirv
