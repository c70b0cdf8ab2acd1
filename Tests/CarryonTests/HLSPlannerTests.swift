@testable import Carryon
import CarryonTestSupport
import Foundation
import HLS
import Testing

/// The planner reads each media playlist in one pass, planning each segment as it is resolved;
/// where the one-pass reader needs the whole playlist, it plans again from playlists read
/// whole. Either way the plan is the one `DownloadPlan.make` makes from the parsed playlists.
@Suite("Planning HLS streams as they are read")
struct HLSPlannerTests {
    /// The plan the planner makes of `text` as `name` in a folder, and the one made from the
    /// playlist parsed and resolved whole.
    private func plans(_ text: String, name: String = "index.m3u8") async throws -> (read: DownloadPlan, whole: DownloadPlan) {
        try await withTemporaryDirectory { folder in
            let file = folder.appendingPathComponent(name)
            try Data(text.utf8).write(to: file)
            let url = file.absoluteString
            let planner = HLSPlanner(fetcher: PlaylistFetcher(client: PlaylistFetcher.sharedClient), options: DownloadOptions())
            let (read, _) = try await planner.plan(assetID: "asset", url: url)
            guard case .media(let media) = try PlaylistReading(bytes: Array(text.utf8), url: url) else {
                throw CarryonError(.playlist, "not a media playlist")
            }
            let input = DownloadPlan.Input(type: "MEDIA", name: "media", language: nil, channels: nil, isMain: true, uri: url,
                                           fetched: Array(text.utf8), media: media,
                                           estimatedBitrate: media.duration > 0 ? HLSPlanner.unknownBitrate : 1)
            return (read, try DownloadPlan.make(assetID: "asset", inputs: [input], main: nil, selection: nil))
        }
    }

    /// What a plan's resources and playlists say, to compare two plans.
    private func summary(_ plan: DownloadPlan) -> [String] {
        plan.resources.map {
            "\($0.ordinal) \($0.renditionKey) \($0.kind) \($0.uri) \($0.rangeOffset ?? -1) \($0.rangeLength ?? -1) \($0.fileName) \($0.expectedBytes) \($0.exactSize) \($0.startTime) \($0.duration)"
        } + plan.renditions.map { "\($0.record.key) \($0.record.duration)\n\($0.localText)" } + [plan.localMain]
            + plan.keys.map { "\($0.id) \($0.uri)" } + plan.warnings.map { "\($0.warning)" }
    }

    @Test("a media playlist read in one pass is planned as when read whole: resources, names, estimates, local playlists, keys")
    func readInOnePass() async throws {
        let text = """
            #EXTM3U
            #EXT-X-VERSION:7
            #EXT-X-TARGETDURATION:6
            #EXT-X-PLAYLIST-TYPE:VOD
            #EXT-X-KEY:METHOD=AES-128,URI="key.bin"
            #EXT-X-MAP:URI="init.mp4"
            #EXTINF:6,
            s1.m4s
            #EXTINF:6,
            #EXT-X-BYTERANGE:1000@0
            all.m4s
            #EXTINF:5.5,
            #EXT-X-BYTERANGE:800
            all.m4s
            #EXT-X-GAP
            #EXTINF:6,
            s4.m4s
            #EXTINF:4,
            s1.m4s
            #EXT-X-ENDLIST

            """
        let (read, whole) = try await plans(text)
        #expect(summary(read) == summary(whole))
        #expect(read.resources.count == 4)
    }

    @Test("a lone URI line, which only a whole reading can take for a single resource, is planned from the whole playlist")
    func loneResource() async throws {
        let (read, whole) = try await plans("#EXTM3U\n#EXT-X-ENDLIST\nmovie.mp4\n")
        #expect(summary(read) == summary(whole))
        #expect(read.resources.map(\.fileName) == ["media/00001.mp4"])
        // No duration: its estimate is at one bit per second.
        #expect(read.resources.map(\.expectedBytes) == [1])
    }

    @Test("a segment the stream's rule refuses stops the planning with the refusal, as a whole reading does")
    func refusedWhileRead() async throws {
        do {
            _ = try await plans("#EXTM3U\n#EXT-X-TARGETDURATION:4\n#EXTINF:4,\nftp://cdn.example/s1.ts\n#EXT-X-ENDLIST\n")
            Issue.record("an ftp: segment was planned")
        } catch let error as CarryonError {
            #expect(error.code == .refusedLocation && error.message.contains("line 4"), "\(error)")
        }
    }
}
