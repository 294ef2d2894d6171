#include "rewrite_case.h"

#include <algorithm>

#include "spirv_validate.h"
#include "wide_index_check.h"

namespace bindery::spirv_exec {

namespace {

// Shapes the library refuses today ("not converted: <reason>"), by corpus file. A refusal
// is honest (the original module comes back unchanged) but leaves the case unproven, so
// each is listed here: a refusal anywhere else fails its test, and deleting a line is all
// it takes once the library converts the shape.
struct KnownGap {
  const char* file;
  bool bounds_only;    // refused only with bounds checks on
  const char* reason;  // substring of report.reason
  bool uvec2_only = false;  // refused only without shaderInt64
};
constexpr KnownGap kKnownGaps[] = {
    {"app_buffer_reference.comp", true, "bounds checks: an access through a merged or passed pointer"},
    {"function_pointer_params.spvasm", true, "bounds checks: an access through a merged or passed pointer"},
    {"phi_buffer_pointer.spvasm", true, "bounds checks: an access through a merged or passed pointer"},
    {"ptr_access_chain.spvasm", true, "bounds checks: an access through a merged or passed pointer"},
    {"select_buffer_pointer.spvasm", true, "bounds checks: an access through a merged or passed pointer"},
    {"matrices_layouts.comp", true, "bounds checks: access into a matrix"},
    {"ubo_converted.comp", true, "bounds checks: access into a matrix"},
    // Addresses as uvec2 reach a pointer by OpBitcast, which spirv-val forbids for pointers
    // to 8/16-bit storage-only values: intended (docs/indirect-bindings.md, "Status and
    // proof", the row on rewrites the module can declare).
    {"storage16_only.comp", false, "needs shaderInt64", true},
    {"storage8_only.comp", false, "needs shaderInt64", true},
    // ggml's kernels read 8/16-bit storage-only values too (ggml enables shaderInt64 where
    // the device has it, as on the H100 and lavapipe).
    {"ggml_mul_mat_vec_f16.spvasm", false, "needs shaderInt64", true},
    {"ggml_mul_mat_vec_q4_0.spvasm", false, "needs shaderInt64", true},
    {"ggml_mul_mat_vec_q8_0.spvasm", false, "needs shaderInt64", true},
    {"quantized_block_copy.comp", false, "needs shaderInt64", true},
};

// Cases on which the library itself misbehaves (found by the ASan build of this suite):
// the pass is not even called for them, since the call corrupts memory. Each names the
// bug; the fuzzer's reproducer sits in tests/spirv/regress/inputs/.
struct KnownCrash {
  const char* file;
  const char* variant;  // Variant::Name()
  const char* bug;
};
// (none left: the EmitOffset heap-use-after-free is fixed; kept for the next one)
constexpr KnownCrash kKnownCrashes[] = {
    {"", "", ""},
};

const KnownGap* FindKnownGap(const CorpusEntry& entry, const Variant& variant, const std::string& reason) {
  for (const KnownGap& g : kKnownGaps) {
    if (entry.file == g.file && (!g.bounds_only || variant.bounds) && (!g.uvec2_only || !variant.int64) &&
        reason.find(g.reason) != std::string::npos)
      return &g;
  }
  return nullptr;
}

}  // namespace

bool LibraryIsStub() {
#ifdef BINDERY_SPIRV_STUB
  return true;
#else
  return false;
#endif
}

RewriteCase RewriteAndCheck(const CorpusEntry& entry, const std::vector<uint32_t>& original, const Variant& variant,
                            const std::string& entry_point) {
  RewriteCase c;
  if (LibraryIsStub()) {
    c.skip = "bindery_spirv (layer/spirv/) is not in the tree yet";
    return c;
  }
  for (const KnownCrash& k : kKnownCrashes) {
    if (entry.file == k.file && variant.Name() == k.variant) {
      c.skip = std::string("library: ") + k.bug;
      return c;
    }
  }
  spirv::ModuleInfo info = spirv::Inspect(original.data(), original.size());
  if (!info.error.empty()) {
    c.error = "Inspect failed on the original: " + info.error;
    return c;
  }
  const uint32_t root_offset = (info.push_constant_bytes + 7) & ~7u;
  c.layout = spirv::DefaultLayout(info, root_offset, entry.convert_ubo);
  for (spirv::SetLayout& s : c.layout.sets) {
    auto& b = s.bindings;
    b.erase(std::remove_if(b.begin(), b.end(), [&](const spirv::BindingLayout& x) { return entry.Keeps(s.set, x.binding); }),
            b.end());
  }
  // A runtime-sized descriptor array holds as many records as the case binds; records
  // are then re-packed in binding order.
  for (spirv::SetLayout& s : c.layout.sets) {
    bool resized = false;
    for (spirv::BindingLayout& b : s.bindings) {
      if (b.array_size != 0) continue;
      for (const BufferSpec& spec : entry.buffers) {
        if (spec.set == s.set && spec.binding == b.binding) b.array_size = std::max(b.array_size, spec.index + 1);
      }
      resized = true;
    }
    if (!resized) continue;
    std::sort(s.bindings.begin(), s.bindings.end(),
              [](const spirv::BindingLayout& x, const spirv::BindingLayout& y) { return x.binding < y.binding; });
    uint32_t next = 0;
    for (spirv::BindingLayout& b : s.bindings) {
      b.first_record = next;
      next += b.array_size;
    }
  }
  // Records in the root (the variant): sets of at most 4 records get a 16-byte slot per
  // record instead of their block's 8-byte address, slots packed from root_offset, while
  // they leave 32 bytes of the spec's minimum push-constant space (128) for later sets;
  // larger sets (or sets without that room) a prefix of up to 8 records then their block's
  // address, leaving 8 bytes — the layer's rule (bindings/model/root_layout.h).
  uint32_t next_push = root_offset;
  for (spirv::SetLayout& s : c.layout.sets) {
    uint32_t records = 0;
    for (const spirv::BindingLayout& b : s.bindings) records = std::max(records, b.first_record + std::max(1u, b.array_size));
    s.root_offset = next_push;
    s.records_in_root = variant.records_in_root && records != 0 && records <= 4 && next_push + 16 * records + 32 <= 128;
    if (s.records_in_root) {
      next_push += 16 * records;
      continue;
    }
    const uint32_t fixed = next_push + 8 + 8;
    const uint32_t prefix = fixed < 128 ? std::min({(128 - fixed) / 16, records > 0 ? records - 1 : 0, 8u}) : 0;
    if (variant.records_in_root && records >= 2 && prefix != 0) {
      s.records_in_root = true;
      s.root_records = prefix;
      next_push += 16 * prefix + 8;
      continue;
    }
    next_push += 8;
  }
  // Dynamic buffers: their offsets go after the roots, 4 bytes per descriptor.
  for (spirv::SetLayout& s : c.layout.sets) {
    for (spirv::BindingLayout& b : s.bindings) {
      const bool dynamic = std::any_of(entry.buffers.begin(), entry.buffers.end(), [&](const BufferSpec& spec) {
        return spec.dynamic && spec.set == s.set && spec.binding == b.binding;
      });
      if (!dynamic) continue;
      b.dynamic_offsets_root_offset = next_push;
      next_push += 4 * b.array_size;
    }
  }
  auto& sets = c.layout.sets;
  sets.erase(std::remove_if(sets.begin(), sets.end(), [](const spirv::SetLayout& s) { return s.bindings.empty(); }),
             sets.end());
  if (!TargetFor(entry.target, c.layout.target)) {
    c.error = "unknown @target " + entry.target;
    return c;
  }
  c.layout.shader_int64 = variant.int64;
  c.layout.bounds_checks = variant.bounds;
  // The exec device has shaderFloat16 / shaderInt16 / shaderInt8 where lavapipe offers them,
  // and the layer enables them (bindings_capability.cpp): 8/16-bit values merge as they are.
  c.layout.float16 = c.layout.int16 = c.layout.int8 = true;
  c.layout.convert_uniform_buffers = entry.convert_ubo;
  c.layout.entry_point = entry_point;

  c.result = spirv::RewriteDescriptorsToPointers(original.data(), original.size(), c.layout);
  if (!c.result.error.empty()) {
    c.error = "rewrite error: " + c.result.error;
    return c;
  }
  if (entry.expect_not_converted) {
    if (c.result.report.converted) c.error = "expected the pass to refuse this module, but it converted it";
    else if (c.result.report.reason.rfind("not converted: ", 0) != 0)
      c.error = "refusal reason does not start with 'not converted: ': " + c.result.report.reason;
    else if (c.result.module != original)
      c.error = "a refused module must come back unchanged";
    return c;
  }
  if (!c.result.report.converted) {
    if (FindKnownGap(entry, variant, c.result.report.reason)) {
      if (c.result.module != original) c.error = "a refused module must come back unchanged";
      else c.skip = "library: " + c.result.report.reason + " (known gap, tests/spirv/exec/rewrite_case.cpp)";
      return c;
    }
    c.error = c.result.report.ToString();
    return c;
  }
  for (const spirv::SetLayout& s : c.layout.sets) {
    for (const spirv::BindingLayout& b : s.bindings) {
      if (b.dynamic_offsets_root_offset != spirv::kNoRootOffset &&
          c.result.report.push_constant_end < b.dynamic_offsets_root_offset + 4 * b.array_size) {
        c.error = "report.push_constant_end " + std::to_string(c.result.report.push_constant_end) +
                  " does not cover the dynamic offsets at " + std::to_string(b.dynamic_offsets_root_offset);
        return c;
      }
    }
  }
  const std::string invalid = ValidateSpirv(c.result.module, entry.target, entry.Requires("scalar"));
  if (!invalid.empty()) {
    c.error = "spirv-val (" + entry.target + ") rejects the rewritten module:\n" + invalid;
    return c;
  }
  if (variant.int64) {
    const std::string narrow = NarrowBufferIndex(c.result.module, original);
    if (!narrow.empty()) {
      c.error = "a rewritten buffer-pointer chain keeps a narrow index: " + narrow;
      return c;
    }
  }
  spirv::ModuleInfo after = spirv::Inspect(c.result.module.data(), c.result.module.size());
  if (!after.error.empty()) {
    c.error = "Inspect failed on the rewritten module: " + after.error;
    return c;
  }
  for (const spirv::EntryPointInfo& ep : after.entry_points) {
    for (const spirv::ResourceInfo& r : ep.resources) {
      if (r.kind != spirv::ResourceKind::kStorageBuffer && r.kind != spirv::ResourceKind::kUniformBuffer) continue;
      for (const spirv::SetLayout& s : c.layout.sets) {
        for (const spirv::BindingLayout& b : s.bindings) {
          if (r.set == s.set && r.binding == b.binding) {
            c.error = "set " + std::to_string(r.set) + " binding " + std::to_string(r.binding) +
                      " is still a descriptor in " + ep.name + " after the rewrite";
            return c;
          }
        }
      }
    }
  }
  return c;
}

}  // namespace bindery::spirv_exec
