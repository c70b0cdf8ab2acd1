@testable import Carryon
import NIOHTTP1
import Testing

/// The redirects one request follows, checked one by one before anything is asked of them.
@Suite("Redirect chains")
struct RedirectChainTests {
    static let rule = LocationRule.stream("https://origin.example/main.m3u8")

    static func location(_ value: String) -> HTTPHeaders { ["Location": value] }

    @Test("301, 302, 303, 307 and 308 with a Location are followed, relative locations resolved against the URL that answered, a fragment dropped; other answers end the chain")
    func follows() throws {
        var chain = RedirectChain(from: "https://origin.example/a/s.ts?x=1", maximum: 5, rule: Self.rule)
        #expect(try chain.follow(.found, Self.location("../b/t.ts#part")) == "https://origin.example/b/t.ts")
        #expect(try chain.follow(.movedPermanently, Self.location("//cdn.example/u.ts")) == "https://cdn.example/u.ts")
        #expect(try chain.follow(.seeOther, Self.location("http://cdn.example:8080/v.ts")) == "http://cdn.example:8080/v.ts")
        #expect(try chain.follow(.temporaryRedirect, Self.location("w.ts")) == "http://cdn.example:8080/w.ts")
        #expect(try chain.follow(.permanentRedirect, Self.location("/x.ts")) == "http://cdn.example:8080/x.ts")
        #expect(chain.current == "http://cdn.example:8080/x.ts" && chain.first == "https://origin.example/a/s.ts?x=1")
        for status: HTTPResponseStatus in [.ok, .partialContent, .notModified, .multipleChoices, .useProxy, .notFound] {
            #expect(try chain.follow(status, Self.location("/elsewhere.ts")) == nil, "\(status)")
        }
        #expect(try chain.follow(.found, [:]) == nil, "a 302 without a Location is no redirect")
        #expect(chain.current == "http://cdn.example:8080/x.ts")
    }

    @Test("at most the maximum; a URL asked before is a loop; each said in words, naming the first URL")
    func bounded() throws {
        var chain = RedirectChain(from: "https://origin.example/0", maximum: 2, rule: Self.rule)
        try chain.follow(.found, Self.location("/1"))
        try chain.follow(.found, Self.location("/2"))
        #expect(throws: CarryonError.self) { try chain.follow(.found, Self.location("/3")) }
        do { try chain.follow(.found, Self.location("/3")) } catch {
            #expect(error.code == .http && error.message.hasPrefix("https://origin.example/0: the request failed: too many redirects (more than 2"), "\(error.message)")
        }
        var looping = RedirectChain(from: "https://origin.example/0", maximum: 5, rule: Self.rule)
        try looping.follow(.found, Self.location("/1"))
        do {
            try looping.follow(.found, Self.location("/0"))
            Issue.record("a loop was followed")
        } catch {
            #expect(error.code == .http && error.message.contains("a redirect loop") && error.message.contains("https://origin.example/0"), "\(error.message)")
        }
    }

    @Test("a redirect to another scheme, or to a host the rule refuses, throws before it becomes the current URL")
    func refused() throws {
        var chain = RedirectChain(from: "https://origin.example/s.ts", maximum: 5, rule: Self.rule)
        for location in ["file:///etc/passwd", "ftp://origin.example/s.ts", "gopher://x/"] {
            do {
                try chain.follow(.found, Self.location(location))
                Issue.record("\(location) was followed")
            } catch {
                #expect(error.code == .refusedLocation && error.message.contains("redirects (302) to \(location)"), "\(error.message)")
            }
        }
        var daemon = Self.rule
        daemon.refusesPrivateHosts = true
        var guarded = RedirectChain(from: "https://origin.example/s.ts", maximum: 5, rule: daemon)
        for location in ["http://169.254.169.254/latest/meta-data/", "http://127.0.0.1:22/", "http://[::1]/", "http://2130706433/", "http://[::ffff:127.0.0.1]/"] {
            do {
                try guarded.follow(.temporaryRedirect, Self.location(location))
                Issue.record("\(location) was followed")
            } catch {
                #expect(error.code == .refusedLocation && error.message.contains("a redirect (307) from https://origin.example/s.ts")
                        && error.message.contains("nothing was requested"), "\(error.message)")
            }
        }
        #expect(chain.current == "https://origin.example/s.ts" && guarded.current == "https://origin.example/s.ts")
    }

    @Test("credentials go to the first URL's origin only: once the chain leaves it they are sent no more, even back at it; other headers always")
    func credentials() throws {
        let sent: HTTPHeaders = ["Authorization": "Basic dTpw", "Cookie": "c=1", "Origin": "https://app.example",
                                 "Proxy-Authorization": "Basic eDp5", "Range": "bytes=0-99", "X-Token": "t"]
        var chain = RedirectChain(from: "https://origin.example/s.ts", maximum: 5, rule: Self.rule)
        try chain.follow(.found, Self.location("https://ORIGIN.example:443/t.ts"))
        #expect(chain.headers(sent) == sent, "the same origin, spelled otherwise")
        try chain.follow(.found, Self.location("http://origin.example/u.ts"))
        let stripped = chain.headers(sent)
        #expect(stripped["Authorization"].isEmpty && stripped["Cookie"].isEmpty && stripped["Origin"].isEmpty && stripped["Proxy-Authorization"].isEmpty)
        #expect(stripped["Range"] == ["bytes=0-99"] && stripped["X-Token"] == ["t"])
        try chain.follow(.found, Self.location("https://origin.example/v.ts"))
        #expect(chain.headers(sent)["Authorization"].isEmpty, "back at the first origin after another, still none")
        // Characters a strict parser refuses, in a path or query, do not make one origin two.
        var lenient = RedirectChain(from: "https://origin.example/a b/s.ts?q=a|b{c}", maximum: 5, rule: Self.rule)
        try lenient.follow(.found, Self.location("/t.ts?q=ü|x"))
        #expect(lenient.headers(sent) == sent, "the same origin: the credentials go on")
    }

    @Test("a POST is asked again as a GET after 301, 302 and 303, and kept after 307 and 308")
    func postAfterRedirect() {
        #expect([HTTPResponseStatus.movedPermanently, .found, .seeOther].allSatisfy(RedirectChain.asksAgainAsGet))
        #expect(![HTTPResponseStatus.temporaryRedirect, .permanentRedirect].contains(where: RedirectChain.asksAgainAsGet))
    }
}
