import AsyncHTTPClient
@testable import Carryon
import CarryonTestSupport
import Foundation
import Testing

/// The one rule for where a stream may lead: http(s) always, `file:` only from a stream read
/// from disk, nothing else; the error names the location and where it was written, and nothing
/// of what it points at.
@Suite("Where a stream may lead")
struct LocationRuleTests {
    @Test("a stream read over HTTP leads to http and https", arguments: ["http://a.example/v.m3u8", "HTTPS://a.example/s.ts"])
    func remoteToRemote(location: String) throws {
        try LocationRule.stream("https://origin.example/main.m3u8").check(location, namedBy: nil)
    }

    @Test("a stream read over HTTP does not lead to a local file, whatever the scheme's case",
          arguments: ["file:///etc/passwd", "FILE:///etc/passwd", "File://localhost/etc/passwd"])
    func remoteToFile(location: String) throws {
        let error = #expect(throws: CarryonError.self) {
            try LocationRule.stream("http://origin.example/main.m3u8").check(location, namedBy: "http://origin.example/main.m3u8, line 3")
        }
        #expect(error?.code == .refusedLocation)
        #expect(error?.message.hasPrefix("http://origin.example/main.m3u8, line 3: \(location)") == true, "\(error?.message ?? "")")
        #expect(error?.message.contains("nothing was read from it") == true)
    }

    @Test("no stream leads to another scheme", arguments: ["ftp://a.example/v.m3u8", "gopher://a.example/", "data:,x", "v.m3u8"])
    func otherSchemes(location: String) throws {
        for stream in ["http://origin.example/main.m3u8", "file:///srv/main.m3u8"] {
            let error = #expect(throws: CarryonError.self) { try LocationRule.stream(stream).check(location, namedBy: nil) }
            #expect(error?.code == .refusedLocation)
            #expect(error?.message.contains("only http, https") == true, "\(error?.message ?? "")")
        }
    }

    @Test("a stream read from disk may lead to local files and to http(s)")
    func localStream() throws {
        let rule = LocationRule.stream("file:///srv/media/main.m3u8")
        try rule.check("file:///srv/media/v/index.m3u8", namedBy: nil)
        try rule.check("https://cdn.example/s.ts", namedBy: nil)
    }

    @Test("a fetcher made for a remote stream refuses a local file before reading it")
    func fetcherRefusesBeforeReading() async throws {
        try await withTemporaryDirectory { folder in
            let file = try folder.write("#EXTM3U\n#SECRET\n", to: "secret.m3u8")
            let fetcher = PlaylistFetcher(client: HTTPClient.shared).forStream("http://origin.example/main.m3u8")
            let error = await #expect(throws: CarryonError.self) {
                try await fetcher.fetch(file.absoluteString, namedBy: "http://origin.example/main.m3u8, line 2")
            }
            #expect(error?.code == .refusedLocation)
            #expect(error?.message.contains("SECRET") == false)
            // The same fetcher for a stream read from disk reads it.
            let local = try await fetcher.forStream(folder.appendingPathComponent("main.m3u8").absoluteString).fetch(file.absoluteString)
            #expect(local.bytes.count == 16)
        }
    }

    @Test("a rule with folders allows a file only inside them, after .., percent-encoding and symbolic links, and hands back the path to open")
    func folders() async throws {
        try await withTemporaryDirectory { folder in
            let allowed = folder.appendingPathComponent("allowed")
            try FileManager.default.createDirectory(at: allowed, withIntermediateDirectories: true)
            try FileManager.default.createSymbolicLink(atPath: allowed.appendingPathComponent("out").path, withDestinationPath: folder.path)
            let rule = LocationRule(filesWithin: [allowed.path]).forStream(allowed.appendingPathComponent("main.m3u8").absoluteString)
            let base = allowed.absoluteString + "/"
            try rule.check(base + "v/s.ts", namedBy: nil)
            #expect(try rule.filePath(base + "v/../s.ts") == allowed.appendingPathComponent("s.ts").path)
            for escape in [base + "../s.ts", base + "%2e%2e/s.ts", base + "v/%2E%2E/%2e%2e/s.ts", base + "out/s.ts", "file:///etc/passwd"] {
                #expect(throws: CarryonError.self, "\(escape)") { try rule.check(escape, namedBy: "main.m3u8, line 3") }
            }
            // The stream decides whether files are allowed at all; the folders stay.
            let remote = rule.forStream("https://cdn.example/main.m3u8")
            #expect(throws: CarryonError.self) { try remote.check(base + "s.ts", namedBy: nil) }
            #expect(remote.forStream(base + "main.m3u8").fileFolders == rule.fileFolders)
        }
    }
}

/// A daemon serving a network refuses every location that reaches only this machine or its
/// link, at every level of a stream, not only its URL.
@Suite("Private hosts")
struct PrivateHostsTests {
    @Test("loopback, unspecified, link-local and this machine's addresses are private, in every spelling; others are not")
    func privateHosts() throws {
        var rule = LocationRule.stream("https://cdn.example/main.m3u8")
        rule.refusesPrivateHosts = true
        for location in ["http://127.0.0.1/s.ts", "http://127.9.9.9:8080/s.ts", "http://localhost/s.ts", "http://2130706433/s.ts",
                         "http://0x7f000001/s.ts", "http://[::1]/s.ts", "http://[::ffff:127.0.0.1]/s.ts", "http://0.0.0.0/s.ts",
                         "http://[::]/s.ts", "http://169.254.169.254/latest/meta-data/", "http://[fe80::1]/s.ts"] {
            let error = #expect(throws: CarryonError.self, "\(location)") { try rule.check(location, namedBy: "main.m3u8, line 4") }
            #expect(error?.code == .refusedLocation && error?.message.contains("main.m3u8, line 4") == true)
        }
        // Public addresses (a documentation range) are not; nothing is resolved over the network for a literal.
        try rule.check("http://192.0.2.10/s.ts", namedBy: nil)
        try rule.check("http://[2001:db8::1]/s.ts", namedBy: nil)
        // Without the flag, nothing changes.
        try LocationRule.stream("https://cdn.example/main.m3u8").check("http://127.0.0.1/s.ts", namedBy: nil)
    }

    @Test("the address a connection reached: loopback, unspecified, link-local and this machine's own are private, IPv4-mapped too; others are not")
    func connectedAddresses() throws {
        for bytes: [UInt8] in [[127, 0, 0, 1], [0, 0, 0, 0], [169, 254, 169, 254], Array(repeating: 0, count: 15) + [1],
                               Array(repeating: 0, count: 10) + [0xFF, 0xFF, 127, 0, 0, 1], [0xFE, 0x80] + Array(repeating: 0, count: 13) + [1]] {
            #expect(PrivateHosts.reason(forConnectedAddress: bytes) != nil, "\(bytes)")
        }
        #expect(PrivateHosts.reason(forConnectedAddress: [127, 0, 0, 1])?.hasPrefix("127.0.0.1, this machine's loopback") == true)
        for bytes: [UInt8] in [[192, 0, 2, 10], [0x20, 0x01, 0x0d, 0xb8] + Array(repeating: 0, count: 11) + [1], [1, 2, 3]] {
            #expect(PrivateHosts.reason(forConnectedAddress: bytes) == nil, "\(bytes)")
        }
        // An interface's own address, other than loopback, as itself and IPv4-mapped.
        if let own = PrivateHosts.ownAddresses().first(where: { $0.count == 4 && $0[0] != 127 }) {
            #expect(PrivateHosts.reason(forConnectedAddress: own)?.contains("an address of this machine") == true)
            #expect(PrivateHosts.reason(forConnectedAddress: Array(repeating: 0, count: 10) + [0xFF, 0xFF] + own)?.contains("an address of this machine") == true)
        }
    }
}
