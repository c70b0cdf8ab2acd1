/// One line of a playlist: a tag, a URI, a comment or a blank.
///
/// A parsed line remembers the exact text it was read from. As long as its ``content`` is not
/// changed, the writer emits that text unchanged; once it is changed, the writer emits the
/// canonical form of the new content. Equality compares content only.
public struct Line: Sendable {
    /// What the line says.
    public var content: Content {
        didSet {
            storedSource = nil
            sourceIsCanonical = false
        }
    }

    /// Whether the line was read from exactly the canonical text of its content (a URI line
    /// without white space around it, `#EXTINF:3.904,`, a date written as Carryon writes one).
    /// Its source is then that text, made when asked, and need not be kept.
    private(set) var sourceIsCanonical: Bool

    /// The text the line was read from, unless ``sourceIsCanonical``.
    private(set) var storedSource: Substring?

    /// The text the line was parsed from (without its line terminator), while unchanged.
    public var source: Substring? {
        if sourceIsCanonical {
            if case .uri(let uri) = content { return uri[...] }
            var text = ""
            try? content.write(to: &text)
            return text[...]
        }
        return storedSource
    }

    /// The kinds of line in an M3U8 file (RFC 8216bis section 4.1).
    public enum Content: Sendable, Hashable {
        /// An empty line, or one of only spaces and tabs. Ignored by clients.
        case blank
        /// A line starting with `#` that is not a tag. The text after the `#`.
        case comment(String)
        /// A URI line: a media segment, a variant stream or a media playlist, as written.
        case uri(String)
        /// A tag: a line starting with `#EXT`.
        case tag(Tag)
    }

    /// Forgets the text the line was read from, so that it is written in canonical form (as a
    /// line whose content was changed is).
    public mutating func makeCanonical() {
        storedSource = nil
        sourceIsCanonical = false
    }

    /// The tag on this line, if it is one.
    public var tag: Tag? {
        if case .tag(let tag) = content { return tag }
        return nil
    }
}

// The initializers delegate to the implicit memberwise one: the optimizer builds that without
// the copy (a retain and a release per line) it leaves in an initializer that assigns the
// stored properties one by one, which the parser would pay for on every line.
extension Line {
    /// Creates a line with the given content.
    public init(_ content: Content) {
        self.init(content: content, sourceIsCanonical: false, storedSource: nil)
    }

    /// Creates a tag line.
    public init(tag: Tag) { self.init(.tag(tag)) }

    /// Creates a URI line.
    public init(uri: String) { self.init(.uri(uri)) }

    /// A parsed line and the text it was read from.
    init(_ content: Content, source: Substring) {
        self.init(content: content, sourceIsCanonical: false, storedSource: source)
    }

    /// A parsed line whose text is exactly the canonical text of `content`.
    init(canonical content: Content) {
        self.init(content: content, sourceIsCanonical: true, storedSource: nil)
    }
}

extension Line: Hashable {
    public static func == (lhs: Line, rhs: Line) -> Bool { lhs.content == rhs.content }
    public func hash(into hasher: inout Hasher) { hasher.combine(content) }
}
