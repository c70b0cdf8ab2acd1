#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The variables of a playlist (`EXT-X-DEFINE`) and their substitution into `{$name}`
/// references (RFC 8216bis section 4.3).
///
/// References are replaced in URI lines and quoted-string attribute values. A reference to a
/// variable that no preceding `EXT-X-DEFINE` defined makes the playlist invalid.
struct Variables {
    private(set) var values: [String: String] = [:]

    /// How many more bytes substitution may add, so that a short playlist cannot expand a long
    /// value into gigabytes (a megabyte value referenced from ten thousand URI lines). Shared
    /// by the copies the resolvers pass around.
    private final class Allowance {
        var remaining: Int
        init(_ remaining: Int) { self.remaining = remaining }
    }

    private let allowance: Allowance

    /// Variables for a playlist of `lineCount` lines: substitution may add 16 MiB, and 512
    /// bytes more per line (room for a long signed-URL token in every segment URI).
    init(lineCount: Int) {
        allowance = Allowance(16 << 20 + 512 * lineCount)
    }

    /// Adds the definition on line `line` of a playlist at `url`.
    mutating func define(_ definition: Define, playlistURL url: String, imports: [String: String]?,
                         isMultivariant: Bool) throws(TagError) {
        let name = definition.name
        guard values[name] == nil else {
            throw TagError(.variable, "EXT-X-DEFINE: variable \"\(name)\" is defined twice")
        }
        switch definition {
        case .value(_, let value):
            values[name] = value
        case .import:
            if isMultivariant {
                throw TagError(.variable, "EXT-X-DEFINE: IMPORT=\"\(name)\" is only allowed in a media playlist")
            }
            guard let imports else {
                throw TagError(.variable, "EXT-X-DEFINE: IMPORT=\"\(name)\" needs the multivariant playlist's variables, and none were given")
            }
            guard let value = imports[name] else {
                throw TagError(.variable, "EXT-X-DEFINE: IMPORT=\"\(name)\" names a variable the multivariant playlist does not define")
            }
            values[name] = value
        case .queryParameter:
            guard let value = URIReference.queryParameter(name, in: url) else {
                throw TagError(.variable, "EXT-X-DEFINE: QUERYPARAM=\"\(name)\" but the playlist URL \(url) has no query parameter \(name)")
            }
            values[name] = value
        }
    }

    /// Replaces every `{$name}` in `text`.
    func substitute(_ text: String) throws(TagError) -> String {
        // Fast path: most strings hold no reference.
        guard Self.mayHoldReference(text) else { return text }

        var result = ""
        var rest = text[...]
        while let open = rest.range(of: "{$") {
            result += rest[..<open.lowerBound]
            guard let close = rest[open.upperBound...].firstIndex(of: "}") else {
                result += rest[open.lowerBound...]
                return result
            }
            let name = String(rest[open.upperBound..<close])
            guard let value = values[name] else {
                throw TagError(.variable, "{$\(name)} refers to a variable that no preceding EXT-X-DEFINE defines")
            }
            allowance.remaining -= value.utf8.count
            if allowance.remaining < 0 {
                throw TagError(.variable, "{$\(name)}: variable substitution would make the playlist too large")
            }
            result += value
            rest = rest[rest.index(after: close)...]
        }
        result += rest
        return result
    }

    /// Whether `text` has `{$` in it, read in place where its UTF-8 is (a segment URI's is).
    private static func mayHoldReference(_ text: String) -> Bool {
        let found = text.utf8.withContiguousStorageIfAvailable { utf8 -> Bool in
            guard let base = utf8.baseAddress else { return false }
            var offset = 0
            while offset < utf8.count, let brace = memchr(base + offset, Int32(UInt8(ascii: "{")), utf8.count - offset) {
                offset = UnsafeRawPointer(brace) - UnsafeRawPointer(base) + 1
                if offset < utf8.count, base[offset] == UInt8(ascii: "$") { return true }
            }
            return false
        }
        return found ?? text.contains("{$")
    }

    func substitute(_ text: String?) throws(TagError) -> String? {
        guard let text else { return nil }
        return try substitute(text)
    }

    func substitute(_ attributes: [Attribute]) throws(TagError) -> [Attribute] {
        var result = attributes
        for index in result.indices {
            if case .quoted(let text) = result[index].value {
                result[index].value = .quoted(try substitute(text))
            }
        }
        return result
    }
}

private extension Substring {
    func range(of needle: String) -> Range<Index>? {
        var index = startIndex
        while index < endIndex {
            if self[index...].hasPrefix(needle) {
                return index..<self.index(index, offsetBy: needle.count)
            }
            index = self.index(after: index)
        }
        return nil
    }
}
