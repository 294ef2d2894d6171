// RewriteReport::ToString (rewrite.h).
#include "spirv/rewrite.h"

namespace bindery::spirv {
namespace {

const char* OutcomeName(BindingOutcome o) {
  switch (o) {
    case BindingOutcome::kConverted: return "converted";
    case BindingOutcome::kNotInLayout: return "kept (not in the layout)";
    case BindingOutcome::kUniformBufferKept: return "kept (uniform buffer)";
    case BindingOutcome::kNotABuffer: return "kept (not a buffer)";
  }
  return "?";
}

}  // namespace

std::string RewriteReport::ToString() const {
  std::string s = converted ? "converted" : reason;
  s += "\n";
  for (const BindingReport& b : bindings) {
    s += "  set " + std::to_string(b.set) + " binding " + std::to_string(b.binding);
    if (!b.name.empty()) s += " (" + b.name + ")";
    s += ": ";
    s += OutcomeName(b.outcome);
    if (b.outcome == BindingOutcome::kConverted)
      s += ", records " + std::to_string(b.first_record) + ".." + std::to_string(b.last_record) + ", root at " +
           std::to_string(b.root_offset);
    s += "\n";
  }
  if (converted) s += "  push constants read: [0, " + std::to_string(push_constant_end) + ")\n";
  return s;
}

}  // namespace bindery::spirv
