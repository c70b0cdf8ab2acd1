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
            sourceIsURI = false
        }
    }

    /// Whether the line was read from exactly the text of its URI (a URI line without white
    /// space around it). Its source is then that URI, and need not be kept a second time.
    private var sourceIsURI: Bool

    /// The text the line was read from, unless ``sourceIsURI``.
    private var storedSource: Substring?

    /// The text the line was parsed from (without its line terminator), while unchanged.
    public var source: Substring? {
        if sourceIsURI, case .uri(let uri) = content { return uri[...] }
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
        sourceIsURI = false
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
        self.init(content: content, sourceIsURI: false, storedSource: nil)
    }

    /// Creates a tag line.
    public init(tag: Tag) { self.init(.tag(tag)) }

    /// Creates a URI line.
    public init(uri: String) { self.init(.uri(uri)) }

    /// A parsed line and the text it was read from.
    init(_ content: Content, source: Substring) {
        self.init(content: content, sourceIsURI: false, storedSource: source)
    }

    /// A parsed URI line whose text is exactly `uri`.
    init(parsedURI uri: String) {
        self.init(content: .uri(uri), sourceIsURI: true, storedSource: nil)
    }
}

extension Line: Hashable {
    public static func == (lhs: Line, rhs: Line) -> Bool { lhs.content == rhs.content }
    public func hash(into hasher: inout Hasher) { hasher.combine(content) }
}
