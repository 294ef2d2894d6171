#include "bindings/pipelines/rewrite_cache.h"

#include <cstring>
#include <functional>
#include <string_view>

namespace bindery::bindings {

std::string OptionsKey(const spirv::RewriteOptions& o) {
  std::string key;
  AppendOptionsKey(o, &key);
  return key;
}

void AppendOptionsKey(const spirv::RewriteOptions& o, std::string* out) {
  std::string& key = *out;
  // Sized up front and written through a pointer: at most one allocation, and no call per
  // word (this runs for every pipeline, cached ones included; a caller reusing `out` makes
  // no allocation at all).
  std::size_t words = 10 + o.entry_point.size() / sizeof(uint32_t) + 1;
  for (const spirv::SetLayout& s : o.sets) words += 5 + 4 * s.bindings.size();
  const std::size_t start = key.size();
  key.resize(start + words * sizeof(uint32_t));
  char* at = key.data() + start;
  auto put = [&at](uint32_t v) {
    std::memcpy(at, &v, sizeof(v));
    at += sizeof(v);
  };
  put(static_cast<uint32_t>(o.target));
  put((o.shader_int64 ? 1u : 0u) | (o.bounds_checks ? 2u : 0u) | (o.convert_uniform_buffers ? 4u : 0u) |
      (o.float16 ? 8u : 0u) | (o.int16 ? 16u : 0u) | (o.int8 ? 32u : 0u) |
      (o.restrict_pointers ? 64u : 0u));
  put(static_cast<uint32_t>(o.root_placement));
  put(o.root_buffer_set);
  put(o.root_address_offset);
  put(o.descriptor_base_alignment);
  put(o.broadcast_descriptor_index_models);
  put(o.lane_zero_descriptor_index_models);
  put(o.execution_model);
  put(static_cast<uint32_t>(o.entry_point.size()));
  std::memcpy(at, o.entry_point.data(), o.entry_point.size());
  at += o.entry_point.size();
  for (const spirv::SetLayout& s : o.sets) {
    put(s.set);
    put(s.root_offset);
    put(s.records_in_root ? 1u : 0u);
    put(s.root_records);
    put(static_cast<uint32_t>(s.bindings.size()));
    for (const spirv::BindingLayout& b : s.bindings) {
      put(b.binding);
      put(b.array_size);
      put(b.first_record);
      put(b.dynamic_offsets_root_offset);
    }
  }
  key.resize(static_cast<std::size_t>(at - key.data()));
}

uint64_t WordsHash(const std::vector<uint32_t>& words) {
  const uint64_t hash = std::hash<std::string_view>()(
      std::string_view(reinterpret_cast<const char*>(words.data()), words.size() * sizeof(uint32_t)));
  return hash | 1;  // never 0 (ModuleEntry::words_hash: "not made yet")
}

namespace {

// Does `entry` answer for `words`? Its own words, or equal ones (an identical module made
// again); unequal ones under the same key are a hash collision.
bool SameWords(const CachedRewrite& entry, const std::shared_ptr<const std::vector<uint32_t>>& words) {
  return entry.source == words || *entry.source == *words;
}

}  // namespace

void RewriteCache::AppendWordsKey(const std::vector<uint32_t>& words, uint64_t words_hash, std::string* key) {
  const uint32_t head[] = {static_cast<uint32_t>(words_hash), static_cast<uint32_t>(words_hash >> 32),
                           static_cast<uint32_t>(words.size())};
  key->append(reinterpret_cast<const char*>(head), sizeof(head));
}

std::shared_ptr<const CachedRewrite> RewriteCache::Find(const std::string& key,
                                                        const std::shared_ptr<const std::vector<uint32_t>>& words) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = entries_.find(key);
  if (it == entries_.end() || !SameWords(*it->second, words)) return nullptr;
  it->second->last_use = ++clock_;
  return it->second;
}

std::shared_ptr<CachedRewrite> RewriteCache::Rewrite(const std::shared_ptr<const std::vector<uint32_t>>& words,
                                                     const spirv::RewriteOptions& options, spirv::ModuleParse& parse) {
  auto out = std::make_shared<CachedRewrite>();
  out->source = words;
  spirv::RewriteResult r = spirv::RewriteDescriptorsToPointers(parse, options);
  out->error = std::move(r.error);
  out->converted = out->error.empty() && r.report.converted;
  out->reason = r.report.reason;
  if (out->converted) out->module = std::move(r.module);
  out->report = std::move(r.report);
  return out;
}

std::shared_ptr<const CachedRewrite> RewriteCache::Keep(const std::string& key,
                                                        const std::shared_ptr<const std::vector<uint32_t>>& words,
                                                        std::shared_ptr<CachedRewrite> made) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto [it, kept] = entries_.try_emplace(key, made);
  if (!kept) {
    // Another thread made it meanwhile: one entry for all (its driver module among them).
    if (SameWords(*it->second, words)) return it->second;
    return made;  // a collision: the key stays the other words', this rewrite is not kept
  }
  made->last_use = ++clock_;
  return made;
}

std::shared_ptr<const CachedRewrite> RewriteCache::Get(const std::shared_ptr<const std::vector<uint32_t>>& words,
                                                       uint64_t words_hash, const spirv::RewriteOptions& options,
                                                       spirv::ModuleParse& parse, bool* hit) {
  std::string key;
  AppendWordsKey(*words, words_hash, &key);
  AppendOptionsKey(options, &key);
  return Get(words, key, [&]() -> const spirv::RewriteOptions& { return options; }, parse, hit);
}

void RewriteCache::UnusedLocked(std::vector<std::pair<uint64_t, const std::string*>>* out) const {
  std::unordered_map<const std::vector<uint32_t>*, long> held_by_entries;
  for (const auto& [key, entry] : entries_) ++held_by_entries[entry->source.get()];
  for (const auto& [key, entry] : entries_) {
    if (entry.use_count() == 1 && entry->source.use_count() == held_by_entries[entry->source.get()]) {
      out->emplace_back(entry->last_use, &key);
    }
  }
}

std::size_t RewriteCache::size() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return entries_.size();
}

}  // namespace bindery::bindings
