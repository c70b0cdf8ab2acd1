@testable import Carryon
import Testing

/// Alternative locations of the same files: which URIs are tried, in which order.
@Suite("Fallback locations")
struct FallbackTests {
    @Test("a base URL's fallbacks cover the base itself and its folder, query and fragment aside")
    func forBase() {
        let fallbacks = Fallback.forBase("https://a.example/v/file.mp4?t=1", alternatives: ["https://a.example/v/file.mp4?t=1", "https://b.example/w/file.mp4"])
        #expect(fallbacks == [
            Fallback(prefix: "https://a.example/v/file.mp4?t=1", alternatives: ["https://b.example/w/file.mp4"]),
            Fallback(prefix: "https://a.example/v/", alternatives: ["https://b.example/w/"]),
        ])
        #expect(Fallback.forBase("https://a.example/v/", alternatives: ["https://a.example/v/"]).isEmpty)
    }

    @Test("the location that last worked is tried first; the longest prefix decides; an uncovered URI is tried alone")
    func routes() {
        let routes = FallbackRoutes(Fallback.forBase("https://a.example/v/", alternatives: ["https://b.example/v/", "https://c.example/"]))
        #expect(routes.candidates(for: "https://a.example/v/1.m4s") == ["https://a.example/v/1.m4s", "https://b.example/v/1.m4s", "https://c.example/1.m4s"])
        routes.worked("https://c.example/1.m4s", for: "https://a.example/v/1.m4s")
        #expect(routes.candidates(for: "https://a.example/v/2.m4s") == ["https://c.example/2.m4s", "https://a.example/v/2.m4s", "https://b.example/v/2.m4s"])
        routes.worked("https://a.example/v/2.m4s", for: "https://a.example/v/2.m4s")
        #expect(routes.candidates(for: "https://a.example/v/3.m4s").first == "https://a.example/v/3.m4s")
        #expect(routes.candidates(for: "https://other.example/1.m4s") == ["https://other.example/1.m4s"])
    }

    @Test("a fallback carrying the manifest URL's query tries a URI as it is, then with the query after its own; once that works, with it first")
    func carryingQuery() {
        let routes = FallbackRoutes(Fallback.forBase("https://a.example/v/", alternatives: ["https://b.example/v/"]) + [.carrying("token=1")])
        #expect(routes.candidates(for: "https://c.example/1.m4s") == ["https://c.example/1.m4s", "https://c.example/1.m4s?token=1"])
        #expect(routes.candidates(for: "https://c.example/2.m4s?n=2") == ["https://c.example/2.m4s?n=2", "https://c.example/2.m4s?n=2&token=1"])
        routes.worked("https://c.example/1.m4s?token=1", for: "https://c.example/1.m4s")
        #expect(routes.candidates(for: "https://c.example/3.m4s").first == "https://c.example/3.m4s?token=1")
        #expect(routes.candidates(for: "https://a.example/v/1.m4s") == ["https://a.example/v/1.m4s", "https://b.example/v/1.m4s"],
                "a BaseURL's own fallback is the more precise")
    }
}
