import Crypto
import Foundation
import HLS

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
        let key = try open(found, keyID, of: assetID)
        if info.firstPlayedAt == nil {
            try await library.index.recordFirstPlayback(ofKey: keyID, of: assetID, at: now)
        }
        return key
    }

    private func open(_ found: SealedKey, _ keyID: String, of assetID: String) throws(CarryonError) -> [UInt8] {
        guard let sealed = found.sealed else { throw CarryonError(.keys, "key \(keyID) of \(assetID) was invalidated") }
        let master = try sealingKey()
        do {
            return [UInt8](try AES.GCM.open(AES.GCM.SealedBox(combined: sealed), using: master.key,
                                            authenticating: Self.context(assetID, keyID)))
        } catch {
            throw CarryonError(.keys, "key \(keyID) of \(assetID) cannot be opened with this library's master key")
        }
    }

    // MARK: Keys the user holds

    /// The URI a key the user holds is listed with: it came from no server.
    public static let heldURI = "held:"

    /// Keeps `keys`, which the user holds, for asset `assetID`: each sealed as `kid-<KID>`
    /// (listed with the URI ``heldURI``), used by its downloads, renewals and added media
    /// selections for any key with that KID. What ``DownloadSession/hold(_:for:requiringUse:)`` does once a
    /// download found the keys right; for a download another process runs (the fleet's queue).
    public func hold(_ keys: HeldKeys, for assetID: String, lifetime: KeyLifetime) async throws(CarryonError) {
        for (keyID, key) in keys.keys.sorted(by: { $0.key < $1.key }) {
            try await store(key, id: "kid-" + keyID, assetID: assetID, uri: Self.heldURI, method: "common encryption",
                            keyFormat: "held", lifetime: lifetime)
        }
    }

    /// The keys the user holds for asset `assetID` (see ``hold(_:for:lifetime:)``), invalidated
    /// ones left out.
    public func heldKeys(of assetID: String) async throws(CarryonError) -> HeldKeys {
        var held = HeldKeys()
        for info in try await library.index.keys(of: assetID)
        where info.uri == Self.heldURI && !info.isInvalidated && info.id.hasPrefix("kid-") {
            guard let found = try await library.index.sealedKey(info.id, of: assetID) else { continue }
            let key = try open(found, info.id, of: assetID)
            held.insert(key, keyID: String(info.id.dropFirst(4)), source: "the key kept as \(info.id)")
        }
        return held
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

    static func context(_ assetID: String, _ keyID: String) -> Data {
        Data("carryon-content-key:\(assetID):\(keyID)".utf8)
    }

    /// A key URI as it may be written down: a `data:` URI carries the key itself.
    static func shown(_ uri: String) -> String {
        uri.lowercased().hasPrefix("data:") ? "data:" : uri
    }
}
