// Prints the layer's settings table (core/settings.h) as JSON, for
// manifest_settings_check.py to compare with the layer manifests.
#include <cstdio>

#include "core/settings.h"

int main() {
  const bindery::SettingsTableView table = bindery::SettingsTable();
  std::printf("[\n");
  for (unsigned i = 0; i < table.count; ++i) {
    const bindery::SettingInfo& s = table.entries[i];
    std::printf("  {\"key\": \"%s\", \"env\": \"%s\", \"values\": [", s.key, s.env);
    for (unsigned v = 0; v < s.value_count; ++v) std::printf("%s\"%s\"", v == 0 ? "" : ", ", s.values[v]);
    std::printf("]}%s\n", i + 1 == table.count ? "" : ",");
  }
  std::printf("]\n");
  return 0;
}
