import Foundation
import HLS

/// A content key Carryon cannot fetch by itself, asked of app code — the same request whatever
/// the manifest format: HLS names a key by its `EXT-X-KEY` URI, MPEG-DASH by the key id (KID)
/// of a `ContentProtection` element.
public struct ContentKeyRequest: Sendable, Hashable {
    /// The id of the asset the key is for.
    public var assetID: String
    /// Where the key is named: the `EXT-X-KEY` URI made absolute (`skd://…`, `myscheme://…`), or
    /// a DASH licence server's URL (`dashif:Laurl`).
    public var uri: String
    /// The encryption scheme: `AES-128`, `SAMPLE-AES` or `SAMPLE-AES-CTR` (HLS's `METHOD`);
    /// `cenc` or `cbcs` (DASH's common encryption).
    public var method: String
    /// The key system: HLS's `KEYFORMAT` (`identity` when the tag has none), or DASH's
    /// `ContentProtection@schemeIdUri` (`urn:uuid:e2719d58-a985-b3c9-781a-b030af78d30e` for ClearKey).
    public var keyFormat: String
    /// HLS's `KEYFORMATVERSIONS` (`1/2/5`), or nil.
    public var keyFormatVersions: String?
    /// The key id (KID) as 32 lower-case hexadecimal digits: DASH's `cenc:default_KID`; nil for
    /// HLS, whose keys are named by ``uri``.
    public var keyID: String?
    /// The key system's initialization data (DASH's `cenc:pssh` box), or nil.
    public var initData: [UInt8]?

    /// A request for the key of asset `assetID` that `uri` names (see the properties).
    public init(assetID: String, uri: String, method: String, keyFormat: String = "identity", keyFormatVersions: String? = nil,
                keyID: String? = nil, initData: [UInt8]? = nil) {
        self.assetID = assetID
        self.uri = uri
        self.method = method
        self.keyFormat = keyFormat
        self.keyFormatVersions = keyFormatVersions
        self.keyID = keyID
        self.initData = initData
    }
}

/// A key app code supplies: its 16 bytes, and a lifetime when the key server says how long it
/// may be used (else the download's own lifetime applies).
public struct ContentKeyResponse: Sendable {
    /// The key's 16 bytes. A key of any other length fails the download with
    /// ``CarryonError/Code/keys``.
    public var key: [UInt8]
    /// How long the key may be used, as the key server says. Nil: the lifetime given to
    /// ``DownloadSession/renewKeys(_:lifetime:onlyMissing:)``, else the session's
    /// ``DownloadSession/Configuration/keyLifetime``.
    public var lifetime: KeyLifetime?
    /// Where Carryon had it from when not where the key's URI says (a licence server given for
    /// the download): what the key store lists.
    var source: String?

    /// Creates a response with the key's bytes and, optionally, the lifetime the key server
    /// gives it.
    public init(key: [UInt8], lifetime: KeyLifetime? = nil) {
        self.key = key
        self.lifetime = lifetime
    }
}

/// Supplies content keys for a URI scheme or a `KEYFORMAT` that Carryon does not fetch itself:
/// the counterpart of AVAssetResourceLoaderDelegate and AVContentKeySessionDelegate. Register
/// one with ``DownloadSession/Configuration/keyProviders``, by scheme (`skd`) or by key format
/// (`com.example.drm`).
///
/// ```swift
/// struct LicenseServer: ContentKeyProvider {
///     func key(for request: ContentKeyRequest) async throws -> ContentKeyResponse {
///         let key = try await myLicenseClient.fetchKey(request.uri)
///         return ContentKeyResponse(key: key, lifetime: KeyLifetime(rentalWindow: 30 * 86_400, playbackWindow: 48 * 3_600))
///     }
/// }
/// var configuration = DownloadSession.Configuration()
/// configuration.keyProviders = ["skd": LicenseServer()]
/// ```
public protocol ContentKeyProvider: Sendable {
    /// Returns the key `request` names.
    ///
    /// Carryon calls it once for each key an asset needs, one key at a time, whenever a task reads
    /// its playlists (unless ``DownloadSession/Configuration/prefetchKeys`` is off) and from
    /// ``DownloadSession/renewKeys(_:lifetime:onlyMissing:)``. Every key of the asset is obtained
    /// before any is stored, and the returned key is sealed in the ``KeyStore``, never written in
    /// clear.
    ///
    /// - Throws: Any error, which fails the task (or the renewal) before any media is fetched: a
    ///   ``CarryonError`` as it is, any other error as a ``CarryonError/Code/keys`` error that names
    ///   the scheme and the key.
    func key(for request: ContentKeyRequest) async throws -> ContentKeyResponse
}

/// Obtains the content keys a plan names: http(s) keys with the task's headers and retries,
/// `data:` keys from the URI itself, W3C Clear Key keys from their licence server
/// (`ClearKeyLicense`), any other scheme or key system from a ``ContentKeyProvider``.
struct ContentKeyFetcher: Sendable {
    let fetcher: PlaylistFetcher
    let providers: [String: any ContentKeyProvider]
    /// A Clear Key licence server for DASH keys whose MPD names none (`--license-url`).
    var licenseURL: String? = nil

    func key(_ key: DownloadPlan.PlannedKey, assetID: String) async throws(CarryonError) -> ContentKeyResponse {
        let scheme = (URIReference.scheme(of: key.uri) ?? "").lowercased()
        let response: ContentKeyResponse
        // A DASH key of a system nothing here opens, or Clear Key with no licence URL: the
        // licence server given for the download, if any.
        let provider = providers[scheme] ?? providers[key.keyFormat]
        let givenLicense = key.isDASH && provider == nil && (key.keyFormat != ClearKeyLicense.keyFormat || !["http", "https", "file"].contains(scheme))
            ? licenseURL : nil
        if let provider {
            let request = ContentKeyRequest(assetID: assetID, uri: key.uri, method: key.method, keyFormat: key.keyFormat,
                                            keyFormatVersions: key.keyFormatVersions, keyID: key.keyID, initData: key.initData)
            do {
                response = try await provider.key(for: request)
            } catch let error as CarryonError {
                throw error
            } catch {
                let named = key.isDASH ? "KID \(key.keyID ?? "?") (ContentProtection \(key.keyFormat))" : "key \(key.id) (KEYFORMAT \(key.keyFormat))"
                throw CarryonError(.keys, "the key provider for \(key.isDASH ? key.keyFormat : scheme + ":") failed for \(named): \(error)")
            }
        } else if let licenseURL = givenLicense ?? (key.keyFormat == ClearKeyLicense.keyFormat && ["http", "https", "file"].contains(scheme) ? key.uri : nil),
                  let keyID = key.keyID.flatMap(ClearKeyLicense.keyID) {
            // W3C Clear Key: the licence asked for with the task's headers and retries.
            let licenseScheme = (URIReference.scheme(of: licenseURL) ?? "").lowercased()
            do {
                let post = PlaylistFetcher.Post(body: ClearKeyLicense.request(for: [keyID]), contentType: "application/json")
                let license = try await fetcher.fetchBytes(licenseURL, post: licenseScheme == "file" ? nil : post).1
                var licensed = ContentKeyResponse(key: try ClearKeyLicense.key(for: keyID, in: license, from: licenseURL))
                licensed.source = licenseURL
                response = licensed
            } catch {
                if error.code == .cancelled || error.code == .refusedLocation || error.code == .keys { throw error }
                throw CarryonError(.keys, "the Clear Key licence for KID \(key.keyID ?? "") cannot be had from \(licenseURL), so nothing was downloaded: \(error.message)",
                                   cause: error)
            }
        } else if key.isDASH {
            throw KeySystems.refusal(key)
        } else if key.keyFormat != "identity" {
            throw KeySystems.refusal(key)
        } else if scheme == "http" || scheme == "https" || scheme == "file" {
            // A file: key comes only from a playlist read from disk (HLSPlanner checks).
            do {
                response = ContentKeyResponse(key: try await fetcher.fetchBytes(key.uri).1)
            } catch {
                if error.code == .cancelled || error.code == .refusedLocation { throw error }
                throw CarryonError(.keys, "key \(key.id) (METHOD=\(key.method)) cannot be fetched, so nothing was downloaded: \(error.message)",
                                   cause: error)
            }
        } else if scheme == "data" {
            guard let bytes = Self.decodeDataURI(key.uri) else {
                throw CarryonError(.keys, "key \(key.id) is a data: URI that cannot be decoded")
            }
            response = ContentKeyResponse(key: bytes)
        } else {
            throw KeySystems.refusal(key)
        }
        guard response.key.count == 16 else {
            let named = key.isDASH ? "the key of KID \(key.keyID ?? "?")" : "key \(key.id) (METHOD=\(key.method))"
            throw CarryonError(.keys, "\(named) is \(response.key.count) bytes, not 16")
        }
        return response
    }

    /// The bytes of a `data:` URI (RFC 2397): base64 with `;base64`, else percent-encoded.
    static func decodeDataURI(_ uri: String) -> [UInt8]? {
        guard let comma = uri.firstIndex(of: ",") else { return nil }
        let header = uri[uri.index(uri.startIndex, offsetBy: 5)..<comma].lowercased()
        let payload = String(uri[uri.index(after: comma)...])
        if header.hasSuffix(";base64") {
            return Data(base64Encoded: payload.removingPercentEncoding ?? payload).map { [UInt8]($0) }
        }
        return payload.removingPercentEncoding.map { Array($0.utf8) }
    }
}
