#include "bindings/pipelines/rewrite_checks.h"

#include <utility>

#include "bindings/pipelines/pipeline_store.h"
#include "bindings/pipelines/rewrite_dump.h"
#include "core/log.h"
#include "spirv/validate/module_validator.h"

namespace bindery::bindings {
namespace {

// bindings_validate: "" when the rewritten module, with the stage's specialization
// applied, passes spirv-val (or the application's own module already fails it: then the
// rewrite is not judged), else why the pipeline falls back. Logged and dumped once per
// module and specialization.
std::string Validated(PipelineStore& b, const CachedRewrite& r, const std::vector<uint32_t>& words,
                      const spirv::RewriteOptions& options, const VkSpecializationInfo* spec) {
  std::vector<spirv::SpecMapEntry> entries;
  std::string key;
  const void* data = nullptr;
  size_t data_size = 0;
  if (spec != nullptr && spec->mapEntryCount != 0 && spec->pMapEntries != nullptr) {
    for (uint32_t i = 0; i < spec->mapEntryCount; ++i) {
      const VkSpecializationMapEntry& e = spec->pMapEntries[i];
      entries.push_back({e.constantID, e.offset, e.size});
    }
    data = spec->pData;
    data_size = spec->pData != nullptr ? spec->dataSize : 0;
    key.assign(reinterpret_cast<const char*>(spec->pMapEntries), sizeof(VkSpecializationMapEntry) * spec->mapEntryCount);
    if (data_size != 0) key.append(static_cast<const char*>(data), data_size);
  }
  spirv::RewriteVerdict verdict;
  bool known = false;
  {
    std::lock_guard<std::mutex> lock(r.verdict_mutex);
    for (const auto& [k, v] : r.verdicts) {
      if (k == key) {
        verdict = v;
        known = true;
        break;
      }
    }
  }
  if (!known) {
    const std::vector<spirv::SpecValue> values =
        spirv::SpecValuesOf(entries.data(), static_cast<uint32_t>(entries.size()), data, data_size);
    verdict = spirv::JudgeRewrite(words, r.module, options.target, values);
    if (verdict.rewrite_invalid) {
      std::string at;
      if (!b.plan.dump_dir.empty()) {
        at = DumpInvalidRewrite(b.plan.dump_dir, words, options, r.module, r.report, verdict.message);
      }
      BINDERY_LOG(b.device.log(), kError, "bindings-validate", "a rewritten module fails spirv-val: %s%s%s",
                  verdict.message.c_str(), at.empty() ? "" : " (written to ", at.empty() ? "" : (at + ")").c_str());
    } else if (verdict.original_invalid) {
      BINDERY_LOG(b.device.log(), kWarn, "bindings-validate",
                  "the application's module fails spirv-val before the rewrite (its rewrite is not judged): %s",
                  verdict.message.c_str());
    }
    std::lock_guard<std::mutex> lock(r.verdict_mutex);
    r.verdicts.emplace_back(std::move(key), verdict);
  }
  if (!verdict.rewrite_invalid) return "";
  // The reason is counted per distinct text in the summary: the message's first line
  // (the instruction it names follows on the next in the log and the dump).
  return "the rewritten module fails spirv-val: " + verdict.message.substr(0, verdict.message.find('\n'));
}

}  // namespace

std::string CheckedRewrite(PipelineStore& b, const CachedRewrite& r, const std::vector<uint32_t>& words,
                           const spirv::RewriteOptions* options, const VkPipelineShaderStageCreateInfo& stage,
                           bool hit) {
  if (b.plan.validate) {
    std::string why = Validated(b, r, words, *options, stage.pSpecializationInfo);
    if (!why.empty()) return why;
  }
  if (!hit && !b.plan.dump_dir.empty()) {
    const std::string at = DumpRewrite(b.plan.dump_dir, words, *options, r.module, r.report);
    BINDERY_LOG(b.device.log(), kInfo, "bindings-dump", "rewritten module %s%s", at.empty() ? "not written to " : "written to ",
                at.empty() ? b.plan.dump_dir.c_str() : at.c_str());
  }
  if (r.report.push_constant_end > b.max_push_bytes) return "the rewritten shader's push constants exceed the limit";
  return "";
}

}  // namespace bindery::bindings
