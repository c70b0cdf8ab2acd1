@testable import Carryon
@testable import CarryonServer
import CarryonTestSupport
import Foundation
import Testing

/// `GET /api/assets` in pages (issue 39): filters, orders, and the `Link` header's next page.
extension DaemonAPITests {
    /// Follows `path` and each answer's `Link: <…>; rel="next"` to the last page, and returns
    /// every page's ids.
    static func pages(of path: String, _ daemon: Daemon) async throws -> [[String]] {
        var pages: [[String]] = []
        var next: String? = path
        while let current = next, pages.count < 100 {
            let answer = try await daemon.call("GET", current)
            #expect(answer.status == 200, "\(current): \(String(decoding: answer.response.body, as: UTF8.self))")
            pages.append(((answer.json as? [[String: Any]]) ?? []).compactMap { $0["id"] as? String })
            next = answer.response.header("Link").flatMap { link in
                guard link.hasPrefix("<"), link.hasSuffix(#">; rel="next""#), let end = link.firstIndex(of: ">") else { return nil }
                return String(link[link.index(after: link.startIndex)..<end])
            }
        }
        return pages
    }

    @Test("GET /api/assets?limit=2 pages through every asset once by its Link header, keeping the filters (state, q with & and + in it, order); without a limit it is the whole array, as before; a bad state, order, limit or cursor is a 400 naming it")
    func assetPages() async throws {
        try await withDaemon { daemon in
            let index = daemon.session.library.index
            let start = Date(timeIntervalSince1970: 2_000_000_000)
            let names = ["Rock & Roll", "a+b", "Jazz", "rock and more", "Folk", "ROCK"]
            for (offset, name) in names.enumerated() {
                let made = start.addingTimeInterval(Double(offset))
                try await index.insert(AssetRecord(id: "id\(offset)", name: name, url: "https://cdn.example/\(offset).m3u8",
                                                   state: offset % 2 == 0 ? .completed : .failed, errorMessage: nil, options: DownloadOptions(),
                                                   headers: [], selection: nil, planned: false, createdAt: made, updatedAt: made,
                                                   completedAt: nil, duration: nil))
            }
            let all = names.indices.map { "id\($0)" }
            let whole = try await daemon.call("GET", "assets")
            #expect(whole.response.header("Link") == nil)
            #expect(((whole.json as? [[String: Any]]) ?? []).compactMap { $0["id"] as? String } == all)
            let pages = try await Self.pages(of: "assets?limit=2", daemon)
            #expect(pages == [["id0", "id1"], ["id2", "id3"], ["id4", "id5"]])
            #expect(try await Self.pages(of: "assets?limit=1&state=failed&order=newest", daemon) == [["id5"], ["id3"], ["id1"]])
            #expect(try await Self.pages(of: "assets?limit=1&q=rock", daemon).flatMap { $0 } == ["id0", "id3", "id5"])
            #expect(try await Self.pages(of: "assets?limit=1&q=Rock%20%26%20Roll", daemon) == [["id0"]])
            #expect(try await Self.pages(of: "assets?q=a%2Bb", daemon) == [["id1"]])
            #expect(try await Self.pages(of: "assets?limit=4&order=name", daemon).flatMap { $0 } == ["id4", "id2", "id5", "id0", "id1", "id3"])
            for (path, word) in [("assets?state=paused", "state"), ("assets?order=random", "order"), ("assets?limit=ten", "limit"),
                                 ("assets?limit=10001", "limit"), ("assets?cursor=c1.garbage", "cursor")] {
                let answer = try await daemon.call("GET", path)
                #expect(answer.status == 400, "\(path)")
                #expect((daemon.error(answer.json)["message"] as? String ?? "").contains(word), "\(path): \(daemon.error(answer.json))")
            }
        }
    }
}
