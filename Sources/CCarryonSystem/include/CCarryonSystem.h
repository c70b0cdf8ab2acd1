#ifndef CCARRYON_SYSTEM_H
#define CCARRYON_SYSTEM_H

#include "CCarryonSpawn.h"

/// Caps the number of glibc malloc arenas at `count` (mallopt(M_ARENA_MAX)); returns 1 when
/// set, 0 when the C library has no such option (not glibc).
int carryon_limit_malloc_arenas(int count);

#endif
