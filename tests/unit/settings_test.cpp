#include "core/settings.h"

#include <gtest/gtest.h>

#include <cctype>
#include <cstdlib>
#include <fstream>
#include <unistd.h>

namespace bindery {
namespace {

TEST(SettingsParse, ReadsKeyValueLinesAndSkipsComments) {
  const KeyValues kv = ParseSettingsText(
      "# a comment\n"
      "bindery.transfers = force\n"
      "  khronos_validation.enables = X  # trailing comment\n"
      "no equals sign here\n"
      "bindery.log_file=/tmp/x.log\n");
  ASSERT_EQ(kv.size(), 3u);
  EXPECT_EQ(kv[0].first, "bindery.transfers");
  EXPECT_EQ(kv[0].second, "force");
  EXPECT_EQ(kv[1].first, "khronos_validation.enables");
  EXPECT_EQ(kv[1].second, "X");
  EXPECT_EQ(kv[2].second, "/tmp/x.log");
}

TEST(SettingsResolve, DefaultsAreAutoAndWarn) {
  const Settings s = ResolveSettings({}, {});
  EXPECT_EQ(s.indirect_bindings, Mode::kAuto);
  EXPECT_EQ(s.transfers, Mode::kAuto);
  EXPECT_EQ(s.timeline, Mode::kAuto);
  EXPECT_EQ(s.log_level, LogLevel::kWarn);
  EXPECT_TRUE(s.log_file.empty());
  EXPECT_TRUE(s.warnings.empty());
}

TEST(SettingsResolve, FileKeysApplyAndOtherLayersKeysAreIgnored) {
  const Settings s = ResolveSettings(
      {{"bindery.timeline", "force"}, {"bindery.indirect_bindings", "off"}, {"khronos_validation.x", "1"}}, {});
  EXPECT_EQ(s.timeline, Mode::kForce);
  EXPECT_EQ(s.indirect_bindings, Mode::kOff);
  EXPECT_TRUE(s.warnings.empty());
}

TEST(SettingsResolve, EnvironmentWinsOverFile) {
  const Settings s = ResolveSettings({{"bindery.transfers", "off"}, {"bindery.log_level", "error"}},
                                     {{"BINDERY_TRANSFERS", "force"}, {"PATH", "/bin"}});
  EXPECT_EQ(s.transfers, Mode::kForce);
  EXPECT_EQ(s.log_level, LogLevel::kError);
}

TEST(SettingsResolve, ValuesAreCaseInsensitiveAndOnMeansAuto) {
  const Settings s = ResolveSettings({}, {{"BINDERY_TIMELINE", "FORCE"}, {"BINDERY_TRANSFERS", "On"},
                                          {"BINDERY_LOG_LEVEL", "Debug"}});
  EXPECT_EQ(s.timeline, Mode::kForce);
  EXPECT_EQ(s.transfers, Mode::kAuto);
  EXPECT_EQ(s.log_level, LogLevel::kDebug);
}

TEST(SettingsResolve, StagingLimitIsBytesOrNone) {
  EXPECT_EQ(ResolveSettings({}, {}).staging_limit, ~0ull) << "no cap by default";
  EXPECT_EQ(ResolveSettings({{"bindery.staging_limit", "65536"}}, {}).staging_limit, 65536ull);
  EXPECT_EQ(ResolveSettings({}, {{"BINDERY_STAGING_LIMIT", "0"}}).staging_limit, 0ull);
  EXPECT_EQ(ResolveSettings({}, {{"BINDERY_STAGING_LIMIT", "None"}}).staging_limit, ~0ull);
  const Settings bad = ResolveSettings({}, {{"BINDERY_STAGING_LIMIT", "12k"}});
  EXPECT_EQ(bad.staging_limit, ~0ull);
  EXPECT_EQ(bad.warnings.size(), 1u);
}

TEST(SettingsResolve, TransferPushReplayIsAutoOnOrOff) {
  EXPECT_EQ(ResolveSettings({}, {}).transfer_push_replay, PushReplay::kAuto) << "per driver by default";
  EXPECT_EQ(ResolveSettings({{"bindery.transfer_push_replay", "off"}}, {}).transfer_push_replay, PushReplay::kOff);
  EXPECT_EQ(ResolveSettings({}, {{"BINDERY_TRANSFER_PUSH_REPLAY", "on"}}).transfer_push_replay, PushReplay::kOn);
  const Settings bad = ResolveSettings({}, {{"BINDERY_TRANSFER_PUSH_REPLAY", "sometimes"}});
  EXPECT_EQ(bad.transfer_push_replay, PushReplay::kAuto);
  EXPECT_EQ(bad.warnings.size(), 1u);
}

TEST(SettingsResolve, FillEdgesNamesAnOrderOrCopy) {
  EXPECT_EQ(ResolveSettings({}, {}).fill_edges, FillEdges::kAuto) << "per driver by default";
  EXPECT_EQ(ResolveSettings({{"bindery.fill_edges", "kernel-last"}}, {}).fill_edges, FillEdges::kKernelLast);
  EXPECT_EQ(ResolveSettings({}, {{"BINDERY_FILL_EDGES", "kernel-after"}}).fill_edges, FillEdges::kKernelAfter);
  EXPECT_EQ(ResolveSettings({}, {{"BINDERY_FILL_EDGES", "copy"}}).fill_edges, FillEdges::kCopy);
  EXPECT_EQ(ResolveSettings({}, {{"BINDERY_FILL_EDGES", "Kernel-First"}}).fill_edges, FillEdges::kKernelFirst);
  const Settings bad = ResolveSettings({}, {{"BINDERY_FILL_EDGES", "sideways"}});
  EXPECT_EQ(bad.fill_edges, FillEdges::kAuto);
  EXPECT_EQ(bad.warnings.size(), 1u);
}

// Issue 32's debug setting: parts of indirect bindings, by name, comma-separated.
TEST(SettingsResolve, BindingsSkipNamesPartsNoneOrAll) {
  EXPECT_EQ(ResolveSettings({}, {}).bindings_skip, 0u) << "nothing left out by default";
  EXPECT_EQ(ResolveSettings({}, {{"BINDERY_BINDINGS_SKIP", "none"}}).bindings_skip, 0u);
  EXPECT_EQ(ResolveSettings({}, {{"BINDERY_BINDINGS_SKIP", "root-layout"}}).bindings_skip,
            uint32_t{kSkipRootLayout});
  EXPECT_EQ(ResolveSettings({{"bindery.bindings_skip", "Record-Hooks, features"}}, {}).bindings_skip,
            uint32_t{kSkipRecordHooks | kSkipFeatures});
  EXPECT_EQ(ResolveSettings({}, {{"BINDERY_BINDINGS_SKIP", "resources,addresses,commands"}}).bindings_skip,
            uint32_t{kSkipResources | kSkipAddresses | kSkipCommands});
  const Settings all = ResolveSettings({}, {{"BINDERY_BINDINGS_SKIP", "all"}});
  EXPECT_EQ(all.bindings_skip, uint32_t{kSkipAll});
  for (uint32_t bit : {kSkipFeatures, kSkipAddresses, kSkipResources, kSkipCommands, kSkipRootLayout,
                       kSkipRecordHooks, kSkipDescriptorHooks, kSkipPipelineHooks}) {
    EXPECT_NE(all.bindings_skip & bit, 0u) << bit;
  }
  EXPECT_NE(Describe(all).find("bindings_skip=features,addresses,resources,commands,root-layout,record-hooks,"
                               "descriptor-hooks,pipeline-hooks"),
            std::string::npos)
      << Describe(all);
  for (const char* bad : {"hooks", "features,,", "features;commands"}) {
    const Settings s = ResolveSettings({}, {{"BINDERY_BINDINGS_SKIP", bad}});
    EXPECT_EQ(s.bindings_skip, 0u) << bad;
    EXPECT_EQ(s.warnings.size(), 1u) << bad;
  }
}

TEST(SettingsResolve, BindingsRestrictIsOffUntilMeasured) {
  EXPECT_FALSE(ResolveSettings({}, {}).bindings_restrict);
  EXPECT_EQ(Describe(ResolveSettings({}, {})).find("bindings_restrict"), std::string::npos);
  const Settings on = ResolveSettings({}, {{"BINDERY_BINDINGS_RESTRICT", "on"}});
  EXPECT_TRUE(on.bindings_restrict);
  EXPECT_NE(Describe(on).find("bindings_restrict=on"), std::string::npos);
}

TEST(SettingsResolve, UnknownKeysAndBadValuesBecomeWarnings) {
  const Settings s = ResolveSettings({{"bindery.no_such_thing", "1"}, {"bindery.timeline", "sometimes"}},
                                     {{"BINDERY_BOGUS", "1"}});
  ASSERT_EQ(s.warnings.size(), 3u);
  EXPECT_NE(s.warnings[0].find("bindery.no_such_thing"), std::string::npos);
  EXPECT_NE(s.warnings[1].find("sometimes"), std::string::npos);
  EXPECT_NE(s.warnings[2].find("BINDERY_BOGUS"), std::string::npos);
  EXPECT_EQ(s.timeline, Mode::kAuto) << "a bad value keeps the default";
}

TEST(SettingsFile, FoundThroughVkLayerSettingsPathAsFileOrDirectory) {
  const std::string dir = ::testing::TempDir() + "bindery_settings_dir" + "_" + std::to_string(getpid());
  std::system(("mkdir -p " + dir).c_str());
  const std::string file = dir + "/vk_layer_settings.txt";
  std::ofstream(file) << "bindery.timeline = force\nbindery.log_level = debug\n";

  ::setenv("VK_LAYER_SETTINGS_PATH", dir.c_str(), 1);
  EXPECT_EQ(FindSettingsFile(), file);
  ::setenv("VK_LAYER_SETTINGS_PATH", file.c_str(), 1);
  EXPECT_EQ(FindSettingsFile(), file);
  const Settings s = LoadSettings();
  EXPECT_EQ(s.timeline, Mode::kForce);
  EXPECT_EQ(s.log_level, LogLevel::kDebug);
  EXPECT_EQ(s.source_file, file);

  ::setenv("VK_LAYER_SETTINGS_PATH", (dir + "/missing.txt").c_str(), 1);
  EXPECT_EQ(FindSettingsFile(), "");
  ::unsetenv("VK_LAYER_SETTINGS_PATH");
}

TEST(SettingsDescribe, NamesEveryCapability) {
  const std::string d = Describe(ResolveSettings({}, {{"BINDERY_TIMELINE", "force"}}));
  EXPECT_NE(d.find("indirect_bindings=auto"), std::string::npos);
  EXPECT_NE(d.find("transfers=auto"), std::string::npos);
  EXPECT_NE(d.find("timeline=force"), std::string::npos);
}

}  // namespace
}  // namespace bindery

namespace bindery {
namespace {

// The settings table (what the manifest is checked against) and the parser agree: every
// value the table offers is accepted without a warning, under the file key and under the
// environment variable, and the variable is the key's upper-case BINDERY_ name.
TEST(SettingsTable, EveryDeclaredValueParsesAndEveryEnvNameMatchesItsKey) {
  const SettingsTableView table = SettingsTable();
  ASSERT_GE(table.count, 6u);
  for (unsigned i = 0; i < table.count; ++i) {
    const SettingInfo& s = table.entries[i];
    std::string upper = s.key;
    for (char& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    EXPECT_EQ(std::string(s.env), "BINDERY_" + upper);
    // Free-form settings (no value list) get a valid sample of their kind.
    const std::string key = s.key;
    const std::string sample = key == "staging_limit" ? "65536" : key == "bindings_skip" ? "features,root-layout" : "/tmp/bindery.log";
    const std::vector<std::string> values = s.value_count == 0
                                                ? std::vector<std::string>{sample}
                                                : std::vector<std::string>(s.values, s.values + s.value_count);
    for (const std::string& v : values) {
      const Settings from_file = ResolveSettings({{std::string("bindery.") + s.key, v}}, {});
      EXPECT_TRUE(from_file.warnings.empty()) << s.key << "=" << v << ": " << from_file.warnings.front();
      const Settings from_env = ResolveSettings({}, {{s.env, v}});
      EXPECT_TRUE(from_env.warnings.empty()) << s.env << "=" << v;
    }
  }
}

}  // namespace
}  // namespace bindery
