@testable import Carryon
import CarryonServer
import CarryonTestSupport
import Foundation
import Testing

/// Remote elements (`xlink:href` with `xlink:actuate="onLoad"`): a Period and an AdaptationSet
/// the MPD only names are read in before planning; one that resolves to zero is left out.
@Suite("MPEG-DASH remote elements", .heavy)
struct DASHXLinkTests {
    /// The two-Period sample with its second Period and its first Period's German audio set
    /// moved into files of their own (`p2.xml`, `deu.xml`), and a Period resolving to zero.
    static func answers() throws -> [String: HostileOrigin.Answer] {
        let folder = dashSampleMedia.appendingPathComponent("periods")
        var mpd = try String(contentsOf: folder.appendingPathComponent("main.mpd"), encoding: .utf8)
        let p2Start = try #require(mpd.range(of: "<Period id=\"p2\""))
        let p2End = try #require(mpd.range(of: "</Period>", range: p2Start.upperBound..<mpd.endIndex))
        let period = String(mpd[p2Start.lowerBound..<p2End.upperBound])
        mpd.replaceSubrange(p2Start.lowerBound..<p2End.upperBound, with: """
            <Period xlink:href="p2.xml" xlink:actuate="onLoad"/>
            <Period xlink:href="urn:mpeg:dash:resolve-to-zero:2013" xlink:actuate="onLoad"/>
            """)
        let deuStart = try #require(mpd.range(of: "<AdaptationSet id=\"2\""))
        let deuEnd = try #require(mpd.range(of: "</AdaptationSet>", range: deuStart.upperBound..<mpd.endIndex))
        let set = String(mpd[deuStart.lowerBound..<deuEnd.upperBound])
        mpd.replaceSubrange(deuStart.lowerBound..<deuEnd.upperBound, with: "<AdaptationSet xlink:href=\"deu.xml\" xlink:actuate=\"onLoad\"/>")
        var answers: [String: HostileOrigin.Answer] = [
            "/periods/main.mpd": .body(Array(mpd.utf8)),
            "/periods/p2.xml": .body(Array(period.utf8)),
            "/periods/deu.xml": .body(Array(set.utf8)),
        ]
        for part in ["p1", "p2"] {
            for name in try FileManager.default.contentsOfDirectory(atPath: folder.appendingPathComponent(part).path) {
                answers["/periods/\(part)/\(name)"] = .body(Array(try Data(contentsOf: folder.appendingPathComponent("\(part)/\(name)"))))
            }
        }
        return answers
    }

    @Test("a remote Period and a remote AdaptationSet are read in: both Periods and the German audio download byte-identical and GStreamer plays every frame; a Period resolving to zero is left out")
    func remoteElements() async throws {
        try await withTemporaryDirectory { folder in
            try await HostileOrigin.withRunning(try Self.answers()) { origin in
                let downloaded = try await completedDownload(origin.baseURL + "/periods/main.mpd", in: folder, options: DownloadOptions(audio: .all))
                let (library, id, snapshot) = (downloaded.library, downloaded.id, downloaded.snapshot)
                #expect(origin.requests.filter { $0.hasSuffix(".xml") }.sorted() == ["/periods/deu.xml", "/periods/p2.xml"])
                let renditions = try await library.index.renditions(of: id)
                #expect(renditions.map(\.key).sorted() == ["audio-de", "audio-en", "video"])
                let bundle = URL(fileURLWithPath: snapshot.bundlePath)
                let resources = try await library.index.resources(of: id)
                #expect(resources.contains { $0.uri.hasSuffix("/p2/chunk-stream3-00003.m4s") }, "the remote Period's German audio")
                for resource in resources {
                    let path = try #require(URL(string: resource.uri)?.path)
                    let expected = try Data(contentsOf: dashSampleMedia.appendingPathComponent(String(path.dropFirst())))
                    #expect(try Data(contentsOf: bundle.appendingPathComponent(resource.fileName)) == expected, "\(resource.fileName)")
                }
                let local = try String(contentsOf: bundle.appendingPathComponent("main.mpd"), encoding: .utf8)
                #expect(local.components(separatedBy: "<Period").count == 3 && !local.contains("xlink"), "\(local)")
                try await PlaybackServer(source: PlaybackSource(library: library)).withRunning { server in
                    let frames = try await gstreamerVideoFrames(server.mpdURL(for: id))
                    #expect(frames == DASHDownloadTests.frames, "GStreamer played \(frames) frames")
                }
            }
        }
    }

    @Test("a remote Period that names a local file is refused, naming the MPD's line, and the file is never read")
    func localRemoteElement() async throws {
        try await withTemporaryDirectory { folder in
            try await HostileOrigin.withRunning { origin in
                let secret = "CANARY-xlink-NOT-TO-BE-READ"
                let canary = try folder.write("""
                    <Period id="\(secret)"><BaseURL>\(origin.baseURL)/canary/</BaseURL></Period>
                    """, to: "period.xml")
                origin.answer("/main.mpd", with: .body(Array("""
                    <?xml version="1.0"?>
                    <MPD xmlns="urn:mpeg:dash:schema:mpd:2011" xmlns:xlink="http://www.w3.org/1999/xlink"
                         type="static" mediaPresentationDuration="PT8S">
                      <Period xlink:href="\(canary.absoluteString)" xlink:actuate="onLoad"/>
                    </MPD>
                    """.utf8)))
                let error = try await failedDownloadError(origin.baseURL + "/main.mpd", in: folder)
                #expect(error.contains(canary.absoluteString) && error.contains("line 4"), "\(error)")
                #expect(!error.contains(secret), "the file's contents leaked: \(error)")
                #expect(!origin.requests.contains { $0.hasPrefix("/canary") }, "\(origin.requests)")
            }
        }
    }

    @Test("an MPD that names more remote elements than Carryon reads is refused before any media, saying how many it reads")
    func tooManyRemoteElements() async throws {
        try await withTemporaryDirectory { folder in
            try await HostileOrigin.withRunning { origin in
                let periods = (0...DASHPlanner.maximumRemoteElements).map {
                    "<Period xlink:href=\"p\($0).xml\" xlink:actuate=\"onLoad\"/>"
                }
                origin.answer("/main.mpd", with: .body(Array("""
                    <?xml version="1.0"?>
                    <MPD xmlns="urn:mpeg:dash:schema:mpd:2011" xmlns:xlink="http://www.w3.org/1999/xlink"
                         type="static" mediaPresentationDuration="PT8S">
                    \(periods.joined(separator: "\n"))
                    </MPD>
                    """.utf8)))
                for index in 0...DASHPlanner.maximumRemoteElements {
                    origin.answer("/p\(index).xml", with: .body(Array("<Period id=\"p\(index)\"/>".utf8)))
                }
                let error = try await failedDownloadError(origin.baseURL + "/main.mpd", in: folder)
                #expect(error.contains("more than \(DASHPlanner.maximumRemoteElements) remote elements"), "\(error)")
                #expect(origin.requests.filter { $0.hasSuffix(".xml") }.count == DASHPlanner.maximumRemoteElements)
            }
        }
    }
}
