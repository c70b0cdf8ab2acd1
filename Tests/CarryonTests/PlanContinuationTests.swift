@testable import Carryon
@testable import CarryonIndexTestSupport
import CarryonTestSupport
import Foundation
import HLS
import Testing

/// A recording's round plans only what it appended when the recording only grew: the rows and
/// local playlist lines it adds are those a whole plan of the recording has, named alike; a
/// new key, or a segment made a gap, plans the whole recording again, its names unchanged.
@Suite("A recording's rounds plan what they append")
struct PlanContinuationTests {
    /// A live window of 2 s segments `seg<N>.ts`, `first...last`, with `extra` lines before the
    /// segment numbered `at` (or the first).
    static func window(_ first: Int, _ last: Int, extra: [String] = [], at: Int? = nil) -> String {
        var lines = ["#EXTM3U", "#EXT-X-VERSION:3", "#EXT-X-TARGETDURATION:2", "#EXT-X-MEDIA-SEQUENCE:\(first)"]
        for number in first...last {
            if number == (at ?? first) { lines += extra }
            lines += ["#EXTINF:2.0,", "seg\(number).ts"]
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// The planner of the live playlist at `url`, for `recording`.
    static func plan(_ url: URL, _ recording: LiveRecording, continuing: PlanContinuation? = nil,
                     replaying: Bool = false) async throws -> DownloadPlan {
        let planner = HLSPlanner(fetcher: PlaylistFetcher(client: PlaylistFetcher.sharedClient), options: DownloadOptions(),
                                 recording: recording, continuation: continuing, replaying: replaying)
        return try await planner.plan(assetID: "asset", url: url.absoluteString).0
    }

    static func rows(_ plan: DownloadPlan) -> [String] {
        plan.resources.map { "\($0.ordinal) \($0.uri.split(separator: "/").last ?? "") \($0.fileName) \($0.startTime) \($0.duration)" }
    }

    @Test("a round that only appended plans its new segments: rows after the plan's, named by place, timed in the recording, the lines to append; the same as a whole plan of the recording")
    func appends() async throws {
        try await withTemporaryDirectory { folder in
            let url = folder.appending(path: "live.m3u8")
            let recording = LiveRecording(fromStart: true, limit: nil)
            try Data(Self.window(0, 3).utf8).write(to: url)
            let first = try await Self.plan(url, recording)
            #expect(first.appendsTo == nil && first.resources.count == 4)
            let continuation = try #require(first.continuation)
            #expect(continuation.rows == 4 && continuation.playlists.values.first?.segments == 4)

            try Data(Self.window(2, 6).utf8).write(to: url)
            let second = try await Self.plan(url, recording, continuing: continuation)
            #expect(second.appendsTo == 4)
            #expect(Self.rows(second) == ["4 seg4.ts media/00005.ts 8.0 2.0", "5 seg5.ts media/00006.ts 10.0 2.0", "6 seg6.ts media/00007.ts 12.0 2.0"])
            #expect(second.renditions.map(\.localText) == ["#EXTINF:2,\n00005.ts\n#EXTINF:2,\n00006.ts\n#EXTINF:2,\n00007.ts\n"])
            #expect(second.renditions.map(\.record.duration) == [6])
            #expect(second.continuation?.rows == 7 && second.continuation?.playlists.values.first?.seconds == 14)

            let whole = try await Self.plan(url, recording, replaying: true)
            #expect(whole.appendsTo == nil)
            #expect(Array(Self.rows(whole).dropFirst(4)) == Self.rows(second))
            #expect(whole.renditions.map(\.localText) == [first.renditions[0].localText + second.renditions[0].localText])
        }
    }

    @Test("a new key in the round plans the whole recording, the key numbered as first used; a known one appends")
    func keys() async throws {
        try await withTemporaryDirectory { folder in
            let url = folder.appending(path: "live.m3u8")
            let recording = LiveRecording(fromStart: true, limit: nil)
            let k1 = "#EXT-X-KEY:METHOD=AES-128,URI=\"https://keys.example/k1\""
            try Data(Self.window(0, 3, extra: [k1]).utf8).write(to: url)
            let first = try await Self.plan(url, recording)
            #expect(first.keys.map(\.id) == ["k1"])

            // The same key, restated: appended.
            try Data(Self.window(2, 5, extra: [k1]).utf8).write(to: url)
            let second = try await Self.plan(url, recording, continuing: try #require(first.continuation))
            #expect(second.appendsTo == 4 && second.keys.map(\.id) == ["k1"])

            // A rotation to a key the plan does not have: the whole recording.
            let k2 = "#EXT-X-KEY:METHOD=AES-128,URI=\"https://keys.example/k2\""
            try Data(Self.window(4, 8, extra: [k2], at: 7).utf8).write(to: url)
            let third = try await Self.plan(url, recording, continuing: try #require(second.continuation))
            #expect(third.appendsTo == nil && third.resources.count == 9)
            #expect(third.keys.map(\.id) == ["k1", "k2"])
            #expect(third.renditions[0].localText.contains("URI=\"../keys/k2\""))
            // Planned whole from the recording, it is continued by the next round.
            #expect(third.continuation?.rows == 9)
            try Data(Self.window(7, 10, extra: [k2]).utf8).write(to: url)
            let fourth = try await Self.plan(url, recording, continuing: try #require(third.continuation))
            #expect(fourth.appendsTo == 9 && fourth.resources.count == 2 && fourth.keys.map(\.id) == ["k1", "k2"])
        }
    }

    @Test("a segment made a gap plans the whole recording again; the segments after it keep their names")
    func gaps() async throws {
        try await withTemporaryDirectory { folder in
            let url = folder.appending(path: "live.m3u8")
            let recording = LiveRecording(fromStart: true, limit: nil)
            try Data(Self.window(0, 4).utf8).write(to: url)
            let first = try await Self.plan(url, recording)
            #expect(recording.markMissing(folder.appending(path: "seg1.ts").absoluteString, offset: nil) == 1)
            let second = try await Self.plan(url, recording, continuing: try #require(first.continuation))
            #expect(second.appendsTo == nil)
            #expect(second.resources.map(\.fileName) == ["media/00001.ts", "media/00003.ts", "media/00004.ts", "media/00005.ts"])
            #expect(first.resources.map(\.fileName) == ["media/00001.ts", "media/00002.ts", "media/00003.ts", "media/00004.ts", "media/00005.ts"])
        }
    }

    @Test("the index adds a round's rows after the plan's, and refuses, writing nothing, a round that names a resource the plan has; it names what is on disk")
    func index() async throws {
        try await withTemporaryDirectory { folder in
            let library = try OfflineLibrary(testingAt: folder)
            let url = folder.appending(path: "live.m3u8")
            let recording = LiveRecording(fromStart: true, limit: nil)
            try Data(Self.window(0, 3).utf8).write(to: url)
            let first = try await Self.plan(url, recording)
            var asset = ReplanKeepingTests.asset("asset")
            asset.url = url.absoluteString
            try await library.index.insert(asset)
            try await library.index.savePlan(PlannedStream(plan: first, selection: nil, format: "hls"), of: "asset", keeping: false, at: Date(), fence: nil)

            try Data(Self.window(2, 6).utf8).write(to: url)
            let second = try await Self.plan(url, recording, continuing: try #require(first.continuation))
            try await library.index.appendPlan(PlannedStream(plan: second, selection: nil, format: "hls"), of: "asset", at: Date(), fence: nil)
            let rows = try await library.index.resources(of: "asset")
            #expect(rows.map(\.ordinal) == Array(0..<7) && rows.map(\.fileName).last == "media/00007.ts")
            #expect(try await library.index.renditions(of: "asset").map(\.duration) == [14])
            #expect(try await library.index.asset("asset")?.duration == 14)
            // What is on disk, by name.
            try await library.index.markDone(try #require(rows.last?.id), bytes: 10, etag: nil, lastModified: nil, sha256: nil, fence: nil)
            #expect(try await library.index.onDiskKeys(of: "asset") == [ResourceRecord.onDiskKey(try #require(rows.last?.uri), offset: nil)])

            // A round naming seg6.ts again (as a whole plan of a stream repeating a segment).
            var again = second
            again.resources = PlannedResources(assetID: "asset", records: Array(second.resources.suffix(1)))
            let refused = await #expect(throws: CarryonError.self) {
                try await library.index.appendPlan(PlannedStream(plan: again, selection: nil, format: "hls"), of: "asset", at: Date(), fence: nil)
            }
            #expect(refused?.cause is AppendRefused && refused?.message.contains("seg6.ts") == true)
            #expect(try await library.index.resources(of: "asset").count == 7)
        }
    }
}
