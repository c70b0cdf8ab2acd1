import DASH
import HLS

/// The two manifests a DASH download's bundle gets for the same files (see ``DASHPlan``): the
/// HLS multivariant playlist, and the local MPD whose Representations are SegmentLists of the
/// bundle's files, with what offline playback keeps of the origin's protection.
extension DASHPlan {
    /// `main.m3u8`: a variant per video track (the first the main one), the audio and WebVTT
    /// subtitle tracks as renditions.
    static func localMain(_ planned: [Planned]) throws(CarryonError) -> String {
        // An MPD without video: its first track, an audio Representation, is the variant.
        let variantKeys = Set(planned.filter { $0.track.choice == "VIDEO" }.map(\.key)
                              + (planned.first.map { $0.track.choice == "AUDIO" && $0.track.language == nil ? [$0.key] : [] } ?? []))
        let variants = planned.filter { variantKeys.contains($0.key) }
        let audio = planned.filter { $0.track.choice == "AUDIO" && !variantKeys.contains($0.key) }
        let subtitles = planned.filter { $0.track.choice == "SUBTITLES" && $0.isHLSPlayable }
        var lines = [Line(tag: .m3u), Line(tag: .version(7)), Line(tag: .independentSegments)]
        for (index, item) in audio.enumerated() {
            lines.append(Line(tag: .media(Rendition(
                type: .audio, uri: "\(item.key)/index.m3u8", groupID: "audio", language: item.track.language, name: item.track.name,
                isDefault: index == 0, autoselect: true, channels: item.track.channels))))
        }
        for item in subtitles {
            lines.append(Line(tag: .media(Rendition(
                type: .subtitles, uri: "\(item.key)/index.m3u8", groupID: "subtitles", language: item.track.language,
                name: item.track.name, isDefault: false, autoselect: true))))
        }
        let audioBandwidth = audio.compactMap { $0.track.parts.first?.representation.bandwidth }.max() ?? 0
        let audioCodecs = audio.first?.track.parts.first?.common.codecs
        for item in variants {
            let first = item.track.parts.first
            let own = first?.representation.bandwidth ?? (item.duration > 0 ? Int(Double(item.bytes * 8) / item.duration) : 1)
            var resolution: Resolution?
            if let width = first?.common.width, let height = first?.common.height { resolution = Resolution(width: width, height: height) }
            let codecs = [first?.common.codecs, audioCodecs].compactMap { $0 }.joined(separator: ",")
            let stream = StreamInf(bandwidth: max(1, own + audioBandwidth), codecs: codecs.isEmpty ? nil : codecs, resolution: resolution,
                                   frameRate: first?.common.frameRate?.value, audio: audio.isEmpty ? nil : "audio",
                                   subtitles: subtitles.isEmpty ? nil : "subtitles")
            lines += [Line(tag: .streamInf(stream)), Line(uri: "\(item.key)/index.m3u8")]
        }
        do {
            return try Playlist(lines: lines).write()
        } catch {
            throw CarryonError(.playlist, "cannot write the local multivariant playlist: \(error)", cause: error)
        }
    }

    /// The `EXT-X-KEY` that starts a Part encrypted with `key` in the HLS playlists (RFC 8216bis
    /// 4.4.4.4): `SAMPLE-AES-CTR` for common encryption's `cenc` scheme, `SAMPLE-AES` for `cbcs`,
    /// the key's raw bytes (`identity`) at the playback server's `keys/<id>`, as for HLS assets;
    /// `NONE` for a clear Part after an encrypted one; nil when nothing changes.
    static func keyTag(for key: DownloadPlan.PlannedKey?, after previous: DownloadPlan.PlannedKey?) -> Key? {
        guard let key else { return previous == nil ? nil : Key(method: .none) }
        if let previous, previous.id == key.id { return nil }
        return Key(method: key.method == "cbcs" ? .sampleAES : .sampleAESCTR, uri: "../keys/\(key.id)", keyFormat: "identity")
    }

    /// The W3C common system id, whose `pssh` names KIDs for any system (Clear Key's included).
    static let commonSystem = "urn:uuid:1077efec-c0b2-4d02-ace3-3c1e52e2fb4b"

    /// Attributes as the local MPD keeps them: `ContentProtection` without the origin's licence
    /// URL, and no URL query parameter descriptor (the origin's token is nothing to local files).
    /// Offline the bundle's keys are licensed by the playback server through W3C Clear Key
    /// whatever system the origin named: where an element names a KID, Clear Key is offered
    /// (added when the origin named only another system), and the DRM systems no licence is
    /// had for offline (Widevine, PlayReady, FairPlay) are left out, so a player asks Clear Key.
    static func offline(_ common: CommonAttributes) -> CommonAttributes {
        var common = common
        for index in common.contentProtections.indices { common.contentProtections[index].licenseURL = nil }
        if common.contentProtections.contains(where: { $0.defaultKID != nil }) {
            common.contentProtections.removeAll { protection in
                protection.schemeIdUri.lowercased().hasPrefix("urn:uuid:") && protection.schemeIdUri.lowercased() != ContentProtection.clearKey
                    && protection.schemeIdUri.lowercased() != Self.commonSystem
            }
            if !common.contentProtections.contains(where: { $0.schemeIdUri.lowercased() == ContentProtection.clearKey }) {
                common.contentProtections.append(ContentProtection(schemeIdUri: ContentProtection.clearKey, value: "ClearKey1.0"))
            }
        }
        common.essentialProperties.removeAll { URLQueryInfo.schemes.contains($0.schemeIdUri) }
        common.supplementalProperties.removeAll { URLQueryInfo.schemes.contains($0.schemeIdUri) }
        common.urlQuery = nil
        return common
    }

    /// `main.mpd`: the origin's Periods and AdaptationSets, each with only the chosen
    /// Representations, addressed by SegmentLists of the bundle's files. `ranged`: of a time
    /// range, each Period from its earliest segment planned to its latest one's end, one
    /// after the other.
    static func localMPD(_ mpd: MPD, planned: [Planned], ranged: Bool) -> String {
        var local = MPD()
        local.type = .static
        local.profiles = ["urn:mpeg:dash:profile:full:2011"]
        local.mediaPresentationDuration = mpd.duration
        local.minBufferTime = mpd.minBufferTime ?? MediaTime(2, timescale: 1)
        let timings = mpd.periodTimings
        var rangedEnd = MediaTime.zero
        for (index, period) in mpd.periods.enumerated() {
            var localPeriod = Period()
            localPeriod.id = period.id
            localPeriod.start = timings[index].start
            localPeriod.duration = timings[index].duration
            // The chosen Representations grouped back into the sets they came from.
            var sets: [AdaptationSet] = []
            var setLines: [Int] = []
            for item in planned {
                guard let representation = item.localRepresentations[index],
                      let part = item.track.parts.first(where: { $0.periodIndex == index }) else { continue }
                if let existing = setLines.firstIndex(of: part.set.line) {
                    if !sets[existing].representations.contains(where: { $0.id == representation.id }) {
                        sets[existing].representations.append(representation)
                    }
                    continue
                }
                var set = part.set
                set.baseURLs = []
                set.segments = SegmentInformation()
                set.xlink = nil
                set.common = Self.offline(set.common)
                set.representations = [representation]
                sets.append(set)
                setLines.append(part.set.line)
            }
            if ranged, let start = planned.compactMap({ $0.windows[index]?.start }).min(),
               let end = planned.compactMap({ $0.windows[index]?.end }).max() {
                // It starts where its earliest segment planned does.
                for setIndex in sets.indices {
                    for representationIndex in sets[setIndex].representations.indices {
                        guard var list = sets[setIndex].representations[representationIndex].segments.list else { continue }
                        list.presentationTimeOffset = (list.presentationTimeOffset ?? 0) + start.converted(to: list.timescale ?? 1)
                        sets[setIndex].representations[representationIndex].segments.list = list
                    }
                }
                localPeriod.start = rangedEnd
                localPeriod.duration = end - start
                rangedEnd = rangedEnd + (end - start)
            }
            localPeriod.adaptationSets = sets
            if !sets.isEmpty { local.periods.append(localPeriod) }
        }
        if ranged { local.mediaPresentationDuration = rangedEnd }
        return local.written()
    }
}
