import Carryon
import CarryonServer
import CarryonTestSupport
import Foundation
import Testing

/// What a person chooses between before a download, in the same words for HLS and DASH (the
/// web app's chooser reads nothing else; the toy format's are checked in ``FormatSeamTests``).
@Suite("Stream choices")
struct StreamChoicesTests {
    @Test("choices are ordered best first, one track per language, the first audio the default when none is, tracks without a language dropped")
    func normalised() {
        let choices = StreamChoices(
            variants: [.init(bandwidth: 500), .init(bandwidth: 2_000, resolution: "1280x720"), .init(bandwidth: nil), .init(bandwidth: 2_000, codecs: "second")],
            audio: [.init(language: "de", name: "Deutsch"), .init(language: "en"), .init(language: "de", name: "Deutsch (AD)"), .init(language: "")],
            subtitles: [.init(language: "fr", isDefault: true), .init(language: "fr")])
        #expect(choices.variants.map(\.bandwidth) == [2_000, 2_000, 500, nil])
        #expect(choices.variants[0].resolution == "1280x720" && choices.variants[1].codecs == "second", "equal bandwidths keep their order")
        #expect(choices.audio.map(\.language) == ["de", "en"] && choices.audio[0].name == "Deutsch")
        #expect(choices.audio.map(\.isDefault) == [true, false])
        #expect(choices.subtitles.map(\.language) == ["fr"] && choices.subtitles[0].isDefault)
        #expect(StreamChoices(audio: [.init(language: "en"), .init(language: "de", isDefault: true)]).audio.map(\.isDefault) == [false, true])
    }

    @Test("an HLS multivariant playlist's choices: its variants with sizes, its audio and subtitle languages; a media playlist's one size")
    func hls() async throws {
        try await Origin(root: sampleMedia.path).withRunning { origin in
            let report = try await Inspector().report(origin.baseURL + "/fmp4/main.m3u8", .init(sizes: true))
            let choices = report.choices
            #expect(choices.variants.count >= 2, "\(choices)")
            #expect(choices.variants.map { $0.bandwidth ?? 0 } == choices.variants.map { $0.bandwidth ?? 0 }.sorted(by: >))
            #expect(choices.variants.allSatisfy { ($0.size?.bytes ?? 0) > 0 && $0.resolution != nil }, "\(choices.variants)")
            #expect(Set(choices.audio.map(\.language)) == ["en", "de"] && choices.audio.filter(\.isDefault).count == 1, "\(choices.audio)")
            #expect(choices.audio.allSatisfy { ($0.size?.bytes ?? 0) > 0 }, "\(choices.audio)")
            let media = try await Inspector().report(origin.baseURL + "/byterange/360p/index.m3u8", .init(sizes: true)).choices
            #expect(media.variants.isEmpty && (media.size?.bytes ?? 0) > 0 && media.size?.exact == true, "\(media)")
            // Without byte ranges or a bitrate a media playlist's size is unknown, not 0 bytes.
            let unknown = try await Inspector().report(origin.baseURL + "/fmp4/360p/index.m3u8", .init(sizes: true)).choices
            #expect(unknown.variants.isEmpty && unknown.size == nil, "\(unknown)")
        }
    }

    @Test("a DASH MPD's choices: the first Period's video Representations with sizes, its audio and text sets by language")
    func dash() async throws {
        try await Origin(root: dashSampleMedia.path).withRunning { origin in
            let choices = try await Inspector().report(origin.baseURL + "/timeline/main.mpd", .init(sizes: true)).choices
            #expect(choices.variants.map(\.bandwidth) == [120_000, 60_000], "\(choices)")
            #expect(choices.variants.first?.resolution?.contains("x") == true && (choices.variants.first?.size?.bytes ?? 0) > 0, "\(choices)")
            #expect(choices.audio.map(\.language).sorted() == ["deu", "eng"] && choices.audio.filter(\.isDefault).count == 1, "\(choices.audio)")
            #expect(choices.subtitles.map(\.language) == ["en"], "\(choices.subtitles)")
        }
    }
}
