// main() for the Vulkan test binaries: points the loader at lavapipe and at the build
// tree's layers unless the caller (CTest, a person) already chose, so the binaries run
// the same by hand as under CTest.
#include <dlfcn.h>
#include <gtest/gtest.h>

#include <cstdlib>

// LeakSanitizer (the sanitizer build) reads this; scripts/test also passes the same list
// through LSAN_OPTIONS. Leaks inside the driver stack (lavapipe/LLVM, the loader, the
// validation layer) are not ours; Bindery's own allocations stay checked.
extern "C" __attribute__((visibility("default"), used)) const char* __lsan_default_suppressions() {
  return "leak:libvulkan_lvp.so\nleak:libLLVM\nleak:libvulkan.so\nleak:libVkLayer_khronos_validation.so\n";
}

// The loader unloads drivers and layers when an instance goes away; a leak report at exit
// then shows their frames as "<unknown module>", which no suppression can name. Keeping
// them loaded (RTLD_NODELETE sticks to later dlopen/dlclose pairs) keeps the names.
static void PinDriverStack() {
  for (const char* lib : {"libvulkan_lvp.so", "libVkLayer_khronos_validation.so", "libVkLayer_MESA_device_select.so",
                          BINDERY_TEST_LAYER_LIBRARY}) {
    dlopen(lib, RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
  }
}

int main(int argc, char** argv) {
  const char* lvp = "/usr/share/vulkan/icd.d/lvp_icd.x86_64.json";
  ::setenv("VK_ICD_FILENAMES", lvp, 0);
  ::setenv("VK_DRIVER_FILES", lvp, 0);
  ::setenv("VK_ADD_LAYER_PATH", BINDERY_TEST_LAYER_PATH, 0);
  // No settings file or implicit layers from the machine running the tests.
  ::setenv("VK_LAYER_SETTINGS_PATH", BINDERY_TEST_SCRATCH "/no_settings_file", 0);
  ::setenv("XDG_DATA_HOME", BINDERY_TEST_SCRATCH "/empty_xdg", 0);
  ::setenv("XDG_CONFIG_HOME", BINDERY_TEST_SCRATCH "/empty_xdg", 0);
  ::setenv("XDG_RUNTIME_DIR", "/tmp", 0);
  PinDriverStack();
  ::testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
