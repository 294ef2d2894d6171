// The indirect-bindings policy (bindings/model/policy.h): which layouts convert in each mode, and
// when a layout goes beyond a driver limit by itself.
#include <gtest/gtest.h>

#include "bindings/model/policy.h"

namespace bindery::bindings {
namespace {

constexpr uint32_t kMesa = 0x10005;
constexpr uint32_t kNvidia = 0x10DE;

TEST(BindingsPolicy, ModesDecideFirst) {
  EXPECT_FALSE(ChooseBindingsPolicy(Mode::kOff, kMesa, VK_DRIVER_ID_MESA_LLVMPIPE).convert_everything);
  EXPECT_FALSE(ChooseBindingsPolicy(Mode::kOff, kMesa, VK_DRIVER_ID_MESA_LLVMPIPE).convert_over_limits);
  const BindingsPolicy forced = ChooseBindingsPolicy(Mode::kForce, 0x1234, VkDriverId(0));
  EXPECT_TRUE(forced.convert_everything);
  EXPECT_TRUE(forced.convert_over_limits);
}

TEST(BindingsPolicy, AutoConvertsLayoutsBeyondLimitsOnEveryDriver) {
  for (auto [vendor, driver] : {std::pair{kMesa, VK_DRIVER_ID_MESA_LLVMPIPE}, std::pair{kNvidia, VK_DRIVER_ID_NVIDIA_PROPRIETARY},
                                std::pair{0x1002u, VK_DRIVER_ID_AMD_PROPRIETARY}, std::pair{kMesa, VkDriverId(0)}}) {
    const BindingsPolicy p = ChooseBindingsPolicy(Mode::kAuto, vendor, driver);
    EXPECT_TRUE(p.convert_over_limits) << p.name;
  }
  // A driver not in the table converts nothing more than that.
  EXPECT_FALSE(ChooseBindingsPolicy(Mode::kAuto, 0x1002, VK_DRIVER_ID_AMD_PROPRIETARY).convert_everything);
}

VkPhysicalDeviceLimits LavapipeLikeLimits() {
  VkPhysicalDeviceLimits l{};
  l.maxPerStageDescriptorStorageBuffers = 32;
  l.maxDescriptorSetStorageBuffers = 256;
  l.maxDescriptorSetStorageBuffersDynamic = 8;
  l.maxPerStageDescriptorUniformBuffers = 16;
  l.maxDescriptorSetUniformBuffers = 256;
  l.maxDescriptorSetUniformBuffersDynamic = 8;
  return l;
}

bool Over(std::initializer_list<VkDescriptorSetLayoutBinding> bindings, bool ubo, std::string* why_out = nullptr) {
  std::vector<VkDescriptorSetLayoutBinding> b(bindings);
  VkDescriptorSetLayoutCreateInfo info{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO};
  info.bindingCount = static_cast<uint32_t>(b.size());
  info.pBindings = b.data();
  const char* why = nullptr;
  const bool over = UsesRaisedLimit(info, LavapipeLikeLimits(), ubo, &why);
  EXPECT_EQ(over, why != nullptr);
  if (why_out != nullptr && why != nullptr) *why_out = why;
  return over;
}

constexpr VkShaderStageFlags kCompute = VK_SHADER_STAGE_COMPUTE_BIT;
constexpr VkShaderStageFlags kVertex = VK_SHADER_STAGE_VERTEX_BIT;

TEST(BindingsPolicy, PerStageStorageBuffers) {
  EXPECT_FALSE(Over({{0, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 32, kCompute, nullptr}}, false));
  std::string why;
  EXPECT_TRUE(Over({{0, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 20, kCompute, nullptr},
                    {1, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 13, kCompute, nullptr}},
                   false, &why));
  EXPECT_EQ(why, "maxPerStageDescriptorStorageBuffers");
  // 40 in all but 20 per stage: within the per-stage limit and the per-set one.
  EXPECT_FALSE(Over({{0, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 20, kCompute, nullptr},
                     {1, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 20, kVertex, nullptr}},
                    false));
}

TEST(BindingsPolicy, DynamicAndUniformBuffers) {
  std::string why;
  EXPECT_TRUE(Over({{0, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER_DYNAMIC, 9, kCompute, nullptr}}, false, &why));
  EXPECT_EQ(why, "maxDescriptorSetStorageBuffersDynamic");
  // Uniform buffers count only where they convert (the bindings_ubo setting).
  EXPECT_FALSE(Over({{0, VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER, 17, kCompute, nullptr}}, false));
  EXPECT_TRUE(Over({{0, VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER, 17, kCompute, nullptr}}, true, &why));
  EXPECT_EQ(why, "maxPerStageDescriptorUniformBuffers");
  // Images and samplers never count.
  EXPECT_FALSE(Over({{0, VK_DESCRIPTOR_TYPE_STORAGE_IMAGE, 1000, kCompute, nullptr}}, true));
}

TEST(BindingsPolicy, HugeCountsSaturate) {
  EXPECT_TRUE(Over({{0, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, UINT32_MAX, kCompute, nullptr},
                    {1, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, UINT32_MAX, kCompute, nullptr}},
                   false));
}

TEST(BindingsPolicy, FullLayoutsAreCheckedAsAWhole) {
  const VkPhysicalDeviceLimits limits = LavapipeLikeLimits();
  VkPhysicalDeviceLimits with_sets = limits;
  with_sets.maxBoundDescriptorSets = 8;
  const std::vector<VkDescriptorSetLayoutBinding> twenty{{0, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 20, kCompute, nullptr}};
  const char* why = nullptr;
  // Each set is within the per-stage limit; together they are not.
  EXPECT_TRUE(FullLayoutFitsDriver({&twenty}, with_sets, &why));
  EXPECT_FALSE(FullLayoutFitsDriver({&twenty, &twenty}, with_sets, &why));
  EXPECT_STREQ(why, "maxPerStageDescriptorStorageBuffers");
  const std::vector<VkDescriptorSetLayoutBinding> one{{0, VK_DESCRIPTOR_TYPE_STORAGE_IMAGE, 1, kCompute, nullptr}};
  std::vector<const std::vector<VkDescriptorSetLayoutBinding>*> nine(9, &one);
  EXPECT_FALSE(FullLayoutFitsDriver(nine, with_sets, &why));
  EXPECT_STREQ(why, "maxBoundDescriptorSets");
  nine.pop_back();
  EXPECT_TRUE(FullLayoutFitsDriver(nine, with_sets, &why));
}

}  // namespace
}  // namespace bindery::bindings
