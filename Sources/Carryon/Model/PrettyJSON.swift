import Foundation

/// Writes JSON exactly as `JSONEncoder` does with `.prettyPrinted, .sortedKeys,
/// .withoutEscapingSlashes` — two-space indents, `"key" : value` — for values written by hand
/// in sorted key order, or kept as the encoder wrote them without indents (``splice(_:)``): a
/// million segments are written in a fraction of a second, where the encoder takes half a
/// minute, and a listing of 10,000 assets writes the JSON it keeps without decoding it.
/// `InspectReportTests` and `PrettyJSONTests` hold it to the encoder's output.
struct PrettyJSON {
    private(set) var bytes: [UInt8] = []
    private var depth: Int
    private let firstDepth: Int
    /// For each open object or array, whether it has a member yet.
    private var hasMember: [Bool] = []

    /// A writer whose first value starts at `depth` levels of indentation.
    init(depth: Int = 0) {
        self.depth = depth
        firstDepth = depth
    }

    mutating func beginObject() { open(UInt8(ascii: "{")) }
    mutating func endObject() { close(UInt8(ascii: "}")) }
    mutating func beginArray() { open(UInt8(ascii: "[")) }
    mutating func endArray() { close(UInt8(ascii: "]")) }

    /// Starts a member of the open object: its value follows.
    mutating func key(_ name: String) {
        newMember()
        string(name)
        separateKey()
    }

    /// Starts an element of the open array (or the first value).
    mutating func element() {
        if !hasMember.isEmpty { newMember() } else { indent() }
    }

    mutating func string(_ value: String) {
        var value = value
        value.withUTF8 { text in
            // Most strings need no escape: copied whole.
            guard text.contains(where: { $0 < 0x20 || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") }) else {
                bytes.append(UInt8(ascii: "\""))
                bytes.append(contentsOf: text)
                bytes.append(UInt8(ascii: "\""))
                return
            }
            // Quotes and backslashes are escaped here; a string with control characters is left
            // to the encoder, whose escapes for them this writer does not repeat.
            if text.contains(where: { $0 < 0x20 }) {
                bytes.append(contentsOf: Self.encoded(String(decoding: text, as: UTF8.self)))
                return
            }
            bytes.append(UInt8(ascii: "\""))
            for byte in text {
                if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") { bytes.append(UInt8(ascii: "\\")) }
                bytes.append(byte)
            }
            bytes.append(UInt8(ascii: "\""))
        }
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

    /// A date as the encoder's `.iso8601` strategy writes it: `yyyy-MM-ddTHH:mm:ssZ` in UTC,
    /// whole seconds (the fraction dropped). Dates before 1970 or past 9999 are left to the
    /// encoder.
    mutating func date(_ value: Date) {
        let seconds = value.timeIntervalSince1970
        guard seconds >= 0, seconds < 253_402_300_800 else {
            bytes.append(contentsOf: Self.encoded(value, dates: true))
            return
        }
        let fields = UTCComponents(millisecondsSince1970: Int64(seconds.rounded(.down)) * 1000)
        bytes.append(UInt8(ascii: "\""))
        digits(fields.year, 4)
        bytes.append(UInt8(ascii: "-"))
        digits(fields.month, 2)
        bytes.append(UInt8(ascii: "-"))
        digits(fields.day, 2)
        bytes.append(UInt8(ascii: "T"))
        digits(fields.hour, 2)
        bytes.append(UInt8(ascii: ":"))
        digits(fields.minute, 2)
        bytes.append(UInt8(ascii: ":"))
        digits(fields.second, 2)
        bytes.append(contentsOf: [UInt8(ascii: "Z"), UInt8(ascii: "\"")])
    }

    /// Writes `compact` — one JSON value as `JSONEncoder` writes it without `.prettyPrinted`
    /// (its keys in the order it wrote them, slashes escaped or not) — as the encoder
    /// pretty-prints it at this place, empty arrays and objects included. False when `compact`
    /// is not one JSON value; what was written of it is then the caller's to discard.
    mutating func splice(_ compact: UnsafeBufferPointer<UInt8>) -> Bool {
        var position = 0
        guard splice(compact, at: &position) else { return false }
        Self.skipSpace(compact, &position)
        return position == compact.count
    }

    /// Writes the value at `position` in `compact` (see ``splice(_:)``), moving `position` past
    /// it; false when it is not JSON.
    mutating func splice(_ compact: UnsafeBufferPointer<UInt8>, at position: inout Int) -> Bool {
        // Room for what the indents add to most JSON, made once rather than grown by the
        // appends (doubling, as appends grow it: reserving just enough each time would copy a
        // listing's whole JSON at every splice).
        let room = bytes.count + (compact.count - position) * 3 + 256
        if bytes.capacity < room { bytes.reserveCapacity(max(room, bytes.capacity * 2)) }
        return spliceValue(compact, &position, levels: 0)
    }

    /// The count of bytes written so far.
    var count: Int { bytes.count }

    /// Forgets what was written after the first `count` bytes, values left open included: the
    /// next value is a first one (`count` is where one ended).
    mutating func rollBack(to count: Int) {
        bytes.removeSubrange(count...)
        hasMember.removeAll()
        depth = firstDepth
    }

    /// Appends `json`, written elsewhere, as it is.
    mutating func raw(_ json: [UInt8]) {
        bytes.append(contentsOf: json)
    }

    /// Hands the bytes written so far to the caller and forgets them.
    mutating func take() -> [UInt8] {
        defer { bytes.removeAll(keepingCapacity: true) }
        return bytes
    }

    private mutating func digits(_ value: Int, _ count: Int) {
        var divisor = 1
        for _ in 1..<count { divisor *= 10 }
        while divisor > 0 {
            bytes.append(UInt8(ascii: "0") + UInt8(value / divisor % 10))
            divisor /= 10
        }
    }

    private mutating func spliceValue(_ input: UnsafeBufferPointer<UInt8>, _ position: inout Int, levels: Int) -> Bool {
        Self.skipSpace(input, &position)
        guard position < input.count, levels < 64 else { return false }
        let first = input[position]
        switch first {
        case UInt8(ascii: "{"), UInt8(ascii: "["):
            let isObject = first == UInt8(ascii: "{")
            let closing = isObject ? UInt8(ascii: "}") : UInt8(ascii: "]")
            position += 1
            Self.skipSpace(input, &position)
            guard position < input.count else { return false }
            if input[position] == closing {
                // The encoder's empty array or object: a blank line between its brackets.
                position += 1
                bytes.append(contentsOf: [first, 0x0A, 0x0A])
                indent()
                bytes.append(closing)
                return true
            }
            open(first)
            while true {
                if isObject {
                    guard position < input.count, input[position] == UInt8(ascii: "\"") else { return false }
                    newMember()
                    guard copyString(input, &position) else { return false }
                    Self.skipSpace(input, &position)
                    guard position < input.count, input[position] == UInt8(ascii: ":") else { return false }
                    position += 1
                    separateKey()
                } else {
                    newMember()
                }
                guard spliceValue(input, &position, levels: levels + 1) else { return false }
                Self.skipSpace(input, &position)
                guard position < input.count else { return false }
                let separator = input[position]
                position += 1
                if separator == UInt8(ascii: ",") {
                    Self.skipSpace(input, &position)
                    continue
                }
                guard separator == closing else { return false }
                close(closing)
                return true
            }
        case UInt8(ascii: "\""):
            return copyString(input, &position)
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "t"), UInt8(ascii: "f"), UInt8(ascii: "n"):
            // A number, true, false or null, as written.
            let start = position
            while position < input.count {
                let byte = input[position]
                guard byte != UInt8(ascii: ","), byte != UInt8(ascii: "]"), byte != UInt8(ascii: "}"), byte > 0x20 else { break }
                position += 1
            }
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: input[start..<position]))
            return true
        default:
            return false
        }
    }

    /// Copies the string at `position` (its quotes included), writing an escaped slash as a
    /// slash (`.withoutEscapingSlashes`) and every other escape as it is.
    private mutating func copyString(_ input: UnsafeBufferPointer<UInt8>, _ position: inout Int) -> Bool {
        bytes.append(UInt8(ascii: "\""))
        position += 1
        var run = position
        while position < input.count {
            let byte = input[position]
            if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") {
                bytes.append(contentsOf: UnsafeBufferPointer(rebasing: input[run..<position]))
                if byte == UInt8(ascii: "\"") {
                    bytes.append(byte)
                    position += 1
                    return true
                }
                guard position + 1 < input.count else { return false }
                let escaped = input[position + 1]
                if escaped != UInt8(ascii: "/") { bytes.append(byte) }
                bytes.append(escaped)
                position += 2
                run = position
            } else if byte < 0x20 {
                return false
            } else {
                position += 1
            }
        }
        return false
    }

    /// Moves past the value at `position` (brackets balanced, strings closed; not checked
    /// further: a splice checks the rest).
    static func skipValue(_ input: UnsafeBufferPointer<UInt8>, _ position: inout Int) -> Bool {
        var depth = 0
        let start = position
        while position < input.count {
            let byte = input[position]
            switch byte {
            case UInt8(ascii: "\""):
                position += 1
                while true {
                    guard position < input.count else { return false }
                    let inside = input[position]
                    position += inside == UInt8(ascii: "\\") ? 2 : 1
                    if inside == UInt8(ascii: "\"") { break }
                }
                if depth == 0 { return true }
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                depth += 1
                guard depth < 64 else { return false }
                position += 1
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                // At the top: the bracket closing what holds a number, true, false or null.
                if depth == 0 { return position > start }
                depth -= 1
                position += 1
                if depth == 0 { return true }
            case UInt8(ascii: ","):
                if depth == 0 { return position > start }
                position += 1
            default:
                position += 1
            }
        }
        return depth == 0 && position > start
    }

    static func skipSpace(_ input: UnsafeBufferPointer<UInt8>, _ position: inout Int) {
        while position < input.count, input[position] == 0x20 || input[position] == 0x0A || input[position] == 0x0D || input[position] == 0x09 {
            position += 1
        }
    }

    private mutating func open(_ bracket: UInt8) {
        bytes.append(bracket)
        hasMember.append(false)
        depth += 1
    }

    /// Closes the open object or array (never an empty one: the values written by hand here
    /// always have a member, and a splice writes empty ones itself).
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
        bytes.append(contentsOf: repeatElement(0x20, count: depth * 2))
    }

    /// ` : ` between a key and its value.
    private mutating func separateKey() {
        bytes.append(0x20)
        bytes.append(UInt8(ascii: ":"))
        bytes.append(0x20)
    }

    private static func encoded<T: Encodable>(_ value: T, dates: Bool = false) -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        if dates { encoder.dateEncodingStrategy = .iso8601 }
        return (try? encoder.encode(value)).map { [UInt8]($0) } ?? Array("null".utf8)
    }
}
