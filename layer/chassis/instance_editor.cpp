#include "chassis/instance_editor.h"

#include <cstring>

namespace bindery {

InstanceEditor::InstanceEditor(const VkInstanceCreateInfo& app) : app_(app), info_(app) {
  if (app.pApplicationInfo != nullptr && app.pApplicationInfo->apiVersion != 0) {
    api_version_ = app.pApplicationInfo->apiVersion;
  }
  for (uint32_t i = 0; i < app.enabledExtensionCount; ++i) enabled_.emplace_back(app.ppEnabledExtensionNames[i]);
}

bool InstanceEditor::Enabled(const char* extension) const {
  for (const std::string& e : enabled_) {
    if (e == extension) return true;
  }
  return false;
}

void InstanceEditor::RequestExtension(const char* extension) {
  if (!Enabled(extension)) enabled_.emplace_back(extension);
}

const VkInstanceCreateInfo* InstanceEditor::Build() {
  if (!HasAdditions()) return &app_;
  names_.clear();
  for (const std::string& e : enabled_) names_.push_back(e.c_str());
  info_.enabledExtensionCount = static_cast<uint32_t>(names_.size());
  info_.ppEnabledExtensionNames = names_.data();
  return &info_;
}

void InstanceEditor::DropAdditions() { enabled_.resize(app_.enabledExtensionCount); }

}  // namespace bindery
