// The descriptors store's per-thread lookup caches (descriptor_store.h).
#include "core/thread_local.h"
#include "bindings/descriptors/descriptor_store.h"

#include <type_traits>

namespace bindery::bindings {

ThreadLookups& Lookups() {
  // Trivially destructible, so it has no thread-exit destructor: valid on a thread whose
  // thread_local objects are torn down (the main thread in exit(): spirv/thread_scratch.h).
  static_assert(std::is_trivially_destructible_v<ThreadLookups>);
  static BINDERY_THREAD_LOCAL ThreadLookups lookups;
  return lookups;
}

}  // namespace bindery::bindings
