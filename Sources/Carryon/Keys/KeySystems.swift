/// The key systems streams name, in their own terms: a DASH `ContentProtection@schemeIdUri`
import HLS
/// (`urn:uuid:` and the DASH-IF system id) or an HLS `KEYFORMAT`, with the name people know it
/// by, for errors that say which system a stream needs.
enum KeySystems {
    /// System ids (DASH-IF's registry of `urn:uuid:` values) and HLS `KEYFORMAT`s, by name.
    static let names: [String: String] = [
        "urn:uuid:edef8ba9-79d6-4ace-a3c8-27dcd51d21ed": "Widevine",
        "com.widevine": "Widevine",
        "urn:uuid:9a04f079-9840-4286-ab92-e65be0885f95": "PlayReady",
        "urn:uuid:79f0049a-4098-8642-ab92-e65be0885f95": "PlayReady",
        "com.microsoft.playready": "PlayReady",
        "urn:uuid:94ce86fb-07ff-4f43-adb8-93d2fa968ca2": "FairPlay",
        "com.apple.streamingkeydelivery": "FairPlay",
        "urn:uuid:1077efec-c0b2-4d02-ace3-3c1e52e2fb4b": "the W3C common system",
        "urn:uuid:e2719d58-a985-b3c9-781a-b030af78d30e": "Clear Key",
        "org.w3.clearkey": "Clear Key",
        "urn:uuid:f239e769-efa3-4850-9c16-a903c6932efb": "Adobe Primetime",
        "urn:uuid:5e629af5-38da-4063-8977-97ffbd9902d4": "Marlin",
        "urn:uuid:3d5e6d35-9b9a-41e8-b843-dd3c6e72c42c": "ChinaDRM",
        "urn:uuid:644fe7b5-5eb7-4ab8-8b8e-7b6e5c7f5c2a": "Verimatrix",
    ]

    /// The name of the system `format` names, if it is a known one.
    static func name(of format: String) -> String? {
        names[format.lowercased()]
    }

    /// The error for `key`, which nothing Carryon was given can open: the system named in the
    /// stream's terms, and what would open it.
    static func refusal(_ key: DownloadPlan.PlannedKey) -> CarryonError {
        let name = name(of: key.keyFormat)
        let where_ = key.namedBy.map { " (\($0))" } ?? ""
        if key.isDASH {
            let kid = key.keyID.flatMap(HeldKeys.keyID) ?? "?"
            let system = name.map { "\($0) (ContentProtection schemeIdUri=\"\(key.keyFormat)\")" }
                ?? "ContentProtection schemeIdUri=\"\(key.keyFormat)\""
            let reason = name == nil || name == "Clear Key" || key.keyFormat.lowercased() == "urn:uuid:1077efec-c0b2-4d02-ace3-3c1e52e2fb4b"
                ? "which names no Clear Key licence server (dashif:Laurl)"
                : "which Carryon cannot open"
            return CarryonError(.keySystem, "the key of KID \(kid)\(where_) comes from \(system), \(reason); nothing was downloaded. "
                + "If you hold it: --key \(kid):KEY; a Clear Key licence server: --license-url URL; an app: a ContentKeyProvider for \(key.keyFormat)")
        }
        let system = name.map { "\($0) (KEYFORMAT=\"\(key.keyFormat)\")" } ?? "KEYFORMAT=\"\(key.keyFormat)\""
        let scheme = URIReference.scheme(of: key.uri).map { "\($0):" } ?? key.uri
        return CarryonError(.keySystem, "the key \(key.uri.lowercased().hasPrefix("data:") ? "data:" : key.uri)\(where_) (METHOD=\(key.method)) comes from \(system), "
            + "which Carryon cannot open (its URI scheme \(scheme) is not fetched); nothing was downloaded. "
            + "If you hold it (SAMPLE-AES or SAMPLE-AES-CTR in fMP4): --key KID:KEY with the KID of the init section's tenc; an app: a ContentKeyProvider for \(key.keyFormat == "identity" ? scheme : key.keyFormat)")
    }
}
