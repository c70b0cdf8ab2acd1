@testable import Carryon
@testable import CarryonIndexTestSupport
import CarryonTestSupport
import Foundation
import Testing

/// `PrettyJSON`'s splice, member split and dates, held to `JSONEncoder`'s own output.
@Suite("Pretty JSON")
struct PrettyJSONTests {
    struct Sample: Codable {
        struct Inner: Codable {
            var label: String
            var values: [Double]
            var flags: [String: Bool]
        }
        var text: String
        var numbers: [Int]
        var doubles: [Double]
        var nested: [[Int]]
        var inners: [Inner]
        var byName: [String: Int]
        var emptyList: [Int]
        var emptyMap: [String: Int]
        var missing: String?
        var present: Inner?
    }

    static let samples: [Sample] = [
        Sample(text: "plain", numbers: [0, -1, Int.max, Int.min], doubles: [0.1, 2, -0.5, 1e-7, 1e21, 123_456.789, 5e-324],
               nested: [[1, 2], [], [3]], inners: [.init(label: "a/b\\c \"q\"", values: [], flags: [:])],
               byName: ["video-1080": 1, "video-720": 2, "audio": 3, "Zed": 4, "a10": 5, "a9": 6], emptyList: [], emptyMap: [:],
               missing: nil, present: .init(label: "tab\there, line\nbreak, bell\u{7}, é, 🎬, /slash/", values: [1.5], flags: ["on": true, "off": false])),
        Sample(text: "", numbers: [], doubles: [], nested: [], inners: [], byName: [:], emptyList: [], emptyMap: [:], missing: "x", present: nil),
    ]

    static func encoded<T: Encodable>(_ value: T, pretty: Bool, escapingSlashes: Bool = false) throws -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = pretty ? [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
            : escapingSlashes ? [.sortedKeys] : [.sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .iso8601
        return [UInt8](try encoder.encode(value))
    }

    static func spliced(_ compact: [UInt8], depth: Int = 0) -> [UInt8]? {
        var json = PrettyJSON(depth: depth)
        guard compact.withUnsafeBufferPointer({ json.splice($0) }) else { return nil }
        return json.take()
    }

    @Test("a splice of the encoder's compact JSON (slashes escaped or not) is its pretty JSON, empty arrays and objects, escapes, numbers and unsorted-looking keys included; one level deep, each line one indent further")
    func spliceIsTheEncoders() throws {
        for sample in Self.samples {
            let pretty = try Self.encoded(sample, pretty: true)
            for escaping in [false, true] {
                let compact = try Self.encoded(sample, pretty: false, escapingSlashes: escaping)
                let spliced = try #require(Self.spliced(compact), "\(String(decoding: compact, as: UTF8.self))")
                #expect(String(decoding: spliced, as: UTF8.self) == String(decoding: pretty, as: UTF8.self))
                let deeper = try #require(Self.spliced(compact, depth: 1))
                #expect(String(decoding: deeper, as: UTF8.self) == String(decoding: pretty, as: UTF8.self).replacingOccurrences(of: "\n", with: "\n  ")
                    .replacingOccurrences(of: "\n  \n", with: "\n\n"))
            }
        }
        #expect(Self.spliced(Array(#"[ 1 , {"a" : [ ] } ]"#.utf8)).map { String(decoding: $0, as: UTF8.self) } == "[\n  1,\n  {\n    \"a\" : [\n\n    ]\n  }\n]")
    }

    @Test("a splice refuses what is not one JSON value: cut short, left open, a missing colon or comma, a key that is not a string, a control character in a string, trailing bytes, 65 levels deep")
    func spliceRefuses() {
        let refused = ["", "{", "[1,", "{\"a\":}", "{\"a\" 1}", "[1 2]", "{1:2}", "\"open", "\"a\u{1}b\"", "{\"a\":1}x", "{\"a\":1}}", "]",
                       "\"ends in \\", String(repeating: "[", count: 65) + String(repeating: "]", count: 65), "{\"a\":1,}", "@"]
        for text in refused {
            #expect(Self.spliced(Array(text.utf8)) == nil, "\(text.prefix(20).debugDescription) was spliced")
        }
        #expect(Self.spliced(Array((String(repeating: "[", count: 64) + String(repeating: "]", count: 64)).utf8)) != nil, "64 levels were refused")
    }

    @Test("CompactMembers reads an object's members in order: each key, values spliced, read as a number or skipped; it fails on anything but one object")
    func members() throws {
        let text = Array(#"{"a":{"b":[1,"x]}"]},"c":"q\"}","d":-25,"e":null,"f":[]}"#.utf8)
        try text.withUnsafeBufferPointer { text in
            var members = try #require(CompactMembers(text))
            var json = PrettyJSON()
            #expect(members.next(is: "a") && !members.next(is: "b"))
            var done = members.splice(into: &json)
            #expect(done)
            #expect(String(decoding: json.take(), as: UTF8.self) == "{\n  \"b\" : [\n    1,\n    \"x]}\"\n  ]\n}")
            #expect(members.next(is: "c"))
            done = members.skip()
            #expect(done && members.next(is: "d"))
            let number = members.integer()
            #expect(number == -25 && members.next(is: "e") && members.isNull)
            done = members.skip()
            #expect(done && members.next(is: "f") && !members.isFinished)
            done = members.splice(into: &json)
            #expect(done && members.isFinished && members.key == nil)
        }
        #expect(Array("{}".utf8).withUnsafeBufferPointer { CompactMembers($0)?.isFinished } == true)
        for broken in ["[1]", "", "x{}"] {
            #expect(Array(broken.utf8).withUnsafeBufferPointer { CompactMembers($0) } == nil, "\(broken)")
        }
        for broken in ["{\"a\":1", "{\"a\":1}x", "{\"a\":[1}", "{\"a\\\"b\":1}", "{\"a\":\"open}", "{\"a\" 1}", "{a:1}"] {
            let finished = Array(broken.utf8).withUnsafeBufferPointer { text -> Bool in
                guard var members = CompactMembers(text) else { return false }
                var json = PrettyJSON()
                while members.key != nil, members.splice(into: &json) {}
                return members.isFinished
            }
            #expect(!finished, "\(broken)")
        }
    }

    @Test("date(_:) writes what the encoder's .iso8601 writes: whole seconds, fractions dropped, from 1970 to 9999 and outside it")
    func dates() throws {
        var dates = [0, 0.999, 59.999_999, 951_782_400, 2_000_000_000.5, 253_402_300_799.999, -0.001, -86_400.5, -62_135_596_800, 253_402_300_800]
            .map { Date(timeIntervalSince1970: $0) }
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<500 {
            dates.append(Date(timeIntervalSince1970: Double(Int64.random(in: 0..<253_402_300_800_000, using: &generator)) / 1000))
        }
        for date in dates {
            var json = PrettyJSON()
            json.date(date)
            #expect(String(decoding: json.take(), as: UTF8.self) == String(decoding: try Self.encoded(date, pretty: true), as: UTF8.self),
                    "\(date.timeIntervalSince1970)")
        }
    }
}

/// `OfflineLibrary.assetsJSON(_:)`: what `list --json` prints, held to the encoder's output of
/// the same page of snapshots.
@Suite("A listing as JSON")
struct ListingJSONTests {
    /// A library of assets that differ in everything a snapshot shows, oldest first.
    static func withVariedAssets(_ body: (OfflineLibrary) async throws -> Void) async throws {
        try await withTemporaryDirectory { folder in
            let library = try OfflineLibrary(testingAt: folder)
            let start = Date(timeIntervalSince1970: 2_000_000_000.25)
            let selection = MediaSelection(
                variant: .init(uri: "https://cdn.example/v/high.m3u8?sig=a/b", bandwidth: 2_000_000, averageBandwidth: nil, resolution: "1280x720",
                               codecs: "avc1.64001f,mp4a.40.2", videoRange: nil, frameRate: 29.97),
                renditions: [.init(type: "AUDIO", groupID: "aud", name: "Français \"VO\"", language: "fr", channels: "2", isDefault: true,
                                   forced: false, uri: "https://cdn.example/a/fr.m3u8", isMain: true)])
            let assets: [(id: String, name: String, state: DownloadState, format: String, planned: Bool, error: String?, selection: MediaSelection?)] = [
                ("plain", "plain", .completed, "hls", false, nil, nil),
                ("hls", "Concert à Paris 🎶 / live", .completed, "hls", true, nil, selection),
                ("dash", "dash", .suspended, "dash", true, nil, selection),
                ("failed", "failed", .failed, "hls", false, "HTTP 404 for https://cdn.example/a\\b \"x\"\nnext line\u{1}", nil),
                ("garbled", "garbled", .completed, "hls", false, nil, nil),
                ("held", "held", .completed, "hls", true, nil, nil),
            ]
            // Two downloads of a time range, one to the stream's end; a recording of 30 minutes
            // of a live stream that missed three segments.
            let ranges = ["hls": TimeRange(start: 600.5, end: 720), "dash": TimeRange(start: 30), "held": TimeRange(start: 0, end: 1800)]
            var recorded = LiveOptions(fromStart: true)
            recorded.missedSegments = 3
            recorded.missedSeconds = 6.5
            for (offset, asset) in assets.enumerated() {
                let made = start.addingTimeInterval(Double(offset) * 3600.5)
                var record = AssetRecord(id: asset.id, name: asset.name, url: "https://cdn.example/\(asset.id)/index.m3u8", state: asset.state,
                                         errorMessage: asset.error, options: DownloadOptions(timeRange: ranges[asset.id], live: asset.id == "held" ? recorded : nil), headers: [], selection: asset.selection,
                                         planned: asset.planned, createdAt: made, updatedAt: made,
                                         completedAt: asset.state == .completed ? made.addingTimeInterval(61.999) : nil,
                                         duration: asset.planned ? 12.5 : nil)
                record.format = asset.format
                if asset.id == "dash" {
                    record.expiresAt = made.addingTimeInterval(86_400)
                    record.priority = .important
                    record.lastPlayedAt = made.addingTimeInterval(7200.75)
                }
                try await library.index.insert(record)
                let media = library.bundleURL(for: asset.id).appending(path: "media", directoryHint: .isDirectory)
                try FileManager.default.createDirectory(at: media, withIntermediateDirectories: true)
                try Data(count: 1000 + offset).write(to: media.appending(path: "segment0.ts"))
                try Data("#EXTM3U\n".utf8).write(to: library.bundleURL(for: asset.id).appending(path: "main.m3u8"))
            }
            let logs = AssetLogs(library: library)
            for second in 0..<3 {
                logs.access(.init(date: start.addingTimeInterval(Double(second)), event: "playback", uri: "/media/segment0.ts", status: 200, bytes: 1000,
                                  duration: 0.1, indicatedBitrate: 2_000_000, sessionID: "s1"), for: "dash")
            }
            try await library.writeUnreadable([(column: "expiresAt", value: "2026-13-45")], intoAsset: "garbled")
            _ = try await library.holdAsAnotherProcess("held")
            try await body(library)
        }
    }

    /// The page of `query` as `assetsJSON` writes it equals the encoder's JSON of `assets`' page.
    static func expectSame(_ library: OfflineLibrary, _ query: AssetQuery, sourceLocation: SourceLocation = #_sourceLocation) async throws {
        let written = try await library.assetsJSON(query)
        let page = try await library.assets(query)
        let encoded = try PrettyJSONTests.encoded(page.assets, pretty: true)
        #expect(firstDifference(String(decoding: written.json, as: UTF8.self), String(decoding: encoded, as: UTF8.self)) == nil,
                sourceLocation: sourceLocation)
        #expect(written.next == page.next, sourceLocation: sourceLocation)
    }

    @Test("assetsJSON writes byte for byte what the encoder writes of the same page of assets(): before and after figures are kept, in pages, filtered, and an empty page")
    func sameAsTheEncoder() async throws {
        try await Self.withVariedAssets { library in
            // The first listing computes every asset's figures; the second reads them from rows.
            try await Self.expectSame(library, AssetQuery())
            try await Self.expectSame(library, AssetQuery())
            // A listing shows each asset's time range, as show does.
            let listed = try await library.assets()
            #expect(listed.first { $0.id == "hls" }?.timeRange == TimeRange(start: 600.5, end: 720))
            #expect(listed.first { $0.id == "dash" }?.timeRange == TimeRange(start: 30))
            #expect(try await library.asset("hls").timeRange == TimeRange(start: 600.5, end: 720))
            #expect(String(decoding: try await library.assetsJSON(AssetQuery()).json, as: UTF8.self).contains("\"timeRange\" : {"))
            // And a recording's live options: where it started, what it missed.
            #expect(listed.first { $0.id == "held" }?.live?.missedSegments == 3)
            #expect(String(decoding: try await library.assetsJSON(AssetQuery()).json, as: UTF8.self).contains("\"missedSeconds\" : 6.5"))
            var query = AssetQuery(order: .newest, limit: 4)
            try await Self.expectSame(library, query)
            query.cursor = try await library.assets(query).next
            #expect(query.cursor != nil)
            try await Self.expectSame(library, query)
            try await Self.expectSame(library, AssetQuery(states: [.failed, .running]))
            try await Self.expectSame(library, AssetQuery(text: "nothing matches this"))
            #expect(String(decoding: try await library.assetsJSON(AssetQuery(text: "nothing matches this")).json, as: UTF8.self) == "[\n\n]")
        }
    }

    @Test("a page of 1,100 assets is the encoder's JSON in the same order, before and after figures are kept")
    func inParts() async throws {
        try await withTemporaryDirectory { folder in
            let library = try OfflineLibrary(testingAt: folder)
            let start = Date(timeIntervalSince1970: 2_000_000_000)
            for number in 0..<1_100 {
                try await LibraryPagingTests.insert(String(format: "p%04d", number), name: "asset \(1_100 - number)", at: start.addingTimeInterval(Double(number)),
                                                    into: library)
            }
            try await Self.expectSame(library, AssetQuery())
            try await Self.expectSame(library, AssetQuery(order: .name))
        }
    }

    @Test("an asset whose figures are current and that no process holds is written from its row alone, as its snapshot; not when its access log grew since, its figures are stale or cannot be spliced, or another process holds it")
    func fromTheRow() async throws {
        try await Self.withVariedAssets { library in
            _ = try await library.assets()
            let ownerships = try await library.index.holdings(library.ownershipContext())
            func rows() async throws -> [String: AssetRecord] {
                let rows = try await library.index.assets(.created, after: nil, recordedStates: [], text: nil, limit: nil, columns: .snapshot)
                return Dictionary(uniqueKeysWithValues: rows.map { ($0.record.id, $0.record) })
            }
            var records = try await rows()
            /// Asset `record` as a writer writes it from its row, alone in an array; nil when it cannot be.
            func fromRow(_ record: AssetRecord?, ownership: TaskOwnership? = nil) throws -> String? {
                let writer = AssetJSONWriter(folders: LibraryFolders(library: library))
                guard writer.writeFromRow(try #require(record), ownership: ownership) else {
                    #expect(writer.finished() == Data("[\n\n]".utf8), "a row that was not written left something behind")
                    return nil
                }
                return String(decoding: writer.finished(), as: UTF8.self)
            }
            /// `snapshot` alone in an array.
            func alone(_ snapshot: AssetSnapshot) -> String {
                "[\n  " + String(decoding: AssetJSONWriter.encoded(snapshot), as: UTF8.self) + "\n]"
            }
            for id in ["plain", "hls", "dash", "failed", "garbled"] {
                let written = try #require(try fromRow(records[id], ownership: ownerships[id]), "\(id) was not written from its row")
                let snapshot = try await library.asset(id)
                #expect(firstDifference(written, alone(snapshot)) == nil, "\(id)")
            }
            #expect(try fromRow(records["held"], ownership: ownerships["held"]) == nil)

            // Played again: its access log grew, its playback summary is read again.
            AssetLogs(library: library).access(.init(date: Date(), event: "playback", uri: "/main.m3u8", status: 200, bytes: 10, sessionID: "s2"), for: "dash")
            #expect(try fromRow(records["dash"]) == nil)
            // Changed since: stale.
            try await library.index.bundleChanged("plain")
            records = try await rows()
            #expect(try fromRow(records["plain"]) == nil)
            // Figures that are not JSON, or lack a member.
            for broken in ["{\"progress\":", "{\"cache\":{}}", "[]"] {
                var record = try #require(records["hls"])
                record.figures = broken
                #expect(try fromRow(record) == nil, "\(broken)")
            }
            // A row that failed leaves nothing of it behind: the next is written whole.
            var broken = try #require(records["hls"])
            // (well formed as far as members go, its cache not: found after its first members are written)
            broken.figures = "{\"bytesByRendition\":{\"media\":1},\"cache\":{\"a\" 1},\"progress\":{}}"
            let writer = AssetJSONWriter(folders: LibraryFolders(library: library))
            #expect(!writer.writeFromRow(broken, ownership: nil))
            #expect(writer.writeFromRow(try #require(records["failed"]), ownership: nil))
            #expect(firstDifference(String(decoding: writer.finished(), as: UTF8.self), alone(try await library.asset("failed"))) == nil)
            // Each of these is listed right all the same.
            try await Self.expectSame(library, AssetQuery())
        }
    }
}

/// The first line where `written` and `expected` differ, with its number; nil when they are the same.
func firstDifference(_ written: String, _ expected: String) -> String? {
    guard written != expected else { return nil }
    let lines = (written.split(separator: "\n", omittingEmptySubsequences: false), expected.split(separator: "\n", omittingEmptySubsequences: false))
    for number in 0..<max(lines.0.count, lines.1.count) {
        let one = number < lines.0.count ? String(lines.0[number]) : "(none)"
        let other = number < lines.1.count ? String(lines.1[number]) : "(none)"
        if one != other { return "line \(number + 1): written \(one.debugDescription), expected \(other.debugDescription)" }
    }
    return "the same lines, different line ends"
}
