@testable import HLS
import Testing

/// Resolving URI references against a base (RFC 3986 section 5), as HLS resolves every URI
/// against the playlist's URL.
@Suite("URI references")
struct URIReferenceTests {
    static let base = "http://a/b/c/d;p?q"

    /// RFC 3986 section 5.4.1.
    static let normalExamples: [(String, String)] = [
        ("g:h", "g:h"),
        ("g", "http://a/b/c/g"),
        ("./g", "http://a/b/c/g"),
        ("g/", "http://a/b/c/g/"),
        ("/g", "http://a/g"),
        ("//g", "http://g"),
        ("?y", "http://a/b/c/d;p?y"),
        ("g?y", "http://a/b/c/g?y"),
        ("#s", "http://a/b/c/d;p?q#s"),
        ("g#s", "http://a/b/c/g#s"),
        ("g?y#s", "http://a/b/c/g?y#s"),
        (";x", "http://a/b/c/;x"),
        ("g;x", "http://a/b/c/g;x"),
        ("g;x?y#s", "http://a/b/c/g;x?y#s"),
        ("", "http://a/b/c/d;p?q"),
        (".", "http://a/b/c/"),
        ("./", "http://a/b/c/"),
        ("..", "http://a/b/"),
        ("../", "http://a/b/"),
        ("../g", "http://a/b/g"),
        ("../..", "http://a/"),
        ("../../", "http://a/"),
        ("../../g", "http://a/g"),
    ]

    /// RFC 3986 section 5.4.2, with a strict parser.
    static let abnormalExamples: [(String, String)] = [
        ("../../../g", "http://a/g"),
        ("../../../../g", "http://a/g"),
        ("/./g", "http://a/g"),
        ("/../g", "http://a/g"),
        ("g.", "http://a/b/c/g."),
        (".g", "http://a/b/c/.g"),
        ("g..", "http://a/b/c/g.."),
        ("..g", "http://a/b/c/..g"),
        ("./../g", "http://a/b/g"),
        ("./g/.", "http://a/b/c/g/"),
        ("g/./h", "http://a/b/c/g/h"),
        ("g/../h", "http://a/b/c/h"),
        ("g;x=1/./y", "http://a/b/c/g;x=1/y"),
        ("g;x=1/../y", "http://a/b/c/y"),
        ("g?y/./x", "http://a/b/c/g?y/./x"),
        ("g?y/../x", "http://a/b/c/g?y/../x"),
        ("g#s/./x", "http://a/b/c/g#s/./x"),
        ("g#s/../x", "http://a/b/c/g#s/../x"),
        ("http:g", "http:g"),
    ]

    @Test(arguments: normalExamples)
    func normalExample(reference: String, expected: String) {
        #expect(URIReference.resolve(reference, against: Self.base) == expected)
    }

    @Test(arguments: abnormalExamples)
    func abnormalExample(reference: String, expected: String) {
        #expect(URIReference.resolve(reference, against: Self.base) == expected)
    }

    @Test func absoluteReferenceHasItsDotSegmentsRemoved() {
        #expect(URIReference.resolve("https://cdn.example/a/./b/../c.ts", against: Self.base) == "https://cdn.example/a/c.ts")
    }

    @Test func dataURIIsReturnedAsItIs() {
        let uri = "data:text/plain;base64,AAAA/../..=="
        #expect(URIReference.resolve(uri, against: Self.base) == uri)
    }

    @Test func baseWithAuthorityAndEmptyPathMergesUnderRoot() {
        #expect(URIReference.resolve("seg.ts", against: "https://cdn.example") == "https://cdn.example/seg.ts")
    }

    @Test func fileBaseResolves() {
        #expect(URIReference.resolve("../media/seg.ts", against: "file:///var/bundles/a/playlists/v.m3u8")
            == "file:///var/bundles/a/media/seg.ts")
    }

    @Test func schemeAndAbsoluteness() {
        #expect(URIReference.isAbsolute("skd://key-1"))
        #expect(URIReference.isAbsolute("HTTPS://cdn.example/x"))
        #expect(!URIReference.isAbsolute("seg.ts"))
        #expect(!URIReference.isAbsolute("a/b:c"))
        #expect(!URIReference.isAbsolute("1a:b"))
        #expect(URIReference.scheme(of: "HTTPS://cdn.example/x") == "https")
        #expect(URIReference.scheme(of: "//cdn.example/x") == nil)
        // A colon after the first `/`, `?` or `#` ends no scheme; nor does one after a non-scheme.
        for reference in ["a/b:c", "seg.ts?t=a:b", "seg.ts#t=1:2", "1a:b", "se g:x", ":x", "seg.ts"] {
            #expect(URIReference.scheme(of: reference) == nil, "\(reference)")
        }
        #expect(URIReference.scheme(of: "data:text/plain,x") == "data")
        #expect(URIReference.scheme(of: "Skd+v1.x-y:key") == "skd+v1.x-y")
    }

    @Test func queryOfAURI() {
        #expect(URIReference.query(of: "https://a/b?x=1&y=2#f") == "x=1&y=2")
        #expect(URIReference.query(of: "https://a/b#f?x") == nil)
        #expect(URIReference.query(of: "https://a/b") == nil)
    }

    @Test func delimiterFollowedByACombiningMarkStillDelimits() {
        // RFC 3986 splits on characters of the URI, not on grapheme clusters: "?\u{301}" is a
        // "?" and then an accent.
        #expect(URIReference.query(of: "https://a/b?\u{301}x=1") == "\u{301}x=1")
        #expect(URIReference.resolve("g/..\u{301}/../h", against: Self.base) == "http://a/b/c/g/h")
        #expect(URIReference.resolve("./\u{301}g", against: Self.base) == "http://a/b/c/\u{301}g")
    }

    @Test func queryParameterIsPercentDecoded() {
        let url = "https://a/b.m3u8?a=1&token=x%2By%3D%3D&empty=&flag&sp=a+b&bad=%zz&a=2"
        #expect(URIReference.queryParameter("a", in: url) == "1")
        #expect(URIReference.queryParameter("token", in: url) == "x+y==")
        #expect(URIReference.queryParameter("empty", in: url) == "")
        #expect(URIReference.queryParameter("flag", in: url) == "")
        #expect(URIReference.queryParameter("sp", in: url) == "a b")
        #expect(URIReference.queryParameter("bad", in: url) == "%zz")
        #expect(URIReference.queryParameter("missing", in: url) == nil)
        #expect(URIReference.queryParameter("a", in: "https://a/b") == nil)
    }

    /// The shortcut for a relative path, an absolute path or an absolute URI must give what
    /// RFC 3986's steps give, and step aside wherever they could do more than append.
    @Test func directShortcutAgreesWithTheGeneralSteps() {
        let bases = ["https://cdn.example/v/main.m3u8", "https://cdn.example", "https://cdn.example/", "http://a:8080/b/c/d;p?q",
                     "file:///tmp/x/vod.m3u8", "https://cdn.example/a/./b/../c/index.m3u8", "https://cdn.example/..",
                     "urn:isbn:123", "https://user@cdn.example/v/?q=1#f", "https://cdn.example/v/x.m3u8?token=a/b:c"]
        let references = ["seg1.m4s", "seg1.m4s?sig=a/b:c&x=.", "seg1.m4s#t=1", ".", "..", "...", ".hidden", "a..b", "",
                          "?q", "#f", "a:b", "a/b", "/abs", "//host/x", "data:,x", "g;x=1", "%2e%2e", "é.ts", "seg 1.ts",
                          "1080p/seg1.ts", "a/./b", "a/../b", "a/.", "a/..", "./a", "../a", "a/b/", "/", "/..", "/a/../b",
                          "/vod/abc/seg_1.m4s?token=x/../y&exp=1", "/a#f/../g", "https://other.example/a/b.ts?x=1",
                          "HTTPS://Other.Example/A", "https://h", "https://h/./a", "https://h/a/..", "https:x", "h+t-1.x://y/z",
                          "1a://x/y", "skd://key-id", "https://h?q", "https://h#f", "a/b:c", "/a:b"]
        var shortcuts = 0
        for base in bases {
            let components = URIReference.Components(base)
            let prefix = URIReference.directoryPrefix(of: components)
            let origin = URIReference.origin(of: components)
            for reference in references {
                let general = URIReference.resolve(reference, against: base)
                if let fast = URIReference.resolveDirectly(reference, prefix: prefix, origin: origin) {
                    shortcuts += 1
                    #expect(fast == general, "\(reference) against \(base)")
                }
            }
        }
        // The shortcut is taken where it can be, and never for a dot segment, a scheme without an
        // authority, another authority or an empty path.
        #expect(shortcuts > 150)
        for reference in ["..", "a/..", "/a/./b", "https://h/../a", "a:b", "data:,x", "//host/x", "?q", ""] {
            #expect(URIReference.resolveDirectly(reference, prefix: "https://a/", origin: "https://a") == nil, "\(reference)")
        }
        #expect(URIReference.directoryPrefix(of: URIReference.Components("https://a/b/../c")) == nil)
    }
}
