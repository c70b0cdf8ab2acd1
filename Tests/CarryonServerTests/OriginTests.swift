import AsyncHTTPClient
import CarryonServer
import CarryonTestSupport
import Foundation
import NIOCore
import NIOHTTP1
import Testing

@Suite("Origin serves a folder with correct byte ranges")
struct OriginTests {
    let bytes: [UInt8] = (0..<1000).map { UInt8($0 % 251) }

    private func get(_ url: String, method: HTTPMethod = .GET, headers: [(String, String)] = [])
        async throws -> (status: UInt, headers: [String: String], body: [UInt8]) {
        var request = HTTPClientRequest(url: url)
        request.method = method
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(10))
        var buffer = try await response.body.collect(upTo: 1 << 20)
        var fields: [String: String] = [:]
        for header in response.headers { fields[header.name.lowercased()] = header.value }
        return (response.status.code, fields, buffer.readBytes(length: buffer.readableBytes) ?? [])
    }

    private func withOrigin(_ body: @Sendable (String, [UInt8]) async throws -> Void) async throws {
        let bytes = self.bytes
        try await withTemporaryDirectory { folder in
            try folder.write(bytes: bytes, to: "media/segment 1.ts")
            try folder.write("#EXTM3U\n", to: "main.m3u8")
            try await Origin(root: folder.path).withRunning { origin in try await body(origin.baseURL, bytes) }
        }
    }

    @Test("a whole file comes back byte for byte with its type and length")
    func wholeFile() async throws {
        try await withOrigin { base, bytes in
            let response = try await get(base + "/media/segment%201.ts")
            #expect(response.status == 200)
            #expect(response.body == bytes)
            #expect(response.headers["content-type"] == "video/mp2t")
            #expect(response.headers["content-length"] == "1000")
            #expect(response.headers["accept-ranges"] == "bytes")
            let playlist = try await get(base + "/main.m3u8")
            #expect(playlist.headers["content-type"] == "application/vnd.apple.mpegurl")
        }
    }

    @Test("a range request gets 206 with the bytes and Content-Range")
    func range() async throws {
        try await withOrigin { base, bytes in
            let response = try await get(base + "/media/segment%201.ts", headers: [("Range", "bytes=100-199")])
            #expect(response.status == 206)
            #expect(response.body == Array(bytes[100...199]))
            #expect(response.headers["content-range"] == "bytes 100-199/1000")
        }
    }

    @Test("a suffix range gets the last bytes of the file")
    func suffixRange() async throws {
        try await withOrigin { base, bytes in
            let response = try await get(base + "/media/segment%201.ts", headers: [("Range", "bytes=-10")])
            #expect(response.status == 206)
            #expect(response.body == Array(bytes[990...]))
            #expect(response.headers["content-range"] == "bytes 990-999/1000")
        }
    }

    @Test("a range past the end gets 416 with the size")
    func unsatisfiable() async throws {
        try await withOrigin { base, _ in
            let response = try await get(base + "/media/segment%201.ts", headers: [("Range", "bytes=5000-")])
            #expect(response.status == 416)
            #expect(response.headers["content-range"] == "bytes */1000")
        }
    }

    @Test("If-Range with a stale validator gets the whole file")
    func staleIfRange() async throws {
        try await withOrigin { base, bytes in
            let response = try await get(base + "/media/segment%201.ts",
                                         headers: [("Range", "bytes=0-9"), ("If-Range", "\"stale\"")])
            #expect(response.status == 200)
            #expect(response.body == bytes)
            let etag = try #require(response.headers["etag"])
            let fresh = try await get(base + "/media/segment%201.ts", headers: [("Range", "bytes=0-9"), ("If-Range", etag)])
            #expect(fresh.status == 206)
            #expect(fresh.body == Array(bytes[0...9]))
        }
    }

    @Test("HEAD gives the headers without a body")
    func head() async throws {
        try await withOrigin { base, _ in
            let response = try await get(base + "/media/segment%201.ts", method: .HEAD)
            #expect(response.status == 200)
            #expect(response.headers["content-length"] == "1000")
            #expect(response.body.isEmpty)
        }
    }

    @Test("paths that climb out of the folder, and missing files, get 404", arguments: [
        "/../../../../etc/passwd", "/media/%2e%2e/%2e%2e/%2e%2e/etc/passwd", "/media/..%2f..%2fetc/passwd",
        "/missing.ts", "/media",
    ])
    func refused(path: String) async throws {
        try await withOrigin { base, _ in
            let response = try await get(base + path)
            #expect(response.status == 404)
        }
    }
}
