import AsyncHTTPClient
import Foundation
import NIOCore
import NIOPosix

/// A failed request's error in words, for the messages people read: no library type names,
/// no build paths. ``Network`` adds what it knows of TLS and proxies (`Network+Failures.swift`).
extension PlaylistFetcher {
    /// Whether a failed request would fail again however often it is retried: a redirect chain
    /// too long or looping, or a URL or scheme the client cannot use.
    static func isPermanent(_ error: any Error) -> Bool {
        guard let error = error as? HTTPClientError else { return false }
        let permanent: [HTTPClientError] = [.redirectLimitReached, .redirectCycleDetected, .invalidURL, .emptyHost,
                                            .emptyScheme, .missingSocketPath]
        return permanent.contains(error)
    }

    /// `HTTPClientError.invalidURL` → "invalid URL": a library's case name in words, without the
    /// type's name (what an error message shows a person).
    static func words(_ description: String) -> String {
        let name = description.split(separator: ".").last.map(String.init) ?? description
        var words = ""
        var previousUpper = false
        for character in name {
            if character.isUppercase, !words.isEmpty, !previousUpper { words += " " }
            previousUpper = character.isUppercase
            words.append(character)
        }
        // Acronyms stay as they are (URL, TLS, HTTP); other words are lower case.
        return words.split(separator: " ").map { $0.count > 1 && $0.allSatisfy(\.isUppercase) ? String($0) : $0.lowercased() }
            .joined(separator: " ")
    }

    /// `error` in words: what a request's failure message says (``Network`` adds TLS and proxies).
    static func describe(_ error: any Error) -> String {
        if let error = error as? HTTPClientError {
            switch error {
            case .connectTimeout: return "the connection timed out"
            case .deadlineExceeded, .readTimeout: return "the request timed out"
            case .redirectLimitReached: return "too many redirects"
            case .redirectCycleDetected: return "a redirect loop"
            case .remoteConnectionClosed: return "the server closed the connection"
            case .tlsHandshakeTimeout: return "the TLS handshake timed out"
            default: return words(String(describing: error))
            }
        }
        if let error = error as? IOError {
            // NIO's description repeats its own reason ("connection reset (error set)") around
            // the system's; the system's says what happened.
            return String(cString: strerror(error.errnoCode)).lowercased()
        }
        if let error = error as? NIOConnectionError {
            // Its description lists NIO's own structures ("Connection errors:
            // SingleConnectionFailure(target: [IPv4]…"): say what the first attempt met.
            if error.dnsAError != nil || error.dnsAAAAError != nil { return "\(error.host) could not be resolved (no such host?)" }
            let causes = error.connectionErrors.map { describe($0.error) }
            return causes.first.map { "\($0) (\(error.host):\(error.port))" } ?? "could not connect to \(error.host):\(error.port)"
        }
        if error is ChannelError { return words(String(describing: error)) }
        return String(describing: error)
    }
}
