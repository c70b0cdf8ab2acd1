#include "CCarryonSystem.h"
#if defined(__GLIBC__)
#include <malloc.h>
#endif

int carryon_limit_malloc_arenas(int count) {
#if defined(__GLIBC__)
    return mallopt(M_ARENA_MAX, count);
#else
    (void)count;
    return 0;
#endif
}
