import ArgumentParser
import Carryon
import Foundation
import HLS

/// `carryon inspect`: what a playlist offers, before downloading anything.
struct Inspect: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "inspect",
        abstract: "Show what a playlist or MPD offers: variants, renditions, keys, or its segments.",
        discussion: """
            LOCATION is an http(s) URL, a file:// URL or a local path. For a multivariant \
            playlist the command lists the variants (bandwidth, resolution, codecs, frame rate, \
            video range, groups), the renditions by group, I-frame variants, session keys and \
            session data. For a media playlist it shows the type, target duration, duration, \
            encryption, init sections, byte ranges, discontinuities and the segments. For an \
            MPEG-DASH MPD it shows each Period's AdaptationSets and Representations (bandwidth, \
            resolution, codecs, channels, how segments are addressed and how many there are), \
            content protection and the warnings (--strict is for HLS).

            Examples:
              carryon inspect https://example.com/stream/main.m3u8
              carryon inspect https://example.com/show/manifest.mpd --json
              carryon inspect ./bundle/video.m3u8 --all-segments
              carryon inspect https://example.com/main.m3u8 --sizes
              carryon inspect https://example.com/main.m3u8 --json | jq '.variants[].bandwidth'
              carryon inspect https://example.com/main.m3u8 --header 'Authorization: Bearer TOKEN'
              carryon inspect ./packaged/main.m3u8 --strict
              HTTPS_PROXY=http://proxy.corp:3128 carryon inspect https://cdn.corp/main.m3u8 --cacert corp-root.pem

            A playlist is read as players read it: a deviation from RFC 8216bis that a careful \
            player survives (a quoted hexadecimal value, a lower-case enumerated value, a missing \
            EXT-X-TARGETDURATION, IPTV-style EXTINF attributes, …) is a warning that names the \
            line and says what was assumed. --strict refuses the first deviation instead (exit 1), \
            for checking your own packaging.
            """
    )

    @Argument(help: "The playlist: an http(s) URL, a file:// URL or a local path.")
    var location: String

    @Flag(help: "Print one JSON object instead of text (shape in README.md).")
    var json = false

    @Flag(help: "Estimate the size of each variant and rendition, or Representation (reads media playlists or segment indexes, no media).")
    var sizes = false

    @Flag(name: .customLong("all-segments"), help: "List every segment of a media playlist (by default the first and last ten).")
    var allSegments = false

    @Flag(help: "Refuse the first deviation from RFC 8216bis (exit 1) instead of recovering from it with a warning.")
    var strict = false

    @Option(name: .customLong("header"), help: ArgumentHelp("A request header 'Name: value' (repeatable).", valueName: "header"))
    var headers: [String] = []

    @OptionGroup var transfer: TransferOptions

    func validate() throws {
        for header in headers where parseHeader(header) == nil {
            throw ValidationError("--header must look like 'Name: value', not '\(header)'")
        }
    }

    func run() async throws {
        var inspector = try Inspector(network: transfer.network.settings, headers: headers.compactMap(parseHeader), stallTimeout: transfer.stallDuration)
        if strict { inspector.fetcher.parseOptions = .strict }
        let report: StreamReport
        do {
            report = try await inspector.report(location, .init(sizes: sizes, segments: true, allSegments: allSegments))
        } catch where strict && error.code == .playlist {
            throw fail(oneLine(error.description), hint: "--strict refuses every deviation from RFC 8216bis; without it Carryon reads past this one as players do, with a warning that says what it assumes.")
        } catch {
            throw fail(error)
        }
        if json {
            try report.writeJSON { try FileHandle.standardOutput.write(contentsOf: $0) }
        } else {
            print(report.text, terminator: "")
        }
    }
}

/// Splits `Name: value`; nil when there is no colon or no name.
func parseHeader(_ text: String) -> HTTPHeader? {
    guard let colon = text.firstIndex(of: ":") else { return nil }
    let name = text[..<colon].trimmingCharacters(in: .whitespaces)
    let value = text[text.index(after: colon)...].trimmingCharacters(in: .whitespaces)
    guard !name.isEmpty, !name.contains(" ") else { return nil }
    return HTTPHeader(name: name, value: value)
}
