@testable import Carryon
import Testing

/// Proxy URLs and NO_PROXY as curl reads them, and which proxy each request takes.
@Suite("Proxy settings")
struct ProxySettingsTests {
    @Test("NO_PROXY: names match themselves and their subdomains (a leading dot alike), addresses and CIDR ranges their addresses, * everything; ports and case ignored")
    func noProxy() {
        let list = NoProxy(" example.com, .corp.internal ,10.0.0.0/8, 192.168.1.7, fd00::/8, [::1], cdn.test:8443, ")
        for host in ["example.com", "EXAMPLE.com", "a.b.example.com", "example.com.", "corp.internal", "x.corp.internal",
                     "10.1.2.3", "192.168.1.7", "fd12::1", "[::1]", "::1", "cdn.test"] {
            #expect(list.matches(host), "\(host)")
        }
        for host in ["badexample.com", "example.org", "11.0.0.1", "192.168.1.8", "fe80::1", "::2", "internal", "test"] {
            #expect(!list.matches(host), "\(host)")
        }
        #expect(NoProxy("*").matches("anything.example"))
        #expect(!NoProxy("").matches("example.com"))
        #expect(!NoProxy("10.0.0.0/40,junk/3").matches("10.0.0.1"), "a range that is not one matches nothing")
        #expect(NoProxy("0.0.0.0/0").matches("203.0.113.9") && !NoProxy("0.0.0.0/0").matches("::1"))
    }

    @Test("a proxy URL: http by default on port 1080, socks5 and socks5h alike, credentials percent-decoded and never shown; https, socks4 and SOCKS credentials refused by name")
    func proxyAddress() throws {
        let plain = try ProxyAddress("proxy.corp:3128", origin: "HTTPS_PROXY")
        #expect(plain.kind == .http && plain.host == "proxy.corp" && plain.port == 3128 && plain.user == nil)
        let defaulted = try ProxyAddress("http://proxy.corp", origin: "--proxy")
        #expect(defaulted.port == 1080)
        let secret = try ProxyAddress("http://me%40corp:p%3Ass@[::1]:8080", origin: "--proxy")
        #expect(secret.user == "me@corp" && secret.password == "p:ss" && secret.host == "::1")
        #expect(secret.description == "http://me@corp:***@[::1]:8080" && !secret.description.contains("p:ss"))
        #expect(try ProxyAddress("socks5h://127.0.0.1:9050", origin: "ALL_PROXY").kind == .socks5)
        for (text, words) in [("https://u:hunter2@proxy:443", "over HTTPS is not supported"), ("socks4://proxy:1080", "socks4 is not supported"),
                              ("socks5://u:hunter2@proxy:1080", "cannot authenticate to a SOCKS5 proxy"), ("http://proxy:70000", "the port 70000 is not between 1 and 65535"),
                              ("http://:8080", "not a proxy URL")] {
            let error = #expect(throws: CarryonError.self) { try ProxyAddress(text, origin: "--proxy") }
            #expect(error?.message.contains(words) == true, "\(text): \(error?.message ?? "")")
            #expect(error?.message.contains("hunter2") == false, "\(text): the password shown: \(error?.message ?? "")")
        }
    }

    @Test("each request takes its scheme's proxy (--proxy over the environment's, lower case before upper, ALL_PROXY last), none for a NO_PROXY host or with --proxy \"\"")
    func route() async throws {
        let environment = ["https_proxy": "http://lower:1", "HTTPS_PROXY": "http://upper:2", "ALL_PROXY": "socks5://all:3", "NO_PROXY": "local.test"]
        let network = try Network(settings: NetworkSettings(environment: environment))
        #expect(network.proxy(for: "https://cdn.example/a.m3u8")?.host == "lower")
        #expect(network.proxy(for: "http://cdn.example/a.m3u8")?.host == "all")
        #expect(network.proxy(for: "https://x.local.test/a.m3u8") == nil)
        #expect(network.proxy(for: "file:///tmp/a.m3u8") == nil)
        let given = try Network(settings: NetworkSettings(proxy: "http://flag:4", noProxy: "cdn.example", environment: environment))
        #expect(given.proxy(for: "http://other.example/")?.host == "flag" && given.proxy(for: "https://x.local.test/")?.host == "flag")
        #expect(given.proxy(for: "https://cdn.example/") == nil)
        let none = try Network(settings: NetworkSettings(proxy: "", environment: environment))
        #expect(none.proxy(for: "https://cdn.example/") == nil)
        await network.shutdown()
        await given.shutdown()
        await none.shutdown()
        let refused = #expect(throws: CarryonError.self) { try Network(settings: NetworkSettings(environment: ["HTTPS_PROXY": "ftp://u:pw@x"])) }
        #expect(refused?.message.hasPrefix("HTTPS_PROXY ftp://u:***@x") == true, "\(refused?.message ?? "")")
    }
}

/// How a certificate's names are matched against the host asked for, to say which name a
/// certificate that does not verify was for.
@Suite("Certificate names")
struct CertificateNameTests {
    @Test("a name matches itself without case, a wildcard one label, an IP address only the same address")
    func names() {
        #expect(CertificateProbe.name("cdn.example.com", matches: "CDN.example.com"))
        #expect(CertificateProbe.name("*.example.com", matches: "cdn.example.com"))
        #expect(!CertificateProbe.name("*.example.com", matches: "a.cdn.example.com"))
        #expect(!CertificateProbe.name("*.example.com", matches: "example.com"))
        #expect(CertificateProbe.name("127.0.0.1", matches: "127.0.0.1"))
        #expect(CertificateProbe.name("::1", matches: "[::1]") && CertificateProbe.name("0:0:0:0:0:0:0:1", matches: "::1"))
        #expect(!CertificateProbe.name("localhost", matches: "127.0.0.1"))
    }
}
