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
        #expect(short?.message.contains("key 1: the key for KID 00112233445566778899aabbccddeeff is not 16 bytes") == true)
        #expect(short?.message.contains("0f1e2d") == false)
        let noColon = #expect(throws: CarryonError.self) { var k = HeldKeys(); try k.add(fileText: "\n0011", name: "k.txt") }
        #expect(noColon?.message.hasPrefix("k.txt, line 2 is not KID:KEY") == true)
        let twice = #expect(throws: CarryonError.self) {
            try HeldKeys(["\(Self.cencKID):00000000000000000000000000000000", "\(Self.cencKID):00000000000000000000000000000001"])
        }
        #expect(twice?.message.contains("given twice with different keys") == true)
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
}
