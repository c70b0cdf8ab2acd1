import AsyncHTTPClient
import Carryon
import CarryonServer
import CarryonTestSupport
import Foundation
import NIOCore
import Testing

/// The playback server sends bundle files as nginx does, with `sendfile(2)`, and every answer
/// is still the file's bytes.
@Suite("Files sent with sendfile", .heavy)
struct SendFileTests {
    @Test("carryon serve sends each segment with sendfile(2) (strace sees every one) over keep-alive connections; each answer, whole or a range of it, is byte-identical to the file")
    func sendsFiles() async throws {
        guard let strace = findExecutable("strace") else {
            throw TestSupportError("strace is not installed, and this test counts the server's sendfile(2) calls with it: apt-get install -y strace")
        }
        try await withTemporaryDirectory { folder in
            let library = folder.appendingPathComponent("library").path
            let ids = try await Origin(root: sampleMedia.path).withRunning { origin in
                var ids: [String] = []
                for stream in ["ts", "byterange"] {
                    let result = try await runCarryon(["download", origin.baseURL + "/\(stream)/main.m3u8", "--library", library,
                                                       "--audio", "none", "--subtitles", "none"])
                    #expect(result.status == 0, "\(result.standardError)")
                    ids.append(try #require(result.standardOutput.split(separator: "\n").last.map(String.init)))
                }
                return ids
            }
            let trace = folder.appendingPathComponent("trace").path
            let server = try RunningProcess(strace, ["-f", "-qq", "-e", "trace=sendfile", "-o", trace,
                                                     try requireCarryonBinary().path, "serve", "--library", library])
            var lines = server.lines.makeAsyncIterator()
            let base = try #require(await lines.next())

            // Each media file whole, then a range inside it, a range to its end and a suffix
            // range: one client, so the requests share keep-alive connections.
            var requests = 0
            for id in ids {
                let bundle = URL(fileURLWithPath: library).appendingPathComponent("bundles/\(id)")
                let files = try FileManager.default.contentsOfDirectory(atPath: bundle.appendingPathComponent("video").path)
                    .filter { $0.hasSuffix(".ts") }.sorted()
                try #require(!files.isEmpty)
                for file in files {
                    let bytes = try Data(contentsOf: bundle.appendingPathComponent("video/\(file)"))
                    let url = "\(base)/\(id)/video/\(file)"
                    let cases: [(String?, Data, Int)] = [
                        (nil, bytes, 200),
                        ("bytes=100-4099", bytes[100..<4100], 206),
                        ("bytes=\(bytes.count - 1000)-", bytes[(bytes.count - 1000)...], 206),
                        ("bytes=-188", bytes.suffix(188), 206),
                    ]
                    for (range, expected, status) in cases {
                        var request = HTTPClientRequest(url: url)
                        if let range { request.headers.add(name: "Range", value: range) }
                        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(30))
                        let body = try await response.body.collect(upTo: 64 << 20)
                        #expect(Int(response.status.code) == status, "\(file) \(range ?? "whole")")
                        #expect(Data(body.readableBytesView) == expected, "\(file) \(range ?? "whole"): \(body.readableBytes) bytes")
                        requests += 1
                    }
                }
            }
            // A HEAD names the length and sends no body; a range past the end is 416.
            let first = try FileManager.default.contentsOfDirectory(atPath: URL(fileURLWithPath: library).appendingPathComponent("bundles/\(ids[0])/video").path)
                .filter { $0.hasSuffix(".ts") }.sorted()[0]
            var head = HTTPClientRequest(url: "\(base)/\(ids[0])/video/\(first)")
            head.method = .HEAD
            let headResponse = try await HTTPClient.shared.execute(head, timeout: .seconds(30))
            #expect(headResponse.status == .ok && headResponse.headers.first(name: "content-length").flatMap(Int.init) ?? 0 > 0)
            var past = HTTPClientRequest(url: "\(base)/\(ids[0])/video/\(first)")
            past.headers.add(name: "Range", value: "bytes=99999999-")
            #expect(try await HTTPClient.shared.execute(past, timeout: .seconds(30)).status == .rangeNotSatisfiable)

            // Ctrl-C for the server, not strace (which would leave it running, detached): its
            // child, as the kernel lists it.
            let children = try String(contentsOfFile: "/proc/\(server.pid)/task/\(server.pid)/children", encoding: .utf8)
            for child in children.split(separator: " ").compactMap({ Int32($0) }) { kill(child, SIGINT) }
            #expect(await server.wait() == 0)
            let calls = try String(contentsOfFile: trace, encoding: .utf8).split(separator: "\n").filter { $0.contains("sendfile(") }
            let sent = calls.filter { line in line.split(separator: "=").last.flatMap { Int($0.trimmingCharacters(in: .whitespaces)) }.map { $0 > 0 } ?? false }
            // Each answer with a body is at least one call (a large one, several).
            #expect(sent.count >= requests, "\(sent.count) sendfile calls that sent bytes for \(requests) answers:\n\(calls.prefix(5).joined(separator: "\n"))")
        }
    }
}
