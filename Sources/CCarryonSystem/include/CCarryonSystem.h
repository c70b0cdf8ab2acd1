#ifndef CCARRYON_SYSTEM_H
#define CCARRYON_SYSTEM_H

#include "CCarryonSpawn.h"

/// Caps the number of glibc malloc arenas at `count` (mallopt(M_ARENA_MAX)); returns 1 when
/// set, 0 when the C library has no such option (not glibc).
int carryon_limit_malloc_arenas(int count);

/// Gives the free memory of glibc's heap back to the system (malloc_trim(0)); returns 1 when
/// some was, 0 when none was or the C library is not glibc.
int carryon_release_free_memory(void);

#endif
