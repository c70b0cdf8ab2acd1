import HLS

/// A recording written out (see ``RecordedPlaylist``): its whole text, its header, and a tail
/// of it as a playlist of its own.
extension RecordedPlaylist {
    /// The recording as a media playlist: `EVENT` while it goes on, `VOD` with
    /// `EXT-X-ENDLIST` once finished.
    func text() throws(PlaylistError) -> String {
        guard spilled.count == 0 else {
            throw PlaylistError(.structure, "the recording's first \(spilled.count) segments are not held: restore them first")
        }
        var text = try header()
        text.reserveCapacity(text.utf8.count + held.count * 120)
        for segment in held {
            text += segment.prefix
            text += segment.body
        }
        if isFinished { text += "#EXT-X-ENDLIST\n" }
        return text
    }

    /// The lines ``text()`` starts with, before the first segment's; with `from`, those of a
    /// playlist of the segments from that index on (its sequence numbers theirs).
    func header(from index: Int = 0) throws(PlaylistError) -> String {
        var header: [Line] = [Line(tag: .m3u)]
        // Explicit byte range offsets and EXT-X-MAP need version 4 and 5 or 6; 7 reads every tag written.
        header.append(Line(tag: .version(max(version ?? 3, 7))))
        header.append(Line(tag: .targetDuration(targetDuration)))
        header.append(Line(tag: .mediaSequence(firstSequence + index)))
        let before = index == 0 ? 0 : spilled.discontinuities + held[..<min(max(0, index - spilled.count), held.count)].count { $0.prefix.hasPrefix("#EXT-X-DISCONTINUITY\n") }
        let discontinuities = discontinuitySequence + before
        if discontinuities > 0 { header.append(Line(tag: .discontinuitySequence(discontinuities))) }
        header.append(Line(tag: .playlistType(isFinished ? .vod : .event)))
        if independentSegments { header.append(Line(tag: .independentSegments)) }
        return try Playlist(lines: header).write()
    }

    /// The segments from `index` on as a playlist of their own, for planning what a round
    /// appended: ``header(from:)`` and their lines. The key and init section in effect before
    /// them are not restated: their lines are appended after those that state them.
    func tailText(from index: Int) throws(PlaylistError) -> (text: String, header: String) {
        guard index >= spilled.count else {
            throw PlaylistError(.structure, "the recording's segments from \(index) are not all held")
        }
        let header = try header(from: index)
        var text = header
        for segment in held[min(index - spilled.count, held.count)...] {
            text += segment.prefix
            text += segment.body
        }
        return (text, header)
    }

    /// The seconds of the segments before `index`.
    func seconds(before index: Int) -> Double {
        held[..<min(max(0, index - spilled.count), held.count)].reduce(spilled.seconds) { $0 + $1.duration }
    }
}
