/// What one parse recovered from, and the rule for recovering: in strict mode every deviation is
/// an error; otherwise it is a warning that names the line, shows it, says what was wrong and
/// what was assumed.
///
/// A deviation repeated on many lines (a packager that quotes every `SCTE35-OUT`) is reported
/// on its first ``shownPerKind`` lines and then counted, so that a long playlist neither prints
/// thousands of identical warnings nor spends its parse building them: the message of a counted
/// deviation is never made.
final class Recoveries {
    let strict: Bool
    /// The line being read, set by the parser before each line.
    var line = 0
    var text = UnsafeBufferPointer<UInt8>(start: nil, count: 0)
    private(set) var warnings: [PlaylistWarning] = []
    /// Deviations seen per kind, and the last line of each past the ones shown.
    private var counts: [String: (seen: Int, lastLine: Int)] = [:]

    /// How many warnings of one kind are shown before the rest are only counted.
    static let shownPerKind = 5

    init(strict: Bool) {
        self.strict = strict
    }

    /// A deviation from the specification: an error in strict mode, otherwise a warning.
    ///
    /// - Parameters:
    ///   - kind: A short name for the kind of deviation, for counting repeats.
    ///   - code: The error's code in strict mode.
    ///   - message: What was wrong and what was assumed.
    func recover(_ kind: String, _ code: PlaylistError.Code, _ message: @autoclosure () -> String) throws(TagError) {
        if strict { throw TagError(code, message()) }
        note(kind, message())
    }

    /// A warning in either mode: something the specification tells clients to ignore (an unknown
    /// attribute) or that does not break it.
    func note(_ kind: String, _ message: @autoclosure () -> String) {
        let seen = (counts[kind]?.seen ?? 0) + 1
        counts[kind] = (seen, line)
        guard seen <= Self.shownPerKind else { return }
        warnings.append(PlaylistWarning(line: line, lineText: displayText(text), message()))
    }

    /// The warnings, with one more for each kind that was counted past the ones shown.
    func finish() -> [PlaylistWarning] {
        var result = warnings
        for (kind, count) in counts where count.seen > Self.shownPerKind {
            result.append(PlaylistWarning(line: count.lastLine,
                "\(count.seen - Self.shownPerKind) more lines have the deviation warned about above (\(kind)); the last is this one"))
        }
        return result.sorted { $0.line < $1.line }
    }
}
