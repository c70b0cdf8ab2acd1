/// Whether a key the user holds decrypts its stream, told from the first encrypted samples of a
/// track that uses it: each decrypted, and its encrypted bytes read as its codec requires
/// (``SampleStructure``). A right key fits every sample; a wrong one breaks most.
enum KeyCheck {
    enum Verdict: Equatable {
        /// The key decrypts `samples` samples to their codec's structure.
        case fits(samples: Int)
        /// It does not: what was wrong, in how many samples.
        case wrong(String)
        /// Nothing could tell: why.
        case unchecked(String)
    }

    /// The most samples checked for one key.
    static let sampleLimit = 16

    /// The KIDs the protected sample entries of the init section `bytes` name, in order.
    static func keyIDs(inInit bytes: [UInt8]) throws(MP4Structure) -> [String] {
        var found: [String] = []
        for track in try ProtectedTrack.tracks(in: bytes) {
            for entry in track.entries where entry.isProtected {
                if let keyID = entry.keyID, !found.contains(keyID) { found.append(keyID) }
            }
        }
        return found
    }

    /// The bytes a check reads of one rendition: its init section, and its first media segments
    /// in order.
    struct Track {
        var initSection: [UInt8]
        var segments: [[UInt8]]
    }

    /// Whether `rendition`'s segments hold a sample encrypted under `keyID` (a clear lead holds
    /// none): once one does, more segments tell no more.
    static func holdsSamples(of keyID: String, _ rendition: Track) -> Bool {
        guard let tracks = try? ProtectedTrack.tracks(in: rendition.initSection) else { return true }
        for segment in rendition.segments {
            for track in tracks where track.entries.contains(where: { $0.keyID == keyID }) {
                guard let samples = try? ProtectedSample.encrypted(of: track, in: segment) else { return true }
                if samples.contains(where: { $0.entry.keyID == keyID }) { return true }
            }
        }
        return false
    }

    /// Checks `key`, whose id is `keyID` (32 hexadecimal digits), against the samples of
    /// `renditions` that use it, until ``sampleLimit`` samples told something.
    static func check(key: [UInt8], keyID: String, renditions: [Track]) -> Verdict {
        var checked = 0, broken = 0, decrypted = 0
        var firstProblem: String?
        var codecs: [String] = []
        var unreadable: String?
        for rendition in renditions where checked < sampleLimit {
            let tracks: [ProtectedTrack]
            do {
                tracks = try ProtectedTrack.tracks(in: rendition.initSection)
            } catch {
                unreadable = unreadable ?? "its init section cannot be read: \(error)"
                continue
            }
            let using = tracks.filter { $0.entries.contains { $0.keyID == keyID && $0.isProtected } }
            segments: for segment in rendition.segments {
                for track in using {
                    let samples: [ProtectedSample]
                    do {
                        samples = try ProtectedSample.encrypted(of: track, in: segment).filter { $0.entry.keyID == keyID }
                    } catch {
                        unreadable = unreadable ?? "a segment cannot be read: \(error)"
                        break segments
                    }
                    for sample in samples.prefix(sampleLimit - checked) {
                        let clear: [UInt8], encrypted: [Range<Int>]
                        do {
                            (clear, encrypted) = try SampleDecryption.decrypt(sample, key: key)
                        } catch {
                            unreadable = unreadable ?? "a sample cannot be decrypted: \(error)"
                            break segments
                        }
                        decrypted += 1
                        switch SampleStructure.check(clear, encrypted: encrypted, codec: sample.entry.codec) {
                        case .fits:
                            checked += 1
                        case let .broken(problem):
                            checked += 1
                            broken += 1
                            firstProblem = firstProblem ?? problem
                            let name = codecName(sample.entry.codec)
                            if !codecs.contains(name) { codecs.append(name) }
                        case .unknown:
                            break
                        }
                    }
                }
                if checked >= sampleLimit { break }
            }
        }
        if let unreadable, checked == 0 { return .unchecked(unreadable) }
        if decrypted == 0 { return .unchecked("no sample encrypted with it was found in the first segments") }
        if checked == 0 {
            return .unchecked("the \(decrypted) encrypted samples read keep in clear every field a wrong key would break (H.264 slice headers, say), so a wrong key would show only in playback")
        }
        if broken * 2 > checked {
            return .wrong("decrypted with it, \(broken) of \(checked) samples are not \(codecs.joined(separator: " or ")): \(firstProblem ?? "")")
        }
        return .fits(samples: checked)
    }

    private static func codecName(_ codec: ProtectedTrack.Codec) -> String {
        switch codec {
        case .avc: "H.264"
        case .hevc: "H.265"
        case .aac: "AAC"
        case let .other(format): format
        }
    }
}
