import Testing
@testable import CarryonServer

@Suite("Range headers")
struct HTTPRangeTests {
    @Test("no header means the whole resource")
    func absent() {
        #expect(HTTPRange(header: nil, size: 100) == .whole)
    }

    @Test("a closed range is served as given")
    func closed() {
        #expect(HTTPRange(header: "bytes=10-19", size: 100) == .partial(10...19))
    }

    @Test("an open range runs to the end")
    func open() {
        #expect(HTTPRange(header: "bytes=90-", size: 100) == .partial(90...99))
    }

    @Test("a suffix range is the last n bytes, not the first")
    func suffix() {
        #expect(HTTPRange(header: "bytes=-10", size: 100) == .partial(90...99))
    }

    @Test("a suffix longer than the resource is the whole resource as a range")
    func longSuffix() {
        #expect(HTTPRange(header: "bytes=-500", size: 100) == .partial(0...99))
    }

    @Test("an end past the resource is clamped")
    func clampedEnd() {
        #expect(HTTPRange(header: "bytes=50-1000", size: 100) == .partial(50...99))
    }

    @Test("a start past the end cannot be satisfied")
    func pastEnd() {
        #expect(HTTPRange(header: "bytes=100-", size: 100) == .unsatisfiable)
        #expect(HTTPRange(header: "bytes=-0", size: 100) == .unsatisfiable)
    }

    @Test("several ranges, other units and nonsense fall back to the whole resource")
    func fallbacks() {
        #expect(HTTPRange(header: "bytes=0-1,5-6", size: 100) == .whole)
        #expect(HTTPRange(header: "items=0-1", size: 100) == .whole)
        #expect(HTTPRange(header: "bytes=abc", size: 100) == .whole)
        #expect(HTTPRange(header: "bytes=20-10", size: 100) == .whole)
    }
}
