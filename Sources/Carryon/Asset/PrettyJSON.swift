import Foundation

/// Writes JSON exactly as `JSONEncoder` does with `.prettyPrinted, .sortedKeys,
/// .withoutEscapingSlashes` — two-space indents, `"key" : value` — for values written by hand
/// in sorted key order: a million segments are written in a fraction of a second, where the
/// encoder takes half a minute. `InspectReportTests` holds it to the encoder's output.
struct PrettyJSON {
    private(set) var bytes: [UInt8] = []
    private var depth: Int
    /// For each open object or array, whether it has a member yet.
    private var hasMember: [Bool] = []

    /// A writer whose first value starts at `depth` levels of indentation.
    init(depth: Int = 0) {
        self.depth = depth
    }

    mutating func beginObject() { open(UInt8(ascii: "{")) }
    mutating func endObject() { close(UInt8(ascii: "}")) }
    mutating func beginArray() { open(UInt8(ascii: "[")) }
    mutating func endArray() { close(UInt8(ascii: "]")) }

    /// Starts a member of the open object: its value follows.
    mutating func key(_ name: String) {
        newMember()
        string(name)
        bytes.append(contentsOf: [0x20, UInt8(ascii: ":"), 0x20])
    }

    /// Starts an element of the open array (or the first value).
    mutating func element() {
        if !hasMember.isEmpty { newMember() } else { indent() }
    }

    mutating func string(_ value: String) {
        // Quotes and backslashes are escaped here; a string with control characters is left to
        // the encoder, whose escapes for them this writer does not repeat.
        if value.utf8.contains(where: { $0 < 0x20 }) {
            bytes.append(contentsOf: Self.encoded(value))
            return
        }
        bytes.append(UInt8(ascii: "\""))
        for byte in value.utf8 {
            if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") { bytes.append(UInt8(ascii: "\\")) }
            bytes.append(byte)
        }
        bytes.append(UInt8(ascii: "\""))
    }

    mutating func number(_ value: Int) {
        bytes.append(contentsOf: String(value).utf8)
    }

    mutating func number(_ value: Double) {
        // The shortest form that reads back, without ".0" for whole numbers; anything in
        // exponent form (or not finite) is left to the encoder.
        var text = value.description
        guard value.isFinite, !text.contains("e") else {
            bytes.append(contentsOf: Self.encoded(value))
            return
        }
        if text.hasSuffix(".0") { text.removeLast(2) }
        bytes.append(contentsOf: text.utf8)
    }

    mutating func bool(_ value: Bool) {
        bytes.append(contentsOf: (value ? "true" : "false").utf8)
    }

    /// Hands the bytes written so far to the caller and forgets them.
    mutating func take() -> [UInt8] {
        defer { bytes.removeAll(keepingCapacity: true) }
        return bytes
    }

    private mutating func open(_ bracket: UInt8) {
        bytes.append(bracket)
        hasMember.append(false)
        depth += 1
    }

    /// Closes the open object or array (never an empty one: the values written by hand here
    /// always have a member).
    private mutating func close(_ bracket: UInt8) {
        depth -= 1
        hasMember.removeLast()
        bytes.append(0x0A)
        indent()
        bytes.append(bracket)
    }

    private mutating func newMember() {
        if hasMember[hasMember.count - 1] { bytes.append(UInt8(ascii: ",")) }
        hasMember[hasMember.count - 1] = true
        bytes.append(0x0A)
        indent()
    }

    private mutating func indent() {
        for _ in 0..<depth { bytes.append(contentsOf: [0x20, 0x20]) }
    }

    private static func encoded<T: Encodable>(_ value: T) -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return (try? encoder.encode(value)).map { [UInt8]($0) } ?? Array("null".utf8)
    }
}
