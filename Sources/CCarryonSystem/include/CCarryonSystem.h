#ifndef CCARRYON_SYSTEM_H
#define CCARRYON_SYSTEM_H

#include "CCarryonSpawn.h"

/// Caps the number of glibc malloc arenas at `count` (mallopt(M_ARENA_MAX)); returns 1 when
/// set, 0 when the C library has no such option (not glibc).
int carryon_limit_malloc_arenas(int count);

/// Gives the free memory of glibc's heap back to the system (malloc_trim(0)); returns 1 when
/// some was, 0 when none was or the C library is not glibc.
int carryon_release_free_memory(void);

/// Lowers the calling thread (not the process) to the least CPU priority (nice 19) and, where
/// the kernel has I/O priorities, to the idle I/O class: it then runs and reads only when
/// nothing else wants to. Returns a bit per change made: 1 the CPU priority, 2 the I/O class.
int carryon_lower_thread_priority(void);

/// The calling thread's nice value (-20...19).
int carryon_thread_nice(void);

/// The calling thread's I/O scheduling class (0 none, 1 real time, 2 best effort, 3 idle), or
/// -1 where the kernel has none.
int carryon_thread_io_class(void);

#endif
