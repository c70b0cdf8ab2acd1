@testable import Carryon
import Testing

/// Reading `Content-Range: bytes first-last/total` (RFC 9110 section 14.4), which a 206
/// response must carry and which tells the fetcher where its bytes go.
@Suite("Reading Content-Range")
struct ContentRangeTests {
    struct Parts: Equatable {
        var first: Int
        var last: Int
        var total: Int?
    }

    func read(_ header: String) -> Parts? {
        ContentRange(header).map { Parts(first: $0.first, last: $0.last, total: $0.total) }
    }

    @Test("a range with its complete length")
    func complete() {
        #expect(read("bytes 0-499/1234") == Parts(first: 0, last: 499, total: 1234))
    }

    @Test("a range of the last byte of a file")
    func lastByte() {
        #expect(read("bytes 1233-1233/1234") == Parts(first: 1233, last: 1233, total: 1234))
    }

    @Test("a complete length of * means unknown")
    func unknownTotal() {
        #expect(read("bytes 500-999/*") == Parts(first: 500, last: 999, total: nil))
    }

    @Test("the unit is read without regard to case, and surrounding spaces are ignored")
    func caseAndSpaces() {
        #expect(read("Bytes 0-0/1") == Parts(first: 0, last: 0, total: 1))
        #expect(read("  BYTES 10-19/20 ") == Parts(first: 10, last: 19, total: 20))
    }

    @Test("offsets beyond 4 GiB are read")
    func largeOffsets() {
        #expect(read("bytes 5000000000-5000000999/9000000000") == Parts(first: 5_000_000_000, last: 5_000_000_999, total: 9_000_000_000))
    }

    @Test("a malformed Content-Range is refused", arguments: [
        "", "bytes", "bytes ", "0-499/1234", "items 0-499/1234", "bytes=0-499/1234", "bytes 0-499",
        "bytes */1234",             // an unsatisfied range, not a range of bytes
        "bytes 500-499/1234",       // last before first
        "bytes 0-/1234", "bytes -499/1234", "bytes -5-10/20",
        "bytes a-499/1234", "bytes 0-b/1234", "bytes 0-499/abc", "bytes 0-499/1234/5",
        "bytes +0-499/1234", "bytes 0-+499/1234", "bytes 0-499/+1234",
        "bytes 0 - 499/1234", "bytes 0-499 /1234",
        "bytes 0-499/-1",           // a negative length
        "bytes 0-1234/1234",        // a last byte past the complete length
        "bytes 0-99999999999999999999/*",
    ])
    func malformed(header: String) {
        #expect(ContentRange(header) == nil)
    }
}
