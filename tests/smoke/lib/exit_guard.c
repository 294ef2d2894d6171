// LD_PRELOAD shim for the programs real_programs_bindings_smoke.sh runs (native and through
// Bindery alike), built by the script into its scratch folder. Two jobs:
//
// 1. The static destructors of the libraries named in EXIT_GUARD_KEEP_STATICS_OF (file names,
//    colon separated; the script names the validation layer) are never registered, so
//    exit() leaves those objects alone.
//    Why (issue 34): piglit, through waffle, tears GL down in an atexit handler it registers
//    before any Vulkan call, and zink submits its last batch from that teardown (on its
//    flush thread, or on the main thread with GALLIUM_THREAD=0). The validation layer
//    (Debian's 1.3.239) builds the std::map behind core_error::String(Func) on first use,
//    in zink's first vkQueueSubmit, so exit() registers the map's destructor after piglit's
//    handler and runs it first; the teardown's vkQueueSubmit then walks the freed map in
//    PreCallValidateQueueSubmit (valgrind: "Invalid read of size 8 ... inside a block of
//    size 72 free'd" by __run_exit_handlers, the same with Bindery and without). Usually the
//    freed nodes still hold their old values; when something reuses them first, the
//    program dies of SIGSEGV after printing its result, which is how the smoke test flaked
//    under load. With freed memory scribbled (MALLOC_PERTURB_=165) the programs whose
//    teardown submits die so every time (3 of 15 smoke programs picked at random, natively;
//    all at the same place in the validation layer); with this shim none of 30 did, through
//    Bindery or natively (the smoke script checks one such program both ways at its start).
//    A library's statics left alive at exit cost nothing: the process is ending. (Bindery
//    keeps its own valid there: spirv/thread_scratch.h, bindings/exit_teardown_test.cpp.)
//
// 2. A fatal signal (SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT) prints the thread's stack to
//    stderr (the program's out.log) before the program dies of it as it would have, so a
//    crash the script reports comes with where it happened.
#define _GNU_SOURCE
#include <dlfcn.h>
#include <execinfo.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef int (*CxaAtexit)(void (*)(void*), void*, void*);

// Whether `dso` (a library's __dso_handle) lies in a library EXIT_GUARD_KEEP_STATICS_OF names.
static int Kept(void* dso) {
  const char* list = getenv("EXIT_GUARD_KEEP_STATICS_OF");
  Dl_info info;
  if (list == NULL || dso == NULL || !dladdr(dso, &info) || info.dli_fname == NULL) return 0;
  const char* slash = strrchr(info.dli_fname, '/');
  const char* name = slash != NULL ? slash + 1 : info.dli_fname;
  const size_t length = strlen(name);
  for (const char* entry = list;;) {
    const char* end = strchr(entry, ':');
    const size_t entry_length = end != NULL ? (size_t)(end - entry) : strlen(entry);
    if (entry_length == length && strncmp(entry, name, length) == 0) return 1;
    if (end == NULL) return 0;
    entry = end + 1;
  }
}

int __cxa_atexit(void (*destructor)(void*), void* object, void* dso) {
  static CxaAtexit next;
  if (next == NULL) next = (CxaAtexit)dlsym(RTLD_NEXT, "__cxa_atexit");
  if (Kept(dso)) return 0;
  return next(destructor, object, dso);
}

static void Write(const char* text) {
  ssize_t ignored = write(STDERR_FILENO, text, strlen(text));
  (void)ignored;
}

static void OnFatalSignal(int signal_number) {
  Write("exit_guard: fatal signal ");
  Write(strsignal(signal_number));
  Write("; the thread's stack:\n");
  void* frames[64];
  backtrace_symbols_fd(frames, backtrace(frames, 64), STDERR_FILENO);
  // Die of the same signal, so the exit status tells it: the default action set here, not
  // through SA_RESETHAND (a layer that chains its own handler to this one, as
  // gfxreconstruct's page guard does for SIGSEGV, would call it again, in a loop).
  signal(signal_number, SIG_DFL);
  raise(signal_number);
}

__attribute__((constructor)) static void InstallFatalSignalHandlers(void) {
  void* frames[1];
  backtrace(frames, 1);  // loads libgcc's unwinder now, not inside the handler
  struct sigaction action;
  memset(&action, 0, sizeof(action));
  action.sa_handler = OnFatalSignal;
  action.sa_flags = SA_NODEFER;
  sigemptyset(&action.sa_mask);
  const int fatal[] = {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT};
  for (size_t i = 0; i < sizeof(fatal) / sizeof(fatal[0]); ++i) sigaction(fatal[i], &action, NULL);
}
