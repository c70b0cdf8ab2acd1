import Foundation

/// A `Content-Range: bytes first-last/total` header.
struct ContentRange: Equatable {
    var first: Int
    var last: Int
    var total: Int?

    init?(_ header: String) {
        let text = header.trimmingCharacters(in: .whitespaces)
        guard text.lowercased().hasPrefix("bytes ") else { return nil }
        let spec = text.dropFirst(6)
        let parts = spec.split(separator: "/", maxSplits: 1)
        guard parts.count == 2 else { return nil }
        let bounds = parts[0].split(separator: "-", maxSplits: 1, omittingEmptySubsequences: false)
        guard bounds.count == 2, let first = Self.number(bounds[0]), let last = Self.number(bounds[1]), last >= first else { return nil }
        self.first = first
        self.last = last
        if parts[1] == "*" {
            total = nil
        } else {
            // A complete length must exceed the last byte's position (RFC 9110 section 14.4).
            guard let total = Self.number(parts[1]), total > last else { return nil }
            self.total = total
        }
    }

    /// `1*DIGIT`: `Int(_:)` alone would also take a sign.
    private static func number(_ text: Substring) -> Int? {
        guard !text.isEmpty, text.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) else { return nil }
        return Int(text)
    }
}
