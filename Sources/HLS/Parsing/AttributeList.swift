/// A fault found while decoding one tag; the parser adds the line.
struct TagError: Error {
    var code: PlaylistError.Code
    var message: String

    init(_ code: PlaylistError.Code, _ message: String) {
        self.code = code
        self.message = message
    }
}

enum AttributeList {
    /// Splits an attribute list (RFC 8216bis section 4.2) into its attributes, in order.
    ///
    /// Lenient where no meaning is lost: spaces after a comma and a trailing comma are accepted.
    static func parse(_ bytes: UnsafeBufferPointer<UInt8>, tag: String) throws(TagError) -> [Attribute] {
        var attributes: [Attribute] = []
        // Names seen, for finding a duplicate once a list is too long to search linearly
        // (a hostile line can hold hundreds of thousands of attributes).
        var names: Set<String> = []
        var index = 0
        let count = bytes.count
        while index < count {
            while index < count, bytes[index] == UInt8(ascii: " ") || bytes[index] == UInt8(ascii: "\t") {
                index += 1
            }
            if index == count { break }
            let nameStart = index
            while index < count, bytes[index] != UInt8(ascii: "="), bytes[index] != UInt8(ascii: ",") {
                let byte = bytes[index]
                let valid = (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
                    || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
                    || byte == UInt8(ascii: "-") || (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte)
                    || byte == UInt8(ascii: "_")
                guard valid else {
                    throw TagError(.malformedAttributeList,
                                   "\(tag): unexpected character '\(Character(Unicode.Scalar(byte)))' in an attribute name at column \(index + 1) of the attribute list")
                }
                index += 1
            }
            let name = String(decoding: UnsafeBufferPointer(rebasing: bytes[nameStart..<index]), as: UTF8.self)
            guard !name.isEmpty else {
                throw TagError(.malformedAttributeList, "\(tag): an attribute has no name (column \(nameStart + 1))")
            }
            guard index < count, bytes[index] == UInt8(ascii: "=") else {
                throw TagError(.malformedAttributeList, "\(tag): attribute \(name) has no '=' and no value")
            }
            index += 1
            let value: AttributeValue
            if index < count, bytes[index] == UInt8(ascii: "\"") {
                index += 1
                let start = index
                while index < count, bytes[index] != UInt8(ascii: "\"") { index += 1 }
                guard index < count else {
                    throw TagError(.malformedAttributeList, "\(tag): the quoted value of \(name) has no closing quote")
                }
                value = .quoted(String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self))
                index += 1
                // White space before the comma or the end of the line is no part of the value.
                var afterSpace = index
                while afterSpace < count, bytes[afterSpace] == UInt8(ascii: " ") || bytes[afterSpace] == UInt8(ascii: "\t") {
                    afterSpace += 1
                }
                if afterSpace == count || bytes[afterSpace] == UInt8(ascii: ",") { index = afterSpace }
                if index < count, bytes[index] != UInt8(ascii: ",") {
                    throw TagError(.malformedAttributeList,
                                   "\(tag): expected ',' after the quoted value of \(name), found '\(Character(Unicode.Scalar(bytes[index])))'")
                }
            } else {
                let start = index
                while index < count, bytes[index] != UInt8(ascii: ",") { index += 1 }
                var end = index
                while end > start, bytes[end - 1] == UInt8(ascii: " ") || bytes[end - 1] == UInt8(ascii: "\t") { end -= 1 }
                guard end > start else {
                    throw TagError(.malformedAttributeList, "\(tag): attribute \(name) has an empty value")
                }
                let token = UnsafeBufferPointer(rebasing: bytes[start..<end])
                if token.contains(UInt8(ascii: "\"")) {
                    throw TagError(.malformedAttributeList, "\(tag): the value of \(name) has a stray quote")
                }
                value = .token(String(decoding: token, as: UTF8.self))
            }
            let duplicate: Bool
            if attributes.count < 16 {
                duplicate = attributes.contains { $0.name == name }
            } else {
                if names.isEmpty { names = Set(attributes.lazy.map(\.name)) }
                duplicate = !names.insert(name).inserted
            }
            if duplicate {
                throw TagError(.duplicateAttribute, "\(tag): attribute \(name) appears more than once")
            }
            attributes.append(Attribute(name: name, value: value))
            index += 1  // past the comma (or the end)
        }
        return attributes
    }
}

/// Decodes the attributes of one tag into typed values, remembering which it used so that the
/// rest can be kept (and warned about, unless they are client attributes).
///
/// A value in the wrong form that still has one meaning — a quoted number, a bare
/// quoted-string, a lower-case enumerated value, `1280X720` — is read with a warning (an error in
/// strict mode); one that has none is an error.
struct AttributeReader {
    let tag: String
    let recoveries: Recoveries
    private var attributes: [Attribute]
    private var used: [Bool]
    /// Attributes whose malformed value is kept as written, already warned about.
    private var keptAsWritten: Set<String> = []

    init(_ attributes: [Attribute], tag: String, recoveries: Recoveries) {
        self.tag = tag
        self.recoveries = recoveries
        self.attributes = attributes
        self.used = Array(repeating: false, count: attributes.count)
    }

    func hasAttribute(_ name: String) -> Bool { attributes.contains { $0.name == name } }

    /// A deviation: a warning, or in strict mode an error.
    func recover(_ kind: String, _ code: PlaylistError.Code, _ message: @autoclosure () -> String) throws(TagError) {
        try recoveries.recover(kind, code, message())
    }

    private mutating func take(_ name: String) -> AttributeValue? {
        for index in attributes.indices where attributes[index].name == name {
            used[index] = true
            return attributes[index].value
        }
        return nil
    }

    /// Leaves an attribute among the rest, kept as written.
    private mutating func keep(_ name: String) {
        for index in attributes.indices where attributes[index].name == name { used[index] = false }
        keptAsWritten.insert(name)
    }

    private func missing(_ name: String) -> TagError {
        TagError(.missingValue, "\(tag) lacks the required attribute \(name)")
    }

    private func invalid(_ name: String, _ value: AttributeValue, _ expected: String) -> TagError {
        TagError(.invalidValue, "\(tag): \(name)=\(value) is not \(expected)")
    }

    /// The text of a value that should be unquoted; a quoted one is read with a warning.
    private func unquoted(_ name: String, _ value: AttributeValue, _ kind: String) throws(TagError) -> String {
        switch value {
        case .token(let text): return text
        case .quoted(let text):
            try recover("quoted-value", .invalidValue, "\(tag): \(name) is \(kind), written quoted; read as \(text)")
            return text
        }
    }

    mutating func string(_ name: String) throws(TagError) -> String? {
        guard let value = take(name) else { return nil }
        guard case .quoted(let text) = value else {
            try recover("bare-string", .invalidValue, "\(tag): \(name)=\(value) is a quoted-string written without quotes; read as \"\(value.text)\"")
            return value.text
        }
        return text
    }

    mutating func string(required name: String) throws(TagError) -> String {
        guard let value = try string(name) else { throw missing(name) }
        return value
    }

    /// An enumerated-string; a quoted one is read with a warning.
    mutating func enumerated(_ name: String) throws(TagError) -> String? {
        guard let value = take(name) else { return nil }
        if case .quoted = value {
            try recover("quoted-value", .invalidValue, "\(tag): \(name) should not be quoted; read as \(value.text)")
        }
        return value.text
    }

    mutating func enumerated(required name: String) throws(TagError) -> String {
        guard let value = try enumerated(name) else { throw missing(name) }
        return value
    }

    /// One of the values the specification defines; one written in lower case is read with a
    /// warning.
    mutating func enumeration<E: RawRepresentable>(_ name: String, _ type: E.Type) throws(TagError) -> E?
    where E.RawValue == String {
        guard let text = try enumerated(name) else { return nil }
        if let value = E(rawValue: text) { return value }
        if let value = E(rawValue: text.uppercased()) {
            try recover("lower-case", .invalidValue, "\(tag): \(name)=\(text) is written in lower case; read as \(value.rawValue)")
            return value
        }
        throw TagError(.invalidValue, "\(tag): \(name)=\(text) is not one of the values the specification defines")
    }

    mutating func integer(_ name: String) throws(TagError) -> Int? {
        guard let value = take(name) else { return nil }
        let text = try unquoted(name, value, "a decimal-integer")
        if let number = Number.decimalInteger(text.utf8) { return number }
        return try Number.lenientInteger(text.utf8, what: "\(tag): \(name)", recoveries: recoveries)
    }

    mutating func integer(required name: String) throws(TagError) -> Int {
        guard let value = try integer(name) else { throw missing(name) }
        return value
    }

    mutating func float(_ name: String, signed: Bool = false) throws(TagError) -> Double? {
        guard let value = take(name) else { return nil }
        let text = try unquoted(name, value, signed ? "a signed-decimal-floating-point" : "a decimal-floating-point")
        if let number = Number.decimalFloat(text, signed: signed) { return number }
        let trimmed = text.trimmingWhiteSpace
        if let number = Number.decimalFloat(trimmed, signed: signed) {
            try recover("space-in-value", .invalidValue, "\(tag): white space around \(name)=\(trimmed) is ignored")
            return number
        }
        throw invalid(name, value, signed ? "a signed decimal number" : "a decimal number")
    }

    mutating func float(required name: String, signed: Bool = false) throws(TagError) -> Double {
        guard let value = try float(name, signed: signed) else { throw missing(name) }
        return value
    }

    /// A hexadecimal-sequence. With `keepingMalformed`, for values that change nothing fetched
    /// (SCTE-35 messages), a malformed one is kept as written among the other attributes, with a
    /// warning, instead of refused.
    mutating func hex(_ name: String, keepingMalformed: Bool = false) throws(TagError) -> HexSequence? {
        guard let value = take(name) else { return nil }
        let text = try unquoted(name, value, "a hexadecimal-sequence")
        if let hex = HexSequence(text) { return hex }
        guard keepingMalformed else { throw invalid(name, value, "a hexadecimal sequence (0x…)") }
        try recover("malformed-hex", .invalidValue,
                    "\(tag): \(name)=\(value.description.prefix(40)) is not a hexadecimal sequence (0x…); kept as written")
        keep(name)
        return nil
    }

    mutating func resolution(_ name: String) throws(TagError) -> Resolution? {
        guard let value = take(name) else { return nil }
        let text = try unquoted(name, value, "a decimal-resolution")
        if let resolution = Resolution(text) { return resolution }
        let lowered = String(text.trimmingWhiteSpace.map { $0 == "X" ? "x" : $0 })
        if let resolution = Resolution(lowered) {
            try recover("resolution-form", .invalidValue, "\(tag): \(name)=\(text) is not written WIDTHxHEIGHT; read as \(resolution)")
            return resolution
        }
        throw invalid(name, value, "a resolution (WIDTHxHEIGHT)")
    }

    /// A `YES`/`NO` attribute. Nil when absent.
    mutating func yesNo(_ name: String) throws(TagError) -> Bool? {
        guard let text = try enumerated(name) else { return nil }
        switch text {
        case "YES": return true
        case "NO": return false
        default:
            let upper = text.uppercased()
            guard upper == "YES" || upper == "NO" else {
                throw TagError(.invalidValue, "\(tag): \(name)=\(text) is neither YES nor NO")
            }
            try recover("lower-case", .invalidValue, "\(tag): \(name)=\(text) is written in lower case; read as \(upper)")
            return upper == "YES"
        }
    }

    /// A `BYTERANGE="n[@o]"` attribute.
    mutating func byteRange(_ name: String) throws(TagError) -> ByteRange? {
        guard let text = try string(name) else { return nil }
        guard let range = ByteRange(text) else {
            throw TagError(.invalidValue, "\(tag): \(name)=\"\(text)\" is not a byte range (length[@offset])")
        }
        return range
    }

    /// A quoted date; a malformed one is kept as written among the other attributes, with a
    /// warning (dates change nothing fetched).
    mutating func dateTime(_ name: String) throws(TagError) -> DateTime? {
        guard let text = try string(name) else { return nil }
        guard let date = DateTime(text) else {
            try recover("bad-date", .invalidValue, "\(tag): \(name)=\"\(text)\" is not an ISO 8601 date and time with a time zone; kept as written")
            keep(name)
            return nil
        }
        return date
    }

    /// A `URI` attribute. A space in it is read as `%20` when the URI is resolved, with a warning.
    mutating func uri(_ name: String = "URI") throws(TagError) -> String? {
        guard let text = try string(name) else { return nil }
        if text.utf8.contains(UInt8(ascii: " ")) {
            try recover("space-in-uri", .invalidValue, "\(tag): \(name)=\"\(text)\" has a space in it; read as %20")
        }
        return text
    }

    mutating func uri(required name: String) throws(TagError) -> String {
        guard let value = try uri(name) else { throw missing(name) }
        return value
    }

    /// The value as written, whatever its form: for attributes that take more than one.
    mutating func value(_ name: String) -> AttributeValue? { take(name) }

    /// Attributes not taken so far, in order. Each is reported as a warning unless it is a
    /// client attribute (`X-…`) or one of `quiet` (legacy attributes such as `PROGRAM-ID`).
    mutating func rest(quiet: Set<String> = []) -> [Attribute] {
        var rest: [Attribute] = []
        for index in attributes.indices where !used[index] {
            let attribute = attributes[index]
            if !attribute.name.hasPrefix("X-") && !quiet.contains(attribute.name) && !keptAsWritten.contains(attribute.name) {
                recoveries.note("unknown-attribute", "\(tag): unknown attribute \(attribute.name) kept as written")
            }
            rest.append(attribute)
        }
        return rest
    }
}

/// Writes an attribute list in canonical form.
struct AttributeWriter {
    private(set) var text = ""

    private mutating func add(_ name: String, _ value: String) {
        if !text.isEmpty { text += "," }
        text += name
        text += "="
        text += value
    }

    mutating func string(_ name: String, _ value: String?) throws(PlaylistError) {
        guard let value else { return }
        if value.utf8.contains(where: { $0 == UInt8(ascii: "\"") || $0 == 0x0A || $0 == 0x0D }) {
            throw PlaylistError(.unwritable, "\(name) cannot be written as a quoted-string: it contains a double quote or a line break")
        }
        add(name, "\"\(value)\"")
    }

    mutating func token(_ name: String, _ value: String?) {
        guard let value else { return }
        add(name, value)
    }

    mutating func integer(_ name: String, _ value: Int?) {
        guard let value else { return }
        add(name, String(value))
    }

    mutating func float(_ name: String, _ value: Double?) throws(PlaylistError) {
        guard let value else { return }
        guard value.isFinite else { throw PlaylistError(.unwritable, "\(name)=\(value) is not a finite number") }
        add(name, Number.format(value))
    }

    mutating func yesNo(_ name: String, _ value: Bool?) {
        guard let value else { return }
        add(name, value ? "YES" : "NO")
    }

    /// Writes `NAME=YES` when true and nothing otherwise (attributes whose only value is YES).
    mutating func flag(_ name: String, _ value: Bool) {
        if value { add(name, "YES") }
    }

    mutating func other(_ attributes: [Attribute]) throws(PlaylistError) {
        for attribute in attributes {
            switch attribute.value {
            case .quoted(let text): try string(attribute.name, text)
            case .token(let text): token(attribute.name, text)
            }
        }
    }
}
