import HLS

/// The segments of a media playlist a download of a ``TimeRange`` keeps, and what its local
/// playlist (`DownloadPlan.localMediaPlaylist`) needs to play from the first of them as the
/// origin's would: that segment's media sequence number (an AES-128 key without an IV derives
/// it from it) and discontinuity sequence number, the key and initialization section in effect
/// there, and its byte range's offset, for a range that continued the segment before.
struct PlaylistWindow: Sendable, Hashable {
    /// The indexes of the first and last segments kept; nil: none.
    var segments: ClosedRange<Int>?
    /// The first segment's media sequence number.
    var mediaSequence = 0
    /// The discontinuity sequence number before the first segment's own `EXT-X-DISCONTINUITY`.
    var discontinuitySequence = 0
    /// The offset of the first segment's byte range, when it has one.
    var rangeOffset: Int?

    /// A window of no segment.
    static let empty = PlaylistWindow(segments: nil)

    /// The window of the one segment `segment`, at `index`.
    init(first segment: Segment, at index: Int) {
        segments = index...index
        mediaSequence = segment.mediaSequence
        discontinuitySequence = segment.discontinuitySequence - (segment.discontinuity ? 1 : 0)
        rangeOffset = segment.byteRange?.offset
    }

    private init(segments: ClosedRange<Int>?) {
        self.segments = segments
    }

    /// Where a line of the segment at `index` (its tags, then its URI) stands.
    enum Place {
        case before, inside, after
    }

    func place(of index: Int) -> Place {
        guard let segments else { return .after }
        return index < segments.lowerBound ? .before : index > segments.upperBound ? .after : .inside
    }

    /// Whether the segment at `index` is the window's first.
    func isFirst(_ index: Int) -> Bool {
        segments?.lowerBound == index
    }

    /// Whether `tag` is of the playlist as a whole, not of the segments after it.
    static func isPlaylistTag(_ tag: Tag) -> Bool {
        switch tag {
        case .m3u, .version, .targetDuration, .mediaSequence, .discontinuitySequence, .playlistType, .independentSegments,
             .start, .define, .iFramesOnly: true
        default: false
        }
    }

    /// The `EXT-X-KEY` and `EXT-X-MAP` tags in effect at a point of a playlist: a key replaces
    /// the one of its key format, `METHOD=NONE` every key, a map the map.
    struct Pending {
        private var lines: [Line] = []

        var isEmpty: Bool { lines.isEmpty }

        mutating func keep(_ line: Line) {
            switch line.content {
            case .tag(.key(let key)), .tag(.sessionKey(let key)):
                if key.method == .none {
                    lines.removeAll { Self.keyFormat(of: $0) != nil }
                    return
                }
                let format = key.keyFormat ?? "identity"
                lines.removeAll { Self.keyFormat(of: $0) == format }
            case .tag(.map):
                lines.removeAll { if case .tag(.map) = $0.content { true } else { false } }
            default:
                return
            }
            lines.append(line)
        }

        /// The lines kept, in the order they stood; none are kept after.
        mutating func take() -> [Line] {
            defer { lines = [] }
            return lines
        }

        private static func keyFormat(of line: Line) -> String? {
            switch line.content {
            case .tag(.key(let key)), .tag(.sessionKey(let key)): key.keyFormat ?? "identity"
            default: nil
            }
        }
    }
}
