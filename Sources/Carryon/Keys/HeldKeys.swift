import Foundation

/// Content keys the user holds, each named by its key id (KID): what a packaging pipeline's
/// owner has for common-encryption streams (`cenc`, `cbcs`) that name no licence server, given as
/// `KID:KEY` the way `carryon download --key` and `--keys-file` take them.
///
/// A held key is used for every key of a stream with its KID — a DASH Representation's
/// `cenc:default_KID`, or for HLS fMP4 the KID its init section's `tenc` box names — before any
/// key server or ``ContentKeyProvider`` is asked, and checked against the first samples it
/// decrypts. Given to a session (``DownloadSession/hold(_:for:requiringUse:)``) it stays in
/// memory until the download's keys are obtained, then is sealed in the ``KeyStore`` with them;
/// it is never written in clear, and never shown: ``description`` names KIDs only.
public struct HeldKeys: Sendable, Hashable, CustomStringConvertible {
    /// The keys by KID (32 lower-case hexadecimal digits).
    public private(set) var keys: [String: [UInt8]] = [:]
    /// Where each was given (`key 2`, `keys.txt, line 4`), for errors: a KID is not repeated
    /// in one, as an entry typed `KEY:KID` would make it the key.
    private(set) var sources: [String: String] = [:]

    /// No keys.
    public init() {}

    /// The keys `entries` give, each `KID:KEY` (see ``add(_:from:)``).
    ///
    /// - Throws: ``CarryonError/Code/invalidValue`` naming the first entry that is not one.
    public init(_ entries: [String]) throws(CarryonError) {
        for (index, entry) in entries.enumerated() { try add(entry, from: "key \(index + 1)") }
    }

    /// Adds the key `entry` gives: `KID:KEY`, the KID as 32 hexadecimal digits with or without
    /// the dashes of a UUID (`00112233-4455-…`), the key as 32 hexadecimal digits; an optional
    /// `0x` before either. `source` names where it was read (`key 2`, `keys.txt, line 4`) in an
    /// error, which never repeats the key.
    ///
    /// - Throws: ``CarryonError/Code/invalidValue`` when `entry` is not `KID:KEY`, or gives a KID
    ///   twice with different keys.
    public mutating func add(_ entry: String, from source: String) throws(CarryonError) {
        let parts = entry.trimmingCharacters(in: .whitespaces).split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2 else {
            throw CarryonError(.invalidValue, "\(source) is not KID:KEY (the key id and the key in hexadecimal, separated by a colon)")
        }
        guard let keyID = Self.keyID(String(parts[0])) else {
            throw CarryonError(.invalidValue, "\(source): the KID is not 16 bytes in hexadecimal (32 digits, dashes allowed)")
        }
        guard let key = Hex.bytes(String(parts[1]).trimmingCharacters(in: .whitespaces)), key.count == 16 else {
            throw CarryonError(.invalidValue, "\(source): the key is not 16 bytes in hexadecimal (32 digits)")
        }
        if let known = keys[keyID], known != key {
            throw CarryonError(.invalidValue, "\(source) gives the KID of \(sources[keyID] ?? "another entry") a different key")
        }
        keys[keyID] = key
        sources[keyID] = sources[keyID] ?? source
    }

    /// Adds the keys of a keys file's `text`: one `KID:KEY` a line; blank lines and `#` comments
    /// (whole lines, or after a key) are skipped. `name` names the file in errors.
    public mutating func add(fileText text: String, name: String) throws(CarryonError) {
        for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let content = line.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false)[0]
                .trimmingCharacters(in: .whitespacesAndNewlines)
            guard !content.isEmpty else { continue }
            try add(content, from: "\(name), line \(number + 1)")
        }
    }

    /// The keys of the file at `url` (see ``add(fileText:name:)``).
    ///
    /// - Throws: ``CarryonError/Code/invalidValue`` when it cannot be read or a line is not a key.
    public static func read(file url: URL) throws(CarryonError) -> HeldKeys {
        let text: String
        do {
            text = try String(contentsOf: url, encoding: .utf8)
        } catch {
            throw CarryonError(.invalidValue, "the keys file \(url.path) cannot be read: \((error as NSError).localizedDescription)")
        }
        var keys = HeldKeys()
        try keys.add(fileText: text, name: url.path)
        return keys
    }

    /// Holds `key` for `keyID` (32 lower-case hexadecimal digits), as read back from the key store.
    mutating func insert(_ key: [UInt8], keyID: String, source: String) {
        keys[keyID] = key
        sources[keyID] = source
    }

    /// Where the key for `keyID` was given (`key 2`), for an error that must not repeat it.
    func source(of keyID: String) -> String {
        sources[keyID] ?? "a key given"
    }

    /// These keys and `other`'s.
    ///
    /// - Throws: ``CarryonError/Code/invalidValue`` when both give a KID different keys.
    public func merging(_ other: HeldKeys) throws(CarryonError) -> HeldKeys {
        var merged = self
        for (keyID, key) in other.keys {
            if let known = merged.keys[keyID], known != key {
                throw CarryonError(.invalidValue, "\(other.source(of: keyID)) gives the KID of \(merged.source(of: keyID)) a different key")
            }
            merged.keys[keyID] = key
            merged.sources[keyID] = merged.sources[keyID] ?? other.sources[keyID]
        }
        return merged
    }

    /// These keys, with `other`'s where both give a KID: keys given now over keys kept.
    func overridden(by other: HeldKeys) -> HeldKeys {
        var merged = self
        for (keyID, key) in other.keys {
            merged.keys[keyID] = key
            merged.sources[keyID] = other.sources[keyID]
        }
        return merged
    }

    /// The KIDs, sorted.
    public var keyIDs: [String] { keys.keys.sorted() }

    /// No key is held.
    public var isEmpty: Bool { keys.isEmpty }

    /// The KIDs only: a key is never shown.
    public var description: String {
        keys.isEmpty ? "no keys" : "\(keys.count) key\(keys.count == 1 ? "" : "s") (KID \(keyIDs.joined(separator: ", ")))"
    }

    /// A KID as 32 lower-case hexadecimal digits: from a UUID (`00112233-4455-…`), plain hex, or
    /// `0x` hex; nil when it is not 16 bytes.
    public static func keyID(_ text: String) -> String? {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        let hex = trimmed.hasPrefix("0x") || trimmed.hasPrefix("0X") ? String(trimmed.dropFirst(2)) : trimmed
        guard let bytes = Hex.bytes(hex.filter { $0 != "-" }), bytes.count == 16 else { return nil }
        return Hex.text(bytes)
    }
}
