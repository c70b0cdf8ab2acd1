/// A multivariant playlist resolved: variants, I-frame variants, renditions, session data and
/// keys, with variables substituted and every URI absolute.
///
/// ```swift
/// let main = try MultivariantPlaylist(parsing: text, url: "https://cdn.example/main.m3u8")
/// let best = main.variants.max { ($0.bandwidth ?? 0) < ($1.bandwidth ?? 0) }!
/// let audio = main.renditions(ofType: .audio, inGroup: best.audio)
/// ```
public struct MultivariantPlaylist: Sendable, Hashable {
    /// The URL the playlist was read from.
    public var url: String
    /// `EXT-X-VERSION`, when present.
    public var version: Int?
    /// `EXT-X-INDEPENDENT-SEGMENTS`.
    public var independentSegments: Bool
    /// `EXT-X-START`.
    public var start: Start?
    /// Variant streams (`EXT-X-STREAM-INF` and the URI line after each), in order.
    public var variants: [Variant]
    /// I-frame variants (`EXT-X-I-FRAME-STREAM-INF`), in order.
    public var iFrameVariants: [Variant]
    /// Renditions (`EXT-X-MEDIA`), in order, URIs absolute.
    public var renditions: [Rendition]
    /// `EXT-X-SESSION-DATA`, URIs absolute.
    public var sessionData: [SessionData]
    /// `EXT-X-SESSION-KEY`, URIs absolute.
    public var sessionKeys: [Key]
    /// `EXT-X-CONTENT-STEERING`, its server URI absolute.
    public var contentSteering: ContentSteering?
    /// The variables defined by `EXT-X-DEFINE`, for media playlists that `IMPORT` them.
    public var variables: [String: String]
    /// What the resolver (and the parser) recovered from.
    public var warnings: [PlaylistWarning]

    /// A variant stream: its media playlist's absolute URI and its attributes.
    @dynamicMemberLookup
    public struct Variant: Sendable, Hashable {
        /// The absolute URI of the variant's media playlist.
        public var uri: String
        /// The attributes, with variables substituted.
        public var stream: StreamInf
        /// The 1-based line of the tag.
        public var line: Int

        /// The variant's attributes, read as its own: `variant.bandwidth` is
        /// `variant.stream.bandwidth`.
        public subscript<Value>(dynamicMember keyPath: KeyPath<StreamInf, Value>) -> Value {
            stream[keyPath: keyPath]
        }
    }

    /// The renditions of one type in one group, in playlist order. Empty when `group` is nil.
    public func renditions(ofType type: MediaType, inGroup group: String?) -> [Rendition] {
        guard let group else { return [] }
        return renditions.filter { $0.type == type && $0.groupID == group }
    }

    /// Resolves a parsed multivariant playlist.
    ///
    /// - Parameters:
    ///   - playlist: A multivariant playlist.
    ///   - url: The absolute URL it was read from.
    ///   - warnings: Warnings from parsing, carried into ``warnings``.
    ///   - options: ``Playlist/ParseOptions/strict`` to refuse what is otherwise recovered from
    ///     with a warning: an `EXT-X-STREAM-INF` followed by another (the first, without a URI,
    ///     is dropped), media playlist tags (ignored), a URI line after no `EXT-X-STREAM-INF`
    ///     (ignored).
    /// - Throws: ``PlaylistError`` naming the line, for a media playlist, an `EXT-X-STREAM-INF`
    ///   without a URI line after it, or an undefined variable.
    public init(_ playlist: Playlist, url: String, warnings: [PlaylistWarning] = [],
                options: Playlist.ParseOptions = []) throws(PlaylistError) {
        let strict = options.contains(.strict)
        self.url = url
        version = nil
        independentSegments = false
        start = nil
        variants = []
        iFrameVariants = []
        renditions = []
        sessionData = []
        sessionKeys = []
        contentSteering = nil
        var warnings = warnings
        var variables = Variables(lineCount: playlist.lines.count)
        var pendingStream: (StreamInf, line: Int)?
        /// A deviation on this line: a warning, or in strict mode the error.
        func recover(_ error: TagError, line number: Int, _ line: Line) throws(TagError) {
            if strict { throw error }
            warnings.append(PlaylistWarning(line: number, lineText: line.source.map(displayText), error.message))
        }

        for (index, line) in playlist.lines.enumerated() {
            let number = index + 1
            func fail(_ error: TagError) -> PlaylistError {
                PlaylistError(error.code, line: number, lineText: line.source.map(displayText), error.message)
            }
            do throws(TagError) {
                switch line.content {
                case .blank, .comment: continue
                case .uri(let written):
                    guard let (stream, tagLine) = pendingStream else {
                        try recover(TagError(.structure, "the URI line \(written) follows no EXT-X-STREAM-INF and is ignored"), line: number, line)
                        continue
                    }
                    let uri = URIReference.resolve(try variables.substitute(written), against: url)
                    variants.append(Variant(uri: uri, stream: try stream.resolved(variables, base: url), line: tagLine))
                    pendingStream = nil
                case .tag(let tag):
                    if let (_, tagLine) = pendingStream, tag.name != Tag.m3u.name, !tag.isUnknown {
                        guard case .streamInf = tag else {
                            throw TagError(.structure, "the EXT-X-STREAM-INF on line \(tagLine) must be followed by its URI line, not by \(tag.name)")
                        }
                        try recover(TagError(.structure, "another EXT-X-STREAM-INF follows the one on line \(tagLine), which has no URI line; that one is dropped"), line: number, line)
                    }
                    switch tag {
                    case .m3u, .unknown: break
                    case .version(let value): version = value
                    case .independentSegments: independentSegments = true
                    case .start(let value): start = value
                    case .define(let define):
                        try variables.define(define, playlistURL: url, imports: nil, isMultivariant: true)
                    case .streamInf(let stream): pendingStream = (stream, number)
                    case .iFrameStreamInf(let stream):
                        let resolved = try stream.resolved(variables, base: url)
                        iFrameVariants.append(Variant(uri: resolved.uri ?? "", stream: resolved, line: number))
                    case .media(let rendition):
                        let resolved = try rendition.resolved(variables, base: url)
                        if renditions.contains(where: { $0.type == resolved.type && $0.groupID == resolved.groupID && $0.name == resolved.name }) {
                            warnings.append(PlaylistWarning(line: number, "another rendition in group \"\(resolved.groupID)\" has the NAME \"\(resolved.name)\""))
                        }
                        renditions.append(resolved)
                    case .sessionData(let data): sessionData.append(try data.resolved(variables, base: url))
                    case .sessionKey(let key): sessionKeys.append(try key.resolved(variables, base: url))
                    case .contentSteering(let steering): contentSteering = try steering.resolved(variables, base: url)
                    default:
                        try recover(TagError(.mixedPlaylist, "\(tag.name) belongs in a media playlist, not a multivariant playlist; ignored"), line: number, line)
                    }
                }
            } catch {
                throw fail(error)
            }
        }
        if let (_, line) = pendingStream {
            throw PlaylistError(.structure, line: line, "this EXT-X-STREAM-INF has no URI line after it")
        }
        self.variables = variables.values
        Self.checkGroups(variants: variants, renditions: renditions, warnings: &warnings)
        self.warnings = warnings.sorted { $0.line < $1.line }
    }

    /// Parses and resolves M3U8 text. See ``init(_:url:warnings:options:)``.
    public init(parsing text: String, url: String, options: Playlist.ParseOptions = []) throws(PlaylistError) {
        let parsed = try Playlist.parse(text, options: options)
        try self.init(parsed.playlist, url: url, warnings: parsed.warnings, options: options)
    }

    private static func checkGroups(variants: [Variant], renditions: [Rendition], warnings: inout [PlaylistWarning]) {
        for variant in variants {
            let references: [(String?, MediaType, String)] = [
                (variant.audio, .audio, "AUDIO"), (variant.video, .video, "VIDEO"),
                (variant.subtitles, .subtitles, "SUBTITLES"),
            ]
            for (group, type, attribute) in references {
                if let group, !renditions.contains(where: { $0.type == type && $0.groupID == group }) {
                    warnings.append(PlaylistWarning(line: variant.line, "\(attribute)=\"\(group)\" names no EXT-X-MEDIA group of TYPE=\(type.rawValue)"))
                }
            }
        }
    }
}
