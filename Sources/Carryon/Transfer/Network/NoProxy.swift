import Foundation

/// The hosts reached without a proxy, read as curl reads `NO_PROXY`: a comma-separated list
/// (spaces ignored) of
///
/// - `*`: every host;
/// - a host name, which matches itself and every name under it (`example.com` and a leading-dot
///   `.example.com` both match `example.com` and `cdn.example.com`, not `badexample.com`);
/// - an IP address (IPv6 with or without brackets), which matches that address only;
/// - a CIDR range (`10.0.0.0/8`, `fd00::/8`), which matches the addresses in it.
///
/// Names are compared without case and without a trailing dot; a `:port` after a name is
/// ignored, as curl ignores it. Only the URL's host is compared: a name is not resolved.
public struct NoProxy: Sendable, Hashable {
    private enum Entry: Hashable {
        case everything
        case name(String)
        case network(address: [UInt8], prefix: Int)
    }

    private let entries: [Entry]

    /// The list `text` (`NO_PROXY`'s value).
    public init(_ text: String) {
        entries = text.split(separator: ",").compactMap { piece in
            var entry = piece.trimmingCharacters(in: .whitespaces).lowercased()
            if entry == "*" { return .everything }
            if let slash = entry.firstIndex(of: "/") {
                let prefix = Int(entry[entry.index(after: slash)...])
                let address = Self.address(String(entry[..<slash]))
                guard let prefix, let address, (0...address.count * 8).contains(prefix) else { return nil }
                return .network(address: address, prefix: prefix)
            }
            if let address = Self.address(entry) { return .network(address: address, prefix: address.count * 8) }
            // host:port → host (an IPv6 address without brackets was matched above).
            if let colon = entry.lastIndex(of: ":"), !entry[..<colon].contains(":") { entry = String(entry[..<colon]) }
            while entry.hasPrefix(".") { entry.removeFirst() }
            while entry.hasSuffix(".") { entry.removeLast() }
            return entry.isEmpty ? nil : .name(entry)
        }
    }

    /// Whether `host` (a URL's host, an IPv6 address with or without brackets) is reached
    /// without a proxy.
    public func matches(_ host: String) -> Bool {
        var name = host.lowercased()
        if name.hasPrefix("["), name.hasSuffix("]") { name = String(name.dropFirst().dropLast()) }
        while name.hasSuffix(".") { name.removeLast() }
        let address = Self.address(name)
        return entries.contains { entry in
            switch entry {
            case .everything:
                return true
            case .name(let suffix):
                return address == nil && (name == suffix || name.hasSuffix("." + suffix))
            case .network(let network, let prefix):
                guard let address, address.count == network.count else { return false }
                return Self.prefix(of: address, prefix) == Self.prefix(of: network, prefix)
            }
        }
    }

    /// The bytes of an IPv4 or IPv6 address written as text (brackets allowed), or nil.
    static func address(_ text: String) -> [UInt8]? {
        var text = text
        if text.hasPrefix("["), text.hasSuffix("]") { text = String(text.dropFirst().dropLast()) }
        var v4 = in_addr()
        if inet_pton(AF_INET, text, &v4) == 1 { return withUnsafeBytes(of: &v4) { Array($0) } }
        var v6 = in6_addr()
        if inet_pton(AF_INET6, text, &v6) == 1 { return withUnsafeBytes(of: &v6) { Array($0) } }
        return nil
    }

    /// The first `bits` bits of `address`, the rest zero.
    private static func prefix(of address: [UInt8], _ bits: Int) -> [UInt8] {
        address.enumerated().map { index, byte in
            let kept = max(0, min(8, bits - index * 8))
            return kept == 8 ? byte : byte & UInt8(truncatingIfNeeded: 0xFF << (8 - kept))
        }
    }
}
