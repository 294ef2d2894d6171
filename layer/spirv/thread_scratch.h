// Per-thread scratch objects that stay safe to ask for after their thread's teardown.
//
// The layer keeps scratch per thread (parsed modules, id tables, key strings) so a
// pipeline creation allocates nothing once warm. A plain `static thread_local` object with a
// destructor is destroyed when its thread ends, and the main thread's are destroyed at the
// very start of exit(), before the atexit handlers run. A program's teardown often runs in
// such a handler and still calls the layer: piglit's window-system teardown (registered with
// atexit before any Vulkan call) makes zink destroy its pipelines and its device, and a
// driver may create pipelines there. A `static thread_local std::vector` would then be used
// after its destructor freed it (heap corruption). So the object lives behind a pointer in
// trivially destructible thread-local storage (which lasts as long as the thread itself),
// a thread-exit hook frees it and records that it did, and a caller that comes after that
// hook gets an object of its own for the call (Lease): nothing is used after it is freed,
// nothing leaks. bindings/exit_teardown_test.cpp calls the layer from such a handler.
//
// Tag tells apart two scratch objects of the same type. Not reentrant, like the thread_local
// objects it replaces: one Lease of a given <T, Tag> per thread at a time.
#pragma once

#include <memory>

namespace bindery::spirv {

template <typename T, typename Tag = T>
class ThreadScratch {
 public:
  // The calling thread's object, made on first use; nullptr once the thread's thread-local
  // objects were torn down (the main thread inside exit(), a thread's own later destructors).
  static T* Get() {
    State& s = state();
    if (s.object != nullptr || s.torn_down) return s.object;
    static thread_local Reaper reaper;  // first: its destructor is registered for this thread
    (void)reaper;
    s.object = new T();
    return s.object;
  }

  // The thread's object, or, after its teardown, one owned by this lease until it goes.
  class Lease {
   public:
    Lease() : object_(Get()) {
      if (object_ == nullptr) {
        owned_ = std::make_unique<T>();
        object_ = owned_.get();
      }
    }
    Lease(const Lease&) = delete;
    Lease& operator=(const Lease&) = delete;
    T& operator*() const { return *object_; }
    T* operator->() const { return object_; }

   private:
    std::unique_ptr<T> owned_;
    T* object_;
  };

 private:
  // Trivially destructible: its storage outlives every thread_local destructor of the thread.
  struct State {
    T* object;
    bool torn_down;
  };
  static State& state() {
    static thread_local State s{nullptr, false};
    return s;
  }
  struct Reaper {
    ~Reaper() {
      State& s = state();
      delete s.object;
      s.object = nullptr;
      s.torn_down = true;
    }
  };
};

}  // namespace bindery::spirv
