/// The members of a compact JSON object read in their order, one pass: each value spliced
/// into a ``PrettyJSON``, read as an integer or skipped where it is wanted, the object never
/// split first.
struct CompactMembers {
    let text: UnsafeBufferPointer<UInt8>
    private var position = 0
    /// Where the key of the next member is (between its quotes); nil past the last.
    private(set) var key: Range<Int>?
    /// Whether the text was not one object, read so far.
    private(set) var failed = false

    /// The members of the object `text`; nil when it does not start as one.
    init?(_ text: UnsafeBufferPointer<UInt8>) {
        self.text = text
        PrettyJSON.skipSpace(text, &position)
        guard position < text.count, text[position] == UInt8(ascii: "{") else { return nil }
        position += 1
        PrettyJSON.skipSpace(text, &position)
        if position < text.count, text[position] == UInt8(ascii: "}") {
            position += 1
            end()
        } else {
            readKey()
        }
    }

    /// Whether every member was read and the object ends the text.
    var isFinished: Bool { !failed && key == nil }

    /// Whether the next member is `name`.
    func next(is name: StaticString) -> Bool {
        guard let key else { return false }
        return text[key].elementsEqual(UnsafeBufferPointer(start: name.utf8Start, count: name.utf8CodeUnitCount))
    }

    /// Splices the next member's value into `json` and moves to the member after it; false
    /// when it is not JSON.
    mutating func splice(into json: inout PrettyJSON) -> Bool {
        guard key != nil, json.splice(text, at: &position) else { return fail() }
        return advance()
    }

    /// The next member's value, a whole number, or nil (null, or not a number); moves to the
    /// member after it.
    mutating func integer() -> Int? {
        let start = position
        guard key != nil, PrettyJSON.skipValue(text, &position), advance() else { return nil }
        return Int(String(decoding: UnsafeBufferPointer(rebasing: text[start..<position]).prefix { $0 != UInt8(ascii: ",") && $0 != UInt8(ascii: "}") && $0 > 0x20 },
                          as: UTF8.self))
    }

    /// Whether the next member's value is `null`.
    var isNull: Bool {
        key != nil && text[position...].starts(with: "null".utf8)
    }

    /// Moves past the next member's value; false when it is not JSON.
    mutating func skip() -> Bool {
        guard key != nil, PrettyJSON.skipValue(text, &position) else { return fail() }
        return advance()
    }

    /// After a value: the next member, or the object's end (which must end the text).
    private mutating func advance() -> Bool {
        PrettyJSON.skipSpace(text, &position)
        guard position < text.count else { return fail() }
        let separator = text[position]
        position += 1
        if separator == UInt8(ascii: ",") {
            readKey()
        } else if separator == UInt8(ascii: "}") {
            end()
        } else {
            return fail()
        }
        return !failed
    }

    private mutating func readKey() {
        PrettyJSON.skipSpace(text, &position)
        guard position < text.count, text[position] == UInt8(ascii: "\"") else { _ = fail(); return }
        let start = position + 1
        guard let end = text[start...].firstIndex(of: UInt8(ascii: "\"")), !text[start..<end].contains(UInt8(ascii: "\\")) else { _ = fail(); return }
        position = end + 1
        PrettyJSON.skipSpace(text, &position)
        guard position < text.count, text[position] == UInt8(ascii: ":") else { _ = fail(); return }
        position += 1
        PrettyJSON.skipSpace(text, &position)
        key = start..<end
    }

    private mutating func end() {
        key = nil
        PrettyJSON.skipSpace(text, &position)
        if position != text.count { failed = true }
    }

    private mutating func fail() -> Bool {
        failed = true
        key = nil
        return false
    }
}
