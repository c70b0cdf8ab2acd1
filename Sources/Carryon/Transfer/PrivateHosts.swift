import Foundation
import NIOCore
#if canImport(Glibc)
import Glibc
#endif

/// Which hosts reach only this machine or its link: loopback (`127.0.0.0/8`, `::1`), the
/// unspecified address (`0.0.0.0/8`, `::`, which connects to this machine), link-local
/// (`169.254.0.0/16` — the cloud metadata service at `169.254.169.254` — and `fe80::/10`), the
/// same as IPv4-mapped IPv6, and every address of this machine's interfaces.
///
/// A daemon that serves a network must not fetch such hosts for whoever reaches its API: it
/// would make requests on the caller's behalf to services that trust this machine
/// (server-side request forgery). A name is resolved as the client will resolve it
/// (`getaddrinfo`, so `2130706433`, `0x7f.1` and `[::ffff:127.0.0.1]` are seen for what they
/// are), and refused when any of its addresses is private. Verdicts are kept for a minute, so
/// that checking every segment of a long stream costs one lookup per host.
enum PrivateHosts {
    /// Why `host` (a name or an address, IPv6 in brackets or not) is private — the address and
    /// what it is — or nil when none of its addresses is.
    static func reason(for host: String) -> String? {
        let name = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        let now = ContinuousClock.now
        if let kept = verdicts.withLock({ $0[name.lowercased()] }), now - kept.at < .seconds(60) { return kept.reason }
        let reason = classify(name)
        verdicts.withLock { verdicts in
            if verdicts.count > 4_096 { verdicts.removeAll() }
            verdicts[name.lowercased()] = (reason, now)
        }
        return reason
    }

    private static let verdicts = Locked<[String: (reason: String?, at: ContinuousClock.Instant)]>([:])

    private static func classify(_ name: String) -> String? {
        let own = ownAddresses()
        for address in resolve(name) {
            if let what = kind(of: address) { return "\(address.text), \(what)" }
            if own.contains(address.bytes) { return "\(address.text), an address of this machine" }
        }
        return nil
    }

    /// Why the address a connection reached is private (what it is), or nil when it is not:
    /// the check made when the connection is up, before a request is sent on it, so that a name
    /// that resolved to a public address when its location was checked and to a private one
    /// when the client connected (DNS rebinding) reaches nothing.
    static func reason(forConnectedAddress bytes: [UInt8]) -> String? {
        guard bytes.count == 4 || bytes.count == 16 else { return nil }
        let address = address(bytes, family: bytes.count == 4 ? AF_INET : AF_INET6)
        if let what = kind(of: address) { return "\(address.text), \(what)" }
        let mapped = bytes.count == 16 && bytes[0..<10].allSatisfy { $0 == 0 } && bytes[10] == 0xFF && bytes[11] == 0xFF
        if ownAddresses().contains(mapped ? Array(bytes[12...]) : bytes) { return "\(address.text), an address of this machine" }
        return nil
    }

    /// Why the peer a connection reached is private, as ``reason(forConnectedAddress:)``;
    /// a peer that cannot be told (none, or a Unix socket) is refused as such.
    static func reason(forPeer peer: SocketAddress?) -> String? {
        let bytes: [UInt8]? = switch peer {
        case .v4(let address): withUnsafeBytes(of: address.address.sin_addr) { Array($0) }
        case .v6(let address): withUnsafeBytes(of: address.address.sin6_addr) { Array($0) }
        case .unixDomainSocket, nil: nil
        }
        guard let bytes else { return "an address that cannot be told" }
        return reason(forConnectedAddress: bytes)
    }

    /// An address as bytes (4 for IPv4, 16 for IPv6) and as text.
    struct Address: Hashable {
        var bytes: [UInt8]
        var text: String
    }

    /// What kind of private address `address` is, or nil.
    static func kind(of address: Address) -> String? {
        let bytes = address.bytes
        if bytes.count == 16 {
            if bytes[0..<10].allSatisfy({ $0 == 0 }) && bytes[10] == 0xFF && bytes[11] == 0xFF {
                return kind(of: Address(bytes: Array(bytes[12...]), text: address.text))
            }
            if bytes[0..<15].allSatisfy({ $0 == 0 }) { return bytes[15] == 1 ? "this machine's loopback" : "the unspecified address (this machine)" }
            if bytes[0] == 0xFE && bytes[1] & 0xC0 == 0x80 { return "a link-local address" }
            return nil
        }
        switch bytes[0] {
        case 127: return "this machine's loopback"
        case 0: return "the unspecified address (this machine)"
        case 169 where bytes[1] == 254: return "a link-local address (cloud metadata services live here)"
        default: return nil
        }
    }

    /// The addresses `name` resolves to, as a client connecting to it would find them.
    static func resolve(_ name: String) -> [Address] {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(name, nil, &hints, &list) == 0, let first = list else { return [] }
        defer { freeaddrinfo(first) }
        var addresses: [Address] = []
        var entry: UnsafeMutablePointer<addrinfo>? = first
        while let current = entry {
            if let address = current.pointee.ai_addr.flatMap(Self.address) { addresses.append(address) }
            entry = current.pointee.ai_next
        }
        return addresses
    }

    /// Every address of this machine's interfaces.
    static func ownAddresses() -> Set<[UInt8]> {
        var list: UnsafeMutablePointer<ifaddrs>?
        guard getifaddrs(&list) == 0, let first = list else { return [] }
        defer { freeifaddrs(first) }
        var addresses: Set<[UInt8]> = []
        var entry: UnsafeMutablePointer<ifaddrs>? = first
        while let current = entry {
            if let address = current.pointee.ifa_addr.flatMap(Self.address) { addresses.insert(address.bytes) }
            entry = current.pointee.ifa_next
        }
        return addresses
    }

    private static func address(_ pointer: UnsafeMutablePointer<sockaddr>) -> Address? {
        switch Int32(pointer.pointee.sa_family) {
        case AF_INET:
            let bytes = pointer.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { withUnsafeBytes(of: $0.pointee.sin_addr) { Array($0) } }
            return address(bytes, family: AF_INET)
        case AF_INET6:
            let bytes = pointer.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { withUnsafeBytes(of: $0.pointee.sin6_addr) { Array($0) } }
            return address(bytes, family: AF_INET6)
        default:
            return nil
        }
    }

    /// The address of `bytes` (4 for `AF_INET`, 16 for `AF_INET6`), with its text.
    private static func address(_ bytes: [UInt8], family: Int32) -> Address {
        var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        _ = bytes.withUnsafeBytes { inet_ntop(family, $0.baseAddress, &text, socklen_t(text.count)) }
        let end = text.firstIndex(of: 0) ?? text.count
        return Address(bytes: bytes, text: String(decoding: text[..<end].map { UInt8(bitPattern: $0) }, as: UTF8.self))
    }
}
