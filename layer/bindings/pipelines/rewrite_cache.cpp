#include "bindings/pipelines/rewrite_cache.h"

#include <cstring>

namespace bindery::bindings {
namespace {

void Append(std::string& key, uint32_t v) { key.append(reinterpret_cast<const char*>(&v), sizeof(v)); }

}  // namespace

std::string OptionsKey(const spirv::RewriteOptions& o) {
  std::string key;
  AppendOptionsKey(o, &key);
  return key;
}

void AppendOptionsKey(const spirv::RewriteOptions& o, std::string* out) {
  std::string& key = *out;
  // Sized up front: at most one allocation (this runs for every pipeline, cached ones
  // included; a caller reusing `out` makes none).
  std::size_t words = 10 + o.entry_point.size() / sizeof(uint32_t) + 1;
  for (const spirv::SetLayout& s : o.sets) words += 5 + 4 * s.bindings.size();
  key.reserve(key.size() + words * sizeof(uint32_t));
  Append(key, static_cast<uint32_t>(o.target));
  Append(key, (o.shader_int64 ? 1u : 0u) | (o.bounds_checks ? 2u : 0u) | (o.convert_uniform_buffers ? 4u : 0u) |
                  (o.float16 ? 8u : 0u) | (o.int16 ? 16u : 0u) | (o.int8 ? 32u : 0u));
  Append(key, static_cast<uint32_t>(o.root_placement));
  Append(key, o.root_buffer_set);
  Append(key, o.root_address_offset);
  Append(key, o.descriptor_base_alignment);
  Append(key, o.broadcast_descriptor_index_models);
  Append(key, o.lane_zero_descriptor_index_models);
  Append(key, o.execution_model);
  Append(key, static_cast<uint32_t>(o.entry_point.size()));
  key.append(o.entry_point);
  for (const spirv::SetLayout& s : o.sets) {
    Append(key, s.set);
    Append(key, s.root_offset);
    Append(key, s.records_in_root ? 1u : 0u);
    Append(key, s.root_records);
    Append(key, static_cast<uint32_t>(s.bindings.size()));
    for (const spirv::BindingLayout& b : s.bindings) {
      Append(key, b.binding);
      Append(key, b.array_size);
      Append(key, b.first_record);
      Append(key, b.dynamic_offsets_root_offset);
    }
  }
}

std::shared_ptr<const CachedRewrite> RewriteCache::Get(const std::vector<uint32_t>& words,
                                                       const spirv::RewriteOptions& options, bool* hit) {
  // The whole module is part of the key: no hash collision can hand back another
  // module's rewrite.
  std::string key = OptionsKey(options);
  key.append(reinterpret_cast<const char*>(words.data()), words.size() * sizeof(uint32_t));
  {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = entries_.find(key);
    if (it != entries_.end()) {
      *hit = true;
      it->second->last_use = ++clock_;
      return it->second;
    }
  }
  *hit = false;
  auto out = std::make_shared<CachedRewrite>();
  spirv::RewriteResult r = spirv::RewriteDescriptorsToPointers(words.data(), words.size(), options);
  out->error = std::move(r.error);
  out->converted = out->error.empty() && r.report.converted;
  out->reason = r.report.reason;
  if (out->converted) out->module = std::move(r.module);
  out->report = std::move(r.report);
  std::lock_guard<std::mutex> lock(mutex_);
  out->last_use = ++clock_;
  return entries_.emplace(std::move(key), std::move(out)).first->second;
}

std::size_t RewriteCache::size() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return entries_.size();
}

}  // namespace bindery::bindings
