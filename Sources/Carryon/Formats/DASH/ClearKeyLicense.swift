import Foundation

/// W3C Clear Key (Encrypted Media Extensions, section 9.1): the licence request a player sends
/// for a set of key ids, and the JSON Web Key Set the licence server answers with. Carryon
/// speaks it at download time for a DASH Representation protected by Clear Key, so the key is
/// sealed in the ``KeyStore`` like an HLS key.
///
///     request:  {"kids":["EBESExQVFhcYGSAhIiMkJQ"],"type":"temporary"}
///     response: {"keys":[{"kty":"oct","kid":"EBESExQVFhcYGSAhIiMkJQ","k":"AAECAwQFBgcICQoLDA0ODw"}],"type":"temporary"}
enum ClearKeyLicense {
    /// The key format of Clear Key keys in a plan (``DownloadPlan/PlannedKey/keyFormat``).
    static let keyFormat = "org.w3.clearkey"

    /// The 16 bytes of a key id written as a UUID (`10111213-1415-…`) or 32 hexadecimal digits.
    static func keyID(_ text: String) -> [UInt8]? {
        let hex = text.filter { $0 != "-" }
        guard hex.count == 32 else { return nil }
        return Hex.bytes(hex)
    }

    /// The licence request for `keyIDs`.
    static func request(for keyIDs: [[UInt8]]) -> [UInt8] {
        let kids = keyIDs.map { "\"\(base64URL($0))\"" }.joined(separator: ",")
        return Array("{\"kids\":[\(kids)],\"type\":\"temporary\"}".utf8)
    }

    /// The key for `keyID` in a licence server's `response`.
    ///
    /// - Throws: ``CarryonError`` (``CarryonError/Code/keys``) when the response is not a JSON
    ///   Web Key Set, or has no 16-byte key for `keyID`.
    static func key(for keyID: [UInt8], in response: [UInt8], from url: String) throws(CarryonError) -> [UInt8] {
        struct KeySet: Decodable {
            struct Key: Decodable {
                var kty: String?
                var kid: String
                var k: String
            }
            var keys: [Key]
        }
        let set: KeySet
        do {
            set = try JSONDecoder().decode(KeySet.self, from: Data(response))
        } catch {
            throw CarryonError(.keys, "\(url): the Clear Key licence is not a JSON Web Key Set ({\"keys\": [{\"kid\", \"k\"}]}): \(error)")
        }
        guard let entry = set.keys.first(where: { bytes(base64URL: $0.kid) == keyID }) else {
            throw CarryonError(.keys, "\(url): the Clear Key licence has no key for KID \(hex(keyID)) (it has \(set.keys.count) other\(set.keys.count == 1 ? "" : "s"))")
        }
        guard let key = bytes(base64URL: entry.k), key.count == 16 else {
            throw CarryonError(.keys, "\(url): the Clear Key licence's key for KID \(hex(keyID)) is not 16 bytes of base64url")
        }
        return key
    }

    /// The key ids a player's licence `request` asks for.
    ///
    /// - Throws: ``CarryonError`` (``CarryonError/Code/keys``) when it is not a Clear Key
    ///   licence request (`{"kids": ["<base64url>", …]}`) of 16-byte ids.
    static func keyIDs(inRequest request: [UInt8]) throws(CarryonError) -> [[UInt8]] {
        struct Request: Decodable {
            var kids: [String]
        }
        guard let decoded = try? JSONDecoder().decode(Request.self, from: Data(request)), !decoded.kids.isEmpty else {
            throw CarryonError(.keys, "not a Clear Key licence request: {\"kids\": [\"<base64url key id>\"], \"type\": \"temporary\"} is expected")
        }
        var ids: [[UInt8]] = []
        for kid in decoded.kids {
            guard let id = bytes(base64URL: kid), id.count == 16 else {
                throw CarryonError(.keys, "the licence request names \"\(kid.prefix(40))\", which is not a 16-byte key id in base64url")
            }
            ids.append(id)
        }
        return ids
    }

    /// The licence answering a request with `keys` (key id and key).
    static func response(_ keys: [(id: [UInt8], key: [UInt8])]) -> [UInt8] {
        let entries = keys.map { "{\"kty\":\"oct\",\"kid\":\"\(base64URL($0.id))\",\"k\":\"\(base64URL($0.key))\"}" }
        return Array("{\"keys\":[\(entries.joined(separator: ","))],\"type\":\"temporary\"}".utf8)
    }

    /// The key store's id of the key with `keyID`: `kid-` and its 32 hexadecimal digits.
    static func storeID(_ keyID: [UInt8]) -> String {
        "kid-" + hex(keyID)
    }

    static func base64URL(_ bytes: [UInt8]) -> String {
        Data(bytes).base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    static func bytes(base64URL text: String) -> [UInt8]? {
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while base64.count % 4 != 0 { base64 += "=" }
        return Data(base64Encoded: base64).map { [UInt8]($0) }
    }

    static func hex(_ bytes: [UInt8]) -> String {
        Hex.text(bytes)
    }
}
