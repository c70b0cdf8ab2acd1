import DASH
import Foundation
import HLS

/// The content key an encrypted Representation needs, from its `ContentProtection` elements:
/// its KID (`cenc:default_KID`) and the key system to ask — W3C Clear Key when the MPD names it
/// (its licence URL, `dashif:Laurl` or `clearkey:Laurl`), else the first DRM system it names
/// (`urn:uuid:…`, with its `cenc:pssh`), asked through the app's ``ContentKeyProvider``
/// registered for that URN; without one the download fails before any media, naming it.
enum DASHKeys {
    /// The key `protections` call for, or nil when there are none (the Representation is clear).
    static func key(for protections: [ContentProtection], mpdURL: String, line: Int,
                    representation: String) throws(CarryonError) -> DownloadPlan.PlannedKey? {
        guard !protections.isEmpty else { return nil }
        let scheme = protections.first { $0.schemeIdUri == ContentProtection.mp4Protection }
        guard let keyID = protections.lazy.compactMap(\.defaultKID).first else {
            throw CarryonError(.unsupported, "\(mpdURL), line \(line): Representation \(representation) is encrypted but names no cenc:default_KID, so the key to ask for is unknown")
        }
        guard ClearKeyLicense.keyID(keyID) != nil else {
            throw CarryonError(.unsupported, "\(mpdURL), line \(line): the cenc:default_KID \"\(keyID)\" of Representation \(representation) is not a 16-byte key id (a UUID)")
        }
        let method = scheme?.value ?? "cenc"
        if let clearKey = protections.first(where: { $0.schemeIdUri == ContentProtection.clearKey })
            ?? protections.first(where: { $0.licenseURL != nil }) {
            let uri = clearKey.licenseURL.map { URIReference.resolve($0, against: mpdURL) } ?? ContentProtection.clearKey
            return DownloadPlan.PlannedKey(id: "", uri: uri, method: method, keyFormat: ClearKeyLicense.keyFormat, keyFormatVersions: nil,
                                           keyID: keyID, namedBy: "Representation \(representation) (\(mpdURL), line \(line))", isDASH: true)
        }
        let system = protections.first { $0.schemeIdUri.hasPrefix("urn:uuid:") } ?? scheme ?? protections[0]
        return DownloadPlan.PlannedKey(id: "", uri: system.schemeIdUri, method: method, keyFormat: system.schemeIdUri,
                                       keyFormatVersions: nil, keyID: keyID,
                                       initData: system.pssh.flatMap { Data(base64Encoded: $0) }.map { [UInt8]($0) },
                                       namedBy: "Representation \(representation) (\(mpdURL), line \(line))", isDASH: true)
    }
}
