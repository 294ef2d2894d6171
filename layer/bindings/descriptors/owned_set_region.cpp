#include "bindings/descriptors/owned_set_region.h"

#include <sys/mman.h>
#include <unistd.h>

#include <map>
#include <mutex>

namespace bindery::bindings {

namespace owned_region_detail {
std::atomic<uint64_t> g_base{0};
uint64_t g_bytes = 0;
}  // namespace owned_region_detail

namespace {

// Address space only: untouched pages cost nothing (read-only private anonymous memory
// is not committed), so this bounds the slots of all live pools together (8 GiB at 128
// bytes a slot: 64 million sets), not the process's memory.
constexpr uint64_t kRegionBytes = uint64_t{8} << 30;

struct Region {
  std::mutex mutex;
  bool tried = false;
  uint8_t* base = nullptr;
  uint64_t page = 4096;
  std::map<uint64_t, uint64_t> free_runs;  // offset -> bytes, never adjacent
};

Region& TheRegion() {
  static Region* region = new Region();  // never destroyed: handles may be classified until exit
  return *region;
}

// Reserves the region on first use (under the region's mutex).
bool ReserveLocked(Region& r) {
  if (r.tried) return r.base != nullptr;
  r.tried = true;
  const long page = sysconf(_SC_PAGESIZE);
  if (page > 0) r.page = static_cast<uint64_t>(page);
  void* p = mmap(nullptr, kRegionBytes, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (p == MAP_FAILED) return false;
  r.base = static_cast<uint8_t*>(p);
  r.free_runs[0] = kRegionBytes;
  owned_region_detail::g_bytes = kRegionBytes;
  owned_region_detail::g_base.store(reinterpret_cast<uint64_t>(p), std::memory_order_release);
  return true;
}

}  // namespace

void* AcquireOwnedArena(std::size_t bytes) {
  Region& r = TheRegion();
  std::lock_guard<std::mutex> lock(r.mutex);
  if (bytes == 0 || !ReserveLocked(r)) return nullptr;
  const uint64_t size = (static_cast<uint64_t>(bytes) + r.page - 1) / r.page * r.page;
  for (auto it = r.free_runs.begin(); it != r.free_runs.end(); ++it) {
    if (it->second < size) continue;
    const uint64_t offset = it->first;
    const uint64_t left = it->second - size;
    r.free_runs.erase(it);
    if (left != 0) r.free_runs[offset + size] = left;
    uint8_t* arena = r.base + offset;
    if (mprotect(arena, size, PROT_READ | PROT_WRITE) != 0) {
      r.free_runs[offset] = size;  // left unmerged with the rest of its run: harmless, and rare
      return nullptr;
    }
    return arena;
  }
  return nullptr;
}

void ReleaseOwnedArena(void* arena, std::size_t bytes) {
  if (arena == nullptr) return;
  Region& r = TheRegion();
  std::lock_guard<std::mutex> lock(r.mutex);
  const uint64_t size = (static_cast<uint64_t>(bytes) + r.page - 1) / r.page * r.page;
  // Back to zeros (private anonymous pages are dropped), then read-only.
  madvise(arena, size, MADV_DONTNEED);
  mprotect(arena, size, PROT_READ);
  uint64_t offset = static_cast<uint64_t>(static_cast<uint8_t*>(arena) - r.base);
  uint64_t length = size;
  auto next = r.free_runs.lower_bound(offset);
  if (next != r.free_runs.end() && offset + length == next->first) {
    length += next->second;
    next = r.free_runs.erase(next);
  }
  if (next != r.free_runs.begin()) {
    auto prev = std::prev(next);
    if (prev->first + prev->second == offset) {
      prev->second += length;
      return;
    }
  }
  r.free_runs[offset] = length;
}

}  // namespace bindery::bindings
