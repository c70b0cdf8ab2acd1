#include "CCarryonSystem.h"
// A C library header first: glibc defines __GLIBC__ in <features.h>, which the check below
// needs; without one the check is always false and the cap is never set.
#include <stdlib.h>
#if defined(__GLIBC__)
#include <malloc.h>
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
