/// Why an MPD could not be read, and where.
///
///     line 12: the document's DOCTYPE declares entities; Carryon refuses them …
public struct MPDError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The 1-based line of the fault, when it is on one.
    public var line: Int?
    /// What is wrong, in words.
    public var message: String

    /// Creates an error on `line` (nil when the fault is not on one line).
    public init(line: Int?, _ message: String) {
        self.line = line
        self.message = message
    }

    public var description: String {
        line.map { "line \($0): \(message)" } ?? message
    }
}

/// A deviation from ISO/IEC 23009-1 that the lenient reader read past, with what it assumed.
public struct MPDWarning: Sendable, Hashable, CustomStringConvertible {
    /// The 1-based line of the element or attribute, when known.
    public var line: Int?
    /// What was wrong and what was assumed.
    public var message: String

    /// Creates a warning on `line`.
    public init(line: Int?, _ message: String) {
        self.line = line
        self.message = message
    }

    public var description: String {
        line.map { "line \($0): \(message)" } ?? message
    }
}
