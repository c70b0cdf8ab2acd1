import HLS

/// What Carryon refuses in a media playlist before any media is fetched, checked a segment at a
/// time (so that a playlist read in one pass is checked as it is read): a key method no
/// specification defines, a location the stream's rule refuses (a remote playlist must not make
/// Carryon read local files), and — once every segment was seen — a live playlist, or one with
/// nothing to download.
struct SegmentCheck {
    /// The playlist's URL, for the errors.
    let url: String
    let rule: LocationRule
    private var methodCheckedLines = Set<Int>()
    /// The keys of segments that are fetched, each once, by the line of their tag.
    private var keyByLine: [Int: SegmentKey] = [:]
    private var checkedMapLines = Set<Int>()
    private var segments = 0
    private var gaps = 0

    /// The methods of encryption RFC 8216bis defines; any other is never guessed: the bundle
    /// could not say how its segments are encrypted.
    private static let methods: [KeyMethod] = [.aes128, .sampleAES, .sampleAESCTR]

    init(url: String, rule: LocationRule) {
        self.url = url
        self.rule = rule
    }

    /// Checks the next segment.
    mutating func check(_ segment: Segment) throws(CarryonError) {
        segments += 1
        if segment.isGap { gaps += 1 }
        if !segment.keys.isEmpty || segment.initSection.map({ !$0.keys.isEmpty }) == true {
            for key in segment.keys + (segment.initSection?.keys ?? []) {
                if !segment.isGap, keyByLine[key.line] == nil { keyByLine[key.line] = key }
                guard methodCheckedLines.insert(key.line).inserted else { continue }
                guard Self.methods.contains(key.method) else {
                    throw CarryonError(.unsupported, "\(url), line \(key.line): EXT-X-KEY METHOD=\(key.method.rawValue) is not a method RFC 8216bis defines (AES-128, SAMPLE-AES, SAMPLE-AES-CTR); Carryon does not guess how the segments are encrypted")
                }
            }
        }
        guard !segment.isGap else { return }
        try rule.check(segment.uri, namedBy: "\(url), line \(segment.line)")
        if let map = segment.initSection, checkedMapLines.insert(map.line).inserted {
            try rule.check(map.uri, namedBy: "\(url), line \(map.line)")
        }
    }

    /// Checks what only the whole playlist says, once every segment was checked: the keys'
    /// locations (keys of other schemes — `data:`, an app's own — are not fetched: the content
    /// key fetcher decodes them or asks the app's provider), whether it is live, whether it has
    /// anything to download.
    /// A playlist `recorded` (``RecordedPlaylist``) is live by nature until the recording ends.
    func finish(_ media: MediaPlaylist, recorded: Bool = false) throws(CarryonError) {
        for line in keyByLine.keys.sorted() {
            guard let key = keyByLine[line],
                  ["http", "https", "file"].contains(URIReference.scheme(of: key.uri)?.lowercased() ?? "") else { continue }
            try rule.check(key.uri, namedBy: "\(url), line \(key.line)")
        }
        if !recorded && !media.hasEndList && media.playlistType != .vod {
            throw CarryonError(.unsupported, "\(url) is a live playlist (no EXT-X-ENDLIST); Carryon downloads complete (VOD) streams only, as AVFoundation does")
        }
        if segments == gaps && !(recorded && !media.hasEndList) {
            let what = segments == 0 ? "no segment" : "only gaps (EXT-X-GAP)"
            throw CarryonError(.playlist, "\(url) has \(what): there is nothing to download")
        }
    }

    /// Checks a whole playlist.
    static func check(_ media: MediaPlaylist, rule: LocationRule) throws(CarryonError) {
        var check = SegmentCheck(url: media.url, rule: rule)
        for segment in media.segments { try check.check(segment) }
        try check.finish(media)
    }
}
