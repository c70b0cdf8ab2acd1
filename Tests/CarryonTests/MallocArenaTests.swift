import CCarryonSystem
import Testing

/// The `carryon` executable caps glibc's malloc arenas; the cap must really reach `mallopt`.
@Suite("Malloc arenas")
struct MallocArenaTests {
    #if canImport(Glibc)
    @Test("on glibc the arena cap is set (mallopt answers 1), not skipped by the C library check")
    func capIsSet() {
        // Eight per core is glibc's own default, so the test process is left as it was.
        #expect(carryon_limit_malloc_arenas(16) == 1)
    }
    #endif
}
