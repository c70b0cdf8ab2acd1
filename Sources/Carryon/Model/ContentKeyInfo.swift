import Foundation

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
