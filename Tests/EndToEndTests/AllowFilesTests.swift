import Carryon
import CarryonTestSupport
import Foundation
import Testing

/// `carryon serve --allow-files DIR` lets the API take local streams inside DIR. What such a
/// stream names in turn — variant and rendition playlists, segments, init sections, keys,
/// DASH BaseURLs, templates and XLinks — is held to DIR too, after `..`, percent-encoding and
/// symbolic links are resolved: before, the stream URL alone was checked, and a playlist inside
/// DIR naming `../canary.ts` copied the file outside into the bundle and served it.
@Suite("serve --allow-files confines every location a local stream names", .heavy)
struct AllowFilesTests {
    static let canary = "CANARY-outside-allow-files-NOT-TO-BE-READ"

    /// The folders: `outside` holds the canaries; `allowed` (inside `outside`, so `..` leads
    /// out) holds one stream per way out, a good stream, and symbolic links.
    struct Layout {
        var outside: URL
        var allowed: URL
        /// Each escaping stream's file name in `allowed`, with what it names.
        var escapes: [(stream: String, names: String, refusal: String)] = []
    }

    static func layout(in folder: URL) throws -> Layout {
        let outside = folder.appendingPathComponent("outside")
        let allowed = outside.appendingPathComponent("allowed")
        try FileManager.default.createDirectory(at: allowed.appendingPathComponent("sub"), withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: outside.appendingPathComponent("private"), withIntermediateDirectories: true)
        var layout = Layout(outside: outside, allowed: allowed)
        // Canaries of every kind a stream names, outside `allowed`.
        for name in ["canary.ts", "canary.key", "private/canary.ts", "canary-1.m4s", "canary-init.m4s"] {
            try Data((canary + "\n").utf8).write(to: outside.appendingPathComponent(name))
        }
        try "#EXTM3U\n#EXT-X-TARGETDURATION:4\n#\(canary)\n#EXTINF:4,\ncanary.ts\n#EXT-X-ENDLIST\n"
            .write(to: outside.appendingPathComponent("outside.m3u8"), atomically: true, encoding: .utf8)
        try "<Period id=\"x\"><!-- \(canary) --></Period>".write(to: outside.appendingPathComponent("outside.xml"), atomically: true, encoding: .utf8)
        // A good stream inside, one segment reached through a link that stays inside.
        for name in ["segment0.ts", "segment1.ts", "segment2.ts"] {
            try FileManager.default.copyItem(at: sampleMedia.appendingPathComponent("ts/180p/\(name)"), to: allowed.appendingPathComponent(name))
        }
        try FileManager.default.createSymbolicLink(atPath: allowed.appendingPathComponent("inside-link.ts").path, withDestinationPath: "segment2.ts")
        try Self.media(["segment0.ts", "sub/../segment1.ts", "inside-link.ts"]).write(to: allowed.appendingPathComponent("good.m3u8"), atomically: true, encoding: .utf8)
        // Links that lead out: one to a file, one to a folder.
        try FileManager.default.createSymbolicLink(atPath: allowed.appendingPathComponent("link.ts").path, withDestinationPath: "../canary.ts")
        try FileManager.default.createSymbolicLink(atPath: allowed.appendingPathComponent("outlink").path, withDestinationPath: outside.appendingPathComponent("private").path)

        func escape(_ stream: String, _ text: String, names: String, refusal: String = "outside the folders allowed") throws {
            try text.write(to: allowed.appendingPathComponent(stream), atomically: true, encoding: .utf8)
            layout.escapes.append((stream, names, refusal))
        }
        let good = "#EXTINF:4,\nsegment0.ts\n"
        try escape("dotdot.m3u8", Self.media(["segment0.ts", "../canary.ts"]), names: "/outside/canary.ts")
        try escape("absolute.m3u8", Self.media(["segment0.ts", outside.appendingPathComponent("canary.ts").absoluteString]), names: "canary.ts")
        try escape("sub.m3u8", Self.media(["segment0.ts", "sub/../../canary.ts"]), names: "canary.ts")
        try escape("percent.m3u8", Self.media(["segment0.ts", "%2e%2e/canary.ts"]), names: "canary.ts")
        // %2F is no separator in a path: this names a file called `..%2fcanary.ts` inside, which is not there.
        try escape("percent-slash.m3u8", Self.media(["segment0.ts", "..%2fcanary.ts"]), names: "allowed/..%2fcanary.ts", refusal: "no such file")
        try escape("link.m3u8", Self.media(["segment0.ts", "link.ts"]), names: "link.ts")
        try escape("folder-link.m3u8", Self.media(["segment0.ts", "outlink/canary.ts"]), names: "outlink/canary.ts")
        try escape("map.m3u8", "#EXTM3U\n#EXT-X-VERSION:7\n#EXT-X-TARGETDURATION:4\n#EXT-X-MAP:URI=\"../canary-init.m4s\"\n\(good)#EXT-X-ENDLIST\n",
                   names: "canary-init.m4s")
        try escape("key.m3u8", "#EXTM3U\n#EXT-X-TARGETDURATION:4\n#EXT-X-KEY:METHOD=AES-128,URI=\"../canary.key\"\n\(good)#EXT-X-ENDLIST\n",
                   names: "canary.key")
        try escape("variant.m3u8", "#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=100000\ngood.m3u8\n#EXT-X-STREAM-INF:BANDWIDTH=200000\n../outside.m3u8\n",
                   names: "outside.m3u8")
        try escape("rendition.m3u8", """
            #EXTM3U
            #EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="a",NAME="en",LANGUAGE="en",DEFAULT=YES,URI="../outside.m3u8"
            #EXT-X-STREAM-INF:BANDWIDTH=100000,AUDIO="a"
            good.m3u8

            """, names: "outside.m3u8")
        let mpdHead = "<?xml version=\"1.0\"?>\n<MPD xmlns=\"urn:mpeg:dash:schema:mpd:2011\" xmlns:xlink=\"http://www.w3.org/1999/xlink\" type=\"static\" mediaPresentationDuration=\"PT4S\" minBufferTime=\"PT2S\" profiles=\"urn:mpeg:dash:profile:isoff-live:2011\">"
        let set = "<AdaptationSet contentType=\"video\" mimeType=\"video/mp4\" codecs=\"avc1.4d400c\"><Representation id=\"v\" bandwidth=\"100000\" width=\"320\" height=\"180\">"
        try escape("template.mpd", mpdHead + "<Period id=\"1\">\(set)<SegmentTemplate timescale=\"1000\" duration=\"4000\" startNumber=\"1\" initialization=\"../canary-init.m4s\" media=\"../canary-$Number$.m4s\"/></Representation></AdaptationSet></Period></MPD>",
                   names: "canary-init.m4s")
        try escape("baseurl.mpd", mpdHead + "<BaseURL>../</BaseURL><Period id=\"1\">\(set)<SegmentTemplate timescale=\"1000\" duration=\"4000\" startNumber=\"1\" initialization=\"canary-init.m4s\" media=\"canary-$Number$.m4s\"/></Representation></AdaptationSet></Period></MPD>",
                   names: "canary-init.m4s")
        try escape("xlink.mpd", mpdHead + "<Period xlink:href=\"../outside.xml\" xlink:actuate=\"onLoad\"/></MPD>", names: "outside.xml")
        return layout
    }

    static func media(_ segments: [String]) -> String {
        "#EXTM3U\n#EXT-X-TARGETDURATION:4\n" + segments.map { "#EXTINF:4,\n\($0)\n" }.joined() + "#EXT-X-ENDLIST\n"
    }

    @Test("every way out of --allow-files is refused, naming the location, and no canary byte reaches a bundle, an answer or a log; a stream inside still downloads")
    func everyWayOut() async throws {
        try await withTemporaryDirectory { folder in
            let layout = try Self.layout(in: folder)
            let library = folder.appendingPathComponent("library")
            let server = try RunningProcess(carryon: ["serve", "--allow-files", layout.allowed.path, "--library", library.path])
            var lines = server.lines.makeAsyncIterator()
            let base = try #require(await lines.next().flatMap(URL.init(string:)), "serve printed no base URL: \(server.standardError)")
            let port = try #require(base.port)
            func call(_ method: String, _ path: String, body: String? = nil) async throws -> (status: Int, text: String, json: [String: Any]?) {
                var request = "\(method) \(base.path)/api/\(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\n"
                if let body { request += "Content-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)" } else { request += "\r\n" }
                let response = try await rawHTTP(port: port, request)
                let text = String(decoding: response.body, as: UTF8.self)
                #expect(!text.contains(Self.canary), "\(method) \(path) answered with the canary: \(text)")
                return (response.status, text, try? JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any])
            }
            /// Starts a download of `stream` and waits until it stops.
            func download(_ stream: String) async throws -> [String: Any] {
                let url = layout.allowed.appendingPathComponent(stream).path
                let started = try await call("POST", "assets", body: #"{"url": "\#(url)"}"#)
                #expect(started.status == 201, "\(stream): \(started.text)")
                let id = try #require(started.json?["id"] as? String, "\(stream): \(started.text)")
                for _ in 0..<600 {
                    let shown = try await call("GET", "assets/\(id)")
                    if let state = shown.json?["state"] as? String, ["completed", "failed", "suspended"].contains(state) { return shown.json ?? [:] }
                    try await Task.sleep(for: .milliseconds(50))
                }
                Issue.record("\(stream) did not stop")
                return [:]
            }

            let good = try await download("good.m3u8")
            #expect(good["state"] as? String == "completed", "a stream inside, through a link inside: \(good)")
            for (stream, names, refusal) in layout.escapes {
                let shown = try await download(stream)
                let error = shown["error"] as? String ?? ""
                #expect(shown["state"] as? String == "failed", "\(stream) ended \(shown["state"] ?? "-"): \(error)")
                #expect(error.contains(refusal) && error.contains(names), "\(stream): \(error)")
            }
            // The inspection an app shows before downloading reads no variant outside either.
            let inspected = try await call("GET", "streams?url=" + layout.allowed.appendingPathComponent("variant.m3u8").path)
            #expect(inspected.status == 200 || inspected.status == 422, "\(inspected.text)")
            server.kill(SIGTERM)
            #expect(await server.wait() == 0)

            // Nothing of any canary in the library: bundles, logs, the index.
            let files = FileManager.default.enumerator(at: library, includingPropertiesForKeys: nil)?.compactMap { $0 as? URL } ?? []
            #expect(files.count > 5)
            for file in files where !file.hasDirectoryPath {
                let data = (try? Data(contentsOf: file)) ?? Data()
                #expect(data.range(of: Data(Self.canary.utf8)) == nil, "\(file.path) holds the canary")
            }
        }
    }

    @Test("a download from the terminal, with no folders given, still reads a local stream's files anywhere, .. included")
    func terminalUnconfined() async throws {
        try await withTemporaryDirectory { folder in
            let layout = try Self.layout(in: folder)
            try Self.media(["../segment0.ts", "../../allowed/segment1.ts"]).write(to: layout.allowed.appendingPathComponent("sub/up.m3u8"), atomically: true, encoding: .utf8)
            let downloaded = try await runCarryon(["download", layout.allowed.appendingPathComponent("sub/up.m3u8").path, "--library", folder.appendingPathComponent("library").path])
            #expect(downloaded.status == 0, "\(downloaded.standardError)")
        }
    }
}
