#include "bindings/descriptors/pool_blocks.h"

#include <memory>
#include <vector>

#include "bindings/model/argument_memory.h"
#include "chassis/queue_sharing.h"

namespace bindery::bindings {

VkResult CreateBlockBuffer(DescriptorStore& b, uint32_t records, PoolShadow& pool) {
  VkBufferCreateInfo info{VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
  info.size = static_cast<VkDeviceSize>(records) * kRecordBytes;
  info.usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_SHADER_DEVICE_ADDRESS_BIT;
  const QueueSharing sharing(b.device);  // a set may be bound on any queue
  sharing.Apply(info);
  ArgumentBuffer block;
  const VkResult r = CreateArgumentBuffer(b, info, &block);
  pool.buffer = block.buffer;
  pool.memory = block.memory;
  if (block.memory != VK_NULL_HANDLE) {
    b.counters.block_bytes->Add(block.bytes);  // the memory cost per descriptor (bench, summary)
    b.gpu_bytes.Add(block.bytes);
    pool.block_bytes = block.bytes;
  }
  if (r != VK_SUCCESS) return r;
  pool.mapped = block.mapped;
  pool.address = block.address;
  return pool.address != 0 ? VK_SUCCESS : VK_ERROR_INITIALIZATION_FAILED;
}

void DestroyBlockBuffer(DescriptorStore& b, PoolShadow& pool) {
  if (pool.buffer != VK_NULL_HANDLE) b.next.DestroyBuffer(b.device.handle, pool.buffer, nullptr);
  if (pool.memory != VK_NULL_HANDLE) b.next.FreeMemory(b.device.handle, pool.memory, nullptr);
  b.gpu_bytes.Sub(pool.block_bytes);
  pool.block_bytes = 0;
  if (pool.descriptors.capacity() != 0) {
    b.host_bytes.Sub(pool.descriptors.capacity() * sizeof(VkDescriptorBufferInfo));
    std::vector<VkDescriptorBufferInfo>().swap(pool.descriptors);
  }
  if (pool.host_records.capacity() != 0) {
    b.host_bytes.Sub(pool.host_records.capacity() * sizeof(uint64_t));
    std::vector<uint64_t>().swap(pool.host_records);
  }
  pool.buffer = VK_NULL_HANDLE;
  pool.memory = VK_NULL_HANDLE;
}

void ForgetSets(DescriptorStore& b, PoolShadow& pool) {
  for (VkDescriptorSet set : pool.sets) {
    if (std::unique_ptr<SetShadow> shadow = b.sets.Erase(set)) b.ReleaseFull(*shadow);
  }
  pool.sets.clear();
  pool.records.Reset();
  for (VkDescriptorSet set : pool.native_buffer_sets) b.native_buffer_sets.Erase(set);
  pool.native_buffer_sets.clear();
}

}  // namespace bindery::bindings
