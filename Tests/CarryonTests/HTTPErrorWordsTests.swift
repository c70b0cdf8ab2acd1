import AsyncHTTPClient
@testable import Carryon
import NIOCore
import NIOSSL
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// Every failure of the HTTP layer reaches a person in words: no library's type or case names,
/// no build paths (issue 38).
@Suite("HTTP errors in words")
struct HTTPErrorWordsTests {
    static let internals = ["HTTPClientError", "NIO", "BoringSSL", "/.build/", "Error.", "errno", "SingleConnectionFailure", "ChannelError"]

    @Test("each of AsyncHTTPClient's, NIO's and NIOSSL's errors a request can meet is described without a type name or a path; the permanent ones are not retried")
    func words() async throws {
        let errors: [any Error] = [
            HTTPClientError.invalidURL, HTTPClientError.emptyHost, HTTPClientError.alreadyShutdown, HTTPClientError.emptyScheme,
            HTTPClientError.unsupportedScheme("gopher"), HTTPClientError.readTimeout, HTTPClientError.remoteConnectionClosed,
            HTTPClientError.cancelled, HTTPClientError.identityCodingIncorrectlyPresent, HTTPClientError.chunkedSpecifiedMultipleTimes,
            HTTPClientError.invalidProxyResponse, HTTPClientError.contentLengthMissing, HTTPClientError.proxyAuthenticationRequired,
            HTTPClientError.redirectLimitReached, HTTPClientError.redirectCycleDetected, HTTPClientError.uncleanShutdown,
            HTTPClientError.traceRequestWithBody, HTTPClientError.invalidHeaderFieldNames(["a b"]), HTTPClientError.bodyLengthMismatch,
            HTTPClientError.writeAfterRequestSent, HTTPClientError.incompatibleHeaders, HTTPClientError.connectTimeout,
            HTTPClientError.socksHandshakeTimeout, HTTPClientError.httpProxyHandshakeTimeout, HTTPClientError.tlsHandshakeTimeout,
            HTTPClientError.serverOfferedUnsupportedApplicationProtocol("h3"), HTTPClientError.requestStreamCancelled,
            HTTPClientError.getConnectionFromPoolTimeout, HTTPClientError.deadlineExceeded,
            IOError(errnoCode: ECONNREFUSED, reason: "connect"), IOError(errnoCode: ECONNRESET, reason: "read"),
            ChannelError.ioOnClosedChannel, ChannelError.eof, ChannelError.connectTimeout(.seconds(10)),
            NIOSSLError.uncleanShutdown, NIOSSLError.handshakeFailed(.syscallError), NIOSSLError.noCertificateToValidate,
        ]
        let network = Network(client: PlaylistFetcher.sharedClient)
        for error in errors {
            let failure = await network.failure(error, url: "https://127.0.0.1:9/a.m3u8")
            #expect(!failure.text.isEmpty, "\(error)")
            for word in Self.internals {
                #expect(!failure.text.contains(word), "\(String(reflecting: error)) reads: \(failure.text)")
            }
        }
        #expect(await network.failure(HTTPClientError.invalidURL, url: "https://x/").isPermanent)
        #expect(await network.failure(IOError(errnoCode: ECONNREFUSED, reason: "connect"), url: "https://x/").isPermanent == false)
        #expect(PlaylistFetcher.words("HTTPClientError.invalidURL") == "invalid URL")
        #expect(PlaylistFetcher.words("HTTPClientError.getConnectionFromPoolTimeout") == "get connection from pool timeout")
    }
}
