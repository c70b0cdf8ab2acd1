import Carryon
import HLS
import Testing

/// The selection rules of ``MediaSelector``, case by case, on a stream that exercises them:
/// SDR and HDR variants at several sizes, English, German and French audio with stereo and 5.1
/// renditions, and subtitles.
@Suite("Choosing what to download")
struct MediaSelectorTests {
    static let playlist = try! MultivariantPlaylist(parsing: """
        #EXTM3U
        #EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="aud",NAME="English",LANGUAGE="en",DEFAULT=YES,AUTOSELECT=YES,CHANNELS="2",URI="a/en.m3u8"
        #EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="aud",NAME="English 5.1",LANGUAGE="en",AUTOSELECT=YES,CHANNELS="6",URI="a/en51.m3u8"
        #EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="aud",NAME="Deutsch",LANGUAGE="de",AUTOSELECT=YES,CHANNELS="2",URI="a/de.m3u8"
        #EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="aud",NAME="Deutsch 5.1",LANGUAGE="de",AUTOSELECT=YES,CHANNELS="6",URI="a/de51.m3u8"
        #EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="aud",NAME="Français",LANGUAGE="fr-CA",AUTOSELECT=YES,CHANNELS="2",URI="a/fr.m3u8"
        #EXT-X-MEDIA:TYPE=SUBTITLES,GROUP-ID="subs",NAME="English",LANGUAGE="en",AUTOSELECT=YES,URI="s/en.m3u8"
        #EXT-X-MEDIA:TYPE=SUBTITLES,GROUP-ID="subs",NAME="Deutsch",LANGUAGE="de",AUTOSELECT=YES,URI="s/de.m3u8"
        #EXT-X-MEDIA:TYPE=CLOSED-CAPTIONS,GROUP-ID="cc",NAME="English CC",LANGUAGE="en",INSTREAM-ID="CC1"
        #EXT-X-STREAM-INF:BANDWIDTH=800000,RESOLUTION=640x360,VIDEO-RANGE=SDR,AUDIO="aud",SUBTITLES="subs",CLOSED-CAPTIONS="cc"
        sdr360.m3u8
        #EXT-X-STREAM-INF:BANDWIDTH=2500000,RESOLUTION=1280x720,VIDEO-RANGE=SDR,AUDIO="aud",SUBTITLES="subs",CLOSED-CAPTIONS="cc"
        sdr720.m3u8
        #EXT-X-STREAM-INF:BANDWIDTH=6000000,RESOLUTION=1920x1080,VIDEO-RANGE=SDR,AUDIO="aud",SUBTITLES="subs",CLOSED-CAPTIONS="cc"
        sdr1080.m3u8
        #EXT-X-STREAM-INF:BANDWIDTH=3500000,RESOLUTION=1280x720,VIDEO-RANGE=PQ,AUDIO="aud",SUBTITLES="subs",CLOSED-CAPTIONS="cc"
        pq720.m3u8
        #EXT-X-STREAM-INF:BANDWIDTH=9000000,RESOLUTION=1920x1080,VIDEO-RANGE=PQ,AUDIO="aud",SUBTITLES="subs",CLOSED-CAPTIONS="cc"
        pq1080.m3u8

        """, url: "https://cdn.example/main.m3u8")

    func select(_ options: DownloadOptions, environment: [String: String] = ["LANG": "en_US.UTF-8"]) throws -> MediaSelection {
        try MediaSelector(options: options, environment: environment).select(from: Self.playlist)
    }

    func variant(_ options: DownloadOptions) throws -> String {
        String(try select(options).variant.uri.split(separator: "/").last!)
    }

    func renditionNames(_ options: DownloadOptions, environment: [String: String] = ["LANG": "en_US.UTF-8"]) throws -> [String] {
        try select(options, environment: environment).renditions.map(\.name)
    }

    @Test("by default the highest-quality variant, HDR preferred")
    func defaultVariant() throws {
        #expect(try variant(DownloadOptions()) == "pq1080.m3u8")
    }

    @Test("without the HDR preference the highest SDR variant")
    func noHDR() throws {
        #expect(try variant(DownloadOptions(prefersHDR: false)) == "sdr1080.m3u8")
    }

    @Test("a minimum bitrate takes the lowest variant at least that high")
    func minimumBitrate() throws {
        #expect(try variant(DownloadOptions(minimumBitrate: 1_000_000, prefersHDR: false)) == "sdr720.m3u8")
        #expect(try variant(DownloadOptions(minimumBitrate: 800_000, prefersHDR: false)) == "sdr360.m3u8")
    }

    @Test("a minimum bitrate no variant reaches takes the highest")
    func minimumBitrateTooHigh() throws {
        #expect(try variant(DownloadOptions(minimumBitrate: 50_000_000, prefersHDR: false)) == "sdr1080.m3u8")
    }

    @Test("a minimum resolution takes the lowest variant at least that large")
    func minimumResolution() throws {
        #expect(try variant(DownloadOptions(minimumResolution: Resolution(width: 1000, height: 600), prefersHDR: false)) == "sdr720.m3u8")
        // HDR preferred or not: the explicit minimum takes the lowest (issue 32 changed this from
        // the PQ 720p at 3.5 Mbit/s, the preference narrowing the candidates first).
        #expect(try variant(DownloadOptions(minimumResolution: Resolution(width: 1000, height: 600))) == "sdr720.m3u8")
    }

    @Test("a maximum bitrate takes the highest variant within it")
    func maximumBitrate() throws {
        #expect(try variant(DownloadOptions(maximumBitrate: 3_000_000, prefersHDR: false)) == "sdr720.m3u8")
        #expect(try variant(DownloadOptions(maximumBitrate: 5_000_000)) == "pq720.m3u8")
    }

    @Test("a maximum no variant meets takes the lowest")
    func maximumTooLow() throws {
        #expect(try variant(DownloadOptions(maximumBitrate: 100_000, prefersHDR: false)) == "sdr360.m3u8")
    }

    @Test("a maximum resolution takes the highest variant that fits")
    func maximumResolution() throws {
        #expect(try variant(DownloadOptions(maximumResolution: Resolution(width: 1280, height: 720), prefersHDR: false)) == "sdr720.m3u8")
    }

    @Test("a maximum is a hard bound: the HDR preference chooses only among the variants within it")
    func maximumBeforeHDR() throws {
        // Only SDR 360p fits: the PQ 720p is never taken for preferring HDR.
        #expect(try variant(DownloadOptions(maximumResolution: Resolution(width: 640, height: 360))) == "sdr360.m3u8")
        #expect(try variant(DownloadOptions(maximumBitrate: 1_000_000)) == "sdr360.m3u8")
        // Where the bound allows an HDR variant, the preference still takes it.
        #expect(try variant(DownloadOptions(maximumResolution: Resolution(width: 1280, height: 720))) == "pq720.m3u8")
        // Nothing within the bound: the lowest of the preferred range.
        #expect(try variant(DownloadOptions(maximumBitrate: 100_000)) == "pq720.m3u8")
    }

    @Test("an explicit minimum beats the HDR preference: the lowest variant at or above it, the range choosing only between equal bandwidths")
    func minimumBeforeHDR() throws {
        let playlist = try MultivariantPlaylist(parsing: """
            #EXTM3U
            #EXT-X-STREAM-INF:BANDWIDTH=1100000,RESOLUTION=640x360,VIDEO-RANGE=SDR
            sdr360.m3u8
            #EXT-X-STREAM-INF:BANDWIDTH=3000000,RESOLUTION=1280x720,VIDEO-RANGE=SDR
            sdr720.m3u8
            #EXT-X-STREAM-INF:BANDWIDTH=3000000,RESOLUTION=1280x720,VIDEO-RANGE=PQ
            pq720.m3u8

            """, url: "https://cdn.example/main.m3u8")
        func chosen(_ options: DownloadOptions) throws -> String {
            String(try MediaSelector(options: options, environment: [:]).select(from: playlist).variant.uri.split(separator: "/").last!)
        }
        // README's rule: the lowest variant whose BANDWIDTH is at least the minimum, HDR or not.
        #expect(try chosen(DownloadOptions(minimumBitrate: 1_000_000)) == "sdr360.m3u8")
        #expect(try chosen(DownloadOptions(minimumResolution: Resolution(width: 640, height: 360))) == "sdr360.m3u8")
        // Two variants of the lowest bandwidth that qualifies: the preference chooses between them.
        #expect(try chosen(DownloadOptions(minimumBitrate: 2_000_000)) == "pq720.m3u8")
        #expect(try chosen(DownloadOptions(minimumBitrate: 2_000_000, prefersHDR: false)) == "sdr720.m3u8")
        // No minimum: the highest, HDR preferred.
        #expect(try chosen(DownloadOptions()) == "pq720.m3u8")
    }

    @Test("minimum and maximum together: the lowest variant meeting both")
    func bounds() throws {
        let options = DownloadOptions(minimumBitrate: 1_000_000, maximumResolution: Resolution(width: 1920, height: 1080), prefersHDR: false)
        #expect(try variant(options) == "sdr720.m3u8")
    }

    @Test("SCORE orders variants when every variant has one")
    func score() throws {
        let playlist = try MultivariantPlaylist(parsing: """
            #EXTM3U
            #EXT-X-STREAM-INF:BANDWIDTH=9000000,SCORE=1.0
            big.m3u8
            #EXT-X-STREAM-INF:BANDWIDTH=5000000,SCORE=2.5
            preferred.m3u8

            """, url: "https://cdn.example/main.m3u8")
        let selection = try MediaSelector(options: DownloadOptions(), environment: [:]).select(from: playlist)
        #expect(selection.variant.uri.hasSuffix("preferred.m3u8"))
    }

    @Test("automatic audio takes the user's language, stereo and multichannel")
    func automaticAudio() throws {
        let names = try select(DownloadOptions(subtitles: .none), environment: ["LANG": "de_DE.UTF-8"]).renditions.map(\.name)
        #expect(names == ["Deutsch", "Deutsch 5.1"])
    }

    @Test("without the multichannel preference only the stereo rendition")
    func noMultichannel() throws {
        #expect(try renditionNames(DownloadOptions(prefersMultichannel: false, subtitles: .none)) == ["English"])
    }

    @Test("preferred languages in the options win over the environment, first match first")
    func preferredLanguages() throws {
        let options = DownloadOptions(prefersMultichannel: false, subtitles: .none, preferredLanguages: ["it", "fr"])
        #expect(try renditionNames(options, environment: ["LANG": "de_DE.UTF-8"]) == ["Français"])
    }

    @Test("a regional preference accepts the plain language")
    func regionalPreference() throws {
        let options = DownloadOptions(prefersMultichannel: false, subtitles: .none, preferredLanguages: ["de-AT"])
        #expect(try renditionNames(options) == ["Deutsch"])
    }

    @Test("with no language match, the group's default rendition")
    func defaultFallback() throws {
        let options = DownloadOptions(prefersMultichannel: false, subtitles: .none)
        #expect(try renditionNames(options, environment: ["LANG": "C"]) == ["English"])
        #expect(try renditionNames(options, environment: ["LANG": "ja_JP.UTF-8"]) == ["English"])
    }

    @Test("several audio languages by tag or name, in the order asked")
    func severalLanguages() throws {
        let options = DownloadOptions(prefersMultichannel: false, audio: .languages(["de", "Français"]), subtitles: .none)
        let selection = try select(options)
        #expect(selection.renditions.map(\.name) == ["Deutsch", "Français"])
        #expect(selection.renditions.map(\.isMain) == [true, false])
    }

    @Test("all audio and no audio")
    func allAndNone() throws {
        #expect(try renditionNames(DownloadOptions(audio: .all, subtitles: .none)).count == 5)
        #expect(try renditionNames(DownloadOptions(audio: .none, subtitles: .none)).isEmpty)
    }

    @Test("an audio language the stream lacks is an error listing what it has")
    func missingLanguage() throws {
        let error = #expect(throws: CarryonError.self) { try select(DownloadOptions(audio: .languages(["ja"]))) }
        #expect(error?.code == .selection)
        #expect(error?.message.contains("\"ja\"") == true)
        #expect(error?.message.contains("de (Deutsch)") == true)
    }

    @Test("automatic subtitles follow the preferred language; none when it has none")
    func automaticSubtitles() throws {
        let english = try select(DownloadOptions(prefersMultichannel: false))
        #expect(english.renditions.filter { $0.type == "SUBTITLES" }.map(\.name) == ["English"])
        let japanese = try select(DownloadOptions(prefersMultichannel: false), environment: ["LANG": "ja_JP.UTF-8"])
        #expect(japanese.renditions.filter { $0.type == "SUBTITLES" }.isEmpty)
    }

    @Test("subtitles by language and all subtitles")
    func chosenSubtitles() throws {
        let german = try select(DownloadOptions(audio: .none, subtitles: .languages(["de"])))
        #expect(german.renditions.map(\.name) == ["Deutsch"])
        #expect(german.renditions.allSatisfy { !$0.isMain })
        #expect(try renditionNames(DownloadOptions(audio: .none, subtitles: .all)) == ["English", "Deutsch"])
    }

    @Test("closed captions are never downloaded; they travel in the video")
    func closedCaptions() throws {
        let selection = try select(DownloadOptions(audio: .all, subtitles: .all))
        #expect(!selection.renditions.contains { $0.type == "CLOSED-CAPTIONS" })
    }

    @Test("rendition URIs are absolute")
    func absoluteURIs() throws {
        let selection = try select(DownloadOptions(prefersMultichannel: false))
        #expect(selection.renditions.map(\.uri) == ["https://cdn.example/a/en.m3u8", "https://cdn.example/s/en.m3u8"])
        #expect(selection.variant.uri == "https://cdn.example/pq1080.m3u8")
    }

    @Test("options read from the command line")
    func parsingChoices() {
        #expect(DownloadOptions.RenditionChoice(parsing: "all") == .all)
        #expect(DownloadOptions.RenditionChoice(parsing: "NONE") == .none)
        #expect(DownloadOptions.RenditionChoice(parsing: "en, de") == .languages(["en", "de"]))
    }

    @Test("a variant that declares no BANDWIDTH (read leniently) is the last choice, and is chosen when it is the only one")
    func unknownBandwidthIsLastChoice() throws {
        let mixed = try MultivariantPlaylist(parsing: """
            #EXTM3U
            #EXT-X-STREAM-INF:RESOLUTION=1920x1080
            unknown.m3u8
            #EXT-X-STREAM-INF:BANDWIDTH=800000,RESOLUTION=640x360
            known.m3u8

            """, url: "https://cdn.example/main.m3u8")
        let chosen = try MediaSelector(options: DownloadOptions()).select(from: mixed).variant
        #expect(chosen.uri == "https://cdn.example/known.m3u8")
        let alone = try MultivariantPlaylist(parsing: "#EXTM3U\n#EXT-X-STREAM-INF:RESOLUTION=640x360\nonly.m3u8\n",
                                             url: "https://cdn.example/main.m3u8")
        let only = try MediaSelector(options: DownloadOptions(maximumBitrate: 100)).select(from: alone).variant
        #expect(only.uri == "https://cdn.example/only.m3u8" && only.bandwidth == nil)
    }

    @Test("the same rules choose from a presentation built without any manifest text, as another format's reading gives one")
    func neutralPresentation() throws {
        func video(_ name: String, _ bandwidth: Int, _ width: Int, _ height: Int, _ range: VideoRange) -> Presentation.Track {
            Presentation.Track(kind: .variant, uri: "rep:\(name)", groups: .init(audio: "aud", subtitles: "text"), bandwidth: bandwidth,
                               resolution: Resolution(width: width, height: height), videoRange: range)
        }
        func audio(_ language: String, channels: String) -> Presentation.Track {
            Presentation.Track(kind: .audio, uri: "rep:audio-\(language)-\(channels)", groupID: "aud", name: "\(language) \(channels)",
                               language: language, channels: channels, isDefault: language == "en")
        }
        let presentation = Presentation(periods: [.init(
            variants: [video("sdr360", 800_000, 640, 360, .sdr), video("sdr720", 2_500_000, 1280, 720, .sdr),
                       video("pq720", 3_500_000, 1280, 720, .pq)],
            renditions: [audio("en", channels: "2"), audio("en", channels: "6"), audio("de", channels: "2"), audio("de", channels: "6"),
                         Presentation.Track(kind: .subtitles, uri: "rep:text-de", groupID: "text", name: "Deutsch", language: "de")])])
        func selection(_ options: DownloadOptions, _ language: String = "de_DE.UTF-8") throws -> MediaSelection {
            try MediaSelector(options: options, environment: ["LANG": language]).select(from: presentation)
        }
        // HDR preferred among what the bounds allow; an explicit maximum is a hard bound.
        #expect(try selection(DownloadOptions()).variant.uri == "rep:pq720")
        #expect(try selection(DownloadOptions(maximumResolution: Resolution(width: 640, height: 360))).variant.uri == "rep:sdr360")
        #expect(try selection(DownloadOptions(prefersHDR: false)).variant.uri == "rep:sdr720")
        // The user's language, stereo and 5.1 with the multichannel preference, stereo only without.
        #expect(try selection(DownloadOptions(subtitles: .none)).renditions.map(\.uri) == ["rep:audio-de-2", "rep:audio-de-6"])
        #expect(try selection(DownloadOptions(prefersMultichannel: false, subtitles: .none)).renditions.map(\.uri) == ["rep:audio-de-2"])
        let withSubtitles = try selection(DownloadOptions(subtitles: .languages(["de"])))
        #expect(withSubtitles.renditions.last.map { [$0.type, $0.uri] } == ["SUBTITLES", "rep:text-de"])
        #expect(throws: CarryonError.self) { try MediaSelector(options: DownloadOptions()).select(from: Presentation(periods: [])) }
    }
}
