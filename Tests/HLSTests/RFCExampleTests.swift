import HLS
import Testing

/// The example playlists of RFC 8216 section 8, resolved.
@Suite("RFC 8216 section 8 examples")
struct RFCExampleTests {
    // 8.1
    @Test func simpleMediaPlaylist() throws {
        let playlist = try media(try Fixture.text("rfc8216-8.1-simple-media"), url: "http://media.example.com/simple.m3u8")
        #expect(playlist.version == 3)
        #expect(playlist.targetDuration == 10)
        #expect(playlist.presentation == .vod)
        #expect(playlist.segments.count == 3)
        #expect(playlist.segments.map(\.duration) == [9.009, 9.009, 3.003])
        #expect(abs(playlist.duration - 21.021) < 1e-9)
        #expect(playlist.segments.map(\.uri) == [
            "http://media.example.com/first.ts",
            "http://media.example.com/second.ts",
            "http://media.example.com/third.ts",
        ])
        #expect(playlist.segments.map(\.mediaSequence) == [0, 1, 2])
        #expect(!playlist.isEncrypted)
        #expect(playlist.warnings.isEmpty)
    }

    // 8.2
    @Test func liveMediaPlaylistUsingHTTPS() throws {
        let playlist = try media(try Fixture.text("rfc8216-8.2-live-media-https"), url: "https://priv.example.com/live.m3u8")
        #expect(playlist.presentation == .live)
        #expect(!playlist.hasEndList)
        #expect(playlist.targetDuration == 8)
        #expect(playlist.mediaSequence == 2680)
        #expect(playlist.segments.map(\.mediaSequence) == [2680, 2681, 2682])
        #expect(playlist.segments.map(\.duration) == [7.975, 7.941, 7.975])
        #expect(playlist.segments.map(\.uri) == [
            "https://priv.example.com/fileSequence2680.ts",
            "https://priv.example.com/fileSequence2681.ts",
            "https://priv.example.com/fileSequence2682.ts",
        ])
    }

    // 8.3
    @Test func playlistWithEncryptedMediaSegments() throws {
        let playlist = try media(try Fixture.text("rfc8216-8.3-encrypted-segments"), url: "http://media.example.com/enc.m3u8")
        #expect(playlist.targetDuration == 15)
        #expect(playlist.segments.count == 4)
        #expect(playlist.segments.map(\.duration) == [2.833, 15, 13.333, 15])
        #expect(playlist.segments.map(\.uri) == [
            "http://media.example.com/fileSequence52-A.ts",
            "http://media.example.com/fileSequence52-B.ts",
            "http://media.example.com/fileSequence52-C.ts",
            "http://media.example.com/fileSequence53-A.ts",
        ])
        #expect(playlist.isEncrypted)
        #expect(playlist.segments.map { $0.key?.uri } == [
            "https://priv.example.com/key.php?r=52",
            "https://priv.example.com/key.php?r=52",
            "https://priv.example.com/key.php?r=52",
            "https://priv.example.com/key.php?r=53",
        ])
        #expect(playlist.segments.allSatisfy { $0.key?.method == .aes128 && $0.keys.count == 1 })
        #expect(playlist.segments.map { $0.key?.iv } == (7794...7797).map { HexSequence.iv(mediaSequence: $0) })
        #expect(playlist.segments.allSatisfy { $0.key?.ivIsDerived == true })
        #expect(playlist.segments.map { $0.key?.line } == [6, 6, 6, 15])
    }

    // 8.4
    @Test func multivariantPlaylist() throws {
        let main = try multivariant(try Fixture.text("rfc8216-8.4-multivariant"), url: "http://example.com/main.m3u8")
        #expect(main.variants.map(\.bandwidth) == [1_280_000, 2_560_000, 7_680_000, 65000])
        #expect(main.variants.map(\.averageBandwidth) == [1_000_000, 2_000_000, 6_000_000, nil])
        #expect(main.variants.map(\.codecs) == [nil, nil, nil, "mp4a.40.5"])
        #expect(main.variants.map(\.uri) == [
            "http://example.com/low.m3u8",
            "http://example.com/mid.m3u8",
            "http://example.com/hi.m3u8",
            "http://example.com/audio-only.m3u8",
        ])
        #expect(main.iFrameVariants.isEmpty)
        #expect(main.renditions.isEmpty)
        #expect(main.warnings.isEmpty)
    }

    // 8.5
    @Test func multivariantPlaylistWithIFrames() throws {
        let main = try multivariant(try Fixture.text("rfc8216-8.5-i-frames"), url: "http://example.com/vod/main.m3u8")
        #expect(main.variants.map(\.uri) == [
            "http://example.com/vod/low/audio-video.m3u8",
            "http://example.com/vod/mid/audio-video.m3u8",
            "http://example.com/vod/hi/audio-video.m3u8",
            "http://example.com/vod/audio-only.m3u8",
        ])
        #expect(main.iFrameVariants.map(\.bandwidth) == [86000, 150_000, 550_000])
        #expect(main.iFrameVariants.map(\.uri) == [
            "http://example.com/vod/low/iframe.m3u8",
            "http://example.com/vod/mid/iframe.m3u8",
            "http://example.com/vod/hi/iframe.m3u8",
        ])
        #expect(main.iFrameVariants.map(\.stream.uri) == main.iFrameVariants.map(\.uri))
        #expect(main.iFrameVariants.map(\.line) == [4, 7, 10])
    }

    // 8.6
    @Test func multivariantPlaylistWithAlternativeAudio() throws {
        let main = try multivariant(try Fixture.text("rfc8216-8.6-alternative-audio"), url: "http://example.com/main.m3u8")
        #expect(main.variants.count == 4)
        #expect(main.variants.allSatisfy { $0.audio == "aac" })
        let audio = main.renditions(ofType: .audio, inGroup: "aac")
        #expect(audio.map(\.name) == ["English", "Deutsch", "Commentary"])
        #expect(audio.map(\.language) == ["en", "de", "en"])
        #expect(audio.map(\.isDefault) == [true, false, false])
        #expect(audio.map(\.autoselect) == [true, true, false])
        #expect(audio.map(\.uri) == [
            "http://example.com/main/english-audio.m3u8",
            "http://example.com/main/german-audio.m3u8",
            "http://example.com/commentary/audio-only.m3u8",
        ])
        #expect(main.variants.last?.uri == "http://example.com/main/english-audio.m3u8")
        #expect(main.warnings.isEmpty)
    }

    // 8.7
    @Test func multivariantPlaylistWithAlternativeVideo() throws {
        let main = try multivariant(try Fixture.text("rfc8216-8.7-alternative-video"), url: "http://example.com/main.m3u8")
        #expect(main.variants.map(\.video) == ["low", "mid", "hi"])
        #expect(main.variants.map(\.uri) == [
            "http://example.com/low/main/audio-video.m3u8",
            "http://example.com/mid/main/audio-video.m3u8",
            "http://example.com/hi/main/audio-video.m3u8",
        ])
        for group in ["low", "mid", "hi"] {
            let video = main.renditions(ofType: .video, inGroup: group)
            #expect(video.map(\.name) == ["Main", "Centerfield", "Dugout"])
            #expect(video.map(\.isDefault) == [true, false, false])
            #expect(video.map(\.uri) == ["main", "centerfield", "dugout"].map { "http://example.com/\(group)/\($0)/audio-video.m3u8" })
        }
        #expect(main.renditions.count == 9)
        #expect(main.warnings.isEmpty)
    }
}
