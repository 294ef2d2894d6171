// BINDERY_THREAD_LOCAL: the storage class of the layer's per-thread caches.
//
// The layer is a library the Vulkan loader dlopens. Initial-exec TLS in such a library
// must fit in the static TLS space glibc keeps spare for dlopen; other libraries of the
// process may have used it up (on the H100 machine, with NVIDIA's GL driver preloaded, a
// few hundred bytes were left: a layer build with 408 bytes of initial-exec TLS failed to
// load with "cannot allocate memory in static TLS block"). So the layer uses the default
// model, compiled with TLS descriptors (-mtls-dialect=gnu2 where the compiler has it): an
// access is one indirect call that returns a fixed offset when glibc could place the block
// in static TLS, and the layer still loads when it could not.
//
// Sanitizer builds keep initial-exec: LeakSanitizer in GCC 12 mis-tracks the dynamic TLS
// blocks of dlopened libraries (reported leaks), and nothing else is loaded there.
#pragma once

#if defined(BINDERY_SANITIZER_BUILD)
#define BINDERY_THREAD_LOCAL __attribute__((tls_model("initial-exec"))) thread_local
#else
#define BINDERY_THREAD_LOCAL thread_local
#endif
