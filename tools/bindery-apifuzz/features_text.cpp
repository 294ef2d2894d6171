#include "features_text.h"

#include <sstream>

namespace bindery::apifuzz {

namespace {

constexpr const char* kHeader = "# bindery-apifuzz features v1";

// Every field of Features, by name, once: writing and reading cannot disagree.
template <class V>
void VisitFeatures(V& v, Features& f) {
  v("push_descriptor", f.push_descriptor);
  v("null_descriptor", f.null_descriptor);
  v("images", f.images);
  v("multi_draw", f.multi_draw);
  v("draw_indirect_count", f.draw_indirect_count);
  v("array_dynamic_indexing", f.array_dynamic_indexing);
  v("storage_alignment", f.storage_alignment);
  v("uniform_alignment", f.uniform_alignment);
  v("max_push_constants", f.max_push_constants);
  v("max_storage_images", f.max_storage_images);
  v("max_sampled_images", f.max_sampled_images);
  v("max_bound_sets", f.max_bound_sets);
  v("partially_bound", f.partially_bound);
  v("variable_count", f.variable_count);
  v("unwritten_images", f.unwritten_images);
  v("uab_storage", f.uab_storage);
  v("uab_uniform", f.uab_uniform);
  v("uab_sampled", f.uab_sampled);
  v("uab_storage_image", f.uab_storage_image);
  v("nonuniform_storage", f.nonuniform_storage);
  v("nonuniform_uniform", f.nonuniform_uniform);
  v("nonuniform_sampled", f.nonuniform_sampled);
  v("nonuniform_storage_image", f.nonuniform_storage_image);
  v("queues", f.queues);
  v("shared_queues", f.shared_queues);
  v("dynamic_all_stages", f.dynamic_all_stages);
  v("external_memory", f.external_memory);
  v("pipeline_statistics", f.pipeline_statistics);
  v("inherited_queries", f.inherited_queries);
  v("query_begins_first", f.query_begins_first);
  v("pipeline_library", f.pipeline_library);
  v("fragment_library_crashes", f.fragment_library_crashes);
  v("multi_entry_modules", f.multi_entry_modules);
  v("image_transfers", f.image_transfers);
}

struct Writer {
  std::ostringstream out;
  void operator()(const char* name, bool& b) { out << name << " " << (b ? 1 : 0) << "\n"; }
  void operator()(const char* name, uint32_t& u) { out << name << " " << u << "\n"; }
};

struct Reader {
  std::string name, value;
  bool found = false, ok = true;
  void operator()(const char* n, bool& b) {
    if (name != n) return;
    found = true;
    ok = value == "0" || value == "1";
    b = value == "1";
  }
  void operator()(const char* n, uint32_t& u) {
    if (name != n) return;
    found = true;
    ok = !value.empty() && value.find_first_not_of("0123456789") == std::string::npos && value.size() <= 9;
    if (ok) u = static_cast<uint32_t>(std::stoul(value));
  }
};

}  // namespace

std::string FeaturesText(const Features& f) {
  Writer w;
  w.out << kHeader << "\n";
  Features copy = f;
  VisitFeatures(w, copy);
  return w.out.str();
}

bool ParseFeatures(const std::string& text, Features* f, std::string* error) {
  std::istringstream in(text);
  Features out;
  std::string line;
  if (!std::getline(in, line) || line != kHeader) {
    *error = std::string("not a features file (its first line is not \"") + kHeader + "\")";
    return false;
  }
  unsigned number = 1;
  while (std::getline(in, line)) {
    ++number;
    if (line.empty() || line[0] == '#') continue;
    std::istringstream l(line);
    Reader r;
    if (!(l >> r.name >> r.value)) {
      *error = "line " + std::to_string(number) + ": expected \"name value\"";
      return false;
    }
    VisitFeatures(r, out);
    if (!r.found || !r.ok) {
      *error = "line " + std::to_string(number) + ": " + (r.found ? "bad value for " : "unknown feature ") + r.name;
      return false;
    }
  }
  *f = out;
  return true;
}

}  // namespace bindery::apifuzz
