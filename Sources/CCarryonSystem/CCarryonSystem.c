#include "CCarryonSystem.h"
// A C library header first: glibc defines __GLIBC__ in <features.h>, which the check below
// needs; without one the check is always false and the cap is never set.
#include <stdlib.h>
#if defined(__GLIBC__)
#include <malloc.h>
#endif
#if defined(__linux__)
#include <errno.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>
#endif

int carryon_release_free_memory(void) {
#if defined(__GLIBC__)
    return malloc_trim(0);
#else
    return 0;
#endif
}

int carryon_limit_malloc_arenas(int count) {
#if defined(__GLIBC__)
    return mallopt(M_ARENA_MAX, count);
#else
    (void)count;
    return 0;
#endif
}

#if defined(__linux__)
// From <linux/ioprio.h>, which not every C library's headers carry.
#define CARRYON_IOPRIO_WHO_PROCESS 1
#define CARRYON_IOPRIO_CLASS_SHIFT 13
#define CARRYON_IOPRIO_CLASS_IDLE 3
#endif

int carryon_lower_thread_priority(void) {
#if defined(__linux__)
    int changed = 0;
    // On Linux a "process" of these calls is a thread: its id, or 0 for the calling one.
    pid_t thread = (pid_t)syscall(SYS_gettid);
    if (setpriority(PRIO_PROCESS, (id_t)thread, 19) == 0) changed |= 1;
#if defined(SYS_ioprio_set)
    if (syscall(SYS_ioprio_set, CARRYON_IOPRIO_WHO_PROCESS, 0,
                CARRYON_IOPRIO_CLASS_IDLE << CARRYON_IOPRIO_CLASS_SHIFT) == 0) changed |= 2;
#endif
    return changed;
#else
    return 0;
#endif
}

int carryon_thread_nice(void) {
#if defined(__linux__)
    errno = 0;
    return getpriority(PRIO_PROCESS, (id_t)syscall(SYS_gettid));
#else
    return 0;
#endif
}

int carryon_thread_io_class(void) {
#if defined(__linux__) && defined(SYS_ioprio_get)
    long value = syscall(SYS_ioprio_get, CARRYON_IOPRIO_WHO_PROCESS, 0);
    return value < 0 ? -1 : (int)(value >> CARRYON_IOPRIO_CLASS_SHIFT);
#else
    return -1;
#endif
}
