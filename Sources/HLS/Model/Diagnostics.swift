/// Why a playlist could not be read, and where.
///
/// Every error names the line (1-based) and shows its text, so that a person can find the fault
/// in a playlist of thousands of lines:
///
/// ```
/// line 7: EXT-X-STREAM-INF lacks the required attribute BANDWIDTH
///   #EXT-X-STREAM-INF:RESOLUTION=1280x720
/// ```
public struct PlaylistError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The kind of fault, for code that handles some of them.
    public var code: Code
    /// The 1-based line number, when the fault is on one line.
    public var line: Int?
    /// The text of that line (shortened if very long, with control characters made visible).
    public var lineText: String?
    /// What is wrong, in words.
    public var message: String

    /// Creates an error of the given kind.
    ///
    /// - Parameters:
    ///   - code: The kind of fault.
    ///   - line: The 1-based line number; nil when the fault is not on one line.
    ///   - lineText: The text of that line, shown under the message.
    ///   - message: What is wrong, in words.
    public init(_ code: Code, line: Int? = nil, lineText: String? = nil, _ message: String) {
        self.code = code
        self.line = line
        self.lineText = lineText
        self.message = message
    }

    public var description: String {
        var text = line.map { "line \($0): \(message)" } ?? message
        if let lineText { text += "\n  \(lineText)" }
        return text
    }

    /// Kinds of fault. New codes may be added.
    public struct Code: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public var description: String { rawValue }

        /// The input is not valid UTF-8.
        public static let invalidUTF8 = Code(rawValue: "invalid-utf8")
        /// A line holds a NUL or another control character that no playlist may contain.
        public static let controlCharacter = Code(rawValue: "control-character")
        /// The first line is not `#EXTM3U`.
        public static let missingHeader = Code(rawValue: "missing-header")
        /// An attribute list does not follow the `NAME=VALUE,…` syntax.
        public static let malformedAttributeList = Code(rawValue: "malformed-attribute-list")
        /// A tag lacks an attribute or value it requires.
        public static let missingValue = Code(rawValue: "missing-value")
        /// A value has the wrong type or an impossible value.
        public static let invalidValue = Code(rawValue: "invalid-value")
        /// The same attribute appears twice in one attribute list.
        public static let duplicateAttribute = Code(rawValue: "duplicate-attribute")
        /// The playlist holds both media and multivariant tags.
        public static let mixedPlaylist = Code(rawValue: "mixed-playlist")
        /// A `{$name}` reference to a variable no `EXT-X-DEFINE` defines, or a bad definition.
        public static let variable = Code(rawValue: "variable")
        /// A byte range without offset does not follow a range of the same resource.
        public static let byteRange = Code(rawValue: "byte-range")
        /// The playlist breaks a structural rule (a tag without its URI line, a missing
        /// `EXT-X-TARGETDURATION`, …).
        public static let structure = Code(rawValue: "structure")
        /// A URI cannot be resolved against the playlist's URL.
        public static let uri = Code(rawValue: "uri")
        /// A value cannot be written (a quoted-string with a quote or line break, a number that
        /// is not finite).
        public static let unwritable = Code(rawValue: "unwritable")
    }
}

/// Something in a playlist that breaks the specification but that a client can recover from
/// (RFC 8216bis section 6.3.1), such as an unknown attribute or a quoted hexadecimal value.
/// Reading goes on; the message says what was wrong and what was assumed:
///
/// ```
/// line 12: EXT-X-DATERANGE: SCTE35-OUT is a hexadecimal-sequence, written quoted; read as 0xFC30…
///   #EXT-X-DATERANGE:ID="ad1",START-DATE="2020-01-01T00:00:00Z",SCTE35-OUT="0xFC30…"
/// ```
///
/// With ``Playlist/ParseOptions/strict`` a deviation is a ``PlaylistError`` instead.
public struct PlaylistWarning: Sendable, Hashable, CustomStringConvertible {
    /// The 1-based line number.
    public var line: Int
    /// The text of that line (shortened if very long, with control characters made visible),
    /// when the warning is about what the line says.
    public var lineText: String?
    /// What was wrong, and what was assumed.
    public var message: String

    /// Creates a warning about the given 1-based line.
    public init(line: Int, lineText: String? = nil, _ message: String) {
        self.line = line
        self.lineText = lineText
        self.message = message
    }

    public var description: String {
        var text = "line \(line): \(message)"
        if let lineText { text += "\n  \(lineText)" }
        return text
    }
}

/// The text of a line made fit for an error message: control characters escaped and lines
/// longer than `limit` bytes shortened.
func displayText(_ bytes: UnsafeBufferPointer<UInt8>, limit: Int = 160) -> String {
    let shown = bytes.count > limit ? UnsafeBufferPointer(rebasing: bytes[0..<limit]) : bytes
    var text = ""
    for scalar in String(decoding: shown, as: UTF8.self).unicodeScalars {
        if scalar.value < 0x20 || scalar.value == 0x7F {
            text += "\\u{\(String(scalar.value, radix: 16))}"
        } else {
            text.unicodeScalars.append(scalar)
        }
    }
    if bytes.count > limit { text += "… (\(bytes.count) bytes)" }
    return text
}

func displayText(_ text: Substring) -> String {
    var copy = String(text)
    return copy.withUTF8 { displayText($0) }
}
