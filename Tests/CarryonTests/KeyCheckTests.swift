@testable import Carryon
import CarryonTestSupport
import Foundation
import Testing

/// A key the user holds, checked against the first encrypted samples of Shaka Packager's
/// output before any media is downloaded: the right key fits, a wrong one is caught.
@Suite("Key checks on common encryption")
struct KeyCheckTests {
    static let keys = try! HeldKeys.read(file: cencSampleMedia.appendingPathComponent("keys.txt"))
    static let cencKID = "00112233445566778899aabbccddeeff"

    static func check(_ stream: String, tracks: [String], keyID: String, key: [UInt8]) throws -> KeyCheck.Verdict {
        let renditions = try tracks.map { track in
            let folder = cencSampleMedia.appendingPathComponent("\(stream)/\(track)")
            return KeyCheck.Track(initSection: Array(try Data(contentsOf: folder.appendingPathComponent("init.mp4"))),
                                  segments: try (1...2).map { Array(try Data(contentsOf: folder.appendingPathComponent("\($0).m4s"))) })
        }
        return KeyCheck.check(key: key, keyID: keyID, renditions: renditions)
    }

    @Test("the keys file: KIDs with or without dashes, comments, and errors that name the line but never the key")
    func keysFile() throws {
        #expect(Self.keys.keyIDs.count == 3)
        var keys = HeldKeys()
        try keys.add(fileText: "# a comment\n\n00112233-4455-6677-8899-AABBCCDDEEFF:0x0f1e2d3c4b5a69788796a5b4c3d2e1f0 # trailing\n", name: "k.txt")
        #expect(keys.keys[Self.cencKID] == Self.keys.keys[Self.cencKID])
        #expect(!keys.description.contains("0f1e2d3c") && keys.description.contains(Self.cencKID))
        let short = #expect(throws: CarryonError.self) { try HeldKeys(["00112233445566778899aabbccddeeff:0f1e2d"]) }
        #expect(short?.message.contains("key 1: the key is not 16 bytes") == true)
        #expect(short?.message.contains("0f1e2d") == false)
        let noColon = #expect(throws: CarryonError.self) { var k = HeldKeys(); try k.add(fileText: "\n0011", name: "k.txt") }
        #expect(noColon?.message.hasPrefix("k.txt, line 2 is not KID:KEY") == true)
        let twice = #expect(throws: CarryonError.self) {
            try HeldKeys(["\(Self.cencKID):00000000000000000000000000000000", "\(Self.cencKID):00000000000000000000000000000001"])
        }
        #expect(twice?.message == "key 2 gives the KID of key 1 a different key")
    }

    @Test("the init sections name their KIDs, per track where the keys are per track")
    func keyIDs() throws {
        func kids(_ path: String) throws -> [String] {
            try KeyCheck.keyIDs(inInit: Array(try Data(contentsOf: cencSampleMedia.appendingPathComponent(path))))
        }
        #expect(try kids("cenc/v/init.mp4") == [Self.cencKID])
        #expect(try kids("cbcs-tracks/v/init.mp4") == ["a0a1a2a3a4a5a6a7a8a9aaabacadaeaf"])
        #expect(try kids("cbcs-tracks/a/init.mp4") == ["f0f1f2f3f4f5f6f7f8f9fafbfcfdfeff"])
    }

    @Test("the right key fits, a wrong one is caught by the audio's AAC, cenc and cbcs; video whose slice headers stay clear (Shaka Packager's) cannot tell")
    func verdicts() throws {
        let wrong = [UInt8](repeating: 0x42, count: 16)
        let cenc = try #require(Self.keys.keys[Self.cencKID])
        // cenc: video and audio under one key.
        #expect(try Self.check("cenc", tracks: ["v", "a"], keyID: Self.cencKID, key: cenc) == .fits(samples: KeyCheck.sampleLimit))
        let verdict = try Self.check("cenc", tracks: ["v", "a"], keyID: Self.cencKID, key: wrong)
        guard case let .wrong(why) = verdict else { Issue.record("cenc, wrong key: \(verdict)"); return }
        #expect(why.contains("16 of 16 samples are not AAC"), "\(why)")
        let video = try Self.check("cenc", tracks: ["v"], keyID: Self.cencKID, key: wrong)
        guard case let .unchecked(videoWhy) = video else { Issue.record("cenc video alone: \(video)"); return }
        #expect(videoWhy.contains("in clear"), "\(videoWhy)")

        // cbcs, a key per track, the first segment clear (no sample under the key in it).
        let audioKID = "f0f1f2f3f4f5f6f7f8f9fafbfcfdfeff"
        let audio = try #require(Self.keys.keys[audioKID])
        #expect(try Self.check("cbcs-tracks", tracks: ["a"], keyID: audioKID, key: audio) == .fits(samples: KeyCheck.sampleLimit))
        guard case .wrong = try Self.check("cbcs-tracks", tracks: ["a"], keyID: audioKID, key: wrong) else {
            Issue.record("cbcs audio, wrong key not caught"); return
        }
        // The video's KID is not the audio's: its samples are not read for it.
        let other = try Self.check("cbcs-tracks", tracks: ["v"], keyID: audioKID, key: audio)
        #expect(other == .unchecked("no sample encrypted with it was found in the first segments"))
    }

    @Test("a whole sample encrypted (NAL lengths and headers too): H.264 and H.265 samples that hold together fit, noise and lengths that run past the sample break, and nothing traps")
    func wholeSamples() throws {
        // An IDR slice: first_mb_in_slice 0, slice_type 7 (I), pic_parameter_set_id 0 → bits 1 0001000 1.
        let slice: [UInt8] = [0x65, 0x88, 0x80, 0x21, 0x42]
        let sei: [UInt8] = [0x06, 0x05, 0x01, 0x80]
        let avc = [0, 0, 0, UInt8(sei.count)] + sei + [0, 0, 0, UInt8(slice.count)] + slice
        let codec = ProtectedTrack.Codec.avc(lengthSize: 4, pictureParameterSets: [0])
        #expect(SampleStructure.check(avc, encrypted: [0..<avc.count], codec: codec) == .fits)
        // A B slice where an IDR's must be I, a second picture parameter set, a length past the end.
        #expect(SampleStructure.check([0, 0, 0, 5, 0x65, 0xA8, 0x80, 0x21, 0x42], encrypted: [0..<9], codec: codec)
                == .broken("an IDR slice of type 1"))
        #expect(SampleStructure.check([0, 0, 0, 5, 0x65, 0x88, 0x40, 0x21, 0x42], encrypted: [0..<9], codec: codec)
                == .broken("a slice names picture parameter set 1"))
        #expect(SampleStructure.check([0, 0, 9, 5, 0x65, 0x88], encrypted: [0..<6], codec: codec)
                == .broken("a NAL unit's length (2309) runs past the sample"))
        // Clear lengths and headers say nothing of the key.
        #expect(SampleStructure.check(avc, encrypted: [], codec: codec) == .unknown)
        // H.265: an IDR_W_RADL (19) slice, temporal id 1, first in its picture.
        let hevc: [UInt8] = [0, 0, 0, 4, 19 << 1, 1, 0x80, 0x12]
        #expect(SampleStructure.check(hevc, encrypted: [0..<hevc.count], codec: .hevc(lengthSize: 4)) == .fits)
        #expect(SampleStructure.check([0, 0, 0, 4, 19 << 1, 0, 0x80, 0x12], encrypted: [0..<8], codec: .hevc(lengthSize: 4))
                == .broken("a NAL unit's temporal id is -1"))
        // Noise: most random samples break; none traps.
        var generator = SystemRandomNumberGenerator()
        var broken = 0
        for _ in 0..<200 {
            let noise = (0..<Int.random(in: 0...64, using: &generator)).map { _ in UInt8.random(in: 0...255, using: &generator) }
            for codec in [codec, .hevc(lengthSize: 4), .aac(objectType: 2, frequencyIndex: 3, channels: 2)] {
                if case .broken = SampleStructure.check(noise, encrypted: [0..<noise.count], codec: codec) { broken += 1 }
            }
        }
        #expect(broken > 500, "\(broken) of 600 noise samples broke")
    }

    @Test("hostile boxes: sizes past their container, an stsd too short, a base data offset past the segment, a trun of billions of samples: each an error, never a trap")
    func hostileBoxes() throws {
        func box(_ type: String, _ payload: [UInt8]) -> [UInt8] {
            let size = UInt32(8 + payload.count)
            return [UInt8(size >> 24), UInt8(size >> 16 & 255), UInt8(size >> 8 & 255), UInt8(size & 255)] + Array(type.utf8) + payload
        }
        let shortStsd = box("moov", box("trak", box("tkhd", [UInt8](repeating: 0, count: 24)) + box("mdia", box("minf", box("stbl", box("stsd", [0, 0]))))))
        #expect(throws: MP4Structure.self) { try ProtectedTrack.tracks(in: shortStsd) }
        #expect(throws: MP4Structure.self) { try ProtectedTrack.tracks(in: [0, 0, 0, 200] + Array("moov".utf8)) }
        let track = try #require(try ProtectedTrack.tracks(in: Array(try Data(contentsOf: cencSampleMedia.appendingPathComponent("cenc/a/init.mp4")))).first)
        // tfhd with base_data_offset 2^64-1, and a trun claiming 2^32-1 samples.
        let tfhd = box("tfhd", [0, 0, 0, 1] + [0, 0, 0, UInt8(track.trackID)] + [UInt8](repeating: 255, count: 8))
        #expect(throws: MP4Structure.self) { try ProtectedSample.encrypted(of: track, in: box("moof", box("traf", tfhd))) }
        let trun = box("trun", [0, 0, 0, 0, 255, 255, 255, 255])
        let plain = box("tfhd", [0, 2, 0, 0] + [0, 0, 0, UInt8(track.trackID)])
        #expect(throws: MP4Structure.self) { try ProtectedSample.encrypted(of: track, in: box("moof", box("traf", plain + trun))) }
    }
}
