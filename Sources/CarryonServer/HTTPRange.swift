/// A `Range: bytes=…` request header read against a resource of known size (RFC 9110
/// section 14), as every server in Carryon answers it.
enum HTTPRange: Equatable {
    /// No usable range (absent, not `bytes`, several ranges, malformed): serve the whole
    /// resource, as RFC 9110 allows a server to.
    case whole
    /// Serve these bytes with 206 Partial Content.
    case partial(ClosedRange<Int>)
    /// No byte of the range exists: 416 Range Not Satisfiable.
    case unsatisfiable

    /// Reads `header` for a resource of `size` bytes. Supports `a-b`, `a-` and the suffix
    /// form `-n` (the last n bytes).
    init(header: String?, size: Int) {
        guard let header else { self = .whole; return }
        let trimmed = header.trimmingSpaces
        guard trimmed.lowercased().hasPrefix("bytes=") else { self = .whole; return }
        let spec = trimmed.dropFirst(6).trimmingSpaces
        guard !spec.contains(","), let dash = spec.firstIndex(of: "-") else { self = .whole; return }
        let first = spec[..<dash].trimmingSpaces
        let last = spec[spec.index(after: dash)...].trimmingSpaces
        if first.isEmpty {
            // Suffix range: the final `n` bytes.
            guard let count = Int(last), count >= 0 else { self = .whole; return }
            if count == 0 || size == 0 { self = .unsatisfiable; return }
            self = .partial(max(0, size - count)...(size - 1))
            return
        }
        guard let start = Int(first), start >= 0 else { self = .whole; return }
        let end: Int
        if last.isEmpty {
            end = size - 1
        } else {
            guard let value = Int(last), value >= start else { self = .whole; return }
            end = min(value, size - 1)
        }
        guard start < size else { self = .unsatisfiable; return }
        self = .partial(start...end)
    }

    /// The bytes a `Range` header asks for before the resource's size is known: `a-b` and
    /// `a-` give their bounds (an open end up to `Int.max`); a suffix range, a malformed or
    /// absent header give nil (the whole resource may be needed).
    static func bounds(header: String?) -> ClosedRange<Int>? {
        guard let header else { return nil }
        let trimmed = header.trimmingSpaces
        guard trimmed.lowercased().hasPrefix("bytes=") else { return nil }
        let spec = trimmed.dropFirst(6).trimmingSpaces
        guard !spec.contains(","), let dash = spec.firstIndex(of: "-") else { return nil }
        guard let start = Int(spec[..<dash].trimmingSpaces), start >= 0 else { return nil }
        let last = spec[spec.index(after: dash)...].trimmingSpaces
        if last.isEmpty { return start...Int.max }
        guard let end = Int(last), end >= start else { return nil }
        return start...end
    }
}

extension StringProtocol {
    var trimmingSpaces: String {
        var text = Substring(self)
        while text.first == " " || text.first == "\t" { text.removeFirst() }
        while text.last == " " || text.last == "\t" { text.removeLast() }
        return String(text)
    }
}
