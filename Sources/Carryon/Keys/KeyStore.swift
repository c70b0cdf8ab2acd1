import Crypto
import Foundation
import HLS

/// How long a content key may be used: an expiration date, and for rentals two windows — how
/// long it may wait for its first playback after it was stored, and how long it plays from
/// then on (FairPlay's dual-expiry rental, e.g. 30 days / 48 hours).
public struct KeyLifetime: Sendable, Hashable, Codable {
    /// The key expires at this date whatever happens.
    public var expiresAt: Date?
    /// Seconds after the key is stored until which playback may begin.
    public var rentalWindow: TimeInterval?
    /// Seconds the key plays for from its first playback.
    public var playbackWindow: TimeInterval?

    /// Creates a lifetime. A limit left nil does not apply, so `KeyLifetime()` never expires.
    public init(expiresAt: Date? = nil, rentalWindow: TimeInterval? = nil, playbackWindow: TimeInterval? = nil) {
        self.expiresAt = expiresAt
        self.rentalWindow = rentalWindow
        self.playbackWindow = playbackWindow
    }

    /// Checks that the library can keep this lifetime: an expiry within ``DateText/earliest``…
    /// ``DateText/latest``, windows of zero or more seconds, at most a hundred years.
    ///
    /// - Throws: ``CarryonError/Code/invalidValue`` naming the limit that is out of range.
    public func check() throws(CarryonError) {
        if let expiresAt { try DateText.check(expiresAt, naming: "the key expiry") }
        for (name, window) in [("rental window", rentalWindow), ("playback window", playbackWindow)] {
            guard let window else { continue }
            guard window.isFinite, window >= 0, window <= 100 * 366 * 86_400 else {
                throw CarryonError(.invalidValue, "the \(name) of \(window) seconds is not between 0 and 100 years")
            }
        }
    }
}

/// A content key as the library keeps it — everything but the key itself.
public struct ContentKeyInfo: Sendable, Hashable, Codable {
    /// The key's name in the bundle's playlists (`keys/k1`).
    public var id: String
    /// The id of the asset the key belongs to.
    public var assetID: String
    /// `AES-128`, `SAMPLE-AES`, `SAMPLE-AES-CTR`.
    public var method: String
    /// The key's `KEYFORMAT`: `identity` unless the playlist names another.
    public var keyFormat: String
    /// Where it came from; a `data:` URI is shown as `data:` only, as it holds the key.
    public var uri: String
    /// When the key was stored, or last renewed; ``KeyLifetime/rentalWindow`` counts from this
    /// date.
    public var storedAt: Date
    /// How long the key may be used; ``effectiveExpiry`` applies it.
    public var lifetime: KeyLifetime
    /// When a player first asked for it.
    public var firstPlayedAt: Date?
    /// The key was deleted: the asset does not play until the keys are renewed.
    public var isInvalidated: Bool

    /// When the key stops playing new sessions, given its first playback (nil: never).
    public var effectiveExpiry: Date? {
        var limits: [Date] = []
        if let expiresAt = lifetime.expiresAt { limits.append(expiresAt) }
        if let firstPlayedAt {
            if let window = lifetime.playbackWindow { limits.append(firstPlayedAt.addingTimeInterval(window)) }
        } else if let window = lifetime.rentalWindow {
            limits.append(storedAt.addingTimeInterval(window))
        }
        return limits.min()
    }

    /// Whether a playback session that began at `sessionStart` may have the key now. A
    /// session that began before the key expired plays to its end, as with FairPlay.
    public func isAvailable(at now: Date, sessionStartedAt sessionStart: Date? = nil) -> Bool {
        guard !isInvalidated else { return false }
        guard let expiry = effectiveExpiry else { return true }
        return min(now, sessionStart ?? now) < expiry
    }
}

/// The library's content keys, each sealed with AES-GCM under the library's ``MasterKey``
/// (with the asset and key ids as authenticated data, so a sealed key cannot be moved to
/// another asset). No key byte is written anywhere in clear: not in the index, a bundle, a log
/// or JSON output. Invalidating a key deletes it (SQLite's `secure_delete` overwrites it).
public struct KeyStore: Sendable {
    /// The library whose index holds the sealed keys.
    public let library: OfflineLibrary
    private let masterKey: MasterKey?

    /// A key store over `library`'s index.
    ///
    /// - Parameters:
    ///   - library: The library whose assets' keys it keeps.
    ///   - masterKey: A master key other than the library's (see ``OfflineLibrary/masterKey()``,
    ///     read only when a key is sealed or opened: listing and invalidating keys need none,
    ///     and work on a full disk).
    public init(library: OfflineLibrary, masterKey: MasterKey? = nil) {
        self.library = library
        self.masterKey = masterKey
    }

    /// The master key keys are sealed under.
    ///
    /// - Throws: ``CarryonError/Code/keys`` when the library's master key cannot be read or made.
    private func sealingKey() throws(CarryonError) -> MasterKey {
        if let masterKey { return masterKey }
        return try library.masterKey()
    }

    /// Keeps `key` as `keyID` of asset `assetID`, replacing a key of that id.
    public func store(_ key: [UInt8], id keyID: String, assetID: String, uri: String, method: String, keyFormat: String,
                      lifetime: KeyLifetime, now: Date = Date()) async throws(CarryonError) {
        try await store(key, id: keyID, assetID: assetID, uri: uri, method: method, keyFormat: keyFormat, lifetime: lifetime, now: now, fence: nil)
    }

    /// Keeps a key as ``store(_:id:assetID:uri:method:keyFormat:lifetime:now:)`` does; with
    /// `fence` (a run's), refused once another process has claimed the asset's download.
    func store(_ key: [UInt8], id keyID: String, assetID: String, uri: String, method: String, keyFormat: String,
               lifetime: KeyLifetime, now: Date = Date(), fence: Fence?) async throws(CarryonError) {
        try lifetime.check()
        let master = try sealingKey()
        let sealed: Data
        do {
            sealed = try AES.GCM.seal(key, using: master.key, authenticating: Self.context(assetID, keyID)).combined ?? Data()
        } catch {
            throw CarryonError(.keys, "cannot seal key \(keyID) of \(assetID): \(error)")
        }
        let info = ContentKeyInfo(id: keyID, assetID: assetID, method: method, keyFormat: keyFormat, uri: Self.shown(uri),
                                  storedAt: now, lifetime: lifetime, firstPlayedAt: nil, isInvalidated: false)
        try await library.index.storeKey(info, sealed: sealed, fence: fence)
    }

    /// The keys of an asset (of every asset when nil), without the keys themselves.
    public func keys(of assetID: String? = nil) async throws(CarryonError) -> [ContentKeyInfo] {
        try await library.index.keys(of: assetID)
    }

    /// The key `keyID` of asset `assetID` for a playback session that began at
    /// `sessionStartedAt`; its first playback is recorded.
    ///
    /// - Throws: ``CarryonError/Code/keys`` naming the key and why: unknown, invalidated, or
    ///   expired (with the date).
    public func key(_ keyID: String, of assetID: String, now: Date = Date(), sessionStartedAt: Date? = nil) async throws(CarryonError) -> [UInt8] {
        guard let found = try await library.index.sealedKey(keyID, of: assetID) else {
            throw CarryonError(.keys, "\(assetID) has no key \(keyID): it was never fetched")
        }
        let info = found.info
        if info.isInvalidated {
            throw CarryonError(.keys, "key \(keyID) of \(assetID) was invalidated; it must be fetched again")
        }
        guard info.isAvailable(at: now, sessionStartedAt: sessionStartedAt) else {
            let expiry = info.effectiveExpiry.map { ISO8601DateFormatter().string(from: $0) } ?? "-"
            throw CarryonError(.keys, "key \(keyID) of \(assetID) expired at \(expiry)")
        }
        guard let sealed = found.sealed else { throw CarryonError(.keys, "key \(keyID) of \(assetID) was invalidated") }
        let master = try sealingKey()
        let key: [UInt8]
        do {
            key = [UInt8](try AES.GCM.open(AES.GCM.SealedBox(combined: sealed), using: master.key,
                                           authenticating: Self.context(assetID, keyID)))
        } catch {
            throw CarryonError(.keys, "key \(keyID) of \(assetID) cannot be opened with this library's master key")
        }
        if info.firstPlayedAt == nil {
            try await library.index.recordFirstPlayback(ofKey: keyID, of: assetID, at: now)
        }
        return key
    }

    /// Changes the lifetime of every key of an asset.
    ///
    /// - Throws: ``CarryonError/Code/invalidValue`` when a limit is out of range (see ``KeyLifetime/check()``).
    public func setLifetime(_ lifetime: KeyLifetime, of assetID: String) async throws(CarryonError) {
        try lifetime.check()
        try await library.index.setKeyLifetime(lifetime, of: assetID)
    }

    /// Deletes the keys of an asset (they stay listed, invalidated): it no longer plays until
    /// they are renewed.
    public func invalidate(_ assetID: String) async throws(CarryonError) {
        try await library.index.invalidateKeys(of: assetID)
    }

    /// Forgets the keys of an asset entirely (its delete).
    public func remove(_ assetID: String) async throws(CarryonError) {
        try await library.index.removeKeys(of: assetID)
    }

    /// A playlist as fetched, with every `data:` key URI (which holds the key itself) replaced,
    /// for the copy kept in the bundle. Edited through the `HLS` model, so every other line stays
    /// as the origin sent it; text that does not read as a playlist is kept only without any
    /// `data:` in it.
    static func redactingDataKeys(in text: [UInt8]) -> [UInt8] {
        // Most playlists have no `data:` at all: found over the bytes, not with Foundation's
        // locale-aware search of the whole text (half a second for a million segments).
        guard mentionsData(text) else { return text }
        let unreadable = Array("#EXTM3U\n# removed by Carryon: it mentions data: and cannot be read as a playlist\n".utf8)
        guard var playlist = try? Playlist.parse(bytes: text).playlist else { return unreadable }
        for index in playlist.lines.indices {
            guard let tag = playlist.lines[index].tag, let uri = tag.uri, uri.lowercased().hasPrefix("data:") else { continue }
            switch tag {
            case .key, .sessionKey:
                playlist.lines[index].content = .tag(tag.naming("data:,removed-by-carryon-the-key-is-in-the-key-store"))
            default:
                continue
            }
        }
        guard let written = try? playlist.write() else { return unreadable }
        return Array(written.utf8)
    }

    /// Whether `text` holds `data:` in any case, found over its bytes (`| 0x20` folds ASCII
    /// letters to lower case and leaves `:` as it is; a false match only sends the text down
    /// the exact path).
    private static func mentionsData(_ text: [UInt8]) -> Bool {
        let pattern: [UInt8] = Array("data:".utf8)
        guard text.count >= pattern.count else { return false }
        for start in 0...(text.count - pattern.count) where text[start] | 0x20 == pattern[0] {
            var matches = true
            for offset in 1..<pattern.count where text[start + offset] | 0x20 != pattern[offset] {
                matches = false
                break
            }
            if matches { return true }
        }
        return false
    }

    static func context(_ assetID: String, _ keyID: String) -> Data {
        Data("carryon-content-key:\(assetID):\(keyID)".utf8)
    }

    /// A key URI as it may be written down: a `data:` URI carries the key itself.
    static func shown(_ uri: String) -> String {
        uri.lowercased().hasPrefix("data:") ? "data:" : uri
    }
}
