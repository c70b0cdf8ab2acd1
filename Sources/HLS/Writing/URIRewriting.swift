/// Changing the URIs a playlist names through the model, so that no caller edits playlist text
/// by hand: a line whose URI is kept is written back exactly as it was read.
extension Tag {
    /// The location the tag names: its `URI` attribute (`SERVER-URI` for content steering), or
    /// nil when it names none.
    public var uri: String? {
        switch self {
        case .key(let key), .sessionKey(let key): key.uri
        case .map(let map): map.uri
        case .part(let part): part.uri
        case .preloadHint(let hint): hint.uri
        case .renditionReport(let report): report.uri
        case .media(let rendition): rendition.uri
        case .iFrameStreamInf(let stream): stream.uri
        case .sessionData(let data): data.uri
        case .contentSteering(let steering): steering.serverURI
        default: nil
        }
    }

    /// The tag naming `uri` instead of the location it names; unchanged when it names none.
    public func naming(_ uri: String) -> Tag {
        switch self {
        case .key(var key): key.uri = uri; return .key(key)
        case .sessionKey(var key): key.uri = uri; return .sessionKey(key)
        case .map(var map): map.uri = uri; return .map(map)
        case .part(var part): part.uri = uri; return .part(part)
        case .preloadHint(var hint): hint.uri = uri; return .preloadHint(hint)
        case .renditionReport(var report) where report.uri != nil: report.uri = uri; return .renditionReport(report)
        case .media(var rendition) where rendition.uri != nil: rendition.uri = uri; return .media(rendition)
        case .iFrameStreamInf(var stream): stream.uri = uri; return .iFrameStreamInf(stream)
        case .sessionData(var data) where data.uri != nil: data.uri = uri; return .sessionData(data)
        case .contentSteering(var steering): steering.serverURI = uri; return .contentSteering(steering)
        default: return self
        }
    }
}

extension Playlist {
    /// Passes every location the playlist names — each URI line, and the URI of each tag that
    /// has one — through `transform`, which returns the new location, or nil to keep it. Lines
    /// whose location is kept stay as they were read, byte for byte; changed lines are written
    /// in canonical form.
    ///
    /// ```swift
    /// var playlist = try Playlist.parse(text).playlist
    /// playlist.rewriteURIs { uri in uri.contains("://") ? nil : "session-1/" + uri }
    /// let rewritten = try playlist.write()
    /// ```
    public mutating func rewriteURIs(_ transform: (String) -> String?) {
        for index in lines.indices {
            switch lines[index].content {
            case .uri(let uri):
                if let new = transform(uri) { lines[index].content = .uri(new) }
            case .tag(let tag):
                if let uri = tag.uri, let new = transform(uri) { lines[index].content = .tag(tag.naming(new)) }
            case .blank, .comment:
                continue
            }
        }
    }
}
