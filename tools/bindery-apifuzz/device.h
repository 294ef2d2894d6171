// One device per child process, reused for every program it runs: the features the
// generator may use (asked of the driver without any layer, so every configuration
// generates the same programs), and the device with Bindery (or not) and the Khronos
// validation layer below it, synchronization validation on (tests/support's harness).
#pragma once

#include <memory>
#include <string>

#include "interpreter.h"
#include "support/vk_harness.h"

namespace bindery::apifuzz {

bool QueryFeatures(Features* out, std::string* error);

struct Session {
  std::unique_ptr<test::VkHarness> harness;
  Device device;
  std::string error;
};

// bindery: enable VK_LAYER_bindery by name (its settings come from BINDERY_* variables).
void OpenSession(bool bindery, Session* s);

}  // namespace bindery::apifuzz
